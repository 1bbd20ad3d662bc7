package stdlib

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/temper-ppl/temper/autodiff"
)

// The scalar log densities are one table: each row (a *density) holds Stan's
// name and argument names, the support, and the formula with hand-written
// partials for finite arguments in the support. density.value and
// density.partials wrap every row with the checks that make any other point
// -Inf with zero partials.

const (
	lnSqrt2Pi  = 0.918938533204672741780329736406 // log √(2π)
	lnPi       = 1.144729885849400174143427351353 // log π
	lnTwoPi    = 2 * lnSqrt2Pi                    // log 2π
	lnHalfNorm = math.Ln2 - lnSqrt2Pi             // log 2 - log √(2π), half-normal's constant
	lnHalfCau  = math.Ln2 - lnPi                  // log 2 - log π, half-Cauchy's constant
)

// density is one scalar log density.
type density struct {
	name string   // Stan's name
	args []string // argument names, the variate first
	ints []bool   // integer-valued arguments (counts, labels); nil: none
	// support is each argument's Support, for the checker to reject a
	// constant outside it (a missing or zero entry: any real).
	support []Support
	// ok reports whether finite arguments lie in the support and domain.
	ok func(x []float64) bool
	// lp is the log density where ok holds.
	lp func(x []float64) float64
	// grad sets the partials of the real arguments where ok holds; dx is
	// zeroed before.
	grad func(dx, x []float64)

	fn *autodiff.ScalarFunc // built by init from the fields above
}

// value is lp guarded by the support: -Inf outside, and -Inf rather than NaN
// where the formula overflows (an ∞ - ∞ at absurd but finite arguments).
func (d *density) value(x []float64) float64 {
	for i, v := range x {
		if math.IsInf(v, 0) || math.IsNaN(v) || d.ints != nil && d.ints[i] && v != math.Trunc(v) {
			return math.Inf(-1)
		}
	}
	if !d.ok(x) {
		return math.Inf(-1)
	}
	if lp := d.lp(x); !math.IsNaN(lp) {
		return lp
	}
	return math.Inf(-1)
}

// partials are grad where the density is finite, and 0 where it is -Inf
// (outside the support, or a zero probability inside it).
func (d *density) partials(dx, x []float64, lp float64) {
	clear(dx)
	if !math.IsInf(lp, -1) {
		d.grad(dx, x)
	}
}

// apply adds the density of ins to their graph, elementwise.
func (d *density) apply(ins ...*autodiff.Node) *autodiff.Node {
	if d == normalDensity && len(ins) == 3 {
		if n, ok := normalScalar(ins[0], ins[1], ins[2]); ok {
			return n
		}
	}
	if d == bernoulliLogitDensity && len(ins) == 2 {
		if n, ok := bernoulliLogit(ins[0], ins[1]); ok {
			return n
		}
	}
	return autodiff.Elementwise(d.fn, ins...)
}

