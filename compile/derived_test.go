package compile_test

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// schoolsSrc is eight schools, non-centred, with each derived block: the
// transformed data centre y, theta is a transformed parameter, and the
// generated block replicates y.
const schoolsSrc = `
data { J: int  y: real[J]  sigma: real<lower=0>[J] }
transformed data {
  ybar = mean(y)
  s = sd(y)
  for j in plate(J) { yc = (y[j] - ybar) / s }
}
param { mu: real  tau: real<lower=0>  eta: real[J] }
transformed param { theta = mu + tau * eta }
model {
  eta ~ normal(0, 1)
  for j in plate(J) { yc[j] ~ normal((theta[j] - ybar) / s, sigma[j] / s) }
}
generated {
  for j in plate(J) {
    y_rep = normal_rng(theta[j], sigma[j])
    above = y_rep > y[j]
  }
  k = bernoulli_logit_rng(mu / 10)
}
`

var schoolsData = map[string]any{
	"J":     8,
	"y":     []float64{28, 8, -3, 7, -1, 1, 18, 12},
	"sigma": []float64{15, 10, 16, 11, 9, 11, 10, 18},
}

func TestDerivedColumns(t *testing.T) {
	m := compileSrc(t, schoolsSrc, schoolsData)
	names := m.OutputNames()
	want := []string{"mu", "tau", "eta.1"}
	if !slices.Equal(names[:3], want) || names[10] != "theta.1" || names[18] != "y_rep.1" || names[26] != "above.1" || names[len(names)-1] != "k" {
		t.Fatalf("columns %v", names)
	}
	if got := m.ParamNames(); len(got) != 10 {
		t.Errorf("ParamNames %v, want the 10 parameters' columns", got)
	}
	theta := []float64{1.5, math.Log(2), 0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8} // tau = 2
	out := make([]float64, len(names))
	m.ConstrainSeeded(out, theta, 7)
	for j := range 8 {
		if want := 1.5 + 2*theta[2+j]; math.Abs(out[10+j]-want) > 1e-12 {
			t.Errorf("theta.%d = %v, want mu + tau*eta = %v", j+1, out[10+j], want)
		}
		if a := out[26+j]; a != 0 && a != 1 || (a == 1) != (out[18+j] > schoolsData["y"].([]float64)[j]) {
			t.Errorf("above.%d = %v with y_rep %v", j+1, a, out[18+j])
		}
	}
	again := make([]float64, len(names))
	m.ConstrainSeeded(again, theta, 7)
	if !slices.Equal(out, again) {
		t.Error("the same seed gave different generated quantities")
	}
	m.ConstrainSeeded(again, theta, 8)
	if again[18] == out[18] {
		t.Error("another seed gave the same y_rep")
	}
}

// TestGeneratedMoments draws y_rep over many seeds at one point: its mean
// and sd must be theta's and sigma's. With n = 4000 draws the sample mean's
// standard error is sigma/√n ≈ 0.24 for sigma = 15; 5 standard errors
// bound it. The sample sd's relative standard error is about 1/√(2n) ≈
// 1.1%; 5% is over 4 of them. The Bernoulli draw's mean is
// logistic(mu/10).
func TestGeneratedMoments(t *testing.T) {
	m := compileSrc(t, schoolsSrc, schoolsData)
	names := m.OutputNames()
	theta := make([]float64, 10) // mu = 0, tau = 1, eta = 0: theta = 0
	theta[0] = 5
	const n = 4000
	out := make([]float64, len(names))
	var sum, sumSq, count float64
	for s := range n {
		m.ConstrainSeeded(out, theta, uint64(s))
		sum += out[18]
		sumSq += out[18] * out[18]
		count += out[len(out)-1]
	}
	mean := sum / n
	sd := math.Sqrt(sumSq/n - mean*mean)
	if se := 15 / math.Sqrt(n); math.Abs(mean-5) > 5*se {
		t.Errorf("y_rep.1 mean %v, want 5 ± %v", mean, 5*se)
	}
	if math.Abs(sd/15-1) > 0.05 {
		t.Errorf("y_rep.1 sd %v, want 15 within 5%%", sd)
	}
	p := 1 / (1 + math.Exp(-0.5))
	if got, se := count/n, math.Sqrt(p*(1-p)/n); math.Abs(got-p) > 5*se {
		t.Errorf("k mean %v, want %v ± %v", got, p, 5*se)
	}
}

// TestTransformedData checks that the transformed data block sees every
// row: the centred, scaled column has mean 0 and sd 1 over the data, and
// the energy equals the hand-written one on the raw data.
func TestTransformedData(t *testing.T) {
	m := compileSrc(t, schoolsSrc, schoolsData)
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{1.5, math.Log(2), 0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8}
	energy, grad, variance := make([]float64, 1), make([]float64, 10), make([]float64, 1)
	if err := ev.Evaluate(theta, nil, energy, grad, variance); err != nil {
		t.Fatal(err)
	}
	y, sigma := schoolsData["y"].([]float64), schoolsData["sigma"].([]float64)
	ybar, ss := 0.0, 0.0
	for _, v := range y {
		ybar += v / 8
	}
	for _, v := range y {
		ss += (v - ybar) * (v - ybar)
	}
	s := math.Sqrt(ss / 7)
	// The scaled likelihood is the raw one times s per row (the Jacobian
	// of y ↦ (y - ybar)/s), so the energies differ by -8 log s.
	want := -math.Log(2) // the log-Jacobian of tau, with no prior on it
	for j := range 8 {
		eta := theta[2+j]
		want += 0.5*eta*eta + 0.5*math.Log(2*math.Pi)
		th := 1.5 + 2*eta
		z := (y[j] - th) / sigma[j]
		want += 0.5*z*z + math.Log(sigma[j]/s) + 0.5*math.Log(2*math.Pi)
	}
	if math.Abs(energy[0]-want) > 1e-9 {
		t.Errorf("energy %v, want %v", energy[0], want)
	}
}

func TestDerivedErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`data { N: int  x: real[N] }
transformed data { l = log(x) }
param { mu: real }
model { mu ~ normal(0, 1) }`, "test.ppl:2:20: l[2] is -Inf: the transformed data must be finite"},
		{`data { N: int  x: real[N] }
transformed data { v = variance(x[1]) }
param { mu: real }
model { mu ~ normal(0, 1) }`, "a variance needs at least 2 values, and this has 1"},
		{`param { mu: real }
model { mu ~ normal(0, 1) }
generated { z = normal_rng(mu, [1, 2]) + [1, 2, 3] }`, "test.ppl:3:"},
	} {
		_, err := tryCompile(c.src, map[string]any{"N": 2, "x": []float64{1, 0}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v, want %q", c.src, err, c.want)
		}
	}
}

// TestGeneratedDomainError: an _rng whose arguments are outside its
// domain gives NaN, and the model says where.
func TestGeneratedDomainError(t *testing.T) {
	m := compileSrc(t, `param { mu: real }
model { mu ~ normal(0, 1) }
generated { z = normal_rng(0, mu) }`, nil)
	out := make([]float64, 2)
	m.ConstrainSeeded(out, []float64{-1}, 1)
	if !math.IsNaN(out[1]) {
		t.Errorf("normal_rng(0, -1) = %v, want NaN", out[1])
	}
	errs := m.DomainErrors()
	if len(errs) != 1 || errs[0].Draws != 1 || !strings.Contains(errs[0].String(), "test.ppl:3:17: normal_rng got arguments outside its domain in 1 draws") {
		t.Errorf("DomainErrors %v", errs)
	}
	m.ConstrainSeeded(out, []float64{1}, 1)
	if math.IsNaN(out[1]) || m.DomainErrors()[0].Draws != 1 {
		t.Errorf("normal_rng(0, 1) = %v; domain errors %v", out[1], m.DomainErrors())
	}
}

// TestPredictSeesTransformedParams: the predict block may use the
// transformed parameters, computed from each draw's parameters.
func TestPredictSeesTransformedParams(t *testing.T) {
	m := compileSrc(t, schoolsSrc+`
predict { for j in plate(J) { t2 = theta[j] * 2 } }`, schoolsData)
	p, err := m.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	draw := []float64{1, 2, 0, 0, 0, 0, 0, 0, 0, 1} // mu = 1, tau = 2, eta.8 = 1
	pred, err := p.Predict([][]float64{draw})
	if err != nil {
		t.Fatal(err)
	}
	if got := pred.Defines[0].Mean; got[0] != 2 || got[7] != 6 {
		t.Errorf("t2 = %v, want 2 ... 6", got)
	}
}

// TestLKJRNG draws Cholesky factors of 3×3 correlations from LKJ(eta) in
// the generated block: every draw is a valid factor (lower triangular,
// rows of unit norm), and an off-diagonal correlation has the LKJ
// marginal's variance 1/(2·(eta - 1 + K/2) + 1) (Lewandowski, Kurowicka &
// Joe 2009: its marginal is Beta(b, b) on (-1, 1) with b = eta - 1 + K/2).
// With 4,000 draws the variance's standard error is about 3% of it; 15%
// is 5 of them.
func TestLKJRNG(t *testing.T) {
	m := compileSrc(t, `data { K: int }
param { mu: real }
model { mu ~ normal(0, 1) }
generated { L = lkj_corr_cholesky_rng(K, 2) }`, map[string]any{"K": 3})
	out := make([]float64, 10)
	sumSq := 0.0
	const n = 4000
	for s := range n {
		m.ConstrainSeeded(out, []float64{0}, uint64(s))
		l := out[1:]
		for i := range 3 {
			norm := 0.0
			for j := range 3 {
				if j > i && l[i*3+j] != 0 {
					t.Fatalf("L = %v is not lower triangular", l)
				}
				norm += l[i*3+j] * l[i*3+j]
			}
			if math.Abs(norm-1) > 1e-12 {
				t.Fatalf("row %d of L = %v has norm² %v", i, l, norm)
			}
		}
		sumSq += l[3] * l[3] // L[2,1] = Omega[2,1]
	}
	b := 2 - 1 + 3.0/2
	if got, want := sumSq/n, 1/(2*b+1); math.Abs(got/want-1) > 0.15 {
		t.Errorf("E[Omega[2,1]²] = %v, want %v", got, want)
	}
	if _, err := tryCompile(`param { mu: real } model {} generated { L = lkj_corr_cholesky_rng(mu, 2) }`, nil); err == nil {
		t.Error("a K that is a parameter compiled")
	}
}
