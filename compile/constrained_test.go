package compile_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// TestTypeKindsHaveTransforms: every constrained type the language parses
// has a transform, with the same shape and smallest size.
func TestTypeKindsHaveTransforms(t *testing.T) {
	if len(lang.TypeKinds) != len(stdlib.ConstrainedTypes()) {
		t.Errorf("%d kinds in lang, %d transforms in stdlib", len(lang.TypeKinds), len(stdlib.ConstrainedTypes()))
	}
	for _, k := range lang.TypeKinds {
		c, ok := stdlib.Constrained(string(k))
		if !ok {
			t.Errorf("no transform for %s", k)
			continue
		}
		if c.Matrix != k.Matrix() || c.MinSize != k.MinSize() {
			t.Errorf("%s: lang says matrix %v, K ≥ %d; stdlib %v, K ≥ %d", k, k.Matrix(), k.MinSize(), c.Matrix, c.MinSize)
		}
	}
}

const constrainedSrc = `data {
  K: int
}
param {
  mu: real
  p: simplex[K]
  q: simplex[3][2]
  L: cholesky_factor_corr[K]
  S: cov_matrix[2]
}
model {
  mu ~ normal(0, 1)
}`

// TestConstrainedLayout: θ holds each parameter's free values (K-1 for a
// simplex, K(K-1)/2 for a correlation factor, K(K+1)/2 for a covariance
// matrix, per item of an array), the draws its constrained values named by
// the constrained shape, and Constrain maps one onto the other.
func TestConstrainedLayout(t *testing.T) {
	m := compileSrc(t, constrainedSrc, map[string]any{"K": 3})
	// mu 1, p 2, q 2×2, L 3, S 3.
	if m.Dim() != 1+2+4+3+3 {
		t.Fatalf("Dim %d, want 13", m.Dim())
	}
	var got []string
	for _, p := range m.Params() {
		got = append(got, fmt.Sprintf("%s %q %v", p.Name, p.Kind, p.Shape))
	}
	want := []string{`mu "" []`, `p "simplex" [3]`, `q "simplex" [2 3]`, `L "cholesky_factor_corr" [3 3]`, `S "cov_matrix" [2 2]`}
	if !slices.Equal(got, want) {
		t.Errorf("params %q, want %q", got, want)
	}
	offsets := []int{0, 1, 3, 7, 10}
	sizes := []int{1, 2, 4, 3, 3}
	for i, p := range m.Params() {
		if p.Offset != offsets[i] || p.Size != sizes[i] {
			t.Errorf("%s at %d, %d values; want %d, %d", p.Name, p.Offset, p.Size, offsets[i], sizes[i])
		}
	}
	names := strings.Join(m.OutputNames(), " ")
	if want := "mu p.1 p.2 p.3 q.1.1 q.1.2 q.1.3 q.2.1 q.2.2 q.2.3 L.1.1 L.1.2 L.1.3 L.2.1 L.2.2 L.2.3 L.3.1 L.3.2 L.3.3 S.1.1 S.1.2 S.2.1 S.2.2"; names != want {
		t.Errorf("names %q\nwant  %q", names, want)
	}
	theta := make([]float64, m.Dim()) // θ = 0: uniform simplexes, identity matrices
	out := make([]float64, len(m.OutputNames()))
	m.Constrain(out, theta)
	want0 := []float64{0, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 1. / 3, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1}
	for i := range want0 {
		if math.Abs(out[i]-want0[i]) > 1e-15 {
			t.Fatalf("Constrain(0) = %v, want %v", out, want0)
		}
	}
}

