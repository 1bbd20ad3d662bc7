package temper_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// predictiveSrc is a normal mean with known scale and a posterior
// predictive draw: the exact posterior of mu is N(m, s²) and the
// predictive of y_new is N(m, 1 + s²).
const predictiveSrc = `
data { N: int  y: real[N] }
transformed data { ybar = mean(y) }
param { mu: real }
transformed param { shift = mu - ybar }
model {
  mu ~ normal(0, 10)
  for n in plate(N) { y[n] ~ normal(mu, 1) }
}
generated {
  y_new = normal_rng(mu, 1)
  one = 1
}
`

// TestPosteriorPredictive runs the defaults on predictiveSrc and checks
// the derived columns: their order, the exact predictive moments, and
// that a run's generated draws are fixed by its seed.
func TestPosteriorPredictive(t *testing.T) {
	y := []float64{0.3, 1.9, 1.2, 0.8, 2.4, 1.1, 0.2, 1.6, 1.0, 1.4, 0.9, 2.1, 1.3, 0.5, 1.7, 1.2, 0.6, 1.8, 1.5, 0.7}
	m, err := temper.Compile("predictive.ppl", predictiveSrc, map[string]any{"N": len(y), "y": y})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Columns(), ","); got != "lp__,mu,shift,y_new,one" {
		t.Fatalf("columns %s", got)
	}
	opts := temper.Options{Seed: 3}
	res, err := m.Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings %q: a constant generated column is no failure to move", res.Warnings)
	}
	n, sum := float64(len(y)), 0.0
	for _, v := range y {
		sum += v
	}
	prec := n + 1/100.0
	mean, sd := sum/prec, math.Sqrt(1+1/prec)
	for _, st := range res.Summary() {
		switch st.Name {
		case "y_new":
			// Tolerances of 5 Monte Carlo standard errors: sd/√ESS for
			// the mean, and sd·√(1/(2 ESS)) for the sd (a normal's).
			if se := sd / math.Sqrt(st.ESSBulk); math.Abs(st.Mean-mean) > 5*se || math.Abs(st.SD-sd) > 5*sd*math.Sqrt(0.5/st.ESSBulk) {
				t.Errorf("y_new mean %.4f sd %.4f (ESS %.0f), want %.4f and %.4f", st.Mean, st.SD, st.ESSBulk, mean, sd)
			}
		case "shift":
			if want := mean - sum/n; math.Abs(st.Mean-want) > 0.05 {
				t.Errorf("shift mean %.4f, want mu - ybar = %.4f", st.Mean, want)
			}
		}
	}
	again, err := m.Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Draws, again.Draws) {
		t.Error("two runs with one seed made different draws")
	}
}

// TestGeneratedStreams checks the generated block's random streams: each
// chain's and each iteration's draws of y_new - mu (a standard normal in
// predictiveSrc) must be independent, as DrawSeed(seed, chain, level,
// iteration) promises. A stream shared by the chains would give them equal
// draws (correlation 1 between chains); one shared by a chain's iterations,
// a constant. Over 2,000 draws a correlation's standard error is 0.022 and
// the bound 0.1 is 4.5 of them.
func TestGeneratedStreams(t *testing.T) {
	y := []float64{0.3, 1.9, 1.2, 0.8, 2.4}
	m, err := temper.Compile("predictive.ppl", predictiveSrc, map[string]any{"N": len(y), "y": y})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Chains: 3, Iters: 2000, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	mu, ynew := drawsOf(t, res, "mu"), drawsOf(t, res, "y_new")
	noise := make([][]float64, len(mu))
	for c := range mu {
		for k := range mu[c] {
			noise[c] = append(noise[c], ynew[c][k]-mu[c][k])
		}
	}
	corr := func(a, b []float64) float64 {
		var sa, sb, saa, sbb, sab float64
		for i := range a {
			sa, sb, saa, sbb, sab = sa+a[i], sb+b[i], saa+a[i]*a[i], sbb+b[i]*b[i], sab+a[i]*b[i]
		}
		n := float64(len(a))
		return (sab/n - sa*sb/n/n) / math.Sqrt((saa/n-sa*sa/n/n)*(sbb/n-sb*sb/n/n))
	}
	for c := range noise {
		if r := corr(noise[c][1:], noise[c][:len(noise[c])-1]); !(math.Abs(r) < 0.1) {
			t.Errorf("chain %d: the generated noise's lag-1 autocorrelation is %.3f", c+1, r)
		}
		for d := c + 1; d < len(noise); d++ {
			if r := corr(noise[c], noise[d]); !(math.Abs(r) < 0.1) {
				t.Errorf("chains %d and %d: their generated noise correlates at %.3f", c+1, d+1, r)
			}
		}
	}
}
