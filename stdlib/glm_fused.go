package stdlib

import (
	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/kernel"
)

// bernoulliLogitGLMOp is bernoulli_logit_glm_lpmf(y | x, α, β) row by row
// in one pass over x, for graphs built for the CPU (autodiff's
// SetHostOnly): the likelihood of a full-data logistic regression, where
// the composed form (x·β, + α, bernoulli_logit) reads x twice a gradient,
// once for η = x·β and once for xᵀ·∂η, and at 100,000 rows of 20 those
// two passes were half of a NUTS run. Here each block of 256 rows (40 KB
// of x at 20 columns) gives its η, its rows' densities and partials r =
// ∂lp/∂η (kernel.BernoulliLogit), and, while the block is still in the
// cache, xᵀ·r and Σ r: the gradient for the plate's sum, whose weights are
// all equal. Backward scales those by that weight; when the weights
// differ, it does the second pass as the composed form would.
//
// Operands: y [B], x [B, D], α [] or [B], β [D]; the result is [B]. The
// values are the composed form's to the last bits of η (a dot product
// summed in another order) and the gradients to a few ulp.
type bernoulliLogitGLMOp struct {
	rows, cols  int
	alphaScalar bool
}

// glmBlock is the rows of x per block of the forward pass.
const glmBlock = 256

func (*bernoulliLogitGLMOp) Name() string { return "bernoulli_logit_glm" }

// SavedLen: the partials r, then xᵀ·r and Σ r.
func (op *bernoulliLogitGLMOp) SavedLen() int { return op.rows + op.cols + 1 }

// ScratchLen: a block's η, or its weighted partials in Backward.
func (op *bernoulliLogitGLMOp) ScratchLen() int { return glmBlock }

func (op *bernoulliLogitGLMOp) Forward(a *autodiff.Args)      { glmForward(op, a) }
func (op *bernoulliLogitGLMOp) Forward32(a *autodiff.Args32)  { glmForward(op, a) }
func (op *bernoulliLogitGLMOp) Backward(a *autodiff.Args)     { glmBackward(op, a) }
func (op *bernoulliLogitGLMOp) Backward32(a *autodiff.Args32) { glmBackward(op, a) }

// fusedBernoulliLogitGLM applies the op where the graph is for the CPU
// and the shapes are those of a plate's rows; ok is false otherwise.
func fusedBernoulliLogitGLM(y, x, alpha, beta *autodiff.Node) (n *autodiff.Node, ok bool) {
	if !y.Graph().HostOnly() {
		return nil, false
	}
	ys, xs, as, bs := y.Shape(), x.Shape(), alpha.Shape(), beta.Shape()
	if len(xs) != 2 || len(bs) != 1 || xs[1] != bs[0] || len(ys) != 1 || ys[0] != xs[0] ||
		!(len(as) == 0 || as.Equal(ys)) || xs[0] == 0 {
		return nil, false
	}
	op := &bernoulliLogitGLMOp{rows: xs[0], cols: xs[1], alphaScalar: len(as) == 0}
	return y.Graph().Apply(op, ys, y, x, alpha, beta), true
}

func glmForward[T autodiff.Float](op *bernoulliLogitGLMOp, a *autodiff.ArgsOf[T]) {
	y, x, alpha, beta := a.In[0], a.In[1], a.In[2], a.In[3]
	d := op.cols
	r, xr, sr := a.Saved[:op.rows], a.Saved[op.rows:op.rows+d], &a.Saved[op.rows+d]
	clear(xr)
	*sr = 0
	if f, ok := any(a).(*autodiff.Args); ok {
		glmForward64(op, f)
		return
	}
	for i := range op.rows { // float32 programs: the row's arithmetic in float64
		eta := float64(alpha[0])
		if !op.alphaScalar {
			eta = float64(alpha[i])
		}
		xi := x[i*d : (i+1)*d]
		for j, b := range beta {
			eta += float64(xi[j]) * float64(b)
		}
		lp, dlp := kernel.BernoulliLogitRow(float64(y[i]), eta)
		a.Out[i], r[i] = T(lp), T(dlp)
		for j, v := range xi {
			xr[j] += T(dlp) * v
		}
		*sr += T(dlp)
	}
}

// glmForward64 is the float64 pass: η, densities and xᵀ·r a block at a
// time on kernel's matrix-vector products and vector density.
func glmForward64(op *bernoulliLogitGLMOp, a *autodiff.Args) {
	y, x, alpha, beta := a.In[0], a.In[1], a.In[2], a.In[3]
	d := op.cols
	r, xr := a.Saved[:op.rows], a.Saved[op.rows:op.rows+d]
	eta := a.Scratch[:glmBlock]
	var sum float64
	for lo := 0; lo < op.rows; lo += glmBlock {
		hi := min(lo+glmBlock, op.rows)
		n := hi - lo
		e, xb := eta[:n], x[lo*d:hi*d]
		kernel.Dgemm(false, false, n, 1, d, 1, xb, d, beta, 1, 0, e, 1)
		if op.alphaScalar {
			for j := range e {
				e[j] = alpha[0] + e[j]
			}
		} else {
			for j := range e {
				e[j] = alpha[lo+j] + e[j]
			}
		}
		rb := r[lo:hi]
		kernel.BernoulliLogit(a.Out[lo:hi], rb, y[lo:hi], e)
		kernel.Dgemm(true, false, d, 1, n, 1, xb, d, rb, 1, 1, xr, 1)
		for _, v := range rb {
			sum += v
		}
	}
	a.Saved[op.rows+d] = sum
}

func glmBackward[T autodiff.Float](op *bernoulliLogitGLMOp, a *autodiff.ArgsOf[T]) {
	x, beta := a.In[1], a.In[3]
	gx, galpha, gbeta := a.GradIn[1], a.GradIn[2], a.GradIn[3]
	d, g := op.cols, a.GradOut
	r, xr, sr := a.Saved[:op.rows], a.Saved[op.rows:op.rows+d], a.Saved[op.rows+d]
	uniform := true
	for _, v := range g {
		if v != g[0] {
			uniform = false
			break
		}
	}
	switch {
	case galpha == nil:
	case op.alphaScalar && uniform:
		galpha[0] += g[0] * sr
	case op.alphaScalar:
		var s T
		for i, v := range g {
			s += v * r[i]
		}
		galpha[0] += s
	default:
		for i, v := range g {
			galpha[i] += v * r[i]
		}
	}
	if gbeta != nil && uniform {
		for j, v := range xr {
			gbeta[j] += g[0] * v
		}
	} else if gbeta != nil { // xᵀ·(g ⊙ r), a block at a time
		w := a.Scratch[:glmBlock]
		for lo := 0; lo < op.rows; lo += glmBlock {
			hi := min(lo+glmBlock, op.rows)
			for i := lo; i < hi; i++ {
				w[i-lo] = g[i] * r[i]
			}
			for i := lo; i < hi; i++ {
				wi, xi := w[i-lo], x[i*d:(i+1)*d]
				for j, v := range xi {
					gbeta[j] += wi * v
				}
			}
		}
	}
	if gx != nil { // ∂x_ij = g_i·r_i·β_j
		for i, v := range g {
			wi, gi := v*r[i], gx[i*d:(i+1)*d]
			for j, b := range beta {
				gi[j] += wi * b
			}
		}
	}
}
