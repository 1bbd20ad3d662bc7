package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// DirichletLPDF is Stan's dirichlet_lpdf(theta | alpha) (Stan Functions
// Reference, "Simplex distributions: Dirichlet distribution"):
//
//	lp = log Γ(Σ_k α_k) - Σ_k log Γ(α_k) + Σ_k (α_k - 1) log θ_k.
//
// theta and alpha [..., K] hold vectors along their last axes, which must
// agree; their leading axes broadcast and the result has the broadcast
// leading shape. A row is -Inf, with zero partials, where theta is not on the
// open simplex (an entry ≤ 0 or > 1, or a sum off one by more than the
// tolerance of categorical) or an α_k is not positive and finite. The
// boundary θ_k = 0 is left out of the support: it has probability zero,
// and the density there is 0 or, for α_k < 1, +Inf, which would poison a
// sampler.
func DirichletLPDF(theta, alpha *autodiff.Node) *autodiff.Node {
	const name = "dirichlet"
	g, stop := graphOf(theta, alpha)
	if g == nil || stop != nil {
		return stop
	}
	ts, as := theta.Shape(), alpha.Shape()
	if len(ts) == 0 || len(as) == 0 || ts[len(ts)-1] != as[len(as)-1] {
		return g.Fail(nil, "%s: theta %v and alpha %v must be vectors along their last axes, of one length", name, ts, as)
	}
	tl, al := ts[:len(ts)-1], as[:len(as)-1]
	batch, err := autodiff.BroadcastShapes(tl, al)
	if err != nil {
		return g.Fail(nil, "%s: theta %v and alpha %v: %v", name, ts, as, err)
	}
	op := &dirichletOp{k: ts[len(ts)-1], thetaAt: bcastIndex(batch, tl), alphaAt: bcastIndex(batch, al)}
	return g.Apply(op, batch, theta, alpha)
}

// dirichletOp is dirichlet_lpdf per pair of rows of theta and alpha.
type dirichletOp struct {
	k                int
	thetaAt, alphaAt []int // per result element, its row of theta and of alpha (bcastIndex)
}

func (op *dirichletOp) Name() string { return "dirichlet" }

// DeviceKernel implements autodiff.DeviceOp.
func (op *dirichletOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.k}, Tables: [][]int{op.thetaAt, op.alphaAt}}
}

// dirichletRows returns result element b's rows of theta and alpha.
func dirichletRows[T autodiff.Float](op *dirichletOp, a *autodiff.ArgsOf[T], b int) (theta, alpha []T) {
	return a.In[0][bcastAt(op.thetaAt, b)*op.k:][:op.k], a.In[1][bcastAt(op.alphaAt, b)*op.k:][:op.k]
}

func (op *dirichletOp) Forward(a *autodiff.Args)     { dirichletForward(op, a) }
func (op *dirichletOp) Forward32(a *autodiff.Args32) { dirichletForward(op, a) }

func dirichletForward[T autodiff.Float](op *dirichletOp, a *autodiff.ArgsOf[T]) {
	for b := range a.Out {
		a.Out[b] = T(dirichletLP(dirichletRows(op, a, b)))
	}
}

// dirichletLP is the log density of one row, -Inf outside the support.
func dirichletLP[T autodiff.Float](theta, alpha []T) float64 {
	if !isSimplex(theta) {
		return math.Inf(-1)
	}
	sum, lp := 0.0, 0.0
	for i, t := range theta {
		al := float64(alpha[i])
		if !(al > 0) || math.IsInf(al, 1) || !(t > 0) {
			return math.Inf(-1)
		}
		sum += al
		lp += (al-1)*math.Log(float64(t)) - autodiff.Lgamma64(al)
	}
	return lp + autodiff.Lgamma64(sum)
}

func (op *dirichletOp) Backward(a *autodiff.Args)     { dirichletBackward(op, a) }
func (op *dirichletOp) Backward32(a *autodiff.Args32) { dirichletBackward(op, a) }

// dirichletBackward: ∂/∂θ_k = (α_k - 1)/θ_k and ∂/∂α_k = ψ(Σα) - ψ(α_k) +
// log θ_k.
func dirichletBackward[T autodiff.Float](op *dirichletOp, a *autodiff.ArgsOf[T]) {
	gt, ga := a.GradIn[0], a.GradIn[1]
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[b]), -1) {
			continue
		}
		theta, alpha := dirichletRows(op, a, b)
		if gt != nil {
			r := gt[bcastAt(op.thetaAt, b)*op.k:][:op.k]
			for i, t := range theta {
				r[i] += g * (alpha[i] - 1) / t
			}
		}
		if ga == nil {
			continue
		}
		sum := 0.0
		for _, v := range alpha {
			sum += float64(v)
		}
		psiSum := autodiff.Digamma64(sum)
		r := ga[bcastAt(op.alphaAt, b)*op.k:][:op.k]
		for i, t := range theta {
			r[i] += T(float64(g) * (psiSum - autodiff.Digamma64(float64(alpha[i])) + math.Log(float64(t))))
		}
	}
}
