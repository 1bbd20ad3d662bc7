package stdlib_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// The constrained types are tested as the bounds are: gradients of the value
// and of the log-Jacobian through the harness (finite differences, replicas,
// float32); the log-Jacobian against the log-determinant of a numerical
// Jacobian onto an independent chart of the set; and the inverse round trip.

// sizes are the K each type is tested at: from its smallest up to 4.
func sizes(c *stdlib.ConstrainedType) []int {
	var ks []int
	for k := c.MinSize; k <= 4; k++ {
		ks = append(ks, k)
	}
	return ks
}

func TestConstrainedGradients(t *testing.T) {
	for _, c := range stdlib.ConstrainedTypes() {
		for _, k := range sizes(c) {
			// Two items at once, to test the leading axes too.
			shape := ad.Shape{2, c.Free(k)}
			for part, name := range []string{"/value", "/log_jacobian"} {
				t.Run(c.Name+name+shape.String(), func(t *testing.T) {
					adtest.Run(t, adtest.Case{
						Name:   c.Name + name,
						Inputs: []adtest.Input{{Shape: shape, Draw: adtest.Real}},
						Build: func(x []*ad.Node) *ad.Node {
							v, lj := c.Apply(x[0], k)
							return []*ad.Node{v, lj}[part]
						},
					})
				})
			}
		}
	}
}

// apply evaluates a type's transform at u through a graph.
func apply(t *testing.T, c *stdlib.ConstrainedType, k int, u []float64) (x []float64, logJ float64) {
	t.Helper()
	g := ad.NewGraph(1)
	in := g.Input("u", ad.Param, len(u))
	xn, lj := c.Apply(in, k)
	p, err := g.Compile(xn, lj)
	if err != nil {
		t.Fatal(err)
	}
	copy(p.Value(in), u)
	p.Forward()
	return append([]float64(nil), p.Value(xn)...), p.Value(lj)[0]
}

// chart picks coordinates of the constrained set that determine a point of
// it, as many as there are free values: the first K-1 entries of a simplex,
// the strictly lower entries of a correlation matrix or its Cholesky
// factor, the lower triangle of a covariance matrix or its factor.
func chart(c *stdlib.ConstrainedType, k int, x []float64) []float64 {
	switch c.Name {
	case "simplex":
		return x[:k-1]
	case "ordered", "positive_ordered":
		return x
	}
	var out []float64
	strict := strings.Contains(c.Name, "corr")
	for i := range k {
		for j := 0; j <= i; j++ {
			if j < i || !strict {
				out = append(out, x[i*k+j])
			}
		}
	}
	return out
}

// TestConstrainedLogJacobians compares each log-Jacobian with log|det| of
// the central-difference Jacobian of u ↦ chart(x(u)). At h = 1e-5 the
// difference quotients err by O(h²·x⁽³⁾) ≈ 1e-10 plus rounding ε/h ≈ 1e-11,
// relative, for the smooth maps at |u| ≤ 2; the determinant of a matrix of
// at most 10×10 such entries is then good to about 1e-8 relative, and 1e-6
// on the log leaves room while a wrong term is off by O(0.1) or more.
func TestConstrainedLogJacobians(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range stdlib.ConstrainedTypes() {
		if c.Name == "unit_vector" {
			continue // no Jacobian: see TestUnitVector
		}
		for _, k := range sizes(c) {
			for range 3 {
				n := c.Free(k)
				u := make([]float64, n)
				for i := range u {
					u[i] = 4*rng.Float64() - 2
				}
				_, logJ := apply(t, c, k, u)
				const h = 1e-5
				jac := mat.NewDense(n, n, nil)
				for j := range n {
					up, down := append([]float64(nil), u...), append([]float64(nil), u...)
					up[j] += h
					down[j] -= h
					xp, _ := apply(t, c, k, up)
					xm, _ := apply(t, c, k, down)
					cp, cm := chart(c, k, xp), chart(c, k, xm)
					for i := range n {
						jac.Set(i, j, (cp[i]-cm[i])/(2*h))
					}
				}
				logDet, _ := mat.LogDet(jac)
				if math.Abs(logDet-logJ) > 1e-6 {
					t.Errorf("%s[%d] at u=%v: log-Jacobian %v, log|det| of the numerical Jacobian %v", c.Name, k, u, logJ, logDet)
				}
			}
		}
	}
}

