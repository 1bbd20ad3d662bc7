package compile

import (
	"math"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/lang"
)

// TestNonCentred: the centred eight schools' theta is rewritten with
// offset mu and multiplier tau, and the rewritten model's density is the
// hand-written non-centred one's (the affine transform's own test,
// TestOffsetMultiplier, pins that to rounding); a prior whose scale is
// data, a parameter with bounds and one whose hierarchy uses a later
// parameter are left alone.
func TestNonCentred(t *testing.T) {
	src := `data { J: int  y: real[J]  sigma: real<lower=0>[J] }
param {
  mu: real
  tau: real<lower=0>
  theta: real[J]
  beta: real
  early: real[J]
  late: real<lower=0>
  s: real<lower=0>
}
model {
  mu ~ normal(0, 5)
  tau ~ cauchy(0, 5)
  theta ~ normal(mu, tau)
  beta ~ normal(0, 2)
  early ~ normal(0, late)
  late ~ exponential(1)
  s ~ normal(0, tau)
  for j in plate(J) { y[j] ~ normal(theta[j] + beta + early[j], sigma[j]) }
}`
	f, err := lang.Parse("m.ppl", []byte(src))
	if err == nil {
		_, err = lang.Check(f, Env())
	}
	if err != nil {
		t.Fatal(err)
	}
	data := Data{"y": {Shape: []int{8}, Values: []float64{28, 8, -3, 7, -1, 1, 18, 12}}, "sigma": {Shape: []int{8}, Values: []float64{15, 10, 16, 11, 9, 11, 10, 18}}}
	m, err := Compile(f, data)
	if err != nil {
		t.Fatal(err)
	}
	nm, names, err := m.NonCentred()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"theta"}) {
		t.Fatalf("rewritten %v, want [theta]", names)
	}
	if nm.Dim() != m.Dim() || !slices.Equal(nm.ParamNames(), m.ParamNames()) {
		t.Fatalf("the rewritten model's parameters %v differ from %v", nm.ParamNames(), m.ParamNames())
	}
	// At u = 0 for theta, the rewritten model's theta is mu.
	theta := make([]float64, m.Dim())
	theta[0], theta[1] = 1.5, math.Log(2)
	out := make([]float64, len(nm.ParamNames()))
	nm.ConstrainParams(out, theta)
	if out[2] != 1.5 || out[9] != 1.5 {
		t.Errorf("theta at u = 0 is %v, want mu = 1.5", out[2:10])
	}
	if same, names, _ := nm.NonCentred(); same != nm || names != nil {
		t.Errorf("a model with nothing left to rewrite was rewritten again: %v", names)
	}
}