var (
	normalDensity = &density{name: "normal", args: []string{"y", "mu", "sigma"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[2] > 0 },
		lp:      func(x []float64) float64 { return normalLP(x[0], x[1], x[2]) },
		grad: func(dx, x []float64) {
			dx[0], dx[1], dx[2] = normalPartials(x[0], x[1], x[2])
		}}

	// log Γ((ν+1)/2) - log Γ(ν/2) - ½ log(νπ) - log σ - (ν+1)/2 · log(1 + a²)
	// with a = (y-μ)/(σ√ν).
	studentTDensity = &density{name: "student_t", args: []string{"y", "nu", "mu", "sigma"},
		support: []Support{1: positiveDF, 3: positiveScale},
		ok:      func(x []float64) bool { return x[1] > 0 && x[3] > 0 },
		lp: func(x []float64) float64 {
			nu, sigma := x[1], x[3]
			a := (x[0] - x[2]) / (sigma * math.Sqrt(nu))
			return autodiff.Lgamma64((nu+1)/2) - autodiff.Lgamma64(nu/2) - 0.5*(math.Log(nu)+lnPi) -
				math.Log(sigma) - (nu+1)/2*log1pSq(a)
		},
		grad: func(dx, x []float64) {
			nu, sigma := x[1], x[3]
			sn := math.Sqrt(nu)
			a := (x[0] - x[2]) / (sigma * sn)
			r, f := cauchyRatios(a)
			dz := -(nu + 1) / sn * r // ∂/∂z with z = (y-μ)/σ
			dx[0], dx[2], dx[3] = dz/sigma, -dz/sigma, ((nu+1)*f-1)/sigma
			dx[1] = 0.5 * (autodiff.Digamma64((nu+1)/2) - autodiff.Digamma64(nu/2) - 1/nu - log1pSq(a) + (nu+1)*f/nu)
		}}

	// -log π - log σ - log(1 + z²).
	cauchyDensity = &density{name: "cauchy", args: []string{"y", "mu", "sigma"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[2] > 0 },
		lp: func(x []float64) float64 {
			return -lnPi - math.Log(x[2]) - log1pSq((x[0]-x[1])/x[2])
		},
		grad: func(dx, x []float64) {
			r, f := cauchyRatios((x[0] - x[1]) / x[2])
			dx[0], dx[1], dx[2] = -2*r/x[2], 2*r/x[2], (2*f-1)/x[2]
		}}

	// -log 2 - log σ - |y-μ|/σ; the derivative of |·| at 0 is taken as 0.
	doubleExponentialDensity = &density{name: "double_exponential", args: []string{"y", "mu", "sigma"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[2] > 0 },
		lp: func(x []float64) float64 {
			return -math.Ln2 - math.Log(x[2]) - math.Abs(x[0]-x[1])/x[2]
		},
		grad: func(dx, x []float64) {
			d, s := x[0]-x[1], 0.0
			if d > 0 {
				s = 1
			} else if d < 0 {
				s = -1
			}
			dx[0], dx[1], dx[2] = -s/x[2], s/x[2], (math.Abs(d)/x[2]-1)/x[2]
		}}

	// -log σ - z - 2 log(1 + e^-z), written in |z| so that e^-|z| cannot
	// overflow; ∂/∂z = -tanh(z/2).
	logisticDensity = &density{name: "logistic", args: []string{"y", "mu", "sigma"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[2] > 0 },
		lp: func(x []float64) float64 {
			z := math.Abs(x[0]-x[1]) / x[2]
			return -math.Log(x[2]) - z - 2*math.Log1p(math.Exp(-z))
		},
		grad: func(dx, x []float64) {
			z := (x[0] - x[1]) / x[2]
			t := math.Tanh(z / 2)
			dx[0], dx[1], dx[2] = -t/x[2], t/x[2], (z*t-1)/x[2]
		}}

	// log β - βy on y ≥ 0 (β is the rate).
	exponentialDensity = &density{name: "exponential", args: []string{"y", "beta"},
		support: []Support{1: positiveRate},
		ok:      func(x []float64) bool { return x[0] >= 0 && x[1] > 0 },
		lp:      func(x []float64) float64 { return math.Log(x[1]) - x[1]*x[0] },
		grad: func(dx, x []float64) {
			dx[0], dx[1] = -x[1], 1/x[1]-x[0]
		}}

	// α log β - log Γ(α) + (α-1) log y - βy on y > 0 (β is the rate).
	gammaDensity = &density{name: "gamma", args: []string{"y", "alpha", "beta"},
		support: []Support{1: positiveShape, 2: positiveRate},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			y, a, b := x[0], x[1], x[2]
			return a*math.Log(b) - autodiff.Lgamma64(a) + (a-1)*math.Log(y) - b*y
		},
		grad: func(dx, x []float64) {
			y, a, b := x[0], x[1], x[2]
			dx[0] = (a-1)/y - b
			dx[1] = math.Log(b) - autodiff.Digamma64(a) + math.Log(y)
			dx[2] = a/b - y
		}}

	// α log β - log Γ(α) - (α+1) log y - β/y on y > 0 (β is the scale).
	invGammaDensity = &density{name: "inv_gamma", args: []string{"y", "alpha", "beta"},
		support: []Support{1: positiveShape, 2: positiveScale},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			y, a, b := x[0], x[1], x[2]
			return a*math.Log(b) - autodiff.Lgamma64(a) - (a+1)*math.Log(y) - b/y
		},
		grad: func(dx, x []float64) {
			y, a, b := x[0], x[1], x[2]
			dx[0] = (b/y - (a + 1)) / y
			dx[1] = math.Log(b) - autodiff.Digamma64(a) - math.Log(y)
			dx[2] = a/b - 1/y
		}}

	// -log B(α, β) + (α-1) log θ + (β-1) log(1-θ) on 0 < θ < 1.
	betaDensity = &density{name: "beta", args: []string{"theta", "alpha", "beta"},
		support: []Support{1: positiveShape, 2: positiveShape},
		ok:      func(x []float64) bool { return x[0] > 0 && x[0] < 1 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			t, a, b := x[0], x[1], x[2]
			return autodiff.Lgamma64(a+b) - autodiff.Lgamma64(a) - autodiff.Lgamma64(b) +
				(a-1)*math.Log(t) + (b-1)*math.Log1p(-t)
		},
		grad: func(dx, x []float64) {
			t, a, b := x[0], x[1], x[2]
			psiAB := autodiff.Digamma64(a + b)
			dx[0] = (a-1)/t - (b-1)/(1-t)
			dx[1] = math.Log(t) + psiAB - autodiff.Digamma64(a)
			dx[2] = math.Log1p(-t) + psiAB - autodiff.Digamma64(b)
		}}

	// normal(log y | μ, σ) - log y on y > 0.
	lognormalDensity = &density{name: "lognormal", args: []string{"y", "mu", "sigma"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[0] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			ly := math.Log(x[0])
			z := (ly - x[1]) / x[2]
			return -0.5*z*z - math.Log(x[2]) - ly - lnSqrt2Pi
		},
		grad: func(dx, x []float64) {
			z := (math.Log(x[0]) - x[1]) / x[2]
			dx[0], dx[1], dx[2] = -(1+z/x[2])/x[0], z/x[2], (z*z-1)/x[2]
		}}

	// -log(β - α) on α ≤ y ≤ β, for α < β.
	uniformDensity = &density{name: "uniform", args: []string{"y", "alpha", "beta"},
		ok: func(x []float64) bool { return x[1] < x[2] && x[1] <= x[0] && x[0] <= x[2] },
		lp: func(x []float64) float64 { return -math.Log(x[2] - x[1]) },
		grad: func(dx, x []float64) {
			w := x[2] - x[1]
			dx[1], dx[2] = 1/w, -1/w
		}}

	// normal(y | 0, σ) truncated to y ≥ 0: the normal density plus log 2.
	halfNormalDensity = &density{name: "half_normal", args: []string{"y", "sigma"},
		support: []Support{1: positiveScale},
		ok:      func(x []float64) bool { return x[0] >= 0 && x[1] > 0 },
		lp: func(x []float64) float64 {
			z := x[0] / x[1]
			return -0.5*z*z - math.Log(x[1]) + lnHalfNorm
		},
		grad: func(dx, x []float64) {
			z := x[0] / x[1]
			dx[0], dx[1] = -z/x[1], (z*z-1)/x[1]
		}}

	// cauchy(y | 0, σ) truncated to y ≥ 0: the Cauchy density plus log 2.
	halfCauchyDensity = &density{name: "half_cauchy", args: []string{"y", "sigma"},
		support: []Support{1: positiveScale},
		ok:      func(x []float64) bool { return x[0] >= 0 && x[1] > 0 },
		lp: func(x []float64) float64 {
			return lnHalfCau - math.Log(x[1]) - log1pSq(x[0]/x[1])
		},
		grad: func(dx, x []float64) {
			r, f := cauchyRatios(x[0] / x[1])
			dx[0], dx[1] = -2*r/x[1], (2*f-1)/x[1]
		}}

	// log θ for y = 1, log(1-θ) for y = 0.
	bernoulliDensity = &density{name: "bernoulli", args: []string{"y", "theta"}, ints: []bool{true, false},
		support: []Support{1: probability},
		ok:      func(x []float64) bool { return (x[0] == 0 || x[0] == 1) && x[1] >= 0 && x[1] <= 1 },
		lp: func(x []float64) float64 {
			if x[0] == 1 {
				return math.Log(x[1])
			}
			return math.Log1p(-x[1])
		},
		grad: func(dx, x []float64) {
			if x[0] == 1 {
				dx[1] = 1 / x[1]
			} else {
				dx[1] = -1 / (1 - x[1])
			}
		}}

	// bernoulli(y | σ(α)): log σ(α) = -softplus(-α), log(1-σ(α)) = -softplus(α).
	bernoulliLogitDensity = &density{name: "bernoulli_logit", args: []string{"y", "alpha"}, ints: []bool{true, false},
		ok: func(x []float64) bool { return x[0] == 0 || x[0] == 1 },
		lp: func(x []float64) float64 {
			if x[0] == 1 {
				return -autodiff.Softplus64(-x[1])
			}
			return -autodiff.Softplus64(x[1])
		},
		grad: func(dx, x []float64) {
			if x[0] == 1 {
				dx[1] = autodiff.Sigmoid64(-x[1])
			} else {
				dx[1] = -autodiff.Sigmoid64(x[1])
			}
		}}

	// log C(n, k) + k log θ + (n-k) log(1-θ) on 0 ≤ k ≤ n; a term with a zero
	// count is left out, so that θ = 0 or 1 is fine where its count is 0.
	binomialDensity = &density{name: "binomial", args: []string{"k", "n", "theta"}, ints: []bool{true, true, false},
		support: []Support{1: trialCount, 2: probability},
		ok:      func(x []float64) bool { return 0 <= x[0] && x[0] <= x[1] && 0 <= x[2] && x[2] <= 1 },
		lp: func(x []float64) float64 {
			k, n, t := x[0], x[1], x[2]
			lp := lchoose(n, k)
			if k > 0 {
				lp += k * math.Log(t)
			}
			if n > k {
				lp += (n - k) * math.Log1p(-t)
			}
			return lp
		},
		grad: func(dx, x []float64) {
			k, n, t := x[0], x[1], x[2]
			if k > 0 {
				dx[2] += k / t
			}
			if n > k {
				dx[2] -= (n - k) / (1 - t)
			}
		}}

	// binomial(k | n, σ(α)) = log C(n, k) - k softplus(-α) - (n-k) softplus(α).
	binomialLogitDensity = &density{name: "binomial_logit", args: []string{"k", "n", "alpha"}, ints: []bool{true, true, false},
		ok: func(x []float64) bool { return 0 <= x[0] && x[0] <= x[1] },
		lp: func(x []float64) float64 {
			k, n, a := x[0], x[1], x[2]
			return lchoose(n, k) - k*autodiff.Softplus64(-a) - (n-k)*autodiff.Softplus64(a)
		},
		grad: func(dx, x []float64) {
			k, n, a := x[0], x[1], x[2]
			dx[2] = k*autodiff.Sigmoid64(-a) - (n-k)*autodiff.Sigmoid64(a)
		}}

	// k log λ - λ - log k! on k ≥ 0, λ ≥ 0 (k log λ is 0 for k = 0, λ = 0).
	poissonDensity = &density{name: "poisson", args: []string{"k", "lambda"}, ints: []bool{true, false},
		support: []Support{1: nonNegativeRate},
		ok:      func(x []float64) bool { return x[0] >= 0 && x[1] >= 0 },
		lp: func(x []float64) float64 {
			k, l := x[0], x[1]
			if k == 0 {
				return -l
			}
			return k*math.Log(l) - l - autodiff.Lgamma64(k+1)
		},
		grad: func(dx, x []float64) {
			dx[1] = -1
			if x[0] > 0 {
				dx[1] += x[0] / x[1]
			}
		}}

	// poisson(k | e^α) = kα - e^α - log k!.
	poissonLogDensity = &density{name: "poisson_log", args: []string{"k", "alpha"}, ints: []bool{true, false},
		ok: func(x []float64) bool { return x[0] >= 0 },
		lp: func(x []float64) float64 {
			return x[0]*x[1] - math.Exp(x[1]) - autodiff.Lgamma64(x[0]+1)
		},
		grad: func(dx, x []float64) { dx[1] = x[0] - math.Exp(x[1]) }}
)

