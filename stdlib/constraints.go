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

// Affine maps u to x = offset + multiplier·u (Stan's offset and
// multiplier); its log-Jacobian is log(multiplier) per element of u, not
// finite where the multiplier is not positive. A hierarchy written
// real<offset=mu, multiplier=tau> is sampled non-centred. It is built of
// the ops add, mul, log and broadcast, which every device has.
func Affine(u, offset, multiplier *autodiff.Node) (x, logJacobian *autodiff.Node) {
	x = autodiff.Add(offset, autodiff.Mul(multiplier, u))
	return x, autodiff.Log(autodiff.BroadcastTo(multiplier, u.Shape()...))
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