// TestConstrainedRoundTrip maps random free values to the set and back:
// the inverse must find them again, to 1e-8 (the recursions lose a few
// digits of 1e-16 per entry; atanh near ±1 loses more, which |u| ≤ 3 keeps
// away).
func TestConstrainedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range stdlib.ConstrainedTypes() {
		for _, k := range sizes(c) {
			for range 5 {
				u := make([]float64, c.Free(k))
				for i := range u {
					u[i] = 6*rng.Float64() - 3
				}
				if c.Name == "unit_vector" { // only the direction comes back
					r := 0.0
					for _, v := range u {
						r += v * v
					}
					for i := range u {
						u[i] /= math.Sqrt(r)
					}
				}
				x, _ := apply(t, c, k, u)
				back, err := c.Inverse(k, x)
				if err != nil {
					t.Fatalf("%s[%d]: the inverse rejected %v (from u=%v): %v", c.Name, k, x, u, err)
				}
				for i := range u {
					if math.Abs(back[i]-u[i]) > 1e-8 {
						t.Fatalf("%s[%d]: u=%v mapped to %v and back to %v", c.Name, k, u, x, back)
					}
				}
			}
		}
	}
}

// TestConstrainedInverseErrors gives each inverse a value outside its set.
func TestConstrainedInverseErrors(t *testing.T) {
	cases := []struct {
		name string
		k    int
		x    []float64
		want string
	}{
		{"simplex", 3, []float64{0.5, 0.5, 0.3}, "not a simplex: its entries sum to 1.3"},
		{"simplex", 2, []float64{1.5, -0.5}, "entry 2 is -0.5"},
		{"ordered", 3, []float64{0, 2, 1}, "not ordered: entry 3 (1) is not above entry 2 (2)"},
		{"positive_ordered", 2, []float64{-1, 2}, "not positive and ordered: entry 1 is -1"},
		{"unit_vector", 2, []float64{1, 1}, "not a unit vector: its length is 1.414"},
		{"cholesky_factor_corr", 2, []float64{1, 0.1, 0, 1}, "entry [1, 2] above the diagonal is 0.1"},
		{"cholesky_factor_corr", 2, []float64{1, 0, 0.6, 0.9}, "row 2 has length"},
		{"cholesky_factor_cov", 2, []float64{1, 0, 0.6, -1}, "diagonal entry [2, 2] is -1"},
		{"corr_matrix", 2, []float64{1, 0.5, 0.4, 1}, "entry [2, 1] is 0.4 but entry [1, 2] is 0.5: it must be symmetric"},
		{"corr_matrix", 2, []float64{1, 0.5, 0.5, 2}, "diagonal entry [2, 2] is 2, not 1"},
		{"corr_matrix", 3, []float64{1, 0.9, -0.9, 0.9, 1, 0.9, -0.9, 0.9, 1}, "its leading 3×3 block is not positive definite"},
		{"cov_matrix", 2, []float64{1, 2, 2, 1}, "not a covariance matrix: its leading 2×2 block is not positive definite"},
		{"cov_matrix", 2, []float64{1, 0, 0}, "3 values for a cov_matrix[2], which has 4"},
	}
	for _, tc := range cases {
		c, ok := stdlib.Constrained(tc.name)
		if !ok {
			t.Fatalf("no type %s", tc.name)
		}
		_, err := c.Inverse(tc.k, tc.x)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s[%d] of %v: error %v, want one containing %q", tc.name, tc.k, tc.x, err, tc.want)
		}
	}
}

// TestUnitVector checks the unit vector's extra term, -½‖u‖², and that the
// map forgets the radius.
func TestUnitVector(t *testing.T) {
	c, _ := stdlib.Constrained("unit_vector")
	u := []float64{0.3, -1.2, 2}
	x, lj := apply(t, c, 3, u)
	if want := -0.5 * (0.09 + 1.44 + 4); math.Abs(lj-want) > 1e-12 {
		t.Errorf("log term %v, want %v", lj, want)
	}
	scaled, _ := apply(t, c, 3, []float64{0.6, -2.4, 4})
	for i := range x {
		if math.Abs(x[i]-scaled[i]) > 1e-15 {
			t.Errorf("x(2u) = %v, x(u) = %v", scaled, x)
		}
	}
}

// TestCorrMatrixValue checks that a correlation matrix and the product of
// its Cholesky factor agree, and have a unit diagonal.
func TestCorrMatrixValue(t *testing.T) {
	corr, _ := stdlib.Constrained("corr_matrix")
	chol, _ := stdlib.Constrained("cholesky_factor_corr")
	u := []float64{0.4, -1.1, 2.3, 0.1, -0.7, 1.5}
	omega, _ := apply(t, corr, 4, u)
	l, _ := apply(t, chol, 4, u)
	for i := range 4 {
		for j := range 4 {
			s := 0.0
			for m := range 4 {
				s += l[i*4+m] * l[j*4+m]
			}
			if math.Abs(omega[i*4+j]-s) > 1e-15 {
				t.Errorf("Ω[%d, %d] = %v, (L Lᵀ) = %v", i, j, omega[i*4+j], s)
			}
		}
		if math.Abs(omega[i*4+i]-1) > 1e-15 {
			t.Errorf("Ω[%d, %d] = %v", i, i, omega[i*4+i])
		}
	}
}
