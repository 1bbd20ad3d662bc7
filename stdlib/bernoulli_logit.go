package stdlib

import (
	"sync"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/kernel"
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

// bernoulliLogitForward is kernel.BernoulliLogit (eight rows at a time
// with AVX-512) in float64 programs, its row in float32 ones.
func bernoulliLogitForward[T autodiff.Float](op *bernoulliLogitOp, a *autodiff.ArgsOf[T]) {
	y, alpha := a.In[0], a.In[1]
	partial := op.buffer(a.Replica, len(a.Out))
	if out, ok := any(a.Out).([]float64); ok {
		kernel.BernoulliLogit(out, partial, any(y).([]float64), any(alpha).([]float64))
		return
	}
	for i, x := range alpha {
		lp, dlp := kernel.BernoulliLogitRow(float64(y[i]), float64(x))
		a.Out[i], partial[i] = T(lp), dlp
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
