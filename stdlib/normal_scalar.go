package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// normalScalarOp is normal_lpdf(y | μ, σ) for scalar μ and σ, the usual
// prior of a weight matrix (W1 ~ normal(0, 1) over 78,400 weights): the
// same formula and support as the elementwise density (normalLP,
// normalPartials, evaluated in the same order, so float64 results agree to
// the bit), in a loop without a call per element.
type normalScalarOp struct{}

func (normalScalarOp) Name() string { return "normal" }

func (op normalScalarOp) Forward(a *autodiff.Args)      { normalScalarForward(a) }
func (op normalScalarOp) Forward32(a *autodiff.Args32)  { normalScalarForward(a) }
func (op normalScalarOp) Backward(a *autodiff.Args)     { normalScalarBackward(a) }
func (op normalScalarOp) Backward32(a *autodiff.Args32) { normalScalarBackward(a) }

// normalScalar applies the op when mu and sigma are scalars; ok is false
// otherwise.
func normalScalar(y, mu, sigma *autodiff.Node) (n *autodiff.Node, ok bool) {
	if y == nil || mu == nil || sigma == nil || len(mu.Shape()) != 0 || len(sigma.Shape()) != 0 {
		return nil, false
	}
	return y.Graph().Apply(normalScalarOp{}, y.Shape(), y, mu, sigma), true
}

// scalarSupport reports whether μ and σ admit a density: finite, σ > 0.
func scalarSupport(mu, sigma float64) bool {
	return !math.IsInf(mu, 0) && !math.IsNaN(mu) && !math.IsInf(sigma, 0) && sigma > 0
}

func normalScalarForward[T autodiff.Float](a *autodiff.ArgsOf[T]) {
	mu, sigma := float64(a.In[1][0]), float64(a.In[2][0])
	if !scalarSupport(mu, sigma) {
		for i := range a.Out {
			a.Out[i] = T(math.Inf(-1))
		}
		return
	}
	logSigma := math.Log(sigma)
	for i, y := range a.In[0][:len(a.Out)] {
		z := (float64(y) - mu) / sigma
		v := -0.5*z*z - logSigma - lnSqrt2Pi // -Inf for y = ±Inf, as the density
		if v != v {                          // y is NaN
			v = math.Inf(-1)
		}
		a.Out[i] = T(v)
	}
}

func normalScalarBackward[T autodiff.Float](a *autodiff.ArgsOf[T]) {
	mu, sigma := float64(a.In[1][0]), float64(a.In[2][0])
	if !scalarSupport(mu, sigma) {
		return // -Inf everywhere: zero partials
	}
	gy, gmu, gsigma := a.GradIn[0], a.GradIn[1], a.GradIn[2]
	for i, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[i]), -1) {
			continue
		}
		dy, dmu, dsigma := normalPartials(float64(a.In[0][i]), mu, sigma)
		gf := float64(g)
		if gy != nil {
			gy[i] += T(gf * dy)
		}
		if gmu != nil {
			gmu[0] += T(gf * dmu)
		}
		if gsigma != nil {
			gsigma[0] += T(gf * dsigma)
		}
	}
}
