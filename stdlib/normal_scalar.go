package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/kernel"
)

// normalScalarOp is normal_lpdf(y | μ, σ) for scalar μ and σ, the usual
// prior of a weight matrix (W1 ~ normal(0, 1) over 78,400 weights): the
// formula and support of the elementwise density (normalLP,
// normalPartials) in a loop without a call per element, multiplying by
// 1/σ where that divides (so results can differ from it in the last bit).
//
// With sum set the op is Σ normal_lpdf, a scalar: the prior term of the
// energy (SumAll), without writing the elementwise densities out and
// reading them back, forward and backward.
type normalScalarOp struct{ sum bool }

func (normalScalarOp) Name() string { return "normal" }

func (op normalScalarOp) Forward(a *autodiff.Args)      { normalScalarForward(op, a) }
func (op normalScalarOp) Forward32(a *autodiff.Args32)  { normalScalarForward(op, a) }
func (op normalScalarOp) Backward(a *autodiff.Args)     { normalScalarBackward(op, a) }
func (op normalScalarOp) Backward32(a *autodiff.Args32) { normalScalarBackward(op, a) }

// SumAll is autodiff.SumAll(x), fused with the op that computes x where
// stdlib has a summed form of it (a normal density with scalar
// parameters).
func SumAll(x *autodiff.Node) *autodiff.Node {
	if op, ok := x.Op().(normalScalarOp); ok && !op.sum {
		return x.Graph().Apply(normalScalarOp{sum: true}, autodiff.Shape{}, x.Inputs()...)
	}
	return autodiff.SumAll(x)
}

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

func normalScalarForward[T autodiff.Float](op normalScalarOp, a *autodiff.ArgsOf[T]) {
	mu, sigma := float64(a.In[1][0]), float64(a.In[2][0])
	if !scalarSupport(mu, sigma) {
		for i := range a.Out {
			a.Out[i] = T(math.Inf(-1))
		}
		return
	}
	inv, c := 1/sigma, -math.Log(sigma)-lnSqrt2Pi
	y := a.In[0]
	if op.sum {
		// Σ lp = -½ Σ z² + n·c. Non-finite y make it -Inf (±Inf) or NaN,
		// which is -Inf too.
		_, zz := kernel.SumSqDiff(y, mu, inv)
		total := -0.5*zz + float64(len(y))*c
		if total != total {
			total = math.Inf(-1)
		}
		a.Out[0] = T(total)
		return
	}
	for i, v := range y {
		z := (float64(v) - mu) * inv
		lp := -0.5*z*z + c // -Inf for y = ±Inf, as the density
		if lp != lp {      // y is NaN
			lp = math.Inf(-1)
		}
		a.Out[i] = T(lp)
	}
}

// normalScalarBackward: ∂/∂y = -z/σ, ∂/∂μ = z/σ, ∂/∂σ = (z² - 1)/σ with
// z = (y - μ)/σ (normalPartials), the scalar partials summed over the
// elements in float64: for the summed op, g/σ·Σz and g/σ·(Σz² - n).
//
// The summed op's sums (Σz, Σz² from kernel.SumSqDiff) and ∂/∂y
// (kernel.AxpyDiff, which like the scalar loop leaves alone the elements
// where y - μ is ±Inf or NaN) run in the vector kernels of package kernel.
func normalScalarBackward[T autodiff.Float](op normalScalarOp, a *autodiff.ArgsOf[T]) {
	mu, sigma := float64(a.In[1][0]), float64(a.In[2][0])
	if !scalarSupport(mu, sigma) {
		return // -Inf everywhere: zero partials
	}
	y, gy, gmu, gsigma := a.In[0], a.GradIn[0], a.GradIn[1], a.GradIn[2]
	inv := 1 / sigma
	var sumMu, sumSigma float64
	if g := float64(a.GradOut[0]); op.sum && g != 0 {
		sz, szz := 0.0, 0.0
		if gmu != nil || gsigma != nil { // a prior with constant μ and σ needs only ∂/∂y
			sz, szz = kernel.SumSqDiff(y, mu, inv)
		}
		if sz-sz == 0 && szz-szz == 0 { // every y finite, or the sums were not needed
			if gy != nil { // in T: the prior's gradient is the hottest loop of this op
				// gy[i] -= k·(y[i] - μ), with a zero partial (gy[i] left
				// as it is) where y = ±Inf or NaN.
				kernel.AxpyDiff(gy[:len(y)], y, T(mu), T(g*inv*inv))
			}
			sumMu, sumSigma = g*inv*sz, g*inv*(szz-float64(len(y)))
			addScalarPartials(gmu, gsigma, sumMu, sumSigma)
			return
		}
	}
	for i, v := range y {
		g := a.GradOut[0]
		if !op.sum {
			g = a.GradOut[i]
		}
		if g == 0 || v-v != 0 { // y = ±Inf or NaN: the density is -Inf there
			continue
		}
		z := (float64(v) - mu) * inv
		gz := float64(g) * z * inv
		if gy != nil {
			gy[i] -= T(gz)
		}
		sumMu += gz
		sumSigma += float64(g) * (z*z - 1) * inv
	}
	addScalarPartials(gmu, gsigma, sumMu, sumSigma)
}

func addScalarPartials[T autodiff.Float](gmu, gsigma []T, dmu, dsigma float64) {
	if gmu != nil {
		gmu[0] += T(dmu)
	}
	if gsigma != nil {
		gsigma[0] += T(dsigma)
	}
}

// DeviceKernel implements autodiff.DeviceOp: the summed form is its own
// kernel, the elementwise one the normal density's scalar function.
func (op normalScalarOp) DeviceKernel() autodiff.DeviceKernel {
	if op.sum {
		return autodiff.DeviceKernel{Name: "normal_sum"}
	}
	return autodiff.DeviceKernel{Name: "elementwise", Func: normalDensity.fn}
}