// NormalLPDF is Stan's normal_lpdf(y | mu, sigma):
// -½((y-μ)/σ)² - log σ - ½ log 2π; -Inf for σ ≤ 0.
func NormalLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	return normalDensity.apply(y, mu, sigma)
}

// StudentTLPDF is Stan's student_t_lpdf(y | nu, mu, sigma), with nu degrees
// of freedom; -Inf for ν ≤ 0 or σ ≤ 0.
func StudentTLPDF(y, nu, mu, sigma *autodiff.Node) *autodiff.Node {
	return studentTDensity.apply(y, nu, mu, sigma)
}

// CauchyLPDF is Stan's cauchy_lpdf(y | mu, sigma); -Inf for σ ≤ 0.
func CauchyLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	return cauchyDensity.apply(y, mu, sigma)
}

// DoubleExponentialLPDF is Stan's double_exponential_lpdf(y | mu, sigma), the
// Laplace density with scale σ; -Inf for σ ≤ 0.
func DoubleExponentialLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	return doubleExponentialDensity.apply(y, mu, sigma)
}

// LogisticLPDF is Stan's logistic_lpdf(y | mu, sigma); -Inf for σ ≤ 0.
func LogisticLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	return logisticDensity.apply(y, mu, sigma)
}

// ExponentialLPDF is Stan's exponential_lpdf(y | beta) with rate β; -Inf for
// y < 0 or β ≤ 0.
func ExponentialLPDF(y, beta *autodiff.Node) *autodiff.Node {
	return exponentialDensity.apply(y, beta)
}

