package infer_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// quadratic is U(θ) = ½(θ - μ)ᵀP(θ - μ) (exact, no data): the Gaussian
// N(μ, P⁻¹), here with scales over six orders of magnitude and strong
// correlation, the case a hand-picked step size fails.
type quadratic struct {
	mu []float64
	p  [][]float64 // precision
}

func (q quadratic) Dim() int     { return len(q.mu) }
func (q quadratic) NumData() int { return 0 }
func (q quadratic) OutputNames() []string {
	names := make([]string, len(q.mu))
	for i := range names {
		names[i] = fmt.Sprintf("x.%d", i+1)
	}
	return names
}
func (q quadratic) Constrain(dst, theta []float64)              { copy(dst, theta) }
func (q quadratic) Evaluator(int, int) (infer.Evaluator, error) { return q, nil }
func (q quadratic) BatchSize() int                              { return 0 }
func (q quadratic) Evaluate(theta []float64, _ []int, energy, grad, variance []float64) error {
	d := len(q.mu)
	for r := range energy {
		x := theta[r*d : (r+1)*d]
		energy[r], variance[r] = 0, 0
		for i := range d {
			g := 0.0
			for j := range d {
				g += q.p[i][j] * (x[j] - q.mu[j])
			}
			grad[r*d+i] = g
			energy[r] += (x[i] - q.mu[i]) * g / 2
		}
	}
	return nil
}

// scaledCorrelated is a 3-D Gaussian with sds 1e-3, 1 and 300 and
// correlation 0.9 between the first two: precision P = (S R S)⁻¹.
func scaledCorrelated() (quadratic, [][]float64) {
	sd := []float64{1e-3, 1, 300}
	rho := 0.9
	cov := [][]float64{{sd[0] * sd[0], rho * sd[0] * sd[1], 0}, {rho * sd[0] * sd[1], sd[1] * sd[1], 0}, {0, 0, sd[2] * sd[2]}}
	det := cov[0][0]*cov[1][1] - cov[0][1]*cov[1][0]
	p := [][]float64{{cov[1][1] / det, -cov[0][1] / det, 0}, {-cov[1][0] / det, cov[0][0] / det, 0}, {0, 0, 1 / cov[2][2]}}
	return quadratic{mu: []float64{0.002, -5, 1000}, p: p}, cov
}

// TestAutoStepGaussian: with lr = auto, the default, SGLD, SGHMC and the
// thermostat find the start, the metric and the step size themselves on a
// Gaussian whose scales span six orders of magnitude (a fixed step size
// diverges on the narrow direction or stands still on the wide one), and
// recover its means and sds. The warm-up's dense metric makes the
// preconditioned Hessian the identity, so λ_max = 1 and η = 0.1. With 4
// chains × 4000 draws the ESS is several hundred per coordinate, so an sd
// has a relative Monte Carlo error of about 3%; the tolerances, 0.15 sd
// for means and 10% for sds, hold the discretisation bias (+2.6% in sd at
// ηλ = 0.1) and three standard errors, and a run in the raw coordinates
// (any single step) misses them by orders of magnitude.
func TestAutoStepGaussian(t *testing.T) {
	target, cov := scaledCorrelated()
	for _, name := range []string{"sgld", "sghmc", "sgnht"} {
		s, err := infer.NewSampler(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !s.AutoStep {
			t.Fatalf("%s: the default step size is not automatic", name)
		}
		res, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 4, Iters: 4000, Burn: 500, Seed: 7})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tun := res.Tuning
		if tun == nil || !tun.Dense || math.Abs(tun.LambdaMax-1) > 0.05 || math.Abs(tun.StepSize-0.1/tun.LambdaMax) > 1e-12 {
			t.Errorf("%s: tuning %+v, want a dense metric with λ_max ≈ 1 and step 0.1/λ_max", name, tun)
		}
		for i := range target.mu {
			mean, variance := moments(res, i+1)
			sd := math.Sqrt(cov[i][i])
			if math.Abs(mean-target.mu[i]) > 0.15*sd || math.Abs(math.Sqrt(variance)/sd-1) > 0.1 {
				t.Errorf("%s: x.%d: mean %.6g sd %.4g, want %.6g and %.4g", name, i+1, mean, math.Sqrt(variance), target.mu[i], sd)
			}
		}
	}
}