// TestConstrainedUnconstrain: inits of each constrained type map to the θ
// that Constrain maps back to them (to 1e-12), and a value outside the set
// is an error naming the parameter, the item and what is wrong.
func TestConstrainedUnconstrain(t *testing.T) {
	m := compileSrc(t, constrainedSrc, map[string]any{"K": 3})
	values := map[string][]float64{
		"mu": {0.5},
		"p":  {0.2, 0.3, 0.5},
		"q":  {0.1, 0.1, 0.8, 0.6, 0.3, 0.1},
		"L":  {1, 0, 0, 0.6, 0.8, 0, 0, 0.6, 0.8},
		"S":  {2, 0.5, 0.5, 1},
	}
	theta, err := m.Unconstrain(values)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(m.OutputNames()))
	m.Constrain(out, theta)
	var flat []float64
	for _, name := range []string{"mu", "p", "q", "L", "S"} {
		flat = append(flat, values[name]...)
	}
	for i := range flat {
		if math.Abs(out[i]-flat[i]) > 1e-12 {
			t.Fatalf("%s: %v back from θ = %v, want %v", m.OutputNames()[i], out[i], theta, flat[i])
		}
	}
	for _, c := range []struct {
		name string
		x    []float64
		want string
	}{
		{"p", []float64{0.5, 0.5, 0.3}, "p: not a simplex: its entries sum to 1.3"},
		{"q", []float64{0.1, 0.1, 0.8, 0.6, 0.3, 0.2}, "q[2]: not a simplex: its entries sum to 1.1"},
		{"L", []float64{1, 0, 0, 0.6, 0.8, 0, 0, 0.6, 0.7}, "L: not the Cholesky factor of a correlation matrix: row 3 has length"},
		{"S", []float64{1, 2, 2, 1}, "S: not a covariance matrix: its leading 2×2 block is not positive definite"},
		{"S", []float64{1, 2, 2}, "S has 3 values; the parameter has 4"},
	} {
		v := map[string][]float64{}
		for k, x := range values {
			v[k] = x
		}
		v[c.name] = c.x
		if _, err := m.Unconstrain(v); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: %v, want %q", c.name, c.x, err, c.want)
		}
	}
}

// TestConstrainedData: data of a constrained type is checked when bound,
// with an error naming the field, the file and what is wrong; a size too
// small for the type, known only from the data, is an error too.
func TestConstrainedData(t *testing.T) {
	src := `data {
  K: int
  a: simplex[K]
  o: ordered[K]
  C: corr_matrix[2]
  V: cov_matrix[2][2]
}
param {
  mu: real
}
model {
  mu ~ normal(0, 1)
}`
	good := func() map[string]any {
		return map[string]any{
			"K": 3, "a": []float64{0.2, 0.3, 0.5}, "o": []float64{-1, 0, 2},
			"C": [][]float64{{1, 0.3}, {0.3, 1}},
			"V": []any{[][]float64{{1, 0}, {0, 1}}, [][]float64{{2, 1}, {1, 2}}},
		}
	}
	if _, err := tryCompile(src, good()); err != nil {
		t.Fatal(err)
	}
	// K is inferred from a's length when not given.
	d := good()
	delete(d, "K")
	if _, err := tryCompile(src, d); err != nil {
		t.Errorf("K from a's shape: %v", err)
	}
	for _, c := range []struct {
		field string
		value any
		want  string
	}{
		{"a", []float64{0.5, 0.5, 0.3}, "test.ppl:3:3: a: not a simplex: its entries sum to 1.3, not 1 (in Go value)"},
		{"o", []float64{0, 0, 1}, "o: not ordered: entry 2 (0) is not above entry 1 (0) (in Go value)"},
		{"C", [][]float64{{1, 0.3}, {0.2, 1}}, "C: not a correlation matrix: entry [2, 1] is 0.2 but entry [1, 2] is 0.3: it must be symmetric (in Go value)"},
		{"V", []any{[][]float64{{1, 0}, {0, 1}}, [][]float64{{1, 2}, {2, 1}}}, "V[2]: not a covariance matrix"},
		{"C", []float64{1, 0, 0, 1}, "C: data from Go value has shape [4], declared corr_matrix[2] = [2, 2]"},
	} {
		d := good()
		d[c.field] = c.value
		_, err := tryCompile(src, d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s = %v: %v, want %q", c.field, c.value, err, c.want)
		}
	}
	d = good()
	d["K"], d["a"], d["o"] = 1, []float64{1}, []float64{1}
	if _, err := tryCompile(src, d); err == nil || !strings.Contains(err.Error(), "simplex[1]: its size must be at least 2") {
		t.Errorf("simplex[1]: %v", err)
	}
}

// TestConstrainedEnergy: the energy of a constrained parameter includes
// the log-Jacobian. With a flat model, U(θ) = -log|J(θ)|: for an ordered
// vector, -(θ_2 + ... + θ_K).
func TestConstrainedEnergy(t *testing.T) {
	m := compileSrc(t, `param {
  c: ordered[3]
}
model {
  target += 0
}`, nil)
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -0.4, 1.1}
	energy, grad := make([]float64, 1), make([]float64, 3)
	if err := ev.Evaluate(theta, nil, energy, grad, nil); err != nil {
		t.Fatal(err)
	}
	if math.Abs(energy[0]-(0.4-1.1)) > 1e-15 || grad[0] != 0 || grad[1] != -1 || grad[2] != -1 {
		t.Errorf("U = %v, ∇U = %v; want %v, [0 -1 -1]", energy[0], grad, 0.4-1.1)
	}
}
