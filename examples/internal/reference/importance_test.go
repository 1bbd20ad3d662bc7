package reference

import (
	"math"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestImportanceExact checks the reference on a posterior known in closed
// form: a normal mean and a gamma-distributed precision, y ~ normal(mu, 1)
// and s ~ gamma(3, 2) a priori with no data on s (so s's posterior is its
// prior, far from normal: skewed, on a bounded support). With 100,000
// proposals and an ESS near 70,000 the moments' Monte Carlo errors are
// about sd/√ESS ≈ 0.004 sd; 0.02 sd is 5 of them.
func TestImportanceExact(t *testing.T) {
	y := []float64{0.3, 1.9, 1.2, 0.8, 2.4}
	m, err := temper.Compile("t.ppl", `
data { N: int  y: real[N] }
param { mu: real  s: real<lower=0> }
model {
  mu ~ normal(0, 10)
  s ~ gamma(3, 2)
  for n in plate(N) { y[n] ~ normal(mu, 1) }
}`, map[string]any{"N": len(y), "y": y})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Importance(m, 100000, 1)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	prec := float64(len(y)) + 0.01
	want := map[string]Moments{
		"mu": {sum / prec, 1 / math.Sqrt(prec)},
		"s":  {3.0 / 2, math.Sqrt(3) / 2},
	}
	for name, w := range want {
		got := res.Moments[name]
		if math.Abs(got.Mean-w.Mean) > 0.02*w.SD || math.Abs(got.SD/w.SD-1) > 0.02 {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
	t.Logf("ESS %.0f, k̂ %.2f", res.ESS, res.ParetoK)
}

// TestImportanceRefusesHeavyTails: a Cauchy posterior's tails are heavier
// than the t proposal's, and the weights say so.
func TestImportanceRefusesHeavyTails(t *testing.T) {
	m, err := temper.Compile("t.ppl", `param { x: real } model { x ~ cauchy(0, 1) }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Importance(m, 20000, 1); err == nil {
		t.Errorf("a Cauchy target passed: ESS %.0f, k̂ %.2f", res.ESS, res.ParetoK)
	}
}

// TestHMCExact checks the HMC reference on the closed-form posterior of
// TestImportanceExact: 4 chains × 4,000 draws, whose ESS is in the
// thousands, so 0.05 sd and 5% are several Monte Carlo errors.
func TestHMCExact(t *testing.T) {
	y := []float64{0.3, 1.9, 1.2, 0.8, 2.4}
	m, err := temper.Compile("t.ppl", `
data { N: int  y: real[N] }
param { mu: real  s: real<lower=0> }
model {
  mu ~ normal(0, 10)
  s ~ gamma(3, 2)
  for n in plate(N) { y[n] ~ normal(mu, 1) }
}`, map[string]any{"N": len(y), "y": y})
	if err != nil {
		t.Fatal(err)
	}
	got, err := HMC{Chains: 4, Warmup: 1000, Draws: 4000, Seed: 1}.Run(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	prec := float64(len(y)) + 0.01
	want := map[string]Moments{
		"mu": {sum / prec, 1 / math.Sqrt(prec)},
		"s":  {3.0 / 2, math.Sqrt(3) / 2},
	}
	for name, w := range want {
		g := got[name]
		if math.Abs(g.Mean-w.Mean) > 0.05*w.SD || math.Abs(g.SD/w.SD-1) > 0.05 {
			t.Errorf("%s: %+v, want %+v", name, g, w)
		}
	}
}
