package summary_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/infer/summary"
)

// Mean, SD and quantiles of the draws 1..10 (split over two chains), by
// hand: mean 5.5, variance 55/6, and definition 7 puts the p-quantile at
// 1 + 9p, so 1.45, 5.5 and 9.55. Exact but for rounding: 1e-14.
func TestSummarizeByHand(t *testing.T) {
	s := summary.Summarize("x", [][]float64{{3, 1, 4, 10, 5}, {9, 2, 6, 8, 7}})
	checks := []struct {
		name      string
		got, want float64
	}{
		{"mean", s.Mean, 5.5},
		{"sd", s.SD, math.Sqrt(55.0 / 6)},
		{"q5", s.Q5, 1.45},
		{"q50", s.Q50, 5.5},
		{"q95", s.Q95, 9.55},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-14*math.Abs(c.want) {
			t.Errorf("%s = %.16g, want %.16g", c.name, c.got, c.want)
		}
	}
	if s.Name != "x" {
		t.Errorf("name %q, want x", s.Name)
	}
}

// Mean, SD and quantiles against direct computations on a larger skewed
// sample (log-normal, 3 × 701 draws): the two-pass mean and variance, and
// the quantiles interpolated by hand at their positions (n − 1)p.
func TestSummarizeDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	chains := make([][]float64, 3)
	var all []float64
	for m := range chains {
		for range 701 {
			v := math.Exp(r.NormFloat64())
			chains[m] = append(chains[m], v)
			all = append(all, v)
		}
	}
	var sum float64
	for _, v := range all {
		sum += v
	}
	mean := sum / float64(len(all))
	var ss float64
	for _, v := range all {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(all)-1))
	slices.Sort(all)
	// 2103 draws: (n − 1)p = 105.1, 1051, 1996.9 for p = 5%, 50%, 95%.
	q5 := all[105] + 0.1*(all[106]-all[105])
	q95 := all[1996] + 0.9*(all[1997]-all[1996])
	s := summary.Summarize("x", chains)
	// Summation order differs; 1e-12 relative covers it with room.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"mean", s.Mean, mean}, {"sd", s.SD, sd}, {"q5", s.Q5, q5}, {"q50", s.Q50, all[1051]}, {"q95", s.Q95, q95}} {
		if math.Abs(c.got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("%s = %.16g, want %.16g", c.name, c.got, c.want)
		}
	}
	if s.MCSE != summary.MCSEMean(chains) || s.ESSBulk != summary.ESSBulk(chains) ||
		s.ESSTail != summary.ESSTail(chains) || s.Rhat != summary.SplitRhat(chains) {
		t.Errorf("Summarize's diagnostics differ from the functions': %+v", s)
	}
	// For independent draws MCSE ≈ sd/sqrt(N). Over 500 seeds of this
	// design the ratio had mean 1.009 and sd 0.030, so 10% is 3 sd.
	if ratio := s.MCSE / (sd / math.Sqrt(float64(len(all)))); math.Abs(ratio-1) > 0.1 {
		t.Errorf("MCSE %.4g is %.3f × sd/sqrt(N)", s.MCSE, ratio)
	}
}

func TestSummarizeWeighted(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	chains := make([][]float64, 4)
	for m := range chains {
		for range 300 {
			chains[m] = append(chains[m], r.NormFloat64()+float64(m%2))
		}
	}
	same := func(v float64) [][]float64 {
		w := make([][]float64, len(chains))
		for m, c := range chains {
			w[m] = make([]float64, len(c))
			for i := range w[m] {
				w[m][i] = v
			}
		}
		return w
	}

	// Equal weights, of any size, reproduce Summarize; only rounding
	// differs (a sum of weights against a count), so 1e-12.
	plain := summary.Summarize("x", chains)
	checkStats(t, "weights 2.5", summary.SummarizeWeighted("x", chains, same(2.5)), plain, 1e-12)

	// Weight zero removes a draw: the last 100 draws of every chain get
	// weight 0, the rest weight 1, and mean, SD and quantiles are those of
	// the first 200 draws of each chain. The diagnostics stay those of all
	// draws; MCSE is the SD over sqrt(ESS_mean · 800/1200).
	w := same(1)
	kept := make([][]float64, len(chains))
	for m := range chains {
		for i := 200; i < 300; i++ {
			w[m][i] = 0
		}
		kept[m] = chains[m][:200]
	}
	got := summary.SummarizeWeighted("x", chains, w)
	want := summary.Summarize("x", kept)
	want.ESSBulk, want.ESSTail, want.Rhat = plain.ESSBulk, plain.ESSTail, plain.Rhat
	want.MCSE = want.SD / math.Sqrt(summary.ESSMeanForTest(chains)*800.0/1200)
	checkStats(t, "zero weights", got, want, 1e-12)

	// Weights 1 and 3 on two draws: mean (1·0 + 3·4)/4 = 3; variance
	// (1·9 + 3·1)/(4 − 10/4) = 8, the unbiased reliability-weighted form.
	// Positions: centres 1/8 and 5/8 stretched to 0 and 1, so the median is
	// halfway, 2.
	two := summary.SummarizeWeighted("x", [][]float64{{0, 4}}, [][]float64{{1, 3}})
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"mean", two.Mean, 3}, {"sd", two.SD, math.Sqrt(8)}, {"q50", two.Q50, 2}, {"q5", two.Q5, 0.2}} {
		if math.Abs(c.got-c.want) > 1e-15*math.Abs(c.want)+1e-300 {
			t.Errorf("weights 1, 3: %s = %v, want %v", c.name, c.got, c.want)
		}
	}

	// Heavier weight pulls the quantiles: three draws 0, 1, 2 with weights
	// 1, 1, 4 have centres 1/12, 3/12, 8/12, positions 0, 2/7, 1, so the
	// median is 1 + (1/2 − 2/7)/(5/7) = 1.3.
	pulled := summary.SummarizeWeighted("x", [][]float64{{2, 0, 1}}, [][]float64{{4, 1, 1}})
	if math.Abs(pulled.Q50-1.3) > 1e-15 {
		t.Errorf("weights 1, 1, 4: median %v, want 1.3", pulled.Q50)
	}

	allZero := summary.SummarizeWeighted("x", chains, same(0))
	if !math.IsNaN(allZero.Mean) || !math.IsNaN(allZero.Q50) || allZero.Rhat != plain.Rhat {
		t.Errorf("all weights zero: %+v, want NaN weighted statistics and the unweighted R̂", allZero)
	}
}

