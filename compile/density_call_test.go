package compile_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/stdlib"
)

// energyAt is the model's exact energy and gradient at theta.
func energyAt(t *testing.T, src string, data map[string]any, theta []float64) (float64, []float64) {
	t.Helper()
	return evaluateAt(t, mustCompile(t, src, data), theta, 0)
}

// mustCompile compiles src with data, failing the test on an error.
func mustCompile(t *testing.T, src string, data map[string]any) *compile.Model {
	t.Helper()
	m, err := tryCompile(src, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDensityCalls: Stan's NAME_lpdf(y | θ) and NAME_lpmf in expressions
// are the ~ statement's terms summed, each row of a plate apart: written
// as target += they give the ~ statement's energy and gradient exactly,
// in a plate and on a whole vector, and a mixture written with them is
// its hand-written log density; a discrete variate's density is _lpmf and
// a continuous one's _lpdf, and the checker suggests the right one, and a
// bar outside a density call is refused.
func TestDensityCalls(t *testing.T) {
	data := map[string]any{"N": 4, "y": []float64{0.5, -1.2, 2.0, 0.1}, "k": []int{0, 3, 1, 2}}
	head := "data { N: int  y: real[N]  k: int<lower=0>[N] }\nparam { mu: real[2]  sigma: real<lower=0> }\n"
	theta := []float64{0.3, -0.8, math.Log(1.4)}
	for _, c := range []struct{ name, a, b string }{
		{"plate", "for n in plate(N) { y[n] ~ normal(mu[1], sigma) }", "for n in plate(N) { target += normal_lpdf(y[n] | mu[1], sigma) }"},
		{"vector", "y ~ normal(mu[2], sigma)", "target += normal_lpdf(y | mu[2], sigma)"},
		{"counts", "for n in plate(N) { k[n] ~ poisson_log(mu[1]) }", "for n in plate(N) { target += poisson_log_lpmf(k[n] | mu[1]) }"},
		{"mixture", "for n in plate(N) { target += log(0.3 * exp(-0.5 * ((y[n] - mu[1]) / sigma) ^ 2) / sigma + 0.7 * exp(-0.5 * ((y[n] - mu[2]) / sigma) ^ 2) / sigma) - 0.5 * log(2 * pi()) }",
			"for n in plate(N) { target += log(0.3 * exp(normal_lpdf(y[n] | mu[1], sigma)) + 0.7 * exp(normal_lpdf(y[n] | mu[2], sigma))) }"},
	} {
		prior := "mu ~ normal(0, 1)\n  sigma ~ exponential(1)\n  "
		ua, ga := energyAt(t, head+"model {\n  "+prior+c.a+"\n}", data, theta)
		ub, gb := energyAt(t, head+"model {\n  "+prior+c.b+"\n}", data, theta)
		if math.Abs(ua-ub) > 1e-10 {
			t.Errorf("%s: energy %.15g with ~, %.15g with the density call", c.name, ua, ub)
		}
		for i := range ga {
			if math.Abs(ga[i]-gb[i]) > 1e-10 {
				t.Errorf("%s: gradient %v with ~, %v with the density call", c.name, ga, gb)
				break
			}
		}
	}
	for _, c := range []struct{ body, want string }{
		{"target += normal_lpmf(y | mu[1], sigma)", `unknown function "normal_lpmf"; did you mean "normal_lpdf"?`},
		{"target += poisson_lpdf(k | sigma)", `unknown function "poisson_lpdf"; did you mean "poisson_lpmf"?`},
		{"target += mu[1] | sigma", `invalid operator "|"`},
	} {
		_, err := tryCompile(head+"model {\n  "+c.body+"\n}", data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.body, err, c.want)
		}
	}
}

// TestLogCDFCalls: a censored likelihood written with normal_lccdf and
// normal_lcdf, in a plate and on a vector, is the log of the normal's tail
// probabilities at the parameters, each row's own; the gradient matches
// finite differences; a distribution without a log CDF is named as such.
func TestLogCDFCalls(t *testing.T) {
	data := map[string]any{"N": 3, "c": []float64{1.5, -0.4, 2.2}}
	src := `data { N: int  c: real[N] }
param { mu: real  sigma: real<lower=0> }
model {
  for n in plate(N) { target += normal_lccdf(c[n] | mu, sigma) }
  target += normal_lcdf(c | mu, sigma)
}`
	theta := []float64{0.4, math.Log(1.3)}
	u, _ := energyAt(t, src, data, theta)
	want := -math.Log(1.3) // sigma's log-Jacobian
	for _, c := range data["c"].([]float64) {
		z := (c - 0.4) / 1.3
		p := 0.5 * math.Erfc(-z/math.Sqrt2)
		want -= math.Log(1-p) + math.Log(p)
	}
	if math.Abs(u-want) > 1e-10 {
		t.Errorf("energy %.15g, want %.15g", u, want)
	}
	checkEnergyGradient(t, mustCompile(t, src, data), theta, 0)
	if _, err := tryCompile(`data { N: int  c: real[N] }
param { mu: real }
model { target += poisson_log_lcdf(c | mu) }`, data); err == nil || !strings.Contains(err.Error(), `unknown function "poisson_log_lcdf"`) {
		t.Errorf("poisson_log_lcdf: %v", err)
	}
}

// TestQuadratureCDFCalls: skew_normal_lccdf in a plate, skew_normal_lcdf
// of a vector, von_mises_cdf (the product over the vector) and a
// von_mises truncated to [-1, 2] are stdlib's log CDFs at the parameters,
// and the gradient matches finite differences.
func TestQuadratureCDFCalls(t *testing.T) {
	data := map[string]any{"N": 3, "c": []float64{1.5, -0.4, 2.2}, "y": []float64{0.3, -0.8, 1.1}}
	src := `data { N: int  c: real[N]  y: real[N] }
param { xi: real  omega: real<lower=0>  alpha: real  mu: real  kappa: real<lower=0> }
model {
  for n in plate(N) { target += skew_normal_lccdf(c[n] | xi, omega, alpha) }
  target += skew_normal_lcdf(c | xi, omega, alpha)
  target += log(von_mises_cdf(c | mu, kappa))
  y ~ von_mises(mu, kappa) T[-1, 2]
}`
	theta := []float64{0.4, math.Log(1.3), -1.5, 0.2, math.Log(2.5)}
	u, _ := energyAt(t, src, data, theta)
	sn, _ := stdlib.LookupLogCDF("skew_normal")
	vm, _ := stdlib.LookupLogCDF("von_mises")
	omega, kappa := 1.3, 2.5
	i0, term := 1.0, 1.0 // I₀(κ), its power series
	for m := 1.0; m < 40; m++ {
		term *= kappa * kappa / (4 * m * m)
		i0 += term
	}
	want := -theta[1] - theta[4] // the log-Jacobians
	for n, c := range data["c"].([]float64) {
		x := []float64{c, 0.4, omega, -1.5}
		want -= sn.Upper.Value(x) + sn.Lower.Value(x) + vm.Lower.Value([]float64{c, 0.2, kappa})
		y := data["y"].([]float64)[n]
		mass := math.Exp(vm.Lower.Value([]float64{2, 0.2, kappa})) - math.Exp(vm.Lower.Value([]float64{-1, 0.2, kappa}))
		want -= kappa*math.Cos(y-0.2) - math.Log(2*math.Pi*i0) - math.Log(mass)
	}
	if math.Abs(u-want) > 1e-10 {
		t.Errorf("energy %.15g, want %.15g", u, want)
	}
	checkEnergyGradient(t, mustCompile(t, src, data), theta, 0)
}

// TestCDFCalls: gamma_lccdf in a plate, gamma_cdf (Stan's product of the
// CDF over a vector's elements) and poisson_lcdf of counts are gonum's
// gamma and Poisson CDFs at the parameters; the gradient matches finite
// differences; an unknown _cdf, a _cdf short of parameters and a real
// count are errors at compile time.
func TestCDFCalls(t *testing.T) {
	data := map[string]any{"N": 3, "c": []float64{1.5, 0.4, 2.2}, "k": []int{0, 3, 7}}
	src := `data { N: int  c: real[N]  k: int[N] }
param { a: real<lower=0>  b: real<lower=0> }
model {
  for n in plate(N) { target += gamma_lccdf(c[n] | a, b) }
  target += log(gamma_cdf(c | a, b))
  target += poisson_lcdf(k | a)
}`
	theta := []float64{math.Log(1.7), math.Log(0.9)}
	u, _ := energyAt(t, src, data, theta)
	want := -theta[0] - theta[1] // the log-Jacobians
	for n, c := range data["c"].([]float64) {
		p := distuv.Gamma{Alpha: 1.7, Beta: 0.9}.CDF(c)
		want -= math.Log(1-p) + math.Log(p) + math.Log(distuv.Poisson{Lambda: 1.7}.CDF(float64(data["k"].([]int)[n])))
	}
	if math.Abs(u-want) > 1e-10 {
		t.Errorf("energy %.15g, want %.15g", u, want)
	}
	checkEnergyGradient(t, mustCompile(t, src, data), theta, 0)
	for _, c := range []struct{ body, want string }{
		{"target += log(poisson_log_cdf(c | a))", `unknown function "poisson_log_cdf"`},
		{"target += log(frechett_cdf(c | a, b))", `unknown function "frechett_cdf"; did you mean "frechet_cdf"?`},
		{"target += log(gamma_cdf(c | a))", "gamma_cdf"},
		{"target += poisson_lcdf(c | a)", "int"},
	} {
		_, err := tryCompile(`data { N: int  c: real[N]  k: int[N] }
param { a: real<lower=0>  b: real<lower=0> }
model { `+c.body+` }`, data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.body, err, c.want)
		}
	}
}
