package infer_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

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
				// The diagonal metric is the last window's 500 draws'
				// variance shrunk as Stan shrinks it, (n/(n + 5))σ² +
				// 10⁻³·5/(n + 5): within 30% for every coordinate (the
				// variance of 500 autocorrelated draws errs by up to 20%).
				for i, v := range rep.InvMetric {
					if want := 500.0/505*tc.cov[i][i] + 1e-3*5/505; math.Abs(v/want-1) > 0.3 {
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
// State holds every chain's step size, metric window and dual average.
func TestExactResume(t *testing.T) {
	target, _ := scaledCorrelated()
	s, err := infer.NewSampler("nuts", map[string]string{"warmup": "200"})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 9, Chains: 2, Iters: 300})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopAt := 150
	part, _ := infer.Run(ctx, target, s, infer.Options{Seed: 9, Chains: 2, Iters: 300, Progress: func(p infer.Progress) {
		if p.Done == stopAt {
			cancel()
		}
	}})
	if part == nil || part.State.Done != stopAt {
		t.Fatalf("the run did not stop at iteration %d", stopAt)
	}
	rest, err := infer.Run(context.Background(), target, s, infer.Options{Seed: 9, Chains: 2, Iters: 300 + 200 - stopAt, Resume: part.State})
	if err != nil {
		t.Fatal(err)
	}
	for c := range whole.Draws {
		if !slices.EqualFunc(whole.Draws[c], rest.Draws[c], slices.Equal) {
			t.Fatalf("chain %d: the resumed run's %d draws differ from the whole run's %d", c+1, len(rest.Draws[c]), len(whole.Draws[c]))
		}
		if !slices.EqualFunc(whole.Stats[c], rest.Stats[c], slices.Equal) {
			t.Fatalf("chain %d: the resumed run's sampler diagnostics differ", c+1)
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
		{"nuts", map[string]string{"replicas": "4"}, "replica exchange needs stochastic-gradient dynamics"},
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
