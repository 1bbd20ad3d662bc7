package infer_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/summary"
)

// checkGaussian compares every column of a run with the Gaussian N(mu,
// cov): each mean, and each mean of (x − μ)², the variance, within 5 of
// their Monte Carlo standard errors (from the ESS of x and of (x − μ)²
// respectively, so that antithetic chains, whose ESS of x exceeds the
// draws, are not held to a variance they cannot have). The chance that one
// of a handful of columns strays so far by chance is below 1e-5.
func checkGaussian(t *testing.T, r *infer.Result, mu []float64, cov [][]float64) {
	t.Helper()
	for i := range mu {
		chains := r.Chains(i + 1)
		s := summary.Summarize(r.Columns[i+1], chains)
		if z := math.Abs(s.Mean-mu[i]) / s.MCSE; z > 5 {
			t.Errorf("%s: mean %.6g, want %.6g (MCSE %.3g, %.1f of them; ESS %.0f)", s.Name, s.Mean, mu[i], s.MCSE, z, s.ESSBulk)
		}
		squares := make([][]float64, len(chains))
		for c, x := range chains {
			for _, v := range x {
				squares[c] = append(squares[c], (v-mu[i])*(v-mu[i]))
			}
		}
		v := summary.Summarize("", squares)
		if z := math.Abs(v.Mean-cov[i][i]) / v.MCSE; z > 5 {
			t.Errorf("%s: variance %.4g of the true one (MCSE %.3g of it, %.1f of them)", s.Name, v.Mean/cov[i][i], v.MCSE/cov[i][i], z)
		}
	}
}

// TestExactSamplersGaussian runs nuts, hmc and mala with their defaults
// (Stan's warm-up, a diagonal metric) on correlated Gaussians whose
// scales differ, where a hand-picked step size fails: the warm-up must
// find the scales, and the draws must have the exact moments. NUTS gets
// scales from 1e-3 to 300 and a start 3 sds from the mean; HMC's ten
// steps and MALA's one cannot cross that in Stan's first 100 warm-up
// iterations at the step the smallest scale allows (nor can Stan's), so
// theirs span 0.1 to 10.
func TestExactSamplersGaussian(t *testing.T) {
	wide, wideCov := scaledCorrelated()
	sd := []float64{0.1, 1, 10}
	moderateCov := [][]float64{{sd[0] * sd[0], 0.9 * sd[0] * sd[1], 0}, {0.9 * sd[0] * sd[1], 1, 0}, {0, 0, 100}}
	moderate := quadratic{mu: []float64{0.5, -2, 10}, p: inverse3(moderateCov)}
	for _, tc := range []struct {
		name   string
		target quadratic
		cov    [][]float64
		iters  int
	}{{"nuts", wide, wideCov, 1000}, {"hmc", moderate, moderateCov, 1000}, {"mala", moderate, moderateCov, 4000}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := infer.NewSampler(tc.name, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := infer.Run(context.Background(), tc.target, s, infer.Options{Seed: 3, Iters: tc.iters})
			if err != nil {
				t.Fatal(err)
			}
			checkGaussian(t, r, tc.target.mu, tc.cov)
			if len(r.Warnings) > 0 {
				t.Errorf("warnings: %q", r.Warnings)
			}
			for c, rep := range r.Exact {
				// Dual averaging aims at δ = 0.8; the final step is its
				// average iterate, which gives a mean acceptance above δ:
				// NUTS's lands at 0.8-0.9 here, as Stan's does. HMC's is
				// 0.95-0.99 (seeds 1-3): its terminal buffer of 50
				// iterations is too short for the noisier statistic of one
				// trajectory (with term_buffer = 1000 it is 0.87). MALA's
				// one-step statistic is noisier still (0.4-0.86 for δ =
				// 0.574); it is checked by its moments alone.
				if tc.name != "mala" && (rep.MeanAccept < 0.75 || rep.MeanAccept > 0.99) {
					t.Errorf("chain %d: mean acceptance %.3f, want about 0.8", c+1, rep.MeanAccept)
				}
				if tc.name == "mala" {
					continue // its metric is poor: MALA mixes too slowly in 1,000 warm-up iterations
				}
				// The metric's diagonal is the last window's 500 draws'
				// variance shrunk as Stan shrinks it, but toward its own
				// scale, (n/(n + 5))σ² + 10⁻³·5/(n + 5)·σ²: within 30% for
				// every coordinate (the variance of 500 autocorrelated
				// draws errs by up to 20%).
				// The default metric (auto) is dense where two
				// coordinates correlate at 0.9, as they do here.
				d := len(tc.target.mu)
				for i := range d {
					v := rep.InvMetric[i]
					if rep.Dense {
						v = rep.InvMetric[i*d+i]
					}
					if want := (500.0/505 + 1e-3*5/505) * tc.cov[i][i]; math.Abs(v/want-1) > 0.3 {
						t.Errorf("chain %d: metric element %d is %.3g, want about %.3g", c+1, i+1, v, want)
					}
				}
			}
		})
	}
}

