package stdlib

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// Constraint transforms map unconstrained reals u, which the samplers move,
// onto a parameter's support x = f(u). Each returns x and the elementwise
// log-absolute-Jacobian log|dx/du| that the energy must add, so that a
// density over x becomes the right density over u. The transforms are
// Stan's (Stan Reference Manual, "Constraint transforms"); the inverses map a
// user's constrained initial values to u.

var (
	// x = lb + e^u, log|dx/du| = u.
	lowerFunc = &autodiff.ScalarFunc{Name: "lower_bound", Arity: 2,
		Value: func(x []float64) float64 { return x[1] + math.Exp(x[0]) },
		Grad:  func(dx, x []float64, _ float64) { dx[0], dx[1] = math.Exp(x[0]), 1 }}
	// x = ub - e^u, log|dx/du| = u.
	upperFunc = &autodiff.ScalarFunc{Name: "upper_bound", Arity: 2,
		Value: func(x []float64) float64 { return x[1] - math.Exp(x[0]) },
		Grad:  func(dx, x []float64, _ float64) { dx[0], dx[1] = -math.Exp(x[0]), 1 }}
	// The log-Jacobian of both one-sided bounds is u itself; it does not
	// depend on the bound.
	expLogJacobian = &autodiff.ScalarFunc{Name: "bound_log_jacobian", Arity: 2,
		Value: func(x []float64) float64 { return x[0] },
		Grad:  func(dx, _ []float64, _ float64) { dx[0], dx[1] = 1, 0 }}
	// x = lb + (ub - lb)·σ(u).
	intervalFunc = &autodiff.ScalarFunc{Name: "interval", Arity: 3,
		Value: func(x []float64) float64 {
			return x[1] + (x[2]-x[1])*autodiff.Sigmoid64(x[0])
		},
		Grad: func(dx, x []float64, _ float64) {
			s := autodiff.Sigmoid64(x[0])
			dx[0] = (x[2] - x[1]) * s * (1 - s)
			dx[1], dx[2] = 1-s, s
		}}
	// log|dx/du| = log(ub - lb) + log σ(u) + log σ(-u)
	//            = log(ub - lb) - softplus(-u) - softplus(u).
	intervalLogJacobian = &autodiff.ScalarFunc{Name: "interval_log_jacobian", Arity: 3,
		Value: func(x []float64) float64 {
			return math.Log(x[2]-x[1]) - autodiff.Softplus64(-x[0]) - autodiff.Softplus64(x[0])
		},
		Grad: func(dx, x []float64, _ float64) {
			dx[0] = 1 - 2*autodiff.Sigmoid64(x[0])
			dx[1], dx[2] = -1/(x[2]-x[1]), 1/(x[2]-x[1])
		}}
)

// LowerBound maps u to x = lb + e^u > lb.
func LowerBound(u, lb *autodiff.Node) (x, logJacobian *autodiff.Node) {
	return autodiff.Elementwise(lowerFunc, u, lb), autodiff.Elementwise(expLogJacobian, u, lb)
}

// UpperBound maps u to x = ub - e^u < ub.
func UpperBound(u, ub *autodiff.Node) (x, logJacobian *autodiff.Node) {
	return autodiff.Elementwise(upperFunc, u, ub), autodiff.Elementwise(expLogJacobian, u, ub)
}

// Interval maps u to x = lb + (ub - lb)·σ(u) in (lb, ub).
func Interval(u, lb, ub *autodiff.Node) (x, logJacobian *autodiff.Node) {
	return autodiff.Elementwise(intervalFunc, u, lb, ub), autodiff.Elementwise(intervalLogJacobian, u, lb, ub)
}

// LowerBoundInverse is u = log(x - lb).
func LowerBoundInverse(x, lb float64) (float64, error) {
	if !(x > lb) {
		return 0, fmt.Errorf("value %v is not above the lower bound %v", x, lb)
	}
	return math.Log(x - lb), nil
}

// UpperBoundInverse is u = log(ub - x).
func UpperBoundInverse(x, ub float64) (float64, error) {
	if !(x < ub) {
		return 0, fmt.Errorf("value %v is not below the upper bound %v", x, ub)
	}
	return math.Log(ub - x), nil
}

// IntervalInverse is u = logit((x - lb)/(ub - lb)).
func IntervalInverse(x, lb, ub float64) (float64, error) {
	if !(lb < ub) {
		return 0, fmt.Errorf("empty interval (%v, %v)", lb, ub)
	}
	if !(x > lb && x < ub) {
		return 0, fmt.Errorf("value %v is outside the interval (%v, %v)", x, lb, ub)
	}
	p := (x - lb) / (ub - lb)
	return math.Log(p) - math.Log1p(-p), nil
}

// simplexOp is Stan's stick-breaking transform along the last axis: K-1
// unconstrained reals to a point of the K-simplex. With
// z_k = σ(u_k - log(K - k)) (k = 1..K-1, the shift making u = 0 the uniform
// point), x_k = (1 - Σ_{j<k} x_j)·z_k and x_K = 1 - Σ_{j<K} x_j. The op's
// output is the K values followed, when jacobian is set, by one
// log-Jacobian: Σ_k log z_k + log(1 - z_k) + log(1 - Σ_{j<k} x_j).
type simplexOp struct {
	rows, k  int // k is the simplex dimension K
	jacobian bool
}

