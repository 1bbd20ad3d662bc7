package stdlib

import (
	"math"
	"sync"

	"github.com/temper-ppl/temper/autodiff"
)

// bernoulliLogitOp is bernoulli_logit_lpmf(y | α) for y and α of one shape:
// the likelihood of a logistic regression, the hottest loop of an exact
// sampler on one. It computes the density's value (−softplus(∓α)) and its
// partial (y − σ(α)) from one exponential in the forward pass, keeps the
// partial for the backward pass, and gives the same bits as the elementwise
// density (bernoulliLogitDensity), which recomputes the exponential there
// and calls through its closures per element.
type bernoulliLogitOp struct {
	// partials holds each replica's ∂lp/∂α from the forward pass
	// (replicas may run on goroutines of their own).
	partials sync.Map // replica → []float64
}

func (*bernoulliLogitOp) Name() string { return "bernoulli_logit" }

func (op *bernoulliLogitOp) Forward(a *autodiff.Args)      { bernoulliLogitForward(op, a) }
func (op *bernoulliLogitOp) Forward32(a *autodiff.Args32)  { bernoulliLogitForward(op, a) }
func (op *bernoulliLogitOp) Backward(a *autodiff.Args)     { bernoulliLogitBackward(op, a) }
func (op *bernoulliLogitOp) Backward32(a *autodiff.Args32) { bernoulliLogitBackward(op, a) }

// bernoulliLogit applies the op when y and alpha have one shape; ok is
// false otherwise (the elementwise density broadcasts).
func bernoulliLogit(y, alpha *autodiff.Node) (n *autodiff.Node, ok bool) {
	if y == nil || alpha == nil || !y.Shape().Equal(alpha.Shape()) {
		return nil, false
	}
	return y.Graph().Apply(&bernoulliLogitOp{}, y.Shape(), y, alpha), true
}

func (op *bernoulliLogitOp) buffer(replica, n int) []float64 {
	if v, ok := op.partials.Load(replica); ok {
		if p := v.([]float64); len(p) == n {
			return p
		}
	}
	p := make([]float64, n)
	op.partials.Store(replica, p)
	return p
}

func bernoulliLogitForward[T autodiff.Float](op *bernoulliLogitOp, a *autodiff.ArgsOf[T]) {
	y, alpha := a.In[0], a.In[1]
	partial := op.buffer(a.Replica, len(a.Out))
	for i, yi := range y {
		x := float64(alpha[i])
		if x-x != 0 || yi != 0 && yi != 1 { // α not finite, or y not 0 or 1: as the density
			a.Out[i], partial[i] = T(math.Inf(-1)), 0
			continue
		}
		// With e = exp(−|α|): softplus(±α) = max(±α, 0) + log(1 + e) and
		// σ(±α) = 1/(1 + e) where ±α ≥ 0, e/(1 + e) where it is below,
		// Softplus64's and Sigmoid64's forms.
		e := math.Exp(-math.Abs(x))
		if yi == 1 { // log σ(α), ∂ = σ(−α)
			a.Out[i], partial[i] = T(-(max(-x, 0) + autodiff.Log1pUnit(e))), e/(1+e)
			if x <= 0 {
				partial[i] = 1 / (1 + e)
			}
		} else { // log σ(−α), ∂ = −σ(α)
			a.Out[i], partial[i] = T(-(max(x, 0) + autodiff.Log1pUnit(e))), -1/(1+e)
			if x < 0 {
				partial[i] = -e / (1 + e)
			}
		}
	}
}

func bernoulliLogitBackward[T autodiff.Float](op *bernoulliLogitOp, a *autodiff.ArgsOf[T]) {
	ga := a.GradIn[1]
	if ga == nil {
		return
	}
	partial := op.buffer(a.Replica, len(a.Out))
	for i, g := range a.GradOut {
		ga[i] += T(float64(g) * partial[i])
	}
}

// DeviceKernel implements autodiff.DeviceOp: on an accelerator the op is
// the elementwise density it stands in for.
func (*bernoulliLogitOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: "elementwise", Func: bernoulliLogitDensity.fn}
}