// inverse3 inverts a symmetric 3×3 matrix by cofactors.
func inverse3(a [][]float64) [][]float64 {
	c := func(i, j int) float64 {
		r := func(k int) int { return (k + 1) % 3 }
		s := func(k int) int { return (k + 2) % 3 }
		return a[r(j)][r(i)]*a[s(j)][s(i)] - a[r(j)][s(i)]*a[s(j)][r(i)]
	}
	det := a[0][0]*c(0, 0) + a[0][1]*c(1, 0) + a[0][2]*c(2, 0)
	inv := make([][]float64, 3)
	for i := range inv {
		inv[i] = make([]float64, 3)
		for j := range inv[i] {
			inv[i][j] = c(i, j) / det
		}
	}
	return inv
}

// TestDenseMetric learns the covariance of a Gaussian with correlation
// 0.99, where a dense metric makes NUTS's trajectories short: after
// warm-up the mean tree depth is at most 3 (the posterior is then close to
// N(0, I) in the metric's coordinates, where a U-turn comes within about
// π/ε ≈ 4-6 steps), against 4 or more with the diagonal metric.
func TestDenseMetric(t *testing.T) {
	rho := 0.99
	cov := [][]float64{{1, rho}, {rho, 1}}
	det := 1 - rho*rho
	target := quadratic{mu: []float64{1, -1}, p: [][]float64{{1 / det, -rho / det}, {-rho / det, 1 / det}}}
	depth := map[string]float64{}
	for _, metric := range []string{"dense", "diag"} {
		s, err := infer.NewSampler("nuts", map[string]string{"metric": metric})
		if err != nil {
			t.Fatal(err)
		}
		r, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 5, Iters: 1000})
		if err != nil {
			t.Fatal(err)
		}
		checkGaussian(t, r, target.mu, cov)
		col := slices.Index(r.StatColumns, "treedepth__")
		n, sum := 0, 0.0
		for _, chain := range r.Stats {
			for _, st := range chain {
				sum += st[col]
				n++
			}
		}
		depth[metric] = sum / float64(n)
		if metric == "dense" {
			m := r.Exact[0].InvMetric
			if math.Abs(m[1]-rho) > 0.2 || math.Abs(m[0]-1) > 0.2 { // 500 correlated draws estimate a (co)variance within about 15%
				t.Errorf("dense metric %v, want about the covariance %v", m, cov)
			}
		}
	}
	if depth["dense"] > 3 || depth["diag"] < depth["dense"]+0.5 {
		t.Errorf("mean tree depth %.2f with the dense metric and %.2f with the diagonal one; want the dense one at most 3 and clearly shorter", depth["dense"], depth["diag"])
	}
}