// TestAutoStepDiagonal: above denseLimit (64) parameters the metric is
// diagonal, from Hutchinson's estimate of the Hessian's diagonal; on 80
// independent coordinates with sds from 1e-3 to 1e3 it is exact up to the
// probes' noise, and SGLD recovers every sd within 10% (the pooled check
// is the worst of 80, each with about 3% Monte Carlo error).
func TestAutoStepDiagonal(t *testing.T) {
	const d = 80
	q := quadratic{mu: make([]float64, d), p: make([][]float64, d)}
	sds := make([]float64, d)
	for i := range d {
		sds[i] = math.Pow(10, -3+6*float64(i)/(d-1))
		q.mu[i] = 3 * sds[i]
		q.p[i] = make([]float64, d)
		q.p[i][i] = 1 / (sds[i] * sds[i])
	}
	s, err := infer.NewSampler("sgld", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), q, s, infer.Options{Chains: 4, Iters: 3000, Burn: 300, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tuning.Dense {
		t.Errorf("a dense metric for %d parameters", d)
	}
	for i := range d {
		mean, variance := moments(res, i+1)
		if math.Abs(mean-q.mu[i]) > 0.2*sds[i] || math.Abs(math.Sqrt(variance)/sds[i]-1) > 0.12 {
			t.Errorf("x.%d: mean %.4g sd %.4g, want %.4g and %.4g", i+1, mean, math.Sqrt(variance), q.mu[i], sds[i])
		}
	}
}

// TestAutoStepDiagonalHub: Hutchinson's estimate of a coordinate's
// curvature carries its couplings at their own scales, so where one
// coordinate of a large curvature (a hierarchy's noise scale) couples to
// many of a small one (the groups' intercepts), one pass of 32 probes
// leaves some of the small ones' estimates near zero or negative, and the
// metric's λ_max follows (128 on the million-row varying-intercept model).
// Here 300 coordinates of precision 250 each couple to a hub of precision
// 10⁷ by ±700 (a correlation of 0.014 each: the Hessian is positive
// definite and, scaled by its diagonal, within 1 ± 0.014·√300 = 1 ± 0.24
// of I). The second pass with probes scaled by the first's 1/√H_ii
// estimates every diagonal within a few percent, so λ_max stays below 1.5;
// one pass gives λ_max in the tens or more.
func TestAutoStepDiagonalHub(t *testing.T) {
	const d = 301
	q := quadratic{mu: make([]float64, d), p: make([][]float64, d)}
	for i := range d {
		q.p[i] = make([]float64, d)
	}
	q.p[0][0] = 1e7
	for i := 1; i < d; i++ {
		c := 700.0
		if i%3 == 0 {
			c = -c
		}
		q.p[i][i], q.p[0][i], q.p[i][0] = 250, c, c
		q.mu[i] = 0.1 * float64(i%7)
	}
	s, err := infer.NewSampler("sgld", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), q, s, infer.Options{Chains: 2, Iters: 50, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if tun := res.Tuning; tun.Dense || tun.LambdaMax > 1.5 {
		t.Errorf("tuning %+v: want a diagonal metric with λ_max below 1.5", *tun)
	}
}

// TestAutoStepNoise: on the minibatched regression of resume_test.go with
// batches of 2 rows of 200, the plain gradient's noise (σ² ≈ N²/B·Var of
// a row's score) caps the step: the tuning records a noise ratio above the
// tolerance and a step below the curvature's bound, and warns when the
// cap costs more than a factor 10; the full batch has no noise. By
// default (gradient = auto) the control variate then replaces it, whose
// noise near the mode is an order of magnitude smaller, so the step is
// (nearly) the curvature's.
func TestAutoStepNoise(t *testing.T) {
	s, err := infer.NewSampler("sgld", map[string]string{"gradient": "plain"})
	if err != nil {
		t.Fatal(err)
	}
	full, err := infer.Run(context.Background(), newRegression(), s, infer.Options{Chains: 2, Iters: 100, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	small, err := infer.Run(context.Background(), newRegression(), s, infer.Options{Chains: 2, Iters: 100, Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if full.Tuning.NoiseRatio != 0 || full.Tuning.Warning != "" {
		t.Errorf("full batch: tuning %+v", full.Tuning)
	}
	bound := 0.1 / small.Tuning.LambdaMax
	if small.Tuning.NoiseRatio < 1 || math.Abs(small.Tuning.StepSize-bound*0.05/small.Tuning.NoiseRatio) > 1e-9*bound {
		t.Errorf("batch 2: tuning %+v, want the step capped by the noise", small.Tuning)
	}
	if !strings.Contains(small.Tuning.Warning, "minibatch gradient noise caps the step size") || len(small.Warnings) == 0 {
		t.Errorf("batch 2: warning %q, run warnings %q", small.Tuning.Warning, small.Warnings)
	}
	auto, err := infer.NewSampler("sgld", nil)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := infer.Run(context.Background(), newRegression(), auto, infer.Options{Chains: 2, Iters: 100, Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !cv.Tuning.ControlVariate || cv.Tuning.NoiseRatio > small.Tuning.NoiseRatio/10 || cv.Tuning.StepSize < 5*small.Tuning.StepSize || cv.Tuning.Warning != "" {
		t.Errorf("batch 2 with the control variate: tuning %+v; the plain gradient's %+v", cv.Tuning, small.Tuning)
	}
	// A temperature ladder's noise is judged at its target level, T = 1,
	// with the plain gradient (ladders take no control variate): a ratio of
	// the same order as SGLD's (estimates from 16 pairs of minibatches
	// differ by up to a factor of two or so), and a step capped tenfold.
	ladder, err := infer.NewSampler("resgld", nil)
	if err != nil {
		t.Fatal(err)
	}
	re, err := infer.Run(context.Background(), newRegression(), ladder, infer.Options{Chains: 2, Iters: 100, Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if re.Tuning.ControlVariate || re.Tuning.NoiseRatio < small.Tuning.NoiseRatio/3 || re.Tuning.NoiseRatio > 3*small.Tuning.NoiseRatio || re.Tuning.StepSize > bound/10 {
		t.Errorf("resgld at batch 2: tuning %+v; SGLD's %+v", re.Tuning, small.Tuning)
	}
}

// TestAutoStepModerateNoise covers noise ratios between the tolerance
// (0.05) and ten times it, where the warm-up caps the step without a
// warning: at batches of 25 of the regression's 200 rows the plain
// gradient's ratio at the curvature's bound is about 0.3. The step must be
// the bound times 0.05/ratio exactly (uncapped, it stays at the bound), and
// SGLD's draws must have the exact posterior's sds. The cap keeps the
// noise's share of a variance under 5% and the discretisation (ηλ ≈ 0.015
// in the metric's units) adds under 1%, so an sd is at most 3.3% wide;
// measured +0.7% and -0.7%, and +4.8% and +4.3% with the step uncapped
// (the ratio bounds the noisiest direction, so the sds widen less than it
// says). Over 4 × 400,000 draws (autocorrelation time about 2/(ηλ) ≈ 130,
// an ESS near 12,000) an sd's Monte Carlo error is about 0.65%; 5% is the
// 3.3% and 2.6 errors, a check on gross failures: the exact step is what
// catches a loosened cap.
func TestAutoStepModerateNoise(t *testing.T) {
	s, err := infer.NewSampler("sgld", map[string]string{"gradient": "plain"})
	if err != nil {
		t.Fatal(err)
	}
	g := newRegression()
	res, err := infer.Run(context.Background(), g, s, infer.Options{Chains: 4, Iters: 400000, Batch: 25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tun := res.Tuning
	bound := 0.1 / tun.LambdaMax
	if tun.NoiseRatio <= 0.05 || tun.NoiseRatio >= 0.5 {
		t.Fatalf("batch 20: noise ratio %.3g, not in the range this test is for: %+v", tun.NoiseRatio, tun)
	}
	if math.Abs(tun.StepSize-bound*0.05/tun.NoiseRatio) > 1e-9*bound || tun.Warning != "" {
		t.Errorf("batch 20: tuning %+v, want the step capped at %.4g without a warning", tun, bound*0.05/tun.NoiseRatio)
	}
	t.Logf("noise ratio %.3g, step %.4g (the curvature's bound %.4g)", tun.NoiseRatio, tun.StepSize, bound)
	_, cov := g.posterior()
	for i := range 2 {
		_, v := moments(res, i+1)
		ratio := math.Sqrt(v / cov[i][i])
		t.Logf("%s: sd %.4g, exact %.4g (%+.1f%%)", []string{"a", "b"}[i], math.Sqrt(v), math.Sqrt(cov[i][i]), 100*(ratio-1))
		if math.Abs(ratio-1) > 0.05 {
			t.Errorf("%s: sd %.4g, exact %.4g: the minibatch noise widens the posterior", []string{"a", "b"}[i], math.Sqrt(v), math.Sqrt(cov[i][i]))
		}
	}
}

// TestStepGivenByHandJudged: a step size given by hand is judged after the
// run by the warm-up's measures, without changing its draws: on the
// minibatched regression (curvature about N·E[x²] ≈ 60 in b), lr = 0.01 is
// lr·λ_max ≈ 0.6, a large bias, and at batches of 2 rows its gradient
// noise adds far more than 10% to the variance; lr = 1e-4 on every row is
// neither. The draws are those of the same run that is not judged (a
// checkpoint resumed, say), since the judgement uses streams of its own.
func TestStepGivenByHandJudged(t *testing.T) {
	s, err := infer.NewSampler("sgld", map[string]string{"lr": "0.01"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), newRegression(), s, infer.Options{Chains: 2, Iters: 200, Batch: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var step, noise bool
	for _, w := range res.Warnings {
		step = step || strings.Contains(w, "the step size lr = 0.01 is too large for the posterior's curvature")
		noise = noise || strings.Contains(w, "the minibatch gradient noise widens the posterior: at lr = 0.01")
	}
	if !step || !noise {
		t.Errorf("lr = 0.01, batch 2: warnings %q", res.Warnings)
	}
	small, err := infer.NewSampler("sgld", map[string]string{"lr": "1e-4"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = infer.Run(context.Background(), newRegression(), small, infer.Options{Chains: 2, Iters: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("lr = 1e-4 on every row: warnings %q", res.Warnings)
	}
}

// TestAutoStepLadder: a temperature ladder tunes its step and metric at
// the target level (the curvature does not depend on the temperature, and
// the noise ratio is largest at T = 1) and samples every level in the
// metric's coordinates; reSGLD, m-reSGLD and RENHD with their defaults recover
// the scaled, correlated Gaussian at the target level (tolerances as
// TestAutoStepGaussian's), and swap.
func TestAutoStepLadder(t *testing.T) {
	target, cov := scaledCorrelated()
	for _, name := range []string{"resgld", "m_resgld", "renhd"} {
		s, err := infer.NewSampler(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 4, Iters: 4000, Burn: 500, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range target.mu {
			mean, variance := moments(res, i+1)
			sd := math.Sqrt(cov[i][i])
			if math.Abs(mean-target.mu[i]) > 0.15*sd || math.Abs(math.Sqrt(variance)/sd-1) > 0.1 {
				t.Errorf("%s: x.%d: mean %.6g sd %.4g, want %.6g and %.4g", name, i+1, mean, math.Sqrt(variance), target.mu[i], sd)
			}
		}
		if res.Exchange[0].Accepts[0] == 0 {
			t.Errorf("%s: no swap accepted in %d attempts", name, res.Exchange[0].Attempts[0])
		}
	}
	// A step-size ladder (DEO*-SGD) with lr_min = lr_max = auto, its
	// defaults, spans the tuned step to ten times it in the metric's
	// coordinates: its SGD levels stay within their stability bound. (Its
	// deterministic swaps hand the target level low-energy states, so its
	// draws are narrower than the posterior by design: 0.82-0.84 of the sds
	// here, which is why it is not judged on moments.)
	s, err := infer.NewSampler("deo_sgd", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 2, Iters: 500, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	eta, ladder := res.Tuning.StepSize, res.Exchange[0].Ladder
	if math.Abs(ladder[0].LR/eta-1) > 1e-9 || math.Abs(ladder[len(ladder)-1].LR/(10*eta)-1) > 1e-9 || res.Exchange[0].Accepts[0] == 0 {
		t.Errorf("deo_sgd: tuned step %g, ladder %v, accepts %v", eta, ladder, res.Exchange[0].Accepts)
	}
	if _, err := infer.NewSampler("deo_sgd", map[string]string{"lr_min": "1e-3"}); err == nil || !strings.Contains(err.Error(), "lr_min and lr_max are both auto") {
		t.Errorf("lr_min given, lr_max auto: %v", err)
	}
}

// TestControlVariateRefresh: SGLD-CV with its centres refreshed at the
// chains every 25 iterations (SVRG-style) on the regression of 200 rows
// at minibatches of 2: the centres leave the mode, and the draws still
// match the exact Gaussian posterior (precision XᵀX + I/100), means within
// 0.15 sd and sds within 10% (ESS about 1,000 of 4 × 3,000 draws).
func TestControlVariateRefresh(t *testing.T) {
	g := newRegression()
	mean, cov := g.posterior()
	s, err := infer.NewSampler("sghmc", map[string]string{"gradient": "control_variate", "cv_refresh": "25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), g, s, infer.Options{Chains: 4, Iters: 3000, Batch: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cv := res.State.ControlVariate
	if cv == nil || cv.Centers[0] == cv.Centers[2] {
		t.Fatalf("the centres were not refreshed: %+v", cv)
	}
	for i := range 2 {
		m, v := moments(res, i+1)
		sd := math.Sqrt(cov[i][i])
		if math.Abs(m-mean[i]) > 0.15*sd || math.Abs(math.Sqrt(v)/sd-1) > 0.1 {
			t.Errorf("%s: mean %.5g sd %.4g, exact %.5g and %.4g", []string{"a", "b"}[i], m, math.Sqrt(v), mean[i], sd)
		}
	}
}

// TestHandStepModerateNoise: a step given by hand is warned about once its
// minibatch noise adds more than 10% to a variance (twice the warm-up's
// 5% tolerance), not only when it is far past it: at batches of 20 of the
// regression's 200 rows, lr = 3e-4 has a noise ratio of about 0.26 (26%,
// warned) and lr = 1e-4 about 0.09 (not).
func TestHandStepModerateNoise(t *testing.T) {
	for _, c := range []struct {
		lr   string
		warn bool
	}{{"3e-4", true}, {"1e-4", false}} {
		s, err := infer.NewSampler("sgld", map[string]string{"lr": c.lr})
		if err != nil {
			t.Fatal(err)
		}
		res, err := infer.Run(context.Background(), newRegression(), s, infer.Options{Chains: 2, Iters: 200, Batch: 20, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range res.Warnings {
			warned = warned || strings.Contains(w, "the minibatch gradient noise widens the posterior")
		}
		if warned != c.warn {
			t.Errorf("lr = %s at batches of 20: warned %v, want %v: %q", c.lr, warned, c.warn, res.Warnings)
		}
	}
}
