package compile_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

// glmModel writes a regression of y on the rows of X, once with Stan's GLM
// form and once with the linear predictor written out with dot.
func glmModel(glm bool, yType, dist, extra string) string {
	lik := "y[n] ~ " + dist + "(alpha + dot(X[n], beta)" + extra + ")"
	if glm {
		lik = "y[n] ~ " + dist + "_glm(X[n], alpha, beta" + extra + ")"
	}
	return `
data { N: int  D: int  X: real[N, D]  y: ` + yType + `[N] }
param { alpha: real  beta: real[D]  sigma: real<lower=0> }
model {
  alpha ~ normal(0, 1)
  beta ~ normal(0, 1)
  sigma ~ exponential(1)
  for n in plate(N) {
    ` + lik + `
  }
}`
}

// TestGLMMatchesDot compiles each GLM and its written-out form on the same
// data and compares energies and gradients, on full data and on a
// minibatch, at two kinds of data:
//
//   - X and θ of a few binary digits (multiples of 1/8), where every product
//     and partial sum of X[n]·β is exact, so the predictors are the same
//     numbers whatever the order of summation and the energies must agree
//     bit for bit;
//   - Gaussian X, where the GLM's one product [B, D]·β (the GEMM kernel's
//     blocks and fused multiply-adds) and dot's running sums round
//     differently: 1e-13 relative is about 50 ulps of a sum of a few dozen
//     terms of order one, while a wrong predictor, density or scaling is off
//     by O(1).
//
// Gradients are compared to 1e-13 at both: ∂β is Xᵀ g, whose sums over rows
// of real-valued g round differently in the two products.
func TestGLMMatchesDot(t *testing.T) {
	const n, d = 30, 4
	rng := rand.New(rand.NewPCG(11, 2))
	gaussian, dyadic := make([][]float64, n), make([][]float64, n)
	for i := range n {
		gaussian[i], dyadic[i] = make([]float64, d), make([]float64, d)
		for j := range d {
			gaussian[i][j] = rng.NormFloat64()
			dyadic[i][j] = float64(rng.IntN(33)-16) / 8
		}
	}
	bin, count, real := make([]int, n), make([]int, n), make([]float64, n)
	for i := range n {
		bin[i] = rng.IntN(2)
		count[i] = rng.IntN(6)
		real[i] = rng.NormFloat64()
	}
	cases := []struct {
		dist, yType, extra string
		y                  any
	}{
		{"bernoulli_logit", "int", "", bin},
		{"poisson_log", "int", "", count},
		{"normal_id", "real", ", sigma", real},
	}
	theta := []float64{0.375, -0.5, 0.75, 0.125, -0.25, math.Log(1.3)}
	for _, c := range cases {
		written := strings.TrimSuffix(c.dist, "_id") // normal_id_glm is normal(α + x·β, σ)
		for _, x := range []struct {
			name  string
			x     [][]float64
			exact bool
		}{{"dyadic", dyadic, true}, {"gaussian", gaussian, false}} {
			data := map[string]any{"X": x.x, "y": c.y}
			glm := compileSrc(t, glmModel(true, c.yType, c.dist, c.extra), data)
			dot := compileSrc(t, glmModel(false, c.yType, written, c.extra), data)
			for _, batch := range []int{0, 7} {
				e1, g1 := evaluateAt(t, glm, theta, batch)
				e2, g2 := evaluateAt(t, dot, theta, batch)
				if x.exact && e1 != e2 || math.Abs(e1-e2) > 1e-13*math.Abs(e2) {
					t.Errorf("%s_glm, %s X, batch %d: energy %.17g, written out %.17g", c.dist, x.name, batch, e1, e2)
				}
				for i := range g1 {
					if math.Abs(g1[i]-g2[i]) > 1e-13*math.Max(1, math.Abs(g2[i])) {
						t.Errorf("%s_glm, %s X, batch %d: ∂U/∂θ%d = %.17g, written out %.17g", c.dist, x.name, batch, i, g1[i], g2[i])
					}
				}
			}
		}
	}
}

// evaluateAt is m's energy and gradient at theta on every row (batch 0)
// or on batch rows spread evenly over the data.
func evaluateAt(t *testing.T, m *compile.Model, theta []float64, batch int) (float64, []float64) {
	t.Helper()
	ev, err := m.Evaluator(1, batch)
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	if batch > 0 {
		rows = make([]int, batch)
		for i := range rows {
			rows[i] = i * (m.NumData() / batch)
		}
	}
	e, g, v := make([]float64, 1), make([]float64, len(theta)), make([]float64, 1)
	if err := ev.Evaluate(theta, rows, e, g, v); err != nil {
		t.Fatal(err)
	}
	return e[0], g
}

// TestGLMErrors: a coefficient vector that depends on the plate, or one of
// the wrong length, is an error at compile time naming one row's shapes.
func TestGLMErrors(t *testing.T) {
	data := map[string]any{"X": [][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}, "y": []int{0, 1}}
	cases := []struct{ beta, decl, want string }{
		{"B[n]", "B: real[N, 4]", "beta of bernoulli_logit_glm cannot depend on the plate index"},
		{"b", "b: real[3]", "bernoulli_logit_glm of x [4] and beta [3]: beta must be a vector as long as a row of x"},
	}
	for _, c := range cases {
		src := `
data { N: int  X: real[N, 4]  y: int[N] }
param { alpha: real  ` + c.decl + ` }
model {
  for n in plate(N) {
    y[n] ~ bernoulli_logit_glm(X[n], alpha, ` + c.beta + `)
  }
}`
		if _, err := tryCompile(src, data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("beta %s: error %v, want %q", c.beta, err, c.want)
		}
	}
}

// TestPredictBernoulliGLM: bernoulli_logit_glm predicts labels as
// bernoulli_logit does. With x = 1 and draws β = 0 and β = log 3 the rows
// are those of TestPredictBernoulli: NLL -(log(5/8) + log(3/8))/2, one of
// two right.
func TestPredictBernoulliGLM(t *testing.T) {
	src := `
data { N: int  X: real[N, 1]  y: int[N] }
param { beta: real[1] }
model {
  for n in plate(N) { y[n] ~ bernoulli_logit_glm(X[n], 0, beta) }
}
predict {
  for n in plate(N) { y[n] ~ bernoulli_logit_glm(X[n], 0, beta) }
}`
	out := predictAt(t, src, map[string]any{"X": [][]float64{{1}, {1}}, "y": []int{1, 0}}, [][]float64{{0}, {math.Log(3)}})
	s := out.Samples[0]
	wantNLL := -(math.Log(5.0/8) + math.Log(3.0/8)) / 2
	if math.Abs(s.NLL-wantNLL) > 1e-12 || s.Accuracy != 0.5 {
		t.Fatalf("got %+v, want NLL %v and accuracy 0.5", s, wantNLL)
	}
}