func (op *simplexOp) Name() string {
	if op.jacobian {
		return "simplex_log_jacobian"
	}
	return "simplex"
}

// Simplex maps u [..., K-1] to x [..., K] with nonnegative entries summing to
// one along the last axis; the log-Jacobian has u's leading shape.
func Simplex(u *autodiff.Node) (x, logJacobian *autodiff.Node) {
	g := u.Graph()
	s := u.Shape()
	if u.Failed() {
		return g.Placeholder(nil), g.Placeholder(nil)
	}
	if len(s) == 0 {
		bad := g.Fail(nil, "simplex: the unconstrained value must have at least one axis")
		return bad, bad
	}
	km1 := s[len(s)-1]
	rows := u.Size() / km1
	xs := append(s[:len(s)-1:len(s)-1], km1+1)
	x = g.Apply(&simplexOp{rows: rows, k: km1 + 1}, xs, u)
	logJacobian = g.Apply(&simplexOp{rows: rows, k: km1 + 1, jacobian: true}, s[:len(s)-1], u)
	return x, logJacobian
}

func (op *simplexOp) Forward(a *autodiff.Args) {
	for r := range op.rows {
		u := a.In[0][r*(op.k-1) : (r+1)*(op.k-1)]
		rest, logJ := 1.0, 0.0
		for j, uj := range u {
			z := autodiff.Sigmoid64(uj - math.Log(float64(op.k-1-j)))
			if op.jacobian {
				logJ += math.Log(z) + math.Log1p(-z) + math.Log(rest)
			} else {
				a.Out[r*op.k+j] = rest * z
			}
			rest -= rest * z
		}
		if op.jacobian {
			a.Out[r] = logJ
		} else {
			a.Out[r*op.k+op.k-1] = rest
		}
	}
}

// Backward runs the stick-breaking recursion in reverse. With rest_0 = 1,
// rest_{j+1} = rest_j·(1 - z_j) and x_j = rest_j·z_j, the adjoints are
// ∂/∂z_j = ḡ_j·rest_j - r̄_{j+1}·rest_j and ∂/∂rest_j = ḡ_j·z_j + r̄_{j+1}·(1 - z_j),
// where ḡ_j is x_j's adjoint (for the value) or the log-Jacobian terms'
// derivatives, and dz/du = z(1 - z).
func (op *simplexOp) Backward(a *autodiff.Args) {
	gu := a.GradIn[0]
	if gu == nil {
		return
	}
	km1 := op.k - 1
	var zs, rests [64]float64
	for r := range op.rows {
		u := a.In[0][r*km1 : (r+1)*km1]
		z, rest := zs[:0], rests[:0]
		if km1 > len(zs) {
			z, rest = make([]float64, 0, km1), make([]float64, 0, km1)
		}
		cur := 1.0
		for j, uj := range u {
			zj := autodiff.Sigmoid64(uj - math.Log(float64(km1-j)))
			z, rest = append(z, zj), append(rest, cur)
			cur -= cur * zj
		}
		var restBar float64 // adjoint of rest_{j+1}
		if op.jacobian {
			restBar = 0
		} else {
			restBar = a.GradOut[r*op.k+km1] // x_K = rest_K
		}
		for j := km1 - 1; j >= 0; j-- {
			var zBar, restJBar float64
			if op.jacobian {
				g := a.GradOut[r]
				// d/dz [log z + log(1-z)] = 1/z - 1/(1-z); d/drest log rest = 1/rest.
				zBar = g*(1/z[j]-1/(1-z[j])) - restBar*rest[j]
				restJBar = g/rest[j] + restBar*(1-z[j])
			} else {
				gx := a.GradOut[r*op.k+j]
				zBar = gx*rest[j] - restBar*rest[j]
				restJBar = gx*z[j] + restBar*(1-z[j])
			}
			gu[r*km1+j] += zBar * z[j] * (1 - z[j])
			restBar = restJBar
		}
	}
}

// SimplexInverse maps a point of the simplex (K values) to the K-1
// unconstrained reals that Simplex maps to it.
func SimplexInverse(x []float64) ([]float64, error) {
	k := len(x)
	if k < 2 {
		return nil, fmt.Errorf("a simplex needs at least 2 entries, got %d", k)
	}
	sum := 0.0
	for _, v := range x {
		if !(v > 0) {
			return nil, fmt.Errorf("simplex entries must be positive, got %v", v)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-8 {
		return nil, fmt.Errorf("simplex entries sum to %v, not 1", sum)
	}
	u := make([]float64, k-1)
	rest := 1.0
	for j := range u {
		z := x[j] / rest
		u[j] = math.Log(z) - math.Log1p(-z) + math.Log(float64(k-1-j))
		rest -= x[j]
	}
	return u, nil
}
