package stdlib_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// covarianceOf returns A Aᵀ + I for A [k, k] (row-major): a covariance whose
// finite differences in A move Σ_ij and Σ_ji together, the perturbations
// that keep Σ symmetric and on which the op's split gradient is exact.
func covarianceOf(a *ad.Node) *ad.Node {
	k := a.Shape()[0]
	eye := make([]float64, k*k)
	for i := range k {
		eye[i*k+i] = 1
	}
	return ad.Add(ad.Matmul(a, ad.Transpose(a, 1, 0)), a.Graph().Const(ad.Shape{k, k}, eye...))
}

// covarianceRef is A Aᵀ + I computed by gonum, for the reference.
func covarianceRef(a []float64, k int) *mat.SymDense {
	s := mat.NewSymDense(k, nil)
	s.SymOuterK(1, mat.NewDense(k, k, append([]float64(nil), a...)))
	for i := range k {
		s.SetSym(i, i, s.At(i, i)+1)
	}
	return s
}

// TestMultiNormal runs multi_normal through the harness against gonum's
// distmv.Normal LogProb, an independent implementation, at the harness's
// 1e-10 relative: both factor a covariance with condition number at most
// about 40 here, losing a few digits at most.
func TestMultiNormal(t *testing.T) {
	layouts := []struct {
		name  string
		y, mu ad.Shape // leading shapes
		k     int
		data  bool
	}{
		{"rows", ad.Shape{4}, ad.Shape{}, 3, false},
		{"single", ad.Shape{}, ad.Shape{}, 3, true},
		{"outer_both", ad.Shape{4}, ad.Shape{2, 1}, 2, false},
		{"k1", ad.Shape{5}, ad.Shape{}, 1, false},
		{"k17", ad.Shape{2}, ad.Shape{}, 17, true}, // beyond the stack scratch (K ≤ 16)
	}
	for _, l := range layouts {
		k := l.k
		adtest.Run(t, adtest.Case{Name: "multi_normal/" + l.name,
			Inputs: []adtest.Input{
				{Shape: append(l.y.Clone(), k), Draw: adtest.Real, Data: l.data},
				{Shape: append(l.mu.Clone(), k), Draw: adtest.Real},
				{Shape: ad.Shape{k, k}, Draw: adtest.Uniform(-1, 1)},
			},
			Build: func(x []*ad.Node) *ad.Node { return stdlib.MultiNormalLPDF(x[0], x[1], covarianceOf(x[2])) },
			Reference: func(x [][]float64) []float64 {
				sigma := covarianceRef(x[2], k)
				return rowsOf([]ad.Shape{l.y, l.mu}, []int{k, k}, func(rows [][]float64) float64 {
					d, ok := distmv.NewNormal(rows[1], sigma, nil)
					if !ok {
						t.Fatal("reference covariance not positive definite")
					}
					return d.LogProb(rows[0])
				})(x[:2])
			}})
	}
}

// TestMultiNormalSigmaPartials checks the split of ∂/∂Σ on Σ itself: the
// gradient is symmetric, G_ij = G_ji, equal to -½(Σ⁻¹ - Σ⁻¹ r rᵀ Σ⁻¹) per
// row, and moving Σ_ij and Σ_ji together by ±h changes lp by G_ij + G_ji
// per unit (central differences at h = 1e-6 on lp of order 10: error
// about ε·10/h ≈ 2e-9 absolute, hence 1e-7 relative with a 1e-8 floor).
// Moving one entry alone leaves Σ asymmetric beyond the tolerance: -Inf.
func TestMultiNormalSigmaPartials(t *testing.T) {
	const k = 3
	y := []float64{0.5, -1, 2, 0.1, 0.2, -0.3}
	mu := []float64{0.2, 0.1, -0.4}
	sigma := []float64{2, 0.3, -0.4, 0.3, 1.5, 0.2, -0.4, 0.2, 1}
	f := func(x ...*ad.Node) *ad.Node { return stdlib.MultiNormalLPDF(x[0], x[1], x[2]) }
	shapes := []ad.Shape{{2, k}, {k}, {k, k}}
	_, grads := evalDensity(t, f, shapes, [][]float64{y, mu, sigma})
	total := func(s []float64) float64 {
		v, _ := evalDensity(t, f, shapes, [][]float64{y, mu, s})
		return v[0] + v[1]
	}
	// The closed form, through gonum's inverse.
	var inv mat.Dense
	if err := inv.Inverse(mat.NewDense(k, k, sigma)); err != nil {
		t.Fatal(err)
	}
	want := make([]float64, k*k)
	for r := range 2 {
		res := mat.NewVecDense(k, nil)
		for i := range k {
			res.SetVec(i, y[r*k+i]-mu[i])
		}
		var w mat.VecDense
		w.MulVec(&inv, res)
		for i := range k {
			for j := range k {
				want[i*k+j] += -0.5 * (inv.At(i, j) - w.AtVec(i)*w.AtVec(j))
			}
		}
	}
	const h = 1e-6
	for i := range k {
		for j := range k {
			g := grads[2][i*k+j]
			if g != grads[2][j*k+i] {
				t.Errorf("∂/∂Σ_%d%d = %v but ∂/∂Σ_%d%d = %v", i, j, g, j, i, grads[2][j*k+i])
			}
			if math.Abs(g-want[i*k+j]) > 1e-12*math.Max(1, math.Abs(want[i*k+j])) {
				t.Errorf("∂/∂Σ_%d%d = %.15g, closed form %.15g", i, j, g, want[i*k+j])
			}
			up, down := append([]float64(nil), sigma...), append([]float64(nil), sigma...)
			up[i*k+j] += h
			down[i*k+j] -= h
			if i != j {
				up[j*k+i] += h
				down[j*k+i] -= h
			}
			fd := (total(up) - total(down)) / (2 * h)
			sym := g
			if i != j {
				sym += grads[2][j*k+i]
			}
			if math.Abs(sym-fd) > 1e-7*math.Abs(fd)+1e-8 {
				t.Errorf("Σ_%d%d and Σ_%d%d together: gradient %.12g, finite difference %.12g", i, j, j, i, sym, fd)
			}
		}
	}
	lone := append([]float64(nil), sigma...)
	lone[1] += 1e-3
	if v, _ := evalDensity(t, f, shapes, [][]float64{y, mu, lone}); !math.IsInf(v[0], -1) {
		t.Errorf("Σ_12 alone moved by 1e-3: lp = %v, want -Inf", v[0])
	}
}
