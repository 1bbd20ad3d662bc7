package compile_test

import (
	"math"
	"slices"
	"testing"
)

const matrixSrc = `
param { v: real[2]  M: real[2, 3] }
transformed param {
  t = transpose(M)
  d = diag_pre_multiply(v, M)
  e = diag_post_multiply(t, v)
}
model { target += -0.5 * sum(square(d)) - 0.5 * sum(square(e)) - sum(square(v)) }
`

// TestMatrixFunctions checks transpose, diag_pre_multiply and
// diag_post_multiply by value, and the gradient through them against
// central differences.
func TestMatrixFunctions(t *testing.T) {
	m := compileSrc(t, matrixSrc, nil)
	theta := []float64{2, -3, 1, 2, 3, 4, 5, 6} // v = (2, -3), M = [[1 2 3] [4 5 6]]
	out := make([]float64, len(m.OutputNames()))
	m.Constrain(out, theta)
	got := out[8:]
	want := []float64{
		1, 4, 2, 5, 3, 6, // t
		2, 4, 6, -12, -15, -18, // d: row i of M times v[i]
		2, -12, 4, -15, 6, -18, // e: column j of t times v[j]
	}
	if !slices.Equal(got, want) {
		t.Errorf("t, d, e = %v, want %v", got, want)
	}
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	energy := func(x []float64, g []float64) float64 {
		e, v := make([]float64, 1), make([]float64, 1)
		if g == nil {
			g = make([]float64, len(x))
		}
		if err := ev.Evaluate(x, nil, e, g, v); err != nil {
			t.Fatal(err)
		}
		return e[0]
	}
	g := make([]float64, len(theta))
	energy(theta, g)
	for i := range theta {
		const h = 1e-5
		x := slices.Clone(theta)
		x[i] += h
		up := energy(x, nil)
		x[i] -= 2 * h
		fd := (up - energy(x, nil)) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂U/∂θ[%d] = %v, finite difference %v", i, g[i], fd)
		}
	}
	if _, err := tryCompile(`param { v: real[3]  M: real[2, 3] } transformed param { d = diag_pre_multiply(v, M) } model {}`, nil); err == nil {
		t.Error("diag_pre_multiply of [3] and [2, 3] compiled")
	}
}