// GammaLPDF is Stan's gamma_lpdf(y | alpha, beta), shape α and rate β; -Inf
// for y ≤ 0, α ≤ 0 or β ≤ 0.
func GammaLPDF(y, alpha, beta *autodiff.Node) *autodiff.Node {
	return gammaDensity.apply(y, alpha, beta)
}

// InvGammaLPDF is Stan's inv_gamma_lpdf(y | alpha, beta), shape α and scale
// β; -Inf for y ≤ 0, α ≤ 0 or β ≤ 0.
func InvGammaLPDF(y, alpha, beta *autodiff.Node) *autodiff.Node {
	return invGammaDensity.apply(y, alpha, beta)
}

// BetaLPDF is Stan's beta_lpdf(theta | alpha, beta); -Inf for θ outside
// (0, 1), α ≤ 0 or β ≤ 0.
func BetaLPDF(theta, alpha, beta *autodiff.Node) *autodiff.Node {
	return betaDensity.apply(theta, alpha, beta)
}

// LognormalLPDF is Stan's lognormal_lpdf(y | mu, sigma); -Inf for y ≤ 0 or
// σ ≤ 0.
func LognormalLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	return lognormalDensity.apply(y, mu, sigma)
}

// UniformLPDF is Stan's uniform_lpdf(y | alpha, beta) = -log(β - α); -Inf for
// y outside [α, β] or α ≥ β.
func UniformLPDF(y, alpha, beta *autodiff.Node) *autodiff.Node {
	return uniformDensity.apply(y, alpha, beta)
}

