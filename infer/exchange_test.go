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
// Tolerances: over five seeds the corrected weight had mean 0.750 and
// standard deviation 0.004 (about 48,000 swaps per run); halving η to
// 0.0025 moved it by less than that, so SGLD's discretisation bias is
// small. The 0.015 tolerance is over three standard deviations; the
// uncorrected runs gave 0.648-0.659, off by 0.10, and must be off by 0.04.
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
	if math.Abs(corrected-exact) > 0.015 {
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
// reSGLD 2,900-3,400, so asking for a 4× saving leaves a wide margin.
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
