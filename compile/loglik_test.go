package compile_test

import (
	"math"
	"strings"
	"testing"
)

// TestLogLik: the pointwise log-likelihood of a regression whose scale is
// bounded and whose likelihood is a ~ in the plate is each row's normal
// log density at the constrained parameters, priors and Jacobians left
// out; a target += term in the plate is a row's term too; a likelihood
// term outside the plate, or a model without a plate, is refused.
func TestLogLik(t *testing.T) {
	y, x := []float64{0.5, -1.2, 2.0, 0.1}, []float64{1, -1, 2, 0}
	data := map[string]any{"N": 4, "y": y, "x": x}
	m, err := tryCompile(`data { N: int  y: real[N]  x: real[N] }
param { b: real  sigma: real<lower=0> }
model {
  b ~ normal(0, 1)
  sigma ~ normal(0, 1)
  for n in plate(N) { y[n] ~ normal(b * x[n], sigma) }
}`, data)
	if err != nil {
		t.Fatal(err)
	}
	ll, err := m.LogLik()
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.7, math.Log(1.3)} // b = 0.7, sigma = 1.3
	got := make([]float64, ll.N())
	ll.Eval(got, theta)
	for n := range y {
		z := (y[n] - 0.7*x[n]) / 1.3
		want := -0.5*z*z - math.Log(1.3) - 0.5*math.Log(2*math.Pi)
		if math.Abs(got[n]-want) > 1e-12 {
			t.Errorf("row %d: %.15g, want %.15g", n+1, got[n], want)
		}
	}

	tgt, err := tryCompile(`data { N: int  y: real[N]  x: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 5)
  for n in plate(N) { target += -0.5 * (y[n] - mu) ^ 2 }
}`, data)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := tgt.LogLik()
	if err != nil {
		t.Fatal(err)
	}
	tl.Eval(got, []float64{0.3})
	for n := range y {
		if want := -0.5 * (y[n] - 0.3) * (y[n] - 0.3); math.Abs(got[n]-want) > 1e-12 {
			t.Errorf("target += row %d: %.15g, want %.15g", n+1, got[n], want)
		}
	}

	for _, c := range []struct{ src, want string }{
		{`data { N: int  y: real[N]  x: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 5)
  y ~ normal(mu, 1)
}`, "needs the observations in a plate"},
		{`data { N: int  y: real[N]  x: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 5)
  x ~ normal(mu, 1)
  for n in plate(N) { y[n] ~ normal(mu, 1) }
}`, "terms outside it"},
	} {
		m, err := tryCompile(c.src, data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.LogLik(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LogLik: %v, want an error saying %q", err, c.want)
		}
	}
}

// TestLogLikRows: the log-likelihood of chosen rows is those rows' values
// of the whole.
func TestLogLikRows(t *testing.T) {
	y, x := []float64{0.5, -1.2, 2.0, 0.1, 0.7}, []float64{1, -1, 2, 0, 3}
	m, err := tryCompile(`data { N: int  y: real[N]  x: real[N] }
param { b: real }
model {
  b ~ normal(0, 1)
  for n in plate(N) { y[n] ~ normal(b * x[n], 1) }
}`, map[string]any{"N": 5, "y": y, "x": x})
	if err != nil {
		t.Fatal(err)
	}
	all, err := m.LogLik()
	if err != nil {
		t.Fatal(err)
	}
	whole := make([]float64, 5)
	all.Eval(whole, []float64{0.4})
	rows := []int{3, 0, 4}
	some, err := m.LogLikRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, some.N())
	some.Eval(got, []float64{0.4})
	for j, r := range rows {
		if got[j] != whole[r] {
			t.Errorf("row %d: %v, the whole's %v", r+1, got[j], whole[r])
		}
	}
	if _, err := m.LogLikRows([]int{5}); err == nil {
		t.Error("row 6 of 5 accepted")
	}
}
