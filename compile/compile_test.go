package compile_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/lang"
)

// logisticSrc is a logistic regression with a constrained scale, small
// enough to check against a hand-written log density.
const logisticSrc = `
data {
  N: int
  D: int
  X: real[N, D]
  y: int<lower=0, upper=1>[N]
}
param {
  alpha: real
  beta: real[D]
  tau: real<lower=0>
}
model {
  tau ~ gamma(2, 2)
  alpha ~ normal(0, 1)
  beta ~ normal(0, tau)
  for n in plate(N) {
    y[n] ~ bernoulli_logit(alpha + dot(X[n], beta))
  }
}
`

func compileSrc(t *testing.T, src string, data map[string]any) *compile.Model {
	t.Helper()
	m, err := tryCompile(src, data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tryCompile(src string, data map[string]any) (*compile.Model, error) {
	f, d, err := parseWithData("test.ppl", src, data)
	if err != nil {
		return nil, err
	}
	return compile.Compile(f, d)
}

// parseWithData parses and checks src, named name, and converts data.
func parseWithData(name, src string, data map[string]any) (*lang.File, compile.Data, error) {
	f, err := lang.Parse(name, []byte(src))
	if err != nil {
		return nil, nil, err
	}
	if _, err := lang.Check(f, compile.Env()); err != nil {
		return nil, nil, err
	}
	d, err := compile.FromGo(data)
	return f, d, err
}

func logisticData(n, d int, seed uint64) (map[string]any, [][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = rng.NormFloat64()
		}
		if rng.Float64() < 0.4 {
			y[i] = 1
		}
	}
	yi := make([]int, n)
	for i, v := range y {
		yi[i] = int(v)
	}
	return map[string]any{"X": x, "y": yi}, x, y
}

// logisticEnergy is -log p(α, β, τ | X, y) on the unconstrained scale
// (u = log τ, with its Jacobian), written out by hand.
func logisticEnergy(theta []float64, x [][]float64, y []float64) float64 {
	d := len(x[0])
	alpha, beta, u := theta[0], theta[1:1+d], theta[1+d]
	tau := math.Exp(u)
	lp := 2*math.Log(2) - math.Log(1) + (2-1)*math.Log(tau) - 2*tau // gamma(τ | 2, 2), Γ(2) = 1
	lp += -0.5*alpha*alpha - 0.5*math.Log(2*math.Pi)
	for _, b := range beta {
		lp += -0.5*(b/tau)*(b/tau) - math.Log(tau) - 0.5*math.Log(2*math.Pi)
	}
	lp += u // log|dτ/du|
	for n, row := range x {
		eta := alpha
		for j, v := range row {
			eta += v * beta[j]
		}
		p := 1 / (1 + math.Exp(-eta))
		if y[n] == 1 {
			lp += math.Log(p)
		} else {
			lp += math.Log(1 - p)
		}
	}
	return -lp
}

func TestLayoutAndNames(t *testing.T) {
	data, _, _ := logisticData(12, 3, 1)
	m := compileSrc(t, logisticSrc, data)
	if m.Dim() != 5 || m.NumData() != 12 {
		t.Fatalf("dim %d, N %d; want 5, 12", m.Dim(), m.NumData())
	}
	if got := strings.Join(m.OutputNames(), " "); got != "alpha beta.1 beta.2 beta.3 tau" {
		t.Fatalf("names %q", got)
	}
	out := make([]float64, 5)
	m.Constrain(out, []float64{0.5, 1, 2, 3, math.Log(2.5)})
	if out[0] != 0.5 || out[3] != 3 || math.Abs(out[4]-2.5) > 1e-15 {
		t.Fatalf("constrained %v", out)
	}
}

// TestExactEnergyMatchesHandWritten compares the compiled full-data energy
// and its gradient with the hand-written log density (gradient by central
// differences of it: error about 1e-9 at h = 1e-5).
func TestExactEnergyMatchesHandWritten(t *testing.T) {
	data, x, y := logisticData(20, 3, 2)
	m := compileSrc(t, logisticSrc, data)
	theta := []float64{0.3, -0.5, 0.8, 0.1, -0.2}
	checkEnergy(t, m, theta, func(th []float64) float64 { return logisticEnergy(th, x, y) })
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	energy, grad, variance := make([]float64, 1), make([]float64, 5), make([]float64, 1)
	if err := ev.Evaluate(theta, nil, energy, grad, variance); err != nil {
		t.Fatal(err)
	}
	if variance[0] != 0 {
		t.Errorf("the exact energy has variance %v, want 0", variance[0])
	}
}

// TestMinibatchEstimatorIsUnbiased averages the minibatch energy over the
// batches of a partition of the rows: each row appears once, so the average
// of (N/B)Σ_b ℓ_b is exactly Σ_n ℓ_n, and the mean equals the full energy up
// to rounding (1e-9 relative). Replicas evaluate different batches in one pass.
func TestMinibatchEstimatorIsUnbiased(t *testing.T) {
	const n, b = 24, 6
	data, _, _ := logisticData(n, 3, 3)
	m := compileSrc(t, logisticSrc, data)
	theta := []float64{0.3, -0.5, 0.8, 0.1, -0.2}
	exact, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	fullE, fullG, v := make([]float64, 1), make([]float64, 5), make([]float64, 1)
	if err := exact.Evaluate(theta, nil, fullE, fullG, v); err != nil {
		t.Fatal(err)
	}
	const p = n / b // one replica per batch of the partition
	ev, err := m.Evaluator(p, b)
	if err != nil {
		t.Fatal(err)
	}
	perm := rand.New(rand.NewPCG(4, 4)).Perm(n)
	thetas := make([]float64, 0, p*5)
	for range p {
		thetas = append(thetas, theta...)
	}
	energy, grad, variance := make([]float64, p), make([]float64, p*5), make([]float64, p)
	if err := ev.Evaluate(thetas, perm, energy, grad, variance); err != nil {
		t.Fatal(err)
	}
	meanE := 0.0
	meanG := make([]float64, 5)
	for c := range p {
		meanE += energy[c] / p
		for i := range 5 {
			meanG[i] += grad[c*5+i] / p
		}
	}
	if math.Abs(meanE-fullE[0]) > 1e-9*math.Abs(fullE[0]) {
		t.Errorf("mean minibatch energy %.12g, full %.12g", meanE, fullE[0])
	}
	for i := range 5 {
		if math.Abs(meanG[i]-fullG[i]) > 1e-9*math.Max(1, math.Abs(fullG[i])) {
			t.Errorf("mean minibatch gradient %d: %.12g, full %.12g", i, meanG[i], fullG[i])
		}
	}
}

// TestVarianceEstimate compares the evaluator's estimate of Var[Ũ] with the
// empirical variance of Ũ over 4,000 random batches. The estimate is itself
// random (a batch's sample variance), so its mean over the batches is
// compared: both are within a few percent of the truth at this size; 10%
// allows for the 4,000-draw variance estimate's own 2.2% standard error and
// the estimate's mean error, while a missing finite-population factor
// (1 - B/N = 0.75 here) or an N/B scaling error fails.
func TestVarianceEstimate(t *testing.T) {
	const n, b, draws = 40, 10, 4000
	data, _, _ := logisticData(n, 3, 5)
	m := compileSrc(t, logisticSrc, data)
	ev, err := m.Evaluator(1, b)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -0.5, 0.8, 0.1, -0.2}
	rng := rand.New(rand.NewPCG(6, 6))
	energy, grad, variance := make([]float64, 1), make([]float64, 5), make([]float64, 1)
	var sum, sumSq, estimate float64
	for range draws {
		rows := rng.Perm(n)[:b]
		if err := ev.Evaluate(theta, rows, energy, grad, variance); err != nil {
			t.Fatal(err)
		}
		sum += energy[0]
		sumSq += energy[0] * energy[0]
		estimate += variance[0] / draws
	}
	mean := sum / draws
	empirical := (sumSq - draws*mean*mean) / (draws - 1)
	if math.Abs(estimate/empirical-1) > 0.1 {
		t.Fatalf("mean variance estimate %.4g, empirical variance %.4g", estimate, empirical)
	}
}

