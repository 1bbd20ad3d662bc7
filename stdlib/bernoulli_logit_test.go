package stdlib_test

import (
	"math"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/stdlib"
)

// TestBernoulliLogitFused: where y and α have one shape, bernoulli_logit
// takes its fused loop; it must give the elementwise density's bits, value
// and ∂/∂α, which it gets when y broadcasts (shape [1, n] against α's
// [n]), over both labels, ±0, both tails, and the non-finite and invalid
// arguments that make it −Inf with a zero partial.
func TestBernoulliLogitFused(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	alpha := []float64{0, math.Copysign(0, -1), 1e-300, -2.5, 2.5, 40, -40, 800, -800, 0.3, inf, -inf, nan, 0.7}
	for _, label := range []float64{0, 1, 2} {
		n := len(alpha)
		y := make([]float64, n)
		for i := range y {
			y[i] = label
		}
		run := func(yShape ...int) (values, grads []float64) {
			g := ad.NewGraph(1)
			yn := g.Input("y", ad.Param, yShape...)
			an := g.Input("alpha", ad.Param, n)
			lp := stdlib.BernoulliLogitLPMF(yn, an)
			loss := ad.SumAll(lp)
			p, err := g.Compile(lp, loss)
			if err != nil {
				t.Fatal(err)
			}
			copy(p.Value(yn), y)
			copy(p.Value(an), alpha)
			p.Forward()
			if err := p.Backward(loss); err != nil {
				t.Fatal(err)
			}
			return append([]float64(nil), p.Value(lp)...), append([]float64(nil), p.Grad(an)...)
		}
		fv, fg := run(n)
		ev, eg := run(1, n)
		for i := range alpha {
			same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
			if !same(fv[i], ev[i]) || !same(fg[i], eg[i]) {
				t.Errorf("y = %g, α = %g: fused lp %v, ∂ %v; elementwise lp %v, ∂ %v", label, alpha[i], fv[i], fg[i], ev[i], eg[i])
			}
		}
	}
}
