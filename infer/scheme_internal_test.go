package infer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/infer/exchange"
)

// simulateIndexProcess runs the replica index process of a P-level ladder
// under scheme s when every attempted swap of pair p is rejected
// independently with probability r[p] (assumptions B1-B2 of seed 000), and
// returns the mean round-trip time in rounds and the number of round trips.
func simulateIndexProcess(s Scheme, r []float64, rounds int, rng *rand.Rand, gates bool) (float64, int) {
	levels := len(r) + 1
	st, trips := s.start(make([]bool, levels-1)), exchange.NewRoundTrips(levels)
	for k := range rounds {
		for _, p := range st.attempt(k, rng) {
			if rng.Float64() >= r[p] {
				if gates {
					st.swapped(p)
				}
				trips.Swap(p)
			}
		}
		trips.Observe(k + 1)
	}
	return trips.MeanTime(), trips.Count
}

// TestRoundTripTimeLemma1 checks the index process of the DEO_W scheme
// against Lemma 1 of seed 000 (Eq. 3): with independent rejections the
// mean round-trip time is 2WP + 2WP Σ r_p^W/(1 - r_p^W). Each case runs
// until about 20,000 round trips; round-trip times have a standard
// deviation below their mean (they are sums of geometric waits), so the
// mean's relative standard error is under 1/√20000 ≈ 0.7% and the 3%
// tolerance is over 4 standard errors. A scheme that forgets to close its
// gates (at most one swap per window) is far off for W > 1.
func TestRoundTripTimeLemma1(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for _, p := range []int{4, 8, 16} {
		for _, w := range []int{1, 2, 4, 8} {
			for _, r := range []float64{0.3, 0.6, 0.8} {
				rej := make([]float64, p-1)
				for i := range rej {
					rej[i] = r
				}
				want := RoundTripTime(w, rej)
				rounds := int(want * 20000 / float64(p))
				got, n := simulateIndexProcess(Scheme{Kind: DEO, Window: w}, rej, rounds, rng, true)
				if math.Abs(got/want-1) > 0.03 {
					t.Errorf("P=%d W=%d r=%.1f: mean round trip %.1f rounds over %d trips, Lemma 1 says %.1f", p, w, r, got, n, want)
				}
				worst = max(worst, math.Abs(got/want-1))
			}
		}
	}
	t.Logf("largest relative error %.2f%%", 100*worst)
	// Without the gates a particle can move several levels in a window.
	rej := []float64{0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6}
	want := RoundTripTime(4, rej)
	if got, _ := simulateIndexProcess(Scheme{Kind: DEO, Window: 4}, rej, int(want*2500), rng, false); math.Abs(got/want-1) < 0.1 {
		t.Errorf("an ungated DEO_4 gave %.1f, within 10%% of Lemma 1's %.1f: the test cannot tell", got, want)
	}
}

// TestOptimalWindowTheorem1 compares W* of Theorem 1 of seed 000 with the
// integer window that minimises Lemma 1's round-trip time under equal
// rejection rates. W* is an asymptotic approximation of the minimiser, so
// the test asks for agreement within ±1, for P ∈ {8, 16, 32} and rejection
// rates from 0.3 to 0.8 (the rates of Lemma 1's test). At r = 0.9 the
// approximation drifts: for P = 8 it gives 27 where 25 is best, though the
// round-trip time there is within 0.4% of the minimum.
func TestOptimalWindowTheorem1(t *testing.T) {
	for _, p := range []int{8, 16, 32} {
		for _, r := range []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8} {
			rej := make([]float64, p-1)
			for i := range rej {
				rej[i] = r
			}
			best, bestT := 1, math.Inf(1)
			for w := 1; w <= 200; w++ {
				if tt := RoundTripTime(w, rej); tt < bestT {
					best, bestT = w, tt
				}
			}
			if ws := OptimalWindow(p, r); ws < best-1 || ws > best+1 {
				t.Errorf("P=%d r=%.1f: W* = %d, the minimiser of Eq. 3 is %d", p, r, ws, best)
			}
		}
	}
	if w := OptimalWindow(16, 0.6); w != 8 {
		t.Errorf("W* for P = 16, S = 0.4 is %d, want 8 (seed 000, Figure 4a)", w)
	}
	if OptimalWindow(3, 0.9) != 1 {
		t.Error("W* for P < 4 must be 1 (Theorem 1)")
	}
}