// TestReplicasAgree evaluates three different points in one pass and one at
// a time.
func TestReplicasAgree(t *testing.T) {
	data, _, _ := logisticData(10, 3, 7)
	m := compileSrc(t, logisticSrc, data)
	many, err := m.Evaluator(3, 4)
	if err != nil {
		t.Fatal(err)
	}
	thetas := []float64{0.1, 0.2, 0.3, 0.4, 0.5, -1, 0, 1, 2, -0.5, 2, 1, 0, -1, 0.3}
	rows := []int{0, 1, 2, 3, 9, 8, 7, 6, 4, 5, 1, 2}
	e, g, v := make([]float64, 3), make([]float64, 15), make([]float64, 3)
	if err := many.Evaluate(thetas, rows, e, g, v); err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		one, err := m.Evaluator(1, 4)
		if err != nil {
			t.Fatal(err)
		}
		e1, g1, v1 := make([]float64, 1), make([]float64, 5), make([]float64, 1)
		if err := one.Evaluate(thetas[c*5:(c+1)*5], rows[c*4:(c+1)*4], e1, g1, v1); err != nil {
			t.Fatal(err)
		}
		if e1[0] != e[c] || v1[0] != v[c] {
			t.Errorf("replica %d: energy %v / %v, variance %v / %v", c, e[c], e1[0], v[c], v1[0])
		}
		for i := range 5 {
			if g1[i] != g[c*5+i] {
				t.Errorf("replica %d gradient %d: %v in one pass, %v alone", c, i, g[c*5+i], g1[i])
			}
		}
	}
}

// TestPlateVectorisation checks the row semantics of a plate body that mixes
// per-row scalars and vectors: y[n] * w is a vector per row, which the batch
// must not confuse with the batch axis even when B equals the vector length.
func TestPlateVectorisation(t *testing.T) {
	src := `
data { N: int  y: real[N] }
param { w: real[3] }
model {
  for n in plate(N) {
    target += sum(y[n] * w)
  }
}`
	m := compileSrc(t, src, map[string]any{"y": []float64{1, 2, 3, 4, 5, 6}})
	ev, err := m.Evaluator(1, 3) // B = 3 = the length of w
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.5, -1, 2}
	e, g, v := make([]float64, 1), make([]float64, 3), make([]float64, 1)
	if err := ev.Evaluate(w, []int{0, 2, 4}, e, g, v); err != nil {
		t.Fatal(err)
	}
	// (N/B) Σ_b y_b Σ_i w_i = 2 · (1 + 3 + 5) · 1.5 = 27, and U = -27.
	if e[0] != -27 {
		t.Fatalf("energy %v, want -27", e[0])
	}
	for i := range 3 {
		if g[i] != -18 {
			t.Fatalf("gradient %v, want [-18 -18 -18]", g)
		}
	}
}