func TestSummarizeWeightedPanics(t *testing.T) {
	chains := [][]float64{{1, 2, 3}, {4, 5, 6}}
	bad := map[string][][]float64{
		"too few chains":  {{1, 1, 1}},
		"too few weights": {{1, 1, 1}, {1, 1}},
		"negative weight": {{1, 1, 1}, {1, -1, 1}},
		"NaN weight":      {{1, 1, math.NaN()}, {1, 1, 1}},
		"infinite weight": {{1, 1, 1}, {math.Inf(1), 1, 1}},
	}
	for name, w := range bad {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			summary.SummarizeWeighted("x", chains, w)
		}()
	}
}

// checkStats compares every field of got and want to relative tolerance
// tol, NaN matching NaN.
func checkStats(t *testing.T, label string, got, want summary.Stats, tol float64) {
	t.Helper()
	if got.Name != want.Name {
		t.Errorf("%s: name %q, want %q", label, got.Name, want.Name)
	}
	g := []float64{got.Mean, got.SD, got.MCSE, got.Q5, got.Q50, got.Q95, got.ESSBulk, got.ESSTail, got.Rhat}
	w := []float64{want.Mean, want.SD, want.MCSE, want.Q5, want.Q50, want.Q95, want.ESSBulk, want.ESSTail, want.Rhat}
	names := []string{"mean", "sd", "mcse", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"}
	for i := range g {
		if !approx(g[i], w[i], tol) {
			t.Errorf("%s: %s = %.16g, want %.16g", label, names[i], g[i], w[i])
		}
	}
}

var goldenStats = []summary.Stats{
	{Name: "mu", Mean: 0.1, SD: 1.2345678901234567, MCSE: 0.012, Q5: -1.9, Q50: 0.1, Q95: 2.1, ESSBulk: 3876.25, ESSTail: 2999, Rhat: 1.0012},
	{Name: "w.1.2", Mean: -3e-12, SD: 2e+20, MCSE: math.NaN(), Q5: math.Inf(-1), Q50: 0, Q95: math.Inf(1), ESSBulk: math.NaN(), ESSTail: math.NaN(), Rhat: math.NaN()},
	{Name: `odd, "name"`, Mean: 1, SD: 2, MCSE: 3, Q5: 4, Q50: 5, Q95: 6, ESSBulk: 7, ESSTail: 8, Rhat: 9},
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := summary.WriteCSV(&b, goldenStats); err != nil {
		t.Fatal(err)
	}
	want := `param,mean,sd,mcse,q5,q50,q95,ess_bulk,ess_tail,rhat
mu,0.1,1.2345678901234567,0.012,-1.9,0.1,2.1,3876.25,2999,1.0012
w.1.2,-3e-12,2e+20,NaN,-Inf,0,Inf,NaN,NaN,NaN
"odd, ""name""",1,2,3,4,5,6,7,8,9
`
	if b.String() != want {
		t.Errorf("WriteCSV wrote\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	if err := summary.Table(&b, goldenStats[:2]); err != nil {
		t.Fatal(err)
	}
	want := `         mean     sd   mcse    5%  50%   95%  ess_bulk  ess_tail   rhat
mu        0.1  1.235  0.012  -1.9  0.1   2.1      3876      2999  1.001
w.1.2  -3e-12  2e+20    NaN  -Inf    0  +Inf       NaN       NaN    NaN
`
	if b.String() != want {
		t.Errorf("Table wrote\n%s\nwant\n%s", b.String(), want)
	}
}
