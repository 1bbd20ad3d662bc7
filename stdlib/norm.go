package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// layerNormEps is the ε added to the variance, PyTorch's default, so that
// a constant row gives β rather than a division by zero.
const layerNormEps = 1e-5

// layerNormOp normalises each row of its operand over the last axis.
type layerNormOp struct{ d, rows int }

func (op *layerNormOp) Name() string { return "layer_norm" }

// DeviceKernel implements autodiff.DeviceOp: [D], the normalised axis (the
// kernel's ε is layerNormEps).
func (op *layerNormOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.d}}
}

// LayerNorm is layer normalisation (Ba, Kiros and Hinton, "Layer
// normalization", 2016, Eq. 4) over the last axis of x [..., D], with gain
// γ [D] and bias β [D]:
//
//	y = (x − μ)/√(σ² + ε)⊙γ + β,  μ and σ² the mean and (biased) variance
//	of each row's D values, ε = 1e-5,
//
// as PyTorch's LayerNorm(D). Images [..., H, W, C] are normalised per pixel
// over their channels.
func LayerNorm(x, gamma, beta *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(x, gamma, beta)
	if g == nil || stop != nil {
		return stop
	}
	xs, gs, bs := x.Shape(), gamma.Shape(), beta.Shape()
	if len(xs) == 0 {
		return g.Fail(nil, "layer_norm of a scalar: needs an array whose last axis it normalises")
	}
	if !gs.Equal(xs[len(xs)-1:]) || !bs.Equal(gs) {
		return g.Fail(nil, "layer_norm with gain %v and bias %v: the gain and bias must be vectors as long as the last axis of x (%v)", gs, bs, xs[len(xs)-1:])
	}
	d := xs[len(xs)-1]
	return g.Apply(&layerNormOp{d: d, rows: xs.Size() / max(d, 1)}, xs, x, gamma, beta)
}

// moments are a row's mean and 1/√(σ² + ε), in float64 (two passes: the
// one-pass formula loses digits when the mean is large).
func moments[T autodiff.Float](row []T) (mean, inv float64) {
	for _, v := range row {
		mean += float64(v)
	}
	mean /= float64(len(row))
	var ss float64
	for _, v := range row {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, 1 / math.Sqrt(ss/float64(len(row))+layerNormEps)
}

// SavedLen implements autodiff.Workspace: each row's mean and 1/√(σ² + ε),
// which the backward pass reads instead of recomputing them.
func (op *layerNormOp) SavedLen() int   { return 2 * op.rows }
func (op *layerNormOp) ScratchLen() int { return 0 }

// AssignsGrad implements autodiff.GradAssigner for x, whose gradient is
// written a row at a time.
func (op *layerNormOp) AssignsGrad(i int) bool { return i == 0 }

func (op *layerNormOp) Forward(a *autodiff.Args)     { layerNormForward(op, a) }
func (op *layerNormOp) Forward32(a *autodiff.Args32) { layerNormForward(op, a) }

func layerNormForward[T autodiff.Float](op *layerNormOp, a *autodiff.ArgsOf[T]) {
	x, gamma, beta, d := a.In[0], a.In[1], a.In[2], op.d
	for i, r := 0, 0; r < len(x); i, r = i+1, r+d {
		row, out := x[r:r+d], a.Out[r:r+d]
		mean, inv := moments(row)
		a.Saved[2*i], a.Saved[2*i+1] = T(mean), T(inv)
		m, s := T(mean), T(inv)
		for j, v := range row {
			out[j] = (v-m)*s*gamma[j] + beta[j]
		}
	}
}

// Backward: with x̂ the normalised row and g = ∂y⊙γ,
// ∂x = (g − mean(g) − x̂·mean(g⊙x̂))/√(σ² + ε), ∂γ += ∂y⊙x̂, ∂β += ∂y.
func (op *layerNormOp) Backward(a *autodiff.Args)     { layerNormBackward(op, a) }
func (op *layerNormOp) Backward32(a *autodiff.Args32) { layerNormBackward(op, a) }

func layerNormBackward[T autodiff.Float](op *layerNormOp, a *autodiff.ArgsOf[T]) {
	x, gamma, d := a.In[0], a.In[1], op.d
	dx, dgamma, dbeta := a.GradIn[0], a.GradIn[1], a.GradIn[2]
	set := a.Assign(0)
	for i, r := 0, 0; r < len(x); i, r = i+1, r+d {
		row, dy := x[r:r+d], a.GradOut[r:r+d]
		m, s := a.Saved[2*i], a.Saved[2*i+1]
		var sg, sgx float64
		for j, v := range row {
			xh := (v - m) * s
			g := dy[j] * gamma[j]
			sg += float64(g)
			sgx += float64(g * xh)
			if dgamma != nil {
				dgamma[j] += dy[j] * xh
			}
			if dbeta != nil {
				dbeta[j] += dy[j]
			}
		}
		if dx == nil {
			continue
		}
		mg, mgx := T(sg/float64(d)), T(sgx/float64(d))
		out := dx[r : r+d]
		for j, v := range row {
			xh := (v - m) * s
			t := (dy[j]*gamma[j] - mg - xh*mgx) * s
			if set {
				out[j] = t
			} else {
				out[j] += t
			}
		}
	}
}