// TestExactResume stops a NUTS run inside its warm-up and resumes it: the
// draws must be those of the run that never stopped, bit for bit, as the
// State holds every chain's step size, metric window and dual average;
// and the same for parallel tempering (pt), whose State adds the ladder,
// its tuning round and the swaps' streams (stopped after two of its
// tuning rounds have moved the levels).
func TestExactResume(t *testing.T) {
	correlated, _ := scaledCorrelated()
	well := powerWell{doubleWell: doubleWell{h: 8, c: 0.6}, prior: gaussPrior{d: 1, s: 3}}
	for _, c := range []struct {
		name, path string
		target     infer.Target
	}{{"nuts", "", correlated}, {"pt", "temperature", correlated}, {"pt", "power", well}} {
		name, target := c.name, c.target
		settings := map[string]string{"warmup": "200"}
		if c.path != "" {
			settings["path"] = c.path
		}
		s, err := infer.NewSampler(name, settings)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 9, Chains: 2, Iters: 300})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		stopAt := 150
		if c.path == "power" { // mid-sampling, where log Z's sums are under way
			stopAt = 350
		}
		part, _ := infer.Run(ctx, target, s, infer.Options{Seed: 9, Chains: 2, Iters: 300, Progress: func(p infer.Progress) {
			if p.Done == stopAt {
				cancel()
			}
		}})
		if part == nil || part.State.Done != stopAt {
			t.Fatalf("%s: the run did not stop at iteration %d", name, stopAt)
		}
		rest, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 9, Chains: 2, Iters: 300 + 200 - stopAt, Resume: part.State})
		if err != nil {
			t.Fatal(err)
		}
		for c := range whole.Draws {
			// A run resumed after the warm-up returns the draws it made.
			tail := len(whole.Draws[c]) - len(rest.Draws[c])
			if !slices.EqualFunc(whole.Draws[c][tail:], rest.Draws[c], slices.Equal) || len(rest.Draws[c]) == 0 {
				t.Fatalf("%s, chain %d: the resumed run's %d draws differ from the whole run's %d", name, c+1, len(rest.Draws[c]), len(whole.Draws[c]))
			}
			if !slices.EqualFunc(whole.Stats[c][tail:], rest.Stats[c], slices.Equal) {
				t.Fatalf("%s, chain %d: the resumed run's sampler diagnostics differ", name, c+1)
			}
		}
		if name == "pt" && !slices.Equal(whole.Exchange[0].Accepts, rest.Exchange[0].Accepts) {
			t.Errorf("pt: the resumed run's swaps %v differ from the whole run's %v", rest.Exchange[0].Accepts, whole.Exchange[0].Accepts)
		}
		if c.path == "power" && (whole.Evidence == nil || rest.Evidence == nil || *whole.Evidence != *rest.Evidence) {
			t.Errorf("pt on the power path: the resumed run's log Z %v differs from the whole run's %v", rest.Evidence, whole.Evidence)
		}
	}
}

// TestExactSettings checks what the exact samplers refuse.
func TestExactSettings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings map[string]string
		want     string
	}{
		{"nuts", map[string]string{"replicas": "4", "exchange": "metropolis"}, "swaps the levels of its ladder"},
		{"nuts", map[string]string{"friction": "0.1"}, "does not apply"},
		{"nuts", map[string]string{"adapt_delta": "1"}, "must lie in (0, 1)"},
		{"hmc", map[string]string{"max_depth": "5"}, "does not apply"},
		{"nuts", map[string]string{"metric": "full"}, "want one of diag, dense, unit"},
		{"nuts", map[string]string{"lr": "0.1", "adapt_delta": "0.9"}, "does not apply"},
	} {
		_, err := infer.NewSampler(tc.name, tc.settings)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one saying %q", tc.name, tc.settings, err, tc.want)
		}
	}
}

