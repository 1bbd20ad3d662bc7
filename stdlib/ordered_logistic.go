package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// OrderedLogisticLPMF is Stan's ordered_logistic_lpmf(k | eta, c) (Stan
// Functions Reference, "Bounded discrete distributions: ordered logistic
// distribution"): for K categories, cutpoints c_1 < … < c_{K-1} and σ the
// logistic function,
//
//	P(k = 1) = 1 - σ(η - c_1)
//	P(k)     = σ(η - c_{k-1}) - σ(η - c_k),  1 < k < K
//	P(k = K) = σ(η - c_{K-1}).
//
// k holds labels 1..K, eta the linear predictors, and c [..., K-1] cutpoint
// vectors along its last axis; k, eta and c's leading shape broadcast to the
// result's shape. It is -Inf, with zero partials, for a label outside 1..K,
// cutpoints that are not strictly increasing, or an η or c_k that is not
// finite.
//
// The logs are taken without forming the probabilities: log(1 - σ(x)) =
// -softplus(x), log σ(x) = -softplus(-x), and with a = η - c_{k-1} > b =
// η - c_k the difference σ(a) - σ(b) = σ(a)(1 - σ(b))(1 - e^-(a-b)), whose
// log is -softplus(-a) - softplus(b) + log(1 - e^-(c_k - c_{k-1})): no
// cancellation in either tail or between close cutpoints.
func OrderedLogisticLPMF(k, eta, c *autodiff.Node) *autodiff.Node {
	const name = "ordered_logistic"
	g, stop := graphOf(k, eta, c)
	if g == nil || stop != nil {
		return stop
	}
	cs := c.Shape()
	if len(cs) == 0 || cs[len(cs)-1] == 0 {
		return g.Fail(nil, "%s: the cutpoints must be a vector of at least one, got shape %v", name, cs)
	}
	lead := cs[:len(cs)-1]
	batch, err := autodiff.BroadcastShapes(k.Shape(), eta.Shape(), lead)
	if err != nil {
		return g.Fail(nil, "%s: labels %v, eta %v and cutpoints %v: %v", name, k.Shape(), eta.Shape(), cs, err)
	}
	op := &orderedLogisticOp{m: cs[len(cs)-1],
		kAt: bcastIndex(batch, k.Shape()), etaAt: bcastIndex(batch, eta.Shape()), cAt: bcastIndex(batch, lead)}
	return g.Apply(op, batch, k, eta, c)
}

// orderedLogisticOp is ordered_logistic_lpmf per label, with m = K-1
// cutpoints per row of c.
type orderedLogisticOp struct {
	m               int
	kAt, etaAt, cAt []int // per result element, its label, eta and row of c (bcastIndex)
}

func (op *orderedLogisticOp) Name() string { return "ordered_logistic" }

// orderedArgs returns result element b's label as an index 0..K-1 (-1 when
// outside), η, and cutpoint row, or ok false outside the domain.
func orderedArgs[T autodiff.Float](op *orderedLogisticOp, a *autodiff.ArgsOf[T], b int) (i int, eta float64, c []T, ok bool) {
	i = label(float64(a.In[0][bcastAt(op.kAt, b)]), op.m+1)
	eta = float64(a.In[1][bcastAt(op.etaAt, b)])
	c = a.In[2][bcastAt(op.cAt, b)*op.m:][:op.m]
	if i < 0 || math.IsInf(eta, 0) || math.IsNaN(eta) {
		return i, eta, c, false
	}
	for j, v := range c {
		if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) || j > 0 && !(v > c[j-1]) {
			return i, eta, c, false
		}
	}
	return i, eta, c, true
}

// log1mExpNeg is log(1 - e^-d) for d > 0, accurate at both ends (Mächler,
// "Accurately computing log(1 - exp(-|a|))", 2012).
func log1mExpNeg(d float64) float64 {
	if d < math.Ln2 {
		return math.Log(-math.Expm1(-d))
	}
	return math.Log1p(-math.Exp(-d))
}

func (op *orderedLogisticOp) Forward(a *autodiff.Args)     { orderedLogisticForward(op, a) }
func (op *orderedLogisticOp) Forward32(a *autodiff.Args32) { orderedLogisticForward(op, a) }

func orderedLogisticForward[T autodiff.Float](op *orderedLogisticOp, a *autodiff.ArgsOf[T]) {
	for b := range a.Out {
		i, eta, c, ok := orderedArgs(op, a, b)
		lp := math.Inf(-1)
		switch {
		case !ok:
		case i == 0:
			lp = -autodiff.Softplus64(eta - float64(c[0]))
		case i == op.m:
			lp = -autodiff.Softplus64(float64(c[op.m-1]) - eta)
		default:
			lo, hi := float64(c[i-1]), float64(c[i])
			lp = -autodiff.Softplus64(lo-eta) - autodiff.Softplus64(eta-hi) + log1mExpNeg(hi-lo)
		}
		a.Out[b] = T(lp)
	}
}

func (op *orderedLogisticOp) Backward(a *autodiff.Args)     { orderedLogisticBackward(op, a) }
func (op *orderedLogisticOp) Backward32(a *autodiff.Args32) { orderedLogisticBackward(op, a) }

// orderedLogisticBackward: with a = η - c_{k-1}, b = η - c_k and d = c_k -
// c_{k-1}, the middle categories give ∂/∂c_{k-1} = -σ(-a) - 1/(e^d - 1),
// ∂/∂c_k = σ(b) + 1/(e^d - 1) and ∂/∂η = σ(-a) - σ(b); the first, ∂/∂η =
// -σ(b) = -∂/∂c_1; the last, ∂/∂η = σ(-a) = -∂/∂c_{K-1}.
func orderedLogisticBackward[T autodiff.Float](op *orderedLogisticOp, a *autodiff.ArgsOf[T]) {
	ge, gc := a.GradIn[1], a.GradIn[2]
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[b]), -1) {
			continue
		}
		i, eta, c, _ := orderedArgs(op, a, b)
		var dLo, dHi float64 // ∂/∂c_{k-1} and ∂/∂c_k, where they exist
		if i > 0 {
			dLo = -autodiff.Sigmoid64(float64(c[i-1]) - eta)
		}
		if i < op.m {
			dHi = autodiff.Sigmoid64(eta - float64(c[i]))
		}
		if i > 0 && i < op.m {
			r := 1 / math.Expm1(float64(c[i])-float64(c[i-1]))
			dLo, dHi = dLo-r, dHi+r
		}
		gf := float64(g)
		if ge != nil {
			// ∂/∂η = -(∂/∂c_{k-1} + ∂/∂c_k): η enters only through η - c.
			ge[bcastAt(op.etaAt, b)] -= T(gf * (dLo + dHi))
		}
		if gc != nil {
			row := gc[bcastAt(op.cAt, b)*op.m:][:op.m]
			if i > 0 {
				row[i-1] += T(gf * dLo)
			}
			if i < op.m {
				row[i] += T(gf * dHi)
			}
		}
	}
}
