package infer_test

import (
	"math"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/exchange"
)

// TestParallelTemperingDoubleWell runs the preset pt (NUTS on a ladder of
// 8 levels up to T = 100, tuned to equal rejection in the warm-up) on a
// double well with a barrier of 8 nats, every chain started in the
// shallower right mode. The left mode's mass must match the exact one by
// quadrature: over seeds 1-10 at 2,000 iterations the error had mean
// -0.0008 and sd 0.011, so at 8,000 the sd is about 0.0055 and 0.022 is
// four of them. NUTS alone stays where it started (a left mass far from
// 0.76), and the ladder makes a round trip every few rounds: over 1,400
// in 2,000 iterations of 4 chains, near the 1/(2 + 2Λ) of Syed et al.
// (2021) with Λ ≈ 1.2.
func TestParallelTemperingDoubleWell(t *testing.T) {
	w := doubleWell{h: 8, c: 0.6}
	init := [][]float64{{1}, {1}, {1}, {1}}
	var last infer.Progress
	pt := runWell(t, w, "pt", nil, infer.Options{Chains: 4, Iters: 8000, Seed: 1, Init: init, Progress: func(p infer.Progress) { last = p }})
	exact := w.leftWeight()
	got := fractionBelow(pt)
	trips, barrier := 0, 0.0
	for _, e := range pt.Exchange {
		trips += e.RoundTrips
		barrier += e.Barrier() / float64(len(pt.Exchange))
	}
	t.Logf("left mass %.4f (exact %.4f), %d round trips, Λ = %.2f, ladder %v", got, exact, trips, barrier, pt.Exchange[0].Ladder)
	if math.Abs(got-exact) > 0.022 {
		t.Errorf("parallel tempering: left mass %.4f, exact %.4f", got, exact)
	}
	if trips < 4000 || len(pt.Warnings) > 0 {
		t.Errorf("%d round trips over 4 × 8,000 rounds; warnings %q", trips, pt.Warnings)
	}
	// The progress report's account of the ladders is the result's.
	if last.RoundTrips != trips || math.Abs(last.Barrier-barrier) > 1e-12 || !(last.SwapRate > 0) {
		t.Errorf("the last progress report: %d round trips, Λ %.4f, swap rate %.3f; the result's %d and %.4f", last.RoundTrips, last.Barrier, last.SwapRate, trips, barrier)
	}
	// Each chain's figures in the last report are its ladder's.
	if len(last.PerChain) != len(pt.Exchange) {
		t.Fatalf("the last progress report has %d chains' figures, the run %d chains", len(last.PerChain), len(pt.Exchange))
	}
	for c, e := range pt.Exchange {
		tried, took := 0, 0
		for i := range e.Attempts {
			tried, took = tried+e.Attempts[i], took+e.Accepts[i]
		}
		if got := last.PerChain[c]; got.RoundTrips != e.RoundTrips || math.Abs(got.SwapRate-float64(took)/float64(tried)) > 1e-12 {
			t.Errorf("chain %d's progress: swap rate %.4f, %d round trips; its ladder's %.4f and %d", c+1, got.SwapRate, got.RoundTrips, float64(took)/float64(tried), e.RoundTrips)
		}
	}
	nuts := runWell(t, w, "nuts", nil, infer.Options{Chains: 4, Iters: 2000, Seed: 1, Init: init})
	if got := fractionBelow(nuts); math.Abs(got-exact) < 0.2 {
		t.Errorf("NUTS alone found the left mass %.4f near the exact %.4f: the barrier does not test the ladder", got, exact)
	}
}

