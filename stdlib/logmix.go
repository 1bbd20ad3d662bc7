package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// logMixFunc is Stan's two-component log_mix(θ, λ₁, λ₂) = log(θ e^λ₁ +
// (1-θ) e^λ₂), elementwise: a log-sum-exp of log θ + λ₁ and log(1-θ) +
// λ₂, so that log densities far below -745 (whose exponentials underflow)
// keep their digits. θ outside [0, 1] makes it NaN, as Stan rejects it.
// The partials are the components' shares e^(λ₁-v) θ and e^(λ₂-v) (1-θ),
// and e^(λ₁-v) - e^(λ₂-v) in θ, v being the value.
var logMixFunc = &autodiff.ScalarFunc{Name: "log_mix", Arity: 3,
	Value: func(x []float64) float64 {
		t, a, b := x[0], x[1], x[2]
		if !(t >= 0 && t <= 1) || math.IsNaN(a) || math.IsNaN(b) {
			return math.NaN()
		}
		la, lb := a+math.Log(t), b+math.Log1p(-t)
		if math.IsInf(la, -1) {
			return lb
		}
		if math.IsInf(lb, -1) {
			return la
		}
		return logAddExp(la, lb)
	},
	Grad: func(dx, x []float64, v float64) {
		clear(dx)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return
		}
		t, a, b := x[0], x[1], x[2]
		ea, eb := math.Exp(a-v), math.Exp(b-v)
		dx[0], dx[1], dx[2] = ea-eb, t*ea, (1-t)*eb
	}}

// LogMix is log_mix(theta, lp1, lp2) = log(θ e^lp1 + (1-θ) e^lp2),
// elementwise, broadcasting as autodiff.Elementwise does.
func LogMix(theta, lp1, lp2 *autodiff.Node) *autodiff.Node {
	return autodiff.Elementwise(logMixFunc, theta, lp1, lp2)
}

// logDiffExpFunc is log_diff_exp(a, b) = log(e^a − e^b), elementwise, as
// a + log(−expm1(b − a)), exact when e^a and e^b underflow: a truncation's
// log(F(U) − F(L)) from the log CDFs. It is NaN where a < b and −∞ where
// a = b. The partials are e^a/(e^a − e^b) = 1/(1 − e^(b−a)) in a and
// −e^(b−a)/(1 − e^(b−a)) in b.
var logDiffExpFunc = &autodiff.ScalarFunc{Name: "log_diff_exp", Arity: 2,
	Value: func(x []float64) float64 {
		a, b := x[0], x[1]
		switch {
		case math.IsNaN(a) || math.IsNaN(b) || a < b:
			return math.NaN()
		case math.IsInf(b, -1):
			return a
		case a == b:
			return math.Inf(-1)
		}
		return a + math.Log(-math.Expm1(b-a))
	},
	Grad: func(dx, x []float64, v float64) {
		clear(dx)
		a, b := x[0], x[1]
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return
		}
		if math.IsInf(b, -1) {
			dx[0] = 1
			return
		}
		r := -math.Expm1(b - a) // 1 − e^(b−a)
		dx[0] = 1 / r
		dx[1] = -math.Exp(b-a) / r
	}}

// LogDiffExp is log_diff_exp(a, b) = log(e^a − e^b), elementwise,
// broadcasting as autodiff.Elementwise does.
func LogDiffExp(a, b *autodiff.Node) *autodiff.Node {
	return autodiff.Elementwise(logDiffExpFunc, a, b)
}
