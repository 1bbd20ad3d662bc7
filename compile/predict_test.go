package compile_test

import (
	"math"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

// TestPredictBernoulli checks the model-average NLL and accuracy on a case
// worked by hand: draws α = 0 and α = log 3 give p(y = 1) = 1/2 and 3/4,
// averaging to 5/8, so the rows y = 1 and y = 0 have NLL -log(5/8) and
// -log(3/8), and predicting 1 for both gets one of two right.
func TestPredictBernoulli(t *testing.T) {
	src := `
data { N: int  y: int[N] }
param { alpha: real }
model {
  alpha ~ normal(0, 1)
  for n in plate(N) { y[n] ~ bernoulli_logit(alpha) }
}
predict {
  p = inv_logit(alpha)
  for n in plate(N) { y[n] ~ bernoulli_logit(alpha) }
}`
	out := predictAt(t, src, map[string]any{"y": []int{1, 0}}, [][]float64{{0}, {math.Log(3)}})
	s := out.Samples[0]
	wantNLL := -(math.Log(5.0/8) + math.Log(3.0/8)) / 2
	if math.Abs(s.NLL-wantNLL) > 1e-12 || s.Accuracy != 0.5 || s.Rows != 2 || s.Name != "y[n]" {
		t.Fatalf("got %+v, want NLL %v and accuracy 0.5", s, wantNLL)
	}
	if d := out.Defines[0]; d.Name != "p" || math.Abs(d.Mean[0]-0.625) > 1e-12 {
		t.Fatalf("define %+v, want p = 0.625", d)
	}
}

// predictAt compiles src with data and runs its predict block at the
// posterior draws points.
func predictAt(t *testing.T, src string, data map[string]any, points [][]float64) *compile.Prediction {
	t.Helper()
	pr, err := compileSrc(t, src, data).Predictor()
	if err != nil {
		t.Fatal(err)
	}
	out, err := pr.Predict(points)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPredictCategorical: with one draw of logits, the prediction is the
// argmax of each row's logits and the NLL the mean of -log softmax at the
// observed labels.
func TestPredictCategorical(t *testing.T) {
	src := `
data { N: int  K: int  X: real[N, 2]  y: int[N] }
param { W: real[2, 3] }
model {
  for n in plate(N) { y[n] ~ categorical_logit(X[n] @ W) }
}
predict {
  for n in plate(N) { y[n] ~ categorical_logit(X[n] @ W) }
}`
	x := [][]float64{{1, 0}, {0, 1}, {1, 1}}
	m := compileSrc(t, src, map[string]any{"K": 3, "X": x, "y": []int{1, 3, 2}})
	pr, err := m.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{2, 0, 1, 0, 1, 3} // rows of W: logits x·W
	out, err := pr.Predict([][]float64{w})
	if err != nil {
		t.Fatal(err)
	}
	// Logits: row 1 [2 0 1] (argmax 1), row 2 [0 1 3] (3), row 3 [2 1 4] (3).
	logits := [][]float64{{2, 0, 1}, {0, 1, 3}, {2, 1, 4}}
	labels := []int{1, 3, 2}
	nll := 0.0
	for r, l := range logits {
		lse := math.Log(math.Exp(l[0]) + math.Exp(l[1]) + math.Exp(l[2]))
		nll -= l[labels[r]-1] - lse
	}
	s := out.Samples[0]
	if math.Abs(s.NLL-nll/3) > 1e-12 || math.Abs(s.Accuracy-2.0/3) > 1e-15 {
		t.Fatalf("got %+v, want NLL %v and accuracy 2/3", s, nll/3)
	}
}

// TestPredictGroupsAndComparisons: a predict block with a group intercept
// a[g[n]] and a comparison: p(y = 1) = inv_logit(a[g[n]] + (x[n] > 0)).
func TestPredictGroupsAndComparisons(t *testing.T) {
	src := `
data { N: int  J: int  g: int[N]  x: real[N]  y: int[N] }
param { a: real[J] }
model {
  for n in plate(N) { y[n] ~ bernoulli_logit(a[g[n]] + (x[n] > 0)) }
}
predict {
  for n in plate(N) { y[n] ~ bernoulli_logit(a[g[n]] + (x[n] > 0)) }
}`
	g := []int{2, 1, 2}
	x := []float64{1, -1, -2}
	y := []int{1, 0, 0}
	m := compileSrc(t, src, map[string]any{"J": 2, "g": g, "x": x, "y": y})
	pr, err := m.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	a := []float64{0.5, -1}
	out, err := pr.Predict([][]float64{a})
	if err != nil {
		t.Fatal(err)
	}
	nll := 0.0
	for r := range g {
		eta := a[g[r]-1]
		if x[r] > 0 {
			eta++
		}
		p := 1 / (1 + math.Exp(-eta))
		if y[r] == 1 {
			nll -= math.Log(p)
		} else {
			nll -= math.Log(1 - p)
		}
	}
	if s := out.Samples[0]; math.Abs(s.NLL-nll/3) > 1e-12 {
		t.Fatalf("got %+v, want NLL %v", s, nll/3)
	}
}