// HalfNormalLPDF is normal_lpdf(y | 0, sigma) + log 2, the normal truncated
// to y ≥ 0; -Inf for y < 0 or σ ≤ 0.
func HalfNormalLPDF(y, sigma *autodiff.Node) *autodiff.Node {
	return halfNormalDensity.apply(y, sigma)
}

// HalfCauchyLPDF is cauchy_lpdf(y | 0, sigma) + log 2, the Cauchy truncated
// to y ≥ 0; -Inf for y < 0 or σ ≤ 0.
func HalfCauchyLPDF(y, sigma *autodiff.Node) *autodiff.Node {
	return halfCauchyDensity.apply(y, sigma)
}

// BernoulliLPMF is Stan's bernoulli_lpmf(y | theta); -Inf for y ∉ {0, 1} or
// θ outside [0, 1].
func BernoulliLPMF(y, theta *autodiff.Node) *autodiff.Node {
	return bernoulliDensity.apply(y, theta)
}

// BernoulliLogitLPMF is Stan's bernoulli_logit_lpmf(y | alpha), the Bernoulli
// with θ = σ(α), exact in both tails; -Inf for y ∉ {0, 1}.
func BernoulliLogitLPMF(y, alpha *autodiff.Node) *autodiff.Node {
	return bernoulliLogitDensity.apply(y, alpha)
}