// correlatedGaussian is N(0, Σ) in d dimensions and Σ: with kappa > 1,
// Σ = S·QΛQᵀ·S for a random rotation Q (the QR factor of a Gaussian
// matrix, seeded), eigenvalues Λ log-spaced over a factor kappa and sds S
// spread from 0.1 to 10, so that the coordinates are correlated every
// which way; with kappa = 1, independent coordinates of those sds.
func correlatedGaussian(t *testing.T, d int, kappa float64) (quadratic, [][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(d)))
	g := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	cov := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			c := 0.0
			for k := range d {
				c += q.At(i, k) * q.At(j, k) * math.Pow(kappa, -float64(k)/float64(d-1))
			}
			cov.SetSym(i, j, c)
		}
	}
	scale := make([]float64, d) // to a correlation matrix, then the sds
	for i := range d {
		scale[i] = math.Pow(10, -1+2*float64(i)/float64(d-1)) / math.Sqrt(cov.At(i, i))
	}
	for i := range d {
		for j := i; j < d; j++ {
			cov.SetSym(i, j, cov.At(i, j)*scale[i]*scale[j])
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(cov) {
		t.Fatal("not positive definite")
	}
	var p mat.SymDense
	if err := chol.InverseTo(&p); err != nil {
		t.Fatal(err)
	}
	target := quadratic{mu: make([]float64, d), p: make([][]float64, d)}
	c := make([][]float64, d)
	for i := range d {
		target.p[i], c[i] = make([]float64, d), make([]float64, d)
		for j := range d {
			target.p[i][j], c[i][j] = p.At(i, j), cov.At(i, j)
		}
	}
	return target, c
}

// TestAutoMetric: NUTS's default metric (auto) learns a dense metric
// where the warm-up's draws are correlated (20 coordinates whose
// covariance has eigenvalues over a factor of 1,000 in random directions:
// the correlation matrix's condition number is in the hundreds, against a
// Marchenko-Pastur noise level of 1.9 for 500 draws of 20, whose double
// is chooseDense's threshold) and the diagonal where they are independent
// (condition number 1, whatever the scales), and the dense choice pays:
// the diagonal metric's trajectories on the correlated target are several
// times longer (measured at seed 1: 70 leapfrogs a transition against 7).
// Both runs have the exact moments.
func TestAutoMetric(t *testing.T) {
	correlated, cov := correlatedGaussian(t, 20, 1000)
	independent, icov := correlatedGaussian(t, 20, 1)
	run := func(target quadratic, settings map[string]string) *infer.Result {
		s, err := infer.NewSampler("nuts", settings)
		if err != nil {
			t.Fatal(err)
		}
		r, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 1, Iters: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	auto := run(correlated, nil)
	checkGaussian(t, auto, correlated.mu, cov)
	diag := run(correlated, map[string]string{"metric": "diag"})
	if !auto.Exact[0].Dense || diag.Exact[0].Dense {
		t.Fatalf("correlated target: metric auto chose dense = %v (want true), metric diag dense = %v", auto.Exact[0].Dense, diag.Exact[0].Dense)
	}
	t.Logf("leapfrogs a transition on the correlated target: dense %.1f, diagonal %.1f", auto.Exact[0].MeanLeapfrogs, diag.Exact[0].MeanLeapfrogs)
	if a, d := auto.Exact[0].MeanLeapfrogs, diag.Exact[0].MeanLeapfrogs; !(2*a < d) {
		t.Errorf("correlated target: %.1f leapfrogs a transition with the dense metric auto chose, %.1f with the diagonal: the dense one should be far shorter", a, d)
	}
	free := run(independent, nil)
	checkGaussian(t, free, independent.mu, icov)
	if free.Exact[0].Dense {
		t.Errorf("independent coordinates: metric auto chose a dense metric")
	}
}

// TestHMCJitter: each HMC transition draws its step uniform in ε(1 ±
// jitter) (Neal 2011, Section 5.4.2.2; Stan's stepsize_jitter), recorded
// in stepsize__: over 4 × 2,000 transitions at ε = 0.1 and jitter 0.2 the
// steps must span (0.08, 0.12) and average 0.1 (the mean of a uniform's
// 8,000 draws has a standard error of 0.1·0.2/√(3·8000) = 1.3e-4; 5e-4
// is four of them).
func TestHMCJitter(t *testing.T) {
	target, _ := scaledCorrelated()
	s, err := infer.NewSampler("hmc", map[string]string{"lr": "0.1", "jitter": "0.2", "metric": "unit", "warmup": "0"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 3, Chains: 4, Iters: 2000})
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(res.StatColumns, "stepsize__")
	lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for _, chain := range res.Stats {
		for _, st := range chain {
			eps := st[col]
			lo, hi, sum, n = min(lo, eps), max(hi, eps), sum+eps, n+1
		}
	}
	if lo < 0.08 || hi > 0.12 || lo > 0.081 || hi < 0.119 || math.Abs(sum/float64(n)-0.1) > 5e-4 {
		t.Errorf("HMC's steps span (%.4f, %.4f) with mean %.5f; want uniform on (0.08, 0.12)", lo, hi, sum/float64(n))
	}
}
