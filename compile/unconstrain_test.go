package compile_test

import (
	"math"
	"strings"
	"testing"
)

// TestUnconstrain: inits on the constrained scale map to the point that
// Constrain maps back to them, to 1e-12 relative, for every kind of bound,
// a bound that depends on an earlier parameter included; values outside
// the support, missing and unknown names are errors.
func TestUnconstrain(t *testing.T) {
	m := compileSrc(t, `param {
  mu: real
  sigma: real<lower=0>
  p: real<lower=0, upper=1>
  tau: real<upper=5>
  z: real<lower=mu>[3]
}
model {
  target += -mu^2 - sigma - p - tau^2 - sum(z)
}`, nil)
	values := map[string][]float64{"mu": {-1.5}, "sigma": {2.5e-3}, "p": {0.999}, "tau": {-20}, "z": {-1.4, 0, 300}}
	theta, err := m.Unconstrain(values)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(m.OutputNames()))
	m.Constrain(out, theta)
	want := []float64{-1.5, 2.5e-3, 0.999, -20, -1.4, 0, 300}
	for i, w := range want {
		if math.Abs(out[i]-w) > 1e-12*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: %v back from θ = %v, want %v", m.OutputNames()[i], out[i], theta, w)
		}
	}
	if theta[0] != -1.5 || math.Abs(theta[1]-math.Log(2.5e-3)) > 1e-12 {
		t.Errorf("θ = %v: mu is unbounded, sigma's is log(2.5e-3)", theta)
	}
	for _, c := range []struct {
		change func(map[string][]float64)
		want   string
	}{
		{func(v map[string][]float64) { v["sigma"] = []float64{-1} }, "sigma: value 1, -1, is outside the parameter's support"},
		{func(v map[string][]float64) { v["p"] = []float64{1} }, "p: value 1, 1, is outside"},
		{func(v map[string][]float64) { v["z"] = []float64{-1.4, -2, 0} }, "z: value 2, -2, is outside"},
		{func(v map[string][]float64) { delete(v, "tau") }, "no value for the parameter tau"},
		{func(v map[string][]float64) { v["sigmaa"] = []float64{1} }, "sigmaa is not a parameter of the model"},
		{func(v map[string][]float64) { v["z"] = []float64{1, 2} }, "z has 2 values; the parameter has 3"},
		{func(v map[string][]float64) { v["mu"] = []float64{math.NaN()} }, "mu: value 1 is NaN"},
	} {
		v := map[string][]float64{}
		for k, x := range values {
			v[k] = x
		}
		c.change(v)
		if _, err := m.Unconstrain(v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", v, err, c.want)
		}
	}
}