// BinomialLPMF is Stan's binomial_lpmf(k | n, theta), k successes in n
// trials; -Inf unless 0 ≤ k ≤ n are whole numbers and θ lies in [0, 1].
func BinomialLPMF(k, n, theta *autodiff.Node) *autodiff.Node {
	return binomialDensity.apply(k, n, theta)
}

// BinomialLogitLPMF is Stan's binomial_logit_lpmf(k | n, alpha), the binomial
// with θ = σ(α); -Inf unless 0 ≤ k ≤ n are whole numbers.
func BinomialLogitLPMF(k, n, alpha *autodiff.Node) *autodiff.Node {
	return binomialLogitDensity.apply(k, n, alpha)
}

// PoissonLPMF is Stan's poisson_lpmf(k | lambda); -Inf unless k ≥ 0 is a
// whole number and λ ≥ 0.
func PoissonLPMF(k, lambda *autodiff.Node) *autodiff.Node {
	return poissonDensity.apply(k, lambda)
}

// PoissonLogLPMF is Stan's poisson_log_lpmf(k | alpha), the Poisson with
// λ = e^α; -Inf unless k ≥ 0 is a whole number.
func PoissonLogLPMF(k, alpha *autodiff.Node) *autodiff.Node {
	return poissonLogDensity.apply(k, alpha)
}

// normalLP is -½((y-μ)/σ)² - log σ - log √(2π), shared with MultiNormalDiagLPDF.
func normalLP(y, mu, sigma float64) float64 {
	z := (y - mu) / sigma
	return -0.5*z*z - math.Log(sigma) - lnSqrt2Pi
}

// normalPartials are normalLP's partials in y, μ and σ.
func normalPartials(y, mu, sigma float64) (dy, dmu, dsigma float64) {
	z := (y - mu) / sigma
	return -z / sigma, z / sigma, (z*z - 1) / sigma
}

// log1pSq is log(1 + z²) without overflow: beyond |z| = 1e8 the 1 is below
// rounding and it is 2 log|z|.
func log1pSq(z float64) float64 {
	if a := math.Abs(z); a > 1e8 {
		return 2 * math.Log(a)
	}
	return math.Log1p(z * z)
}

// cauchyRatios returns r = z/(1+z²) and f = z²/(1+z²), the pieces of the
// Cauchy and Student-t partials, in forms that neither overflow nor divide
// 0 by 0 at any z (1/±0 = ±Inf does the right thing).
func cauchyRatios(z float64) (r, f float64) {
	return 1 / (z + 1/z), 1 / (1 + 1/(z*z))
}

// lchoose is log C(n, k) = log Γ(n+1) - log Γ(k+1) - log Γ(n-k+1). Its
// absolute error grows like ε·n log n (Stan's log-beta form is more careful),
// far below what matters to a sampler for any count a model sees.
func lchoose(n, k float64) float64 {
	return autodiff.Lgamma64(n+1) - autodiff.Lgamma64(k+1) - autodiff.Lgamma64(n-k+1)
}

// Support is the set of values one argument of a distribution may take,
// so that the checker can reject a constant outside it at its position
// (`normal(0, -1)`) rather than the run diverging at its first step.
type Support struct {
	Role  string // what the argument is, for messages: scale, rate
	Want  string // what it must be: positive, in [0, 1]
	Holds func(float64) bool
}