// TestEqualRejectionLevels places the levels of a ladder at equal shares
// of the communication barrier (Syed et al. 2021, Section 5.1): levels at
// β = 1, 1/2, 1/4, 1/8 whose pairs reject 0.6, 0.2 and 0.1 of their swaps
// carry a cumulative barrier of 0, 0.6, 0.8, 0.9 at those levels; thirds
// of 0.9 fall at 0.3, halfway (in log β) from 1 to 1/2, and at 0.6, on the
// level 1/2; sixths (a ladder grown to 7 levels) at 0.15, 0.3, 0.45, 0.6
// and 0.75, the quarters and end of the first span and the three-quarter
// point of the second. The ends stay, and without rejection
// the levels are spaced evenly in log β.
func TestEqualRejectionLevels(t *testing.T) {
	betas, rejection := []float64{1, 0.5, 0.25, 0.125}, []float64{0.6, 0.2, 0.1}
	for _, c := range []struct {
		m    int
		want []float64
	}{
		{4, []float64{1, math.Sqrt(0.5), 0.5, 0.125}},
		{7, []float64{1, math.Pow(0.5, 0.25), math.Pow(0.5, 0.5), math.Pow(0.5, 0.75), 0.5, math.Pow(0.5, 1.75), 0.125}},
	} {
		got := exchange.EqualRejection(betas, rejection, c.m, exchange.LogCoordinate)
		for l := range c.want {
			if math.Abs(got[l]-c.want[l]) > 1e-12 {
				t.Fatalf("%d levels: %v, want %v", c.m, got, c.want)
			}
		}
	}
	even := exchange.EqualRejection([]float64{1, 0.9, 0.01}, []float64{0, 0}, 3, exchange.LogCoordinate)
	if math.Abs(even[1]-0.1) > 1e-12 {
		t.Errorf("no rejection placed the levels at %v, want 1, 0.1, 0.01", even)
	}
}

// TestParallelTemperingSettings: the ladder's settings and what it refuses.
func TestParallelTemperingSettings(t *testing.T) {
	s, err := infer.NewSampler("pt", map[string]string{"replicas": "5", "t_max": "20"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Exact == nil || s.Exact.Levels != 5 || s.Exact.TMax != 20 || !s.Exact.TuneLadder {
		t.Errorf("pt with replicas 5, t_max 20: %+v", s.Exact)
	}
	for _, c := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"t_max": "1"}, "must exceed the target's 1"},
		{map[string]string{"exchange": "barker"}, "swaps the levels of its ladder"},
	} {
		if _, err := infer.NewSampler("pt", c.settings); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pt with %v: error %v, want %q", c.settings, err, c.want)
		}
	}
}

// TestTunedLadder: a stochastic-gradient temperature ladder with ladder =
// tuned_temperature moves its levels in burn-in as the exact ladders do,
// to equal rejection (Syed et al. 2021, Algorithm 4), its ends fixed. On
// the double well (barrier 8, resgld, 6 levels from T = 1 to 50), the
// geometric ladder's pairs swap at rates from 0.66 to 0.87 (seed 1);
// tuned, 0.78 to 0.79. The rates after burn-in must lie within 0.1 of one another
// (their Monte Carlo error over 4 × 8,000 rounds is about 0.01, the
// tuning's residual a few hundredths), the ends stay, and the target
// level's left mass stays within 0.03 of the exact one.
func TestTunedLadder(t *testing.T) {
	w := doubleWell{h: 8, c: 0.6}
	init := [][]float64{{1}, {1}, {1}, {1}}
	rates := func(r *infer.Result) (lo, hi float64) {
		lo, hi = 1, 0
		for p := range r.Exchange[0].Attempts {
			a, n := 0, 0
			for _, e := range r.Exchange {
				a, n = a+e.Accepts[p], n+e.Attempts[p]
			}
			lo, hi = min(lo, float64(a)/float64(n)), max(hi, float64(a)/float64(n))
		}
		return lo, hi
	}
	settings := map[string]string{"replicas": "6", "t_max": "50", "lr": "0.002"}
	o := infer.Options{Chains: 4, Burn: 4000, Iters: 8000, Seed: 1, Init: init}
	plain := runWell(t, w, "resgld", settings, o)
	settings["ladder"] = "tuned_temperature"
	tuned := runWell(t, w, "resgld", settings, o)
	plo, phi := rates(plain)
	tlo, thi := rates(tuned)
	t.Logf("swap rates: geometric %.2f-%.2f, tuned %.2f-%.2f; tuned ladder %v; left mass %.4f (exact %.4f)", plo, phi, tlo, thi, tuned.Exchange[0].Ladder, fractionBelow(tuned), w.leftWeight())
	if thi-tlo > 0.1 || !(phi-plo > 0.2) {
		t.Errorf("swap rates: geometric %.2f-%.2f, tuned %.2f-%.2f", plo, phi, tlo, thi)
	}
	lad := tuned.Exchange[0].Ladder
	if lad[0].Temperature != 1 || lad[len(lad)-1].Temperature != 50 {
		t.Errorf("the tuned ladder's ends moved: %v", lad)
	}
	if got := fractionBelow(tuned); math.Abs(got-w.leftWeight()) > 0.03 {
		t.Errorf("left mass %.4f, exact %.4f", got, w.leftWeight())
	}
}
