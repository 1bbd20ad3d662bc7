package summary_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/infer/summary"
)

// ar1 draws m stationary AR(1) chains x_t = φ x_{t−1} + ε_t, ε_t ~ N(0, 1),
// of n draws each, started from the stationary law N(0, 1/(1 − φ²)).
func ar1(r *rand.Rand, phi float64, m, n int) [][]float64 {
	chains := make([][]float64, m)
	for c := range chains {
		x := r.NormFloat64() / math.Sqrt(1-phi*phi)
		chains[c] = make([]float64, n)
		for i := range chains[c] {
			chains[c][i] = x
			x = phi*x + r.NormFloat64()
		}
	}
	return chains
}

// iid draws m chains of n independent draws of draw.
func iid(r *rand.Rand, m, n int, draw func(r *rand.Rand) float64) [][]float64 {
	chains := make([][]float64, m)
	for c := range chains {
		chains[c] = make([]float64, n)
		for i := range chains[c] {
			chains[c][i] = draw(r)
		}
	}
	return chains
}

// The autocorrelation of a stationary AR(1) is ρ_t = φ^t, so its
// integrated autocorrelation time is τ = 1 + 2 Σ_{t≥1} φ^t = (1 + φ)/(1 − φ)
// and ESS = N(1 − φ)/(1 + φ) for N draws. The draws are Gaussian, so rank
// normalization changes them little and the bulk ESS has the same target.
//
// Tolerances. Over 200 seeds of 4 chains × 20,000 draws the ratio of
// estimated to analytic ESS had (bulk and plain alike, to 0.1%)
//
//	φ = 0.9:  mean 0.991, sd 0.050 (analytic ESS 4,211)
//	φ = 0.5:  mean 0.997, sd 0.021 (analytic ESS 26,667)
//	φ = −0.3: mean 0.997, sd 0.020 (analytic ESS 148,571)
//
// so each seed must be within 3 sd (15%, 7%, 7%, rounded up) and the mean
// of the 4 seeds within 1.5 sd of one seed, i.e. 3 sd of a 4-seed mean
// (7.5%, 3.5%, 3.5%). The truncation bias of Geyer's estimator (−1% at
// φ = 0.9) is inside these. Errors in the estimator are outside them: a
// factor 2 in τ̂ halves or doubles the ESS; reading ρ̂_t one lag late (tried)
// gives +40% at φ = 0.5 and +11% at φ = 0.9; stopping at the first
// negative ρ̂_t instead of the first negative pair sum gives τ̂ = 1, ESS = N,
// at φ = −0.3, 46% low.
func TestESSAR1(t *testing.T) {
	const m, n = 4, 20000
	cases := []struct {
		phi, seedTol, meanTol float64
	}{
		{0.9, 0.15, 0.075},
		{0.5, 0.07, 0.035},
		{-0.3, 0.07, 0.035},
	}
	for _, c := range cases {
		want := m * n * (1 - c.phi) / (1 + c.phi)
		var bulkSum, meanSum float64
		const seeds = 4
		for seed := range seeds {
			r := rand.New(rand.NewPCG(uint64(seed), 2021))
			x := ar1(r, c.phi, m, n)
			bulk, plain := summary.ESSBulk(x), summary.ESSMeanForTest(x)
			t.Logf("φ = %4.1f seed %d: analytic ESS %6.0f, bulk %6.0f (%.3f), plain %6.0f (%.3f)",
				c.phi, seed, want, bulk, bulk/want, plain, plain/want)
			for name, got := range map[string]float64{"bulk": bulk, "plain": plain} {
				if math.Abs(got/want-1) > c.seedTol {
					t.Errorf("φ = %v seed %d: %s ESS %.0f, want %.0f within %.0f%%", c.phi, seed, name, got, want, 100*c.seedTol)
				}
			}
			bulkSum += bulk
			meanSum += plain
		}
		for name, sum := range map[string]float64{"bulk": bulkSum, "plain": meanSum} {
			if got := sum / seeds; math.Abs(got/want-1) > c.meanTol {
				t.Errorf("φ = %v: mean %s ESS over %d seeds %.0f, want %.0f within %.1f%%", c.phi, name, seeds, got, want, 100*c.meanTol)
			}
		}
		if c.phi < 0 && bulkSum/seeds <= m*n {
			t.Errorf("φ = %v: antithetic chains should give ESS > N = %d, got %.0f", c.phi, m*n, bulkSum/seeds)
		}
	}
}

// Strongly antithetic chains (φ = −0.9, τ = 0.053) hit Stan's cap
// τ̂ ≥ 1/log₁₀(MN), so the ESS is exactly MN log₁₀(MN) up to rounding.
func TestESSAntitheticCap(t *testing.T) {
	const m, n = 4, 5000
	x := ar1(rand.New(rand.NewPCG(1, 2)), -0.9, m, n)
	want := m * n * math.Log10(m*n)
	for name, got := range map[string]float64{"bulk": summary.ESSBulk(x), "plain": summary.ESSMeanForTest(x)} {
		if math.Abs(got/want-1) > 1e-12 {
			t.Errorf("%s ESS = %v, want the cap %v", name, got, want)
		}
	}
}

// For independent draws every ESS is about MN; for a Cauchy sample the
// plain ESS is meaningless but the tail ESS (of indicators) and the bulk
// ESS (of ranks) are well defined. Over 200 seeds of 4 × 20,000 Cauchy
// draws the tail ESS / MN had mean 0.989 and sd 0.010 (min 0.956), so 5%
// is 4 sd from the mean; an indicator with the wrong quantile or a
// missing split would still be near MN, but ESS of I(x ≤ q) on unsplit or
// mis-centred chains, or a τ̂ off by a lag, is not.
func TestESSTailHeavy(t *testing.T) {
	const m, n = 4, 20000
	for seed := range 3 {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		x := iid(r, m, n, func(r *rand.Rand) float64 { return r.NormFloat64() / r.NormFloat64() })
		for name, got := range map[string]float64{"tail": summary.ESSTail(x), "bulk": summary.ESSBulk(x)} {
			t.Logf("Cauchy seed %d: %s ESS %.0f of %d", seed, name, got, m*n)
			if math.Abs(got/(m*n)-1) > 0.05 {
				t.Errorf("Cauchy seed %d: %s ESS %.0f, want %d within 5%%", seed, name, got, m*n)
			}
		}
	}
}

// The tail ESS sees slow mixing in the tails that the bulk ESS misses: a
// chain whose scale switches slowly between 1 and 3 (blocks of 500 draws)
// has independent signs, so the ranks of the bulk look nearly independent,
// but the extreme quantiles are reached only in the wide blocks.
func TestESSTailSeesSlowTails(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	x := make([][]float64, 4)
	for c := range x {
		for b := range 20 {
			scale := 1.0
			if (b+c)%2 == 0 {
				scale = 3
			}
			for range 500 {
				x[c] = append(x[c], scale*r.NormFloat64())
			}
		}
	}
	bulk, tail := summary.ESSBulk(x), summary.ESSTail(x)
	t.Logf("bulk ESS %.0f, tail ESS %.0f of %d", bulk, tail, 4*10000)
	if tail > bulk/4 {
		t.Errorf("tail ESS %.0f should be far below bulk ESS %.0f", tail, bulk)
	}
}