// The supports of the scalar densities' arguments.
var (
	positiveScale   = Support{"scale", "positive", positive}
	positiveRate    = Support{"rate", "positive", positive}
	positiveShape   = Support{"shape", "positive", positive}
	positiveDF      = Support{"degrees of freedom", "positive", positive}
	nonNegativeRate = Support{"rate", "≥ 0", func(x float64) bool { return x >= 0 }}
	trialCount      = Support{"number of trials", "≥ 0", func(x float64) bool { return x >= 0 }}
	probability     = Support{"probability", "in [0, 1]", func(x float64) bool { return x >= 0 && x <= 1 }}
)

func positive(x float64) bool { return x > 0 }

// Distribution describes a log density to the compiler, which finds it by
// its Stan name with Lookup.
type Distribution struct {
	Name string
	// Args names the arguments in Stan's order, the variate first.
	Args []string
	// Int marks the arguments that take integer values (counts, labels):
	// they are data, held as float64, and get no gradient.
	Int []bool
	// LogDensity builds the elementwise log density of len(Args) arguments.
	LogDensity func(args ...*autodiff.Node) *autodiff.Node
	// Support is each argument's support where it is narrower than the
	// reals (shorter than Args, or a zero Support: any real).
	Support []Support
	// Layout says how the arguments' shapes relate, for the compiler to
	// line up the values of one plate row.
	Layout Layout
}

// Layout is how a distribution's arguments line up.
type Layout int

const (
	// Elementwise: the arguments broadcast against each other and the
	// density is taken per element.
	Elementwise Layout = iota
	// Vector: some arguments are vectors or matrices along their last axes
	// (categorical, multi_normal, dirichlet, lkj_corr_cholesky); the density
	// broadcasts their leading axes itself.
	Vector
	// GLM: the arguments are (y, x, alpha, beta, ...) of Stan's generalised
	// linear models, x a row of predictors and beta a coefficient vector;
	// the others are elementwise against x's rows.
	GLM
)

// Outside says what is wrong with the constant v as argument i (counted
// as in Args, the variate 0): "normal's scale must be positive"; "" when v
// lies in the argument's support.
func (d Distribution) Outside(i int, v float64) string {
	if i >= len(d.Support) || d.Support[i].Holds == nil || d.Support[i].Holds(v) {
		return ""
	}
	return fmt.Sprintf("%s's %s must be %s", d.Name, d.Support[i].Role, d.Support[i].Want)
}

// Arity is the number of arguments, the variate included.
func (d Distribution) Arity() int { return len(d.Args) }

var distributions = map[string]Distribution{}

