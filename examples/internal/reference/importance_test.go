package reference

import (
	"math"
	"testing"

	"github.com/temper-ppl/temper"
)

// closedForm is a posterior known in closed form: a normal mean and a
// gamma-distributed precision, y ~ normal(mu, 1) and s ~ gamma(3, 2) a
// priori with no data on s (so s's posterior is its prior, far from
// normal: skewed, on a bounded support).
func closedForm(t *testing.T) (*temper.Model, map[string]Moments) {
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
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	prec := float64(len(y)) + 0.01
	return m, map[string]Moments{
		"mu": {sum / prec, 1 / math.Sqrt(prec)},
		"s":  {3.0 / 2, math.Sqrt(3) / 2},
	}
}

// checkMoments compares got with want: means within tol sds, sds within
// tol relatively.
func checkMoments(t *testing.T, got, want map[string]Moments, tol float64) {
	t.Helper()
	for name, w := range want {
		g := got[name]
		if math.Abs(g.Mean-w.Mean) > tol*w.SD || math.Abs(g.SD/w.SD-1) > tol {
			t.Errorf("%s: %+v, want %+v", name, g, w)
		}
	}
}

// TestImportanceExact checks the reference on closedForm. With 100,000
// proposals and an ESS near 80,000 the moments' Monte Carlo errors are
// about sd/√ESS ≈ 0.004 sd; 0.02 sd is 5 of them.
func TestImportanceExact(t *testing.T) {
	m, want := closedForm(t)
	res, err := Importance(m, 100000, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, res.Moments, want, 0.02)
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

// TestHMCExact checks the HMC reference on closedForm: 4 chains × 4,000
// draws, whose ESS is in the thousands, so 0.05 sd and 5% are several
// Monte Carlo errors.
func TestHMCExact(t *testing.T) {
	m, want := closedForm(t)
	got, err := HMC{Chains: 4, Warmup: 1000, Draws: 4000, Seed: 1}.Run(m)
	if err != nil {
		t.Fatal(err)
	}
	checkMoments(t, got, want, 0.05)
}
