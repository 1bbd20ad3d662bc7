package infer_test

import (
	"context"
	"math"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// doubleWell is U(x) = h (x² - 1)² + c x: two modes near ±1 behind a
// barrier of about h, the right one deeper by about 2c.
type doubleWell struct{ h, c float64 }

func (w doubleWell) Dim() int                                    { return 1 }
func (w doubleWell) NumData() int                                { return 0 }
func (w doubleWell) OutputNames() []string                       { return []string{"x"} }
func (w doubleWell) Constrain(dst, theta []float64)              { copy(dst, theta) }
func (w doubleWell) Evaluator(int, int) (infer.Evaluator, error) { return w, nil }
func (w doubleWell) BatchSize() int                              { return 0 }
func (w doubleWell) Evaluate(theta []float64, _ []int, energy, grad, variance []float64) error {
	for r, x := range theta {
		energy[r] = w.h*(x*x-1)*(x*x-1) + w.c*x
		grad[r] = 4*w.h*x*(x*x-1) + w.c
		variance[r] = 0
	}
	return nil
}

// leftWeight is the exact mass of x < 0 under exp(-U), by the trapezoid
// rule on [-4, 4] (the density is below e^-500 outside).
func (w doubleWell) leftWeight() float64 {
	const n = 200000
	var left, total float64
	for i := 0; i <= n; i++ {
		x := -4 + 8*float64(i)/n
		u := math.Exp(-(w.h*(x*x-1)*(x*x-1) + w.c*x))
		if i == 0 || i == n {
			u /= 2
		}
		total += u
		if x < 0 {
			left += u
		}
	}
	return left / total
}

// fractionBelow is the fraction of the target level's draws with x < 0.
func fractionBelow(r *infer.Result) float64 {
	var below, n float64
	for _, chain := range r.Draws {
		for _, d := range chain {
			if d[1] < 0 {
				below++
			}
			n++
		}
	}
	return below / n
}

func runWell(t *testing.T, w doubleWell, name string, settings map[string]string, o infer.Options) *infer.Result {
	t.Helper()
	s, err := infer.NewSampler(name, settings)
	if err != nil {
		t.Fatal(err)
	}
	r, err := infer.Run(context.Background(), w, s, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestVarianceCorrectionMatters runs two-replica reSGLD (τ = 1, 10) on a
// double well whose energies carry N(0, 2²) noise, as `--energy-noise 2`
// does. With the correction of Eq. 15 of seed 000 (σ̂² = 4, the noise's
// variance, which the driver adds to the variance estimate) the swap is the
// penalty method, exact under normal noise, so the target level's left
// mode weight matches the exact 0.754; without it, noisy energy differences
// let hot states into the target level too often and the weight moves
// toward the hot level's 0.525.
//
// Tolerances: over twelve seeds the corrected weight was 0.0056 below the
// exact one with a standard deviation of 0.0041 (about 48,000 swaps per
// run); the 0.018 tolerance is that bias and three deviations. It cannot
// tell δσ̂² from σ̂² in Eq. 15 (at δ = 0.9 that moves the weight by 0.01):
// TestVarianceCorrectionHalfGap does, at δ = 0.5, and
// TestMetropolisSwapProbability pins the formula. The uncorrected runs
// gave 0.648-0.659, off by 0.10, and must be off by 0.04.
func TestVarianceCorrectionMatters(t *testing.T) {
	w := doubleWell{h: 4, c: 0.6}
	exact := w.leftWeight()
	o := infer.Options{Chains: 4, Iters: 200000, Burn: 2000, Seed: 3, EnergyNoise: 2}
	base := map[string]string{"lr": "0.005", "t_max": "10"}
	with := map[string]string{"correction": "model"}
	without := map[string]string{"correction": "none"}
	for k, v := range base {
		with[k], without[k] = v, v
	}
	corrected := fractionBelow(runWell(t, w, "resgld", with, o))
	naive := fractionBelow(runWell(t, w, "resgld", without, o))
	t.Logf("left mode weight: exact %.4f, corrected swaps %.4f, uncorrected %.4f", exact, corrected, naive)
	if math.Abs(corrected-exact) > 0.018 {
		t.Errorf("corrected reSGLD: left weight %.4f, exact %.4f", corrected, exact)
	}
	if math.Abs(naive-exact) < 0.04 {
		t.Errorf("uncorrected swaps: left weight %.4f, within 0.04 of the exact %.4f: the bias the correction removes is not seen", naive, exact)
	}
}

// evalsToConverge runs chains from the shallow mode x = 1 and returns the
// gradient evaluations per chain (iterations × replicas) after which the
// running estimate of the left mode's weight, over every chain's target
// draws so far, stays within 0.05 of the exact weight (the total-variation
// distance of the two-mode law), or the whole budget if it never settles.
func evalsToConverge(t *testing.T, w doubleWell, name string, settings map[string]string, iters, chains int, seed uint64) int {
	t.Helper()
	s, err := infer.NewSampler(name, settings)
	if err != nil {
		t.Fatal(err)
	}
	init := make([][]float64, chains)
	for i := range init {
		init[i] = []float64{1}
	}
	left := make([]float64, iters)
	_, err = infer.Run(context.Background(), w, s, infer.Options{Chains: chains, Iters: iters, Seed: seed, Init: init,
		OnDraw: func(d infer.Draw) error {
			if d.Values[1] < 0 {
				left[d.Iter]++
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	exact, sum, settled := w.leftWeight(), 0.0, 0
	for k := range iters {
		sum += left[k]
		if math.Abs(sum/float64((k+1)*chains)-exact) >= 0.05 {
			settled = k + 1
		}
	}
	return settled * max(1, s.Replicas)
}

// TestReplicaExchangeAccelerates compares single-chain SGLD with
// two-replica reSGLD (τ = 1, 10) on a double well with a barrier of 5 at
// the same step size, counting both replicas' gradients. While developing,
// SGLD needed 30,000-85,000 evaluations per chain over three seeds and
// reSGLD 2,900-3,400; on the counter-based streams seeds 1 and 2 give
// 26,895 and 32,751 against 698 and 1,452. Asking for a 4× saving leaves
// a wide margin.
func TestReplicaExchangeAccelerates(t *testing.T) {
	w := doubleWell{h: 5, c: 0.6}
	for _, seed := range []uint64{1, 2} {
		sgld := evalsToConverge(t, w, "sgld", map[string]string{"lr": "0.005"}, 100000, 16, seed)
		resgld := evalsToConverge(t, w, "resgld", map[string]string{"lr": "0.005", "t_max": "10"}, 10000, 16, seed)
		t.Logf("seed %d: gradient evaluations per chain to TV < 0.05: SGLD %d, reSGLD %d", seed, sgld, resgld)
		if resgld >= 20000 || 4*resgld > sgld {
			t.Errorf("seed %d: reSGLD took %d gradient evaluations, SGLD %d: no 4× acceleration", seed, resgld, sgld)
		}
	}
}

// TestMultiVarianceSwap runs m-reSGLD (seed 004) on the noisy double well:
// the swap averages two independent noisy energy estimators with weights
// (0.3, 0.7) and corrects for (a1²σ1² + a2²σ2²)δ, which is again the
// penalty method under normal noise, so the target level's mode weight is
// exact; tolerance as in TestVarianceCorrectionMatters. The combined
// estimator has variance (0.09 + 0.49)·4 < 4, so it also swaps more often
// than reSGLD on one estimator.
func TestMultiVarianceSwap(t *testing.T) {
	w := doubleWell{h: 4, c: 0.6}
	o := infer.Options{Chains: 4, Iters: 200000, Burn: 2000, Seed: 5, EnergyNoise: 2}
	multi := runWell(t, w, "m_resgld", map[string]string{"lr": "0.005", "t_max": "10", "a1": "0.3", "a2": "0.7"}, o)
	single := runWell(t, w, "resgld", map[string]string{"lr": "0.005", "t_max": "10"}, o)
	rate := func(r *infer.Result) float64 {
		a, n := 0, 0
		for _, e := range r.Exchange {
			a, n = a+e.Accepts[0], n+e.Attempts[0]
		}
		return float64(a) / float64(n)
	}
	got, exact := fractionBelow(multi), w.leftWeight()
	t.Logf("m-reSGLD: left weight %.4f (exact %.4f), swap rate %.4f (reSGLD %.4f)", got, exact, rate(multi), rate(single))
	if math.Abs(got-exact) > 0.015 {
		t.Errorf("m-reSGLD left weight %.4f, exact %.4f", got, exact)
	}
	if rate(multi) <= rate(single) {
		t.Errorf("m-reSGLD swapped at %.4f, not more than reSGLD's %.4f", rate(multi), rate(single))
	}
}

// TestSwapIntensity checks reLD's swap probability a·η·S (seed 003,
// Eq. 3.16) where S = 1: with nearly equal temperatures every swap has
// probability a·η = 0.2 exactly, so over 4 × 20,000 rounds the rate's
// standard error is 0.0014 and 0.006 is four of them.
func TestSwapIntensity(t *testing.T) {
	r := runWell(t, doubleWell{h: 1}, "reld", map[string]string{"lr": "0.01", "intensity": "20", "t_min": "1", "t_max": "1.0000001"},
		infer.Options{Chains: 4, Iters: 20000, Seed: 1})
	a, n := 0, 0
	for _, e := range r.Exchange {
		a, n = a+e.Accepts[0], n+e.Attempts[0]
	}
	if got := float64(a) / float64(n); math.Abs(got-0.2) > 0.006 {
		t.Errorf("swap rate %.4f over %d attempts, want a·η = 0.2", got, n)
	}
}

// TestFastTemperingNoise checks the f-reSGLD step (seed 004): on U = hθ²/2
// with gradients carrying N(0, s²) noise, SGLD is the AR(1) recursion
// θ' = (1 - ηh)θ + (2ηT + η²s²)^½ ξ, whose variance exceeds the noiseless
// chain's T/(h(1 - ηh/2)) by η²s²/(ηh(2 - ηh)); the fast-tempering step
// injects 2c² = 2ηT - η²s² instead, which restores the noiseless variance
// exactly. Here ηh = 0.1 and η s² = 1, so plain SGLD is 53% too wide. With
// 4 chains × 100,000 draws and autocorrelation time 19, the variance's
// relative standard error is about 1% (0.8% measured over 32 seeds); the
// tolerance is 4%. The running estimate of s² (grad_var = auto) must do
// nearly as well, but it is biased: ½(∇Ũ_k - ∇Ũ_{k-1})² has mean about
// s²(1 + ηh) + ηh³ Var θ, because the gradient moves (the ηh³ Var θ) and
// because θ_k already carries -η s ε_{k-1}, the noise of the previous
// gradient, which correlates the two differences (the ηh s², ten times
// larger). So it estimates 11.1 for s² = 10, injects 2c² = 0.089 instead
// of 0.1, and the variance settles at 0.189/0.19 = 0.995, 5.5% low; 32
// seeds measured -5.45% ± 0.13% (spread 0.75% per run). A 6% tolerance
// was 0.7 standard errors from that bias and failed for about one seed in
// four; 9% is the bias plus four standard errors.
func TestFastTemperingNoise(t *testing.T) {
	const h, lr, s2, temperature = 1.0, 0.1, 10.0, 1.0
	want := temperature / (h * (1 - lr*h/2))
	for _, c := range []struct {
		name string
		dyn  infer.Dynamics
		tol  float64
	}{
		{"known s²", &infer.FastLangevin{GradVar: s2}, 0.04},
		{"estimated s²", &infer.FastLangevin{GradVar: -1}, 0.09},
	} {
		s := infer.Sampler{Name: "f", Dynamics: c.dyn, Schedule: infer.Constant(lr), Temperature: temperature}
		res, err := infer.Run(context.Background(), gaussian{h: []float64{h}}, s, infer.Options{Chains: 4, Iters: 100000, Burn: 1000, Seed: 4, GradNoise: math.Sqrt(s2)})
		if err != nil {
			t.Fatal(err)
		}
		_, v := moments(res, 1)
		t.Logf("%s: variance %.4f, noiseless SGLD's %.4f", c.name, v, want)
		if math.Abs(v/want-1) > c.tol {
			t.Errorf("%s: variance %.4f, want %.4f", c.name, v, want)
		}
	}
	plain := infer.Sampler{Name: "sgld", Dynamics: infer.Langevin{}, Schedule: infer.Constant(lr), Temperature: temperature}
	res, err := infer.Run(context.Background(), gaussian{h: []float64{h}}, plain, infer.Options{Chains: 4, Iters: 100000, Burn: 1000, Seed: 4, GradNoise: math.Sqrt(s2)})
	if err != nil {
		t.Fatal(err)
	}
	if _, v := moments(res, 1); v/want < 1.3 {
		t.Errorf("plain SGLD with gradient noise: variance %.4f, expected about 1.53 × %.4f", v, want)
	}
}