func init() {
	scalars := []*density{
		normalDensity, studentTDensity, cauchyDensity, doubleExponentialDensity,
		logisticDensity, exponentialDensity, gammaDensity, invGammaDensity,
		betaDensity, lognormalDensity, uniformDensity, halfNormalDensity,
		halfCauchyDensity, bernoulliDensity, bernoulliLogitDensity,
		binomialDensity, binomialLogitDensity, poissonDensity, poissonLogDensity,
		weibullDensity, negBinomial2Density, negBinomial2LogDensity, betaBinomialDensity, skewNormalDensity,
		vonMisesDensity,
	}
	scalars = append(scalars, hostOnlyDensities...)
	for _, d := range scalars {
		d.fn = &autodiff.ScalarFunc{Name: d.name, Arity: len(d.args), Value: d.value, Grad: d.partials}
		ints := make([]bool, len(d.args))
		copy(ints, d.ints)
		register(Distribution{Name: d.name, Args: d.args, Int: ints, LogDensity: d.apply, Support: d.support})
	}
	vectors := []struct {
		name string
		args []string
		ints []bool
		f    func(x []*autodiff.Node) *autodiff.Node
	}{
		{"categorical", []string{"y", "theta"}, []bool{true, false}, func(x []*autodiff.Node) *autodiff.Node { return CategoricalLPMF(x[0], x[1]) }},
		{"categorical_logit", []string{"y", "beta"}, []bool{true, false}, func(x []*autodiff.Node) *autodiff.Node { return CategoricalLogitLPMF(x[0], x[1]) }},
		{"multi_normal_diag", []string{"y", "mu", "sigma"}, nil, func(x []*autodiff.Node) *autodiff.Node { return MultiNormalDiagLPDF(x[0], x[1], x[2]) }},
		{"multi_normal_cholesky", []string{"y", "mu", "L"}, nil, func(x []*autodiff.Node) *autodiff.Node { return MultiNormalCholeskyLPDF(x[0], x[1], x[2]) }},
		{"multi_normal", []string{"y", "mu", "Sigma"}, nil, func(x []*autodiff.Node) *autodiff.Node { return MultiNormalLPDF(x[0], x[1], x[2]) }},
		{"dirichlet", []string{"theta", "alpha"}, nil, func(x []*autodiff.Node) *autodiff.Node { return DirichletLPDF(x[0], x[1]) }},
		{"lkj_corr_cholesky", []string{"L", "eta"}, nil, func(x []*autodiff.Node) *autodiff.Node { return LKJCorrCholeskyLPDF(x[0], x[1]) }},
		{"ordered_logistic", []string{"k", "eta", "c"}, []bool{true, false, false}, func(x []*autodiff.Node) *autodiff.Node { return OrderedLogisticLPMF(x[0], x[1], x[2]) }},
	}
	for _, v := range vectors {
		ints := make([]bool, len(v.args))
		copy(ints, v.ints)
		register(Distribution{Name: v.name, Args: v.args, Int: ints, Layout: Vector, LogDensity: fixedArity(v.name, len(v.args), v.f)})
	}
	glms := []struct {
		name    string
		args    []string
		ints    []bool
		support []Support
		f       func(x []*autodiff.Node) *autodiff.Node
	}{
		{"bernoulli_logit_glm", []string{"y", "x", "alpha", "beta"}, []bool{true, false, false, false}, nil,
			func(x []*autodiff.Node) *autodiff.Node { return BernoulliLogitGLMLPMF(x[0], x[1], x[2], x[3]) }},
		{"poisson_log_glm", []string{"y", "x", "alpha", "beta"}, []bool{true, false, false, false}, nil,
			func(x []*autodiff.Node) *autodiff.Node { return PoissonLogGLMLPMF(x[0], x[1], x[2], x[3]) }},
		{"normal_id_glm", []string{"y", "x", "alpha", "beta", "sigma"}, make([]bool, 5), []Support{4: positiveScale},
			func(x []*autodiff.Node) *autodiff.Node { return NormalIDGLMLPDF(x[0], x[1], x[2], x[3], x[4]) }},
	}
	for _, d := range glms {
		register(Distribution{Name: d.name, Args: d.args, Int: d.ints, Support: d.support, Layout: GLM,
			LogDensity: fixedArity(d.name, len(d.args), d.f)})
	}
}

func register(d Distribution) { distributions[d.Name] = d }

// fixedArity adapts a constructor of n arguments to LogDensity's variadic
// form, recording a wrong count as a build error.
func fixedArity(name string, n int, f func(x []*autodiff.Node) *autodiff.Node) func(...*autodiff.Node) *autodiff.Node {
	return func(args ...*autodiff.Node) *autodiff.Node {
		if len(args) != n {
			g, stop := graphOf(args...)
			if g == nil || stop != nil {
				return stop
			}
			return g.Fail(nil, "%s takes %d arguments, got %d", name, n, len(args))
		}
		return f(args)
	}
}

// Lookup returns the density of that Stan name ("normal", "bernoulli_logit").
func Lookup(name string) (Distribution, bool) {
	d, ok := distributions[name]
	d.Args, d.Int, d.Support = slices.Clone(d.Args), slices.Clone(d.Int), slices.Clone(d.Support) // the table stays the package's
	return d, ok
}

// Names lists the densities' Stan names, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(distributions))
}
