package temper_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestPriorPredictive samples the eight schools' prior with --prior: μ's
// draws must be N(0, 5²) and τ's the half-Cauchy(0, 5) the bounded cauchy
// prior means (median 5), within 4 Monte Carlo errors of 10,000-odd
// effective draws (sd 5/√ESS for μ's mean; the median's error is about
// 1.6 · 5/√ESS for a Cauchy); and the generated block still runs, its
// y_rep the prior predictive, whose median is 0. A model with a flat
// prior, and --prior with --log-lik, are refused.
func TestPriorPredictive(t *testing.T) {
	m, err := temper.CompileFile("examples/eight-schools/model.ppl", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Prior: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) []float64 {
		k := slices.Index(res.Columns, name)
		if k < 0 {
			t.Fatalf("no column %s in %v", name, res.Columns)
		}
		var out []float64
		for _, chain := range res.Draws {
			for _, d := range chain {
				out = append(out, d[k])
			}
		}
		return out
	}
	mu, tau, yrep := col("mu"), col("tau"), col("y_rep.1")
	n := float64(len(mu)) / 4 // a conservative ESS
	mean, sd := meanSD(mu)
	median := func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return s[len(s)/2]
	}
	t.Logf("mu %.3f ± %.3f, tau median %.3f, y_rep.1 median %.3f (%d draws)", mean, sd, median(tau), median(yrep), len(mu))
	if math.Abs(mean) > 4*5/math.Sqrt(n) || math.Abs(sd-5) > 0.2 {
		t.Errorf("mu: mean %.3f, sd %.3f; the prior is N(0, 5²)", mean, sd)
	}
	if math.Abs(median(tau)-5) > 4*1.6*5/math.Sqrt(n) {
		t.Errorf("tau's median %.3f; the half-Cauchy(0, 5)'s is 5", median(tau))
	}
	if math.Abs(median(yrep)) > 1 {
		t.Errorf("y_rep.1's median %.3f; the prior predictive is symmetric about 0", median(yrep))
	}
	flat, err := temper.Compile("flat.ppl", `param { mu: real }
model { target += -0.5 * mu ^ 2 }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := flat.Sample(context.Background(), temper.Options{Prior: true, Seed: 1}); err == nil || !strings.Contains(err.Error(), "--prior samples the prior alone") {
		t.Errorf("--prior of a model with target +=: %v", err)
	}
	if _, err := m.Sample(context.Background(), temper.Options{Prior: true, LogLik: true, Seed: 1}); err == nil || !strings.Contains(err.Error(), "leave --log-lik out") {
		t.Errorf("--prior with --log-lik: %v", err)
	}
}

func meanSD(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, math.Sqrt(ss / float64(len(x)-1))
}
