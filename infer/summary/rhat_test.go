package summary_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/infer/summary"
)

// normalChains draws 4 chains of 1,000 independent normal draws, chain m
// with mean shift[m] and standard deviation scale[m].
func normalChains(seed uint64, shift, scale [4]float64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 1992))
	chains := make([][]float64, 4)
	for m := range chains {
		chains[m] = make([]float64, 1000)
		for i := range chains[m] {
			chains[m][i] = shift[m] + scale[m]*r.NormFloat64()
		}
	}
	return chains
}

// Thresholds, from 200 seeds of 4 chains × 1,000 draws each:
//
//	iid N(0, 1):             R̂ mean 1.0003, sd 0.0005, max 1.0024
//	one chain shifted 1 sd:  R̂ mean 1.100,  sd 0.007,  min 1.085
//	means 0, 0, 0, 2:        R̂ mean 1.319,  sd 0.009,  min 1.291
//	one chain 3× the scale:  R̂ mean 1.145,  sd 0.009,  min 1.118
//	  of which the bulk R̂:   mean 0.9999, sd 0.0006, max 1.0020
//
// so 1.01 (the convergence threshold of Vehtari et al.) is 15 sd above
// the iid values, and 1.05, 1.2 and 1.05 are at least 5 sd below the
// others. The shifted cases check R̂ at all; the scaled case checks that
// the folded draws are used, since the bulk R̂ alone stays below 1.01.
func TestSplitRhat(t *testing.T) {
	ones := [4]float64{1, 1, 1, 1}
	cases := []struct {
		name         string
		shift, scale [4]float64
		above, below float64
	}{
		{"iid", [4]float64{}, ones, 0, 1.01},
		{"one chain shifted by 1 sd", [4]float64{0, 0, 0, 1}, ones, 1.05, math.Inf(1)},
		{"means 0, 0, 0, 2", [4]float64{0, 0, 0, 2}, ones, 1.2, math.Inf(1)},
		{"one chain with 3× the scale", [4]float64{}, [4]float64{1, 1, 1, 3}, 1.05, math.Inf(1)},
	}
	for _, c := range cases {
		for seed := range uint64(3) {
			got := summary.SplitRhat(normalChains(seed, c.shift, c.scale))
			if !(got > c.above && got < c.below) {
				t.Errorf("%s, seed %d: R̂ = %.4f, want in (%v, %v)", c.name, seed, got, c.above, c.below)
			}
		}
	}
}

// A trend within each chain is invisible to the unsplit R̂ when the chains
// agree with each other, but splitting puts the two halves of each chain
// in disagreement.
func TestSplitRhatSeesTrend(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	chains := make([][]float64, 4)
	for m := range chains {
		for i := range 1000 {
			chains[m] = append(chains[m], 2*float64(i)/1000+r.NormFloat64())
		}
	}
	if got := summary.SplitRhat(chains); got < 1.1 {
		t.Errorf("R̂ of trending chains = %.4f, want > 1.1 (theory: about sqrt(1 + 1/3) = 1.15)", got)
	}
}

// R̂ and ESS are NaN where they are undefined, and R̂ is +Inf for chains
// stuck at different values.
func TestDegenerate(t *testing.T) {
	long := func(v float64) []float64 {
		x := make([]float64, 20)
		for i := range x {
			x[i] = v + float64(i%3)
		}
		return x
	}
	withNaN := long(0)
	withNaN[7] = math.NaN()
	withInf := long(0)
	withInf[3] = math.Inf(-1)
	cases := map[string][][]float64{
		"no chains":         nil,
		"empty chains":      {{}, {}},
		"constant":          {{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
		"a NaN draw":        {long(0), withNaN},
		"an infinite draw":  {withInf, long(1)},
		"chains of 3 draws": {{1, 2, 3}, {3, 1, 2}},
	}
	for name, x := range cases {
		for fn, got := range map[string]float64{
			"SplitRhat": summary.SplitRhat(x), "ESSBulk": summary.ESSBulk(x),
			"ESSTail": summary.ESSTail(x), "MCSEMean": summary.MCSEMean(x),
		} {
			if !math.IsNaN(got) {
				t.Errorf("%s: %s = %v, want NaN", name, fn, got)
			}
		}
	}
	// 11 draws split to 5 per half: R̂ is defined, ESS is not.
	short := [][]float64{{1, 5, 2, 8, 3, 9, 4, 7, 6, 0, 2}, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}}
	if got := summary.SplitRhat(short); math.IsNaN(got) {
		t.Errorf("R̂ of chains of 11 draws is NaN, want a number")
	}
	if got := summary.ESSBulk(short); !math.IsNaN(got) {
		t.Errorf("ESS of chains of 11 draws = %v, want NaN", got)
	}
	if got := summary.ESSBulk(append(short[:1:1], append(short[1], 4))); !math.IsNaN(got) {
		t.Errorf("ESS of chains of 11 and 12 draws (cut to 11) = %v, want NaN", got)
	}
	stuck := [][]float64{{1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}}
	if got := summary.SplitRhat(stuck); !math.IsInf(got, 1) {
		t.Errorf("R̂ of chains stuck at 1 and 2 = %v, want +Inf", got)
	}
}

// Longer chains are cut to the shortest chain's length for the
// diagnostics.
func TestUnequalChains(t *testing.T) {
	x := normalChains(9, [4]float64{}, [4]float64{1, 1, 1, 1})
	ragged := [][]float64{x[0], x[1][:900], x[2], x[3][:950]}
	cut := [][]float64{x[0][:900], x[1][:900], x[2][:900], x[3][:900]}
	for name, f := range map[string]func([][]float64) float64{
		"SplitRhat": summary.SplitRhat, "ESSBulk": summary.ESSBulk, "ESSTail": summary.ESSTail, "MCSEMean": summary.MCSEMean,
	} {
		if got, want := f(ragged), f(cut); got != want {
			t.Errorf("%s of ragged chains = %v, of chains cut to 900 = %v", name, got, want)
		}
	}
}
