package stdlib_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distmv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// TestDirichlet runs dirichlet through the harness against gonum's
// distmv.Dirichlet, an independent implementation of the same normalised
// density, at the harness's 1e-10 relative (both are sums of a few log Γ of
// order-one arguments, each good to about 1e-15). theta is a softmax of a
// free parameter, as the simplex transform gives it, so that the finite
// differences stay on the simplex; ∂/∂θ off the simplex is checked by
// TestDirichletThetaPartials.
func TestDirichlet(t *testing.T) {
	layouts := []struct {
		name         string
		theta, alpha ad.Shape // leading shapes
		k            int
	}{
		{"rows", ad.Shape{4}, ad.Shape{}, 3},
		{"single", ad.Shape{}, ad.Shape{}, 5},
		{"outer", ad.Shape{2, 1}, ad.Shape{3}, 3},
		{"k2", ad.Shape{3}, ad.Shape{3}, 2},
	}
	for _, l := range layouts {
		k := l.k
		adtest.Run(t, adtest.Case{Name: "dirichlet/" + l.name,
			Inputs: []adtest.Input{
				{Shape: append(l.theta.Clone(), k), Draw: adtest.Real},
				{Shape: append(l.alpha.Clone(), k), Draw: adtest.Positive},
			},
			Build: func(x []*ad.Node) *ad.Node { return stdlib.DirichletLPDF(ad.Softmax(x[0], -1), x[1]) },
			Reference: rowsOf([]ad.Shape{l.theta, l.alpha}, []int{k, k}, func(rows [][]float64) float64 {
				return distmv.NewDirichlet(rows[1], nil).LogProb(softmaxRow(rows[0]))
			})})
	}
}

// TestDirichletThetaPartials checks ∂/∂θ_k = (α_k - 1)/θ_k in every
// direction, not only along the simplex, against central differences of the
// closed form (which the op, -Inf off the simplex, cannot give): with h =
// 1e-6 the difference's error is about ε/h ≈ 1e-10 plus h²·f”' ≈ 1e-11,
// so 1e-8 relative.
func TestDirichletThetaPartials(t *testing.T) {
	theta, alpha := []float64{0.1, 0.25, 0.65}, []float64{0.7, 2.5, 1.2}
	closed := func(th []float64) float64 {
		lp, sum := 0.0, 0.0
		for i, a := range alpha {
			lp += (a-1)*math.Log(th[i]) - lg(a)
			sum += a
		}
		return lp + lg(sum)
	}
	_, grads := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.DirichletLPDF(x[0], x[1]) },
		[]ad.Shape{{3}, {3}}, [][]float64{theta, alpha})
	for i := range theta {
		const h = 1e-6
		up, down := append([]float64(nil), theta...), append([]float64(nil), theta...)
		up[i] += h
		down[i] -= h
		fd := (closed(up) - closed(down)) / (2 * h)
		if math.Abs(grads[0][i]-fd) > 1e-8*math.Abs(fd) {
			t.Errorf("∂/∂θ_%d = %.12g, finite difference of the closed form %.12g", i+1, grads[0][i], fd)
		}
	}
}
