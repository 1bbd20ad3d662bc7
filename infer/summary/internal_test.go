package summary

import (
	"cmp"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// The classic split-R̂ by hand, Vehtari et al. (2021) Eqs. 1-4, with
// R̂² = ((n−1)/n W + B/n)/W. Exact up to rounding, so 1e-14.
func TestClassicSplitRhatByHand(t *testing.T) {
	cases := []struct {
		name   string
		chains [][]float64
		want   float64
	}{
		// Halves [1 2] [3 4] [5 6] [7 8]: n = 2, W = 1/2, chain means
		// 1.5, 3.5, 5.5, 7.5 with variance 20/3, B/n = 20/3;
		// R̂² = (1/4 + 20/3)/(1/2) = 83/6.
		{"two increasing chains", [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}, math.Sqrt(83.0 / 6)},
		// The middle draw 9 is dropped: halves [1 2] [3 4] [2 1] [4 3],
		// W = 1/2, means 1.5, 3.5, 1.5, 3.5 with variance 4/3, B/n = 4/3;
		// R̂² = (1/4 + 4/3)/(1/2) = 19/6.
		{"odd length", [][]float64{{1, 2, 9, 3, 4}, {2, 1, 9, 4, 3}}, math.Sqrt(19.0 / 6)},
		// Halves [1 3] [1 3]: W = 2, B = 0; R̂² = (1/2 · 2)/2 = 1/2, below 1
		// as R̂ can be for few draws.
		{"identical halves", [][]float64{{1, 3, 1, 3}}, math.Sqrt(0.5)},
	}
	for _, c := range cases {
		if got := classicRhat(splitChains(c.chains)); math.Abs(got-c.want) > 1e-14*c.want {
			t.Errorf("%s: split R̂ = %.16g, want %.16g", c.name, got, c.want)
		}
	}
}

// Rank normalization by hand: ranks with ties averaged, then Blom's
// normal scores Φ⁻¹((r − 3/8)/(S + 1/4)). Draws 10, 30, 20, 20 (S = 4)
// have ranks 1, 4, 2.5, 2.5; the scores are antisymmetric about the middle
// rank 2.5, where the score is 0, and z₁ = Φ⁻¹(0.625/4.25). (With the
// denominator S − 1/4 sometimes quoted the middle score would be Φ⁻¹(2.125/3.75) ≠ 0.)
func TestRankNormalizeByHand(t *testing.T) {
	got := rankNormalize([][]float64{{10, 30}, {20, 20}})
	z1 := normalQuantile(0.625 / 4.25)
	want := [][]float64{{z1, -z1}, {0, 0}}
	for m := range want {
		for i := range want[m] {
			if math.Abs(got[m][i]-want[m][i]) > 1e-15 {
				t.Errorf("z[%d][%d] = %v, want %v", m, i, got[m][i], want[m][i])
			}
		}
	}
	// R's qnorm to 17 digits; gonum's quantile agrees to an ulp or two, so
	// 1e-15 relative.
	for _, c := range []struct{ p, want float64 }{
		{0.625 / 4.25, -1.0491313979639711},
		{1e-10, -6.3613409024040557},
	} {
		if got := normalQuantile(c.p); math.Abs(got-c.want) > 1e-15*math.Abs(c.want) {
			t.Errorf("Φ⁻¹(%v) = %.17g, qnorm gives %.17g", c.p, got, c.want)
		}
	}
}

// The FFT and direct autocovariances agree: they are the same sum,
// rounded differently, so to 1e-12 of the variance.
func TestAutocovarianceFFT(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{129, 300, 1000} {
		y := make([]float64, n)
		for i := range y {
			y[i] = r.NormFloat64() + 0.5*math.Sin(float64(i)/7)
		}
		fft, direct := fftAutocovariance(y), directAutocovariance(y)
		for lag := range n {
			if math.Abs(fft[lag]-direct[lag]) > 1e-12*direct[0] {
				t.Fatalf("n = %d, lag %d: FFT %v, direct %v", n, lag, fft[lag], direct[lag])
			}
		}
	}
}

// With one chain 3× as wide as the others the bulk R̂ stays near 1 (the
// ranks agree in location) while the folded draws catch it; see
// TestSplitRhat for the thresholds.
func TestFoldCatchesScale(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	x := make([][]float64, 4)
	for m := range x {
		s := 1.0
		if m == 3 {
			s = 3
		}
		for range 1000 {
			x[m] = append(x[m], s*r.NormFloat64())
		}
	}
	bulk := classicRhat(rankNormalize(splitChains(x)))
	tail := classicRhat(rankNormalize(splitChains(fold(x, quantile7(sortedPool(x), 0.5)))))
	if bulk > 1.01 || tail < 1.05 || SplitRhat(x) != tail {
		t.Errorf("bulk R̂ %.4f (want < 1.01), folded R̂ %.4f (want > 1.05), SplitRhat %.4f (want the folded)", bulk, tail, SplitRhat(x))
	}
}

// TestRanks: ranks over all chains from 1, ties sharing their mean rank.
func TestRanks(t *testing.T) {
	got := Ranks([][]float64{{3, 1, 2}, {2, 5}})
	want := [][]float64{{4, 1, 2.5}, {2.5, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ranks %v, want %v", got, want)
	}
}

// TestSummarizeSharesItsSorts: Summarize, which sorts twice and ranks by
// binary search, gives exactly the figures of ESSBulk, ESSTail, SplitRhat
// and MCSEMean, each of which sorts on its own; on draws with ties (values
// rounded to a tenth), chains of unequal length (cut to the shortest, 301
// draws, whose middle draw splitting drops), and 0/1 draws. And Ranks by binary search equals the ranks of a sort of the
// draws with their places.
func TestSummarizeSharesItsSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, round := range []float64{0, 10, 0.5} {
		x := make([][]float64, 4)
		for m := range x {
			for range 301 + 7*m {
				v := r.NormFloat64()
				switch round {
				case 10:
					v = math.Round(v*10) / 10
				case 0.5:
					v = map[bool]float64{false: 0, true: 1}[v > 0.3]
				}
				x[m] = append(x[m], v)
			}
		}
		got := Summarize("v", x)
		want := Stats{ESSBulk: ESSBulk(x), ESSTail: ESSTail(x), Rhat: SplitRhat(x), MCSE: MCSEMean(x)}
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if !same(got.ESSBulk, want.ESSBulk) || !same(got.ESSTail, want.ESSTail) || !same(got.Rhat, want.Rhat) || !same(got.MCSE, want.MCSE) {
			t.Errorf("rounding %g: Summarize %+v, the functions %+v", round, got, want)
		}
		type placed struct {
			v    float64
			m, i int
		}
		var all []placed
		for m, c := range x {
			for i, v := range c {
				all = append(all, placed{v, m, i})
			}
		}
		slices.SortFunc(all, func(a, b placed) int { return cmp.Compare(a.v, b.v) })
		ranks := Ranks(x)
		for lo := 0; lo < len(all); {
			hi := lo + 1
			for hi < len(all) && all[hi].v == all[lo].v {
				hi++
			}
			for _, d := range all[lo:hi] {
				if want := float64(lo+1+hi) / 2; ranks[d.m][d.i] != want {
					t.Fatalf("rounding %g: rank of x[%d][%d] = %g, want %g", round, d.m, d.i, ranks[d.m][d.i], want)
				}
			}
			lo = hi
		}
	}
}
