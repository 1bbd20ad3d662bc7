package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// More of Stan's scalar densities, in Stan's parameterisations, normalised,
// each with hand-written partials (checked against finite differences in
// densities_test.go).
var (
	// Weibull with shape α and scale σ: log α - log σ + (α-1) log(y/σ) -
	// (y/σ)^α on y > 0.
	weibullDensity = &density{name: "weibull", args: []string{"y", "alpha", "sigma"},
		support: []Support{1: positiveShape, 2: positiveScale},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			y, a, s := x[0], x[1], x[2]
			lz := math.Log(y / s)
			return math.Log(a) - math.Log(s) + (a-1)*lz - math.Exp(a*lz)
		},
		grad: func(dx, x []float64) {
			y, a, s := x[0], x[1], x[2]
			lz := math.Log(y / s)
			za := math.Exp(a * lz)
			dx[0] = (a - 1 - a*za) / y
			dx[1] = 1/a + lz - za*lz
			dx[2] = a * (za - 1) / s
		}}

	// The negative binomial of mean μ and precision φ (variance μ + μ²/φ):
	// log Γ(k+φ) - log k! - log Γ(φ) + k log(μ/(μ+φ)) + φ log(φ/(μ+φ)).
	negBinomial2Density = &density{name: "neg_binomial_2", args: []string{"k", "mu", "phi"}, ints: []bool{true, false, false},
		support: []Support{1: positiveMean, 2: positivePrecision},
		ok:      func(x []float64) bool { return x[0] >= 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			k, m, p := x[0], x[1], x[2]
			return negBinomialTerms(k, p) + k*(math.Log(m)-math.Log(m+p)) + p*(math.Log(p)-math.Log(m+p))
		},
		grad: func(dx, x []float64) {
			k, m, p := x[0], x[1], x[2]
			dx[1] = k/m - (k+p)/(m+p)
			dx[2] = negBinomialPhi(k, p) - math.Log(m+p) - (k+p)/(m+p)
		}}

	// neg_binomial_2 with μ = e^η, log(e^η + φ) taken as a log-sum-exp.
	negBinomial2LogDensity = &density{name: "neg_binomial_2_log", args: []string{"k", "eta", "phi"}, ints: []bool{true, false, false},
		support: []Support{2: positivePrecision},
		ok:      func(x []float64) bool { return x[0] >= 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			k, eta, p := x[0], x[1], x[2]
			lmp := logAddExp(eta, math.Log(p)) // log(μ + φ)
			return negBinomialTerms(k, p) + k*(eta-lmp) + p*(math.Log(p)-lmp)
		},
		grad: func(dx, x []float64) {
			k, eta, p := x[0], x[1], x[2]
			lmp := logAddExp(eta, math.Log(p))
			w := math.Exp(eta - lmp) // μ/(μ+φ)
			dx[1] = k - (k+p)*w
			dx[2] = negBinomialPhi(k, p) - lmp - (k+p)/math.Exp(lmp)
		}}

	// The beta-binomial: log C(n, k) + log B(k+α, n-k+β) - log B(α, β) on
	// 0 ≤ k ≤ n.
	betaBinomialDensity = &density{name: "beta_binomial", args: []string{"k", "n", "alpha", "beta"}, ints: []bool{true, true, false, false},
		support: []Support{1: trialCount, 2: positiveShape, 3: positiveShape},
		ok:      func(x []float64) bool { return 0 <= x[0] && x[0] <= x[1] && x[2] > 0 && x[3] > 0 },
		lp: func(x []float64) float64 {
			k, n, a, b := x[0], x[1], x[2], x[3]
			return lchoose(n, k) + lbeta(k+a, n-k+b) - lbeta(a, b)
		},
		grad: func(dx, x []float64) {
			k, n, a, b := x[0], x[1], x[2], x[3]
			common := autodiff.Digamma64(a+b) - autodiff.Digamma64(n+a+b)
			dx[2] = autodiff.Digamma64(k+a) - autodiff.Digamma64(a) + common
			dx[3] = autodiff.Digamma64(n-k+b) - autodiff.Digamma64(b) + common
		}}

	// The skew normal of location ξ, scale ω and shape α: log 2 - log ω -
	// log √(2π) - z²/2 + log Φ(αz), z = (y-ξ)/ω.
	skewNormalDensity = &density{name: "skew_normal", args: []string{"y", "xi", "omega", "alpha"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[2] > 0 },
		lp: func(x []float64) float64 {
			z := (x[0] - x[1]) / x[2]
			return math.Ln2 - math.Log(x[2]) - lnSqrt2Pi - z*z/2 + logNormalCDF(x[3]*z)
		},
		grad: func(dx, x []float64) {
			w, a := x[2], x[3]
			z := (x[0] - x[1]) / w
			r := millsRatio(a * z) // φ(αz)/Φ(αz)
			dx[0] = (-z + a*r) / w
			dx[1] = -dx[0]
			dx[2] = (-1 + z*z - a*z*r) / w
			dx[3] = z * r
		}}
)

// The supports of the new densities' parameters.
var (
	positiveMean          = Support{"mean", "positive", positive}
	positivePrecision     = Support{"precision", "positive", positive}
	positiveConcentration = Support{"concentration", "positive", positive}
)

// negBinomialTerms is log Γ(k+φ) - log k! - log Γ(φ).
func negBinomialTerms(k, phi float64) float64 {
	return autodiff.Lgamma64(k+phi) - autodiff.Lgamma64(k+1) - autodiff.Lgamma64(phi)
}

// negBinomialPhi is the part of ∂/∂φ that does not involve μ: ψ(k+φ) -
// ψ(φ) + log φ + 1.
func negBinomialPhi(k, phi float64) float64 {
	return autodiff.Digamma64(k+phi) - autodiff.Digamma64(phi) + math.Log(phi) + 1
}

func lbeta(a, b float64) float64 {
	return autodiff.Lgamma64(a) + autodiff.Lgamma64(b) - autodiff.Lgamma64(a+b)
}

// logAddExp is log(e^a + e^b) without overflow.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logNormalCDF is log Φ(x): by erfc where it keeps its digits, and by the
// asymptotic series of Mills' ratio below -20, where Φ underflows first.
func logNormalCDF(x float64) float64 {
	if x > -20 {
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	x2 := x * x
	return -x2/2 - math.Log(-x) - lnSqrt2Pi + math.Log1p(-1/x2+3/(x2*x2)-15/(x2*x2*x2))
}

// millsRatio is φ(x)/Φ(x), the derivative of log Φ.
func millsRatio(x float64) float64 {
	return math.Exp(-x*x/2 - lnSqrt2Pi - logNormalCDF(x))
}

// The von Mises density of a direction y with mean direction μ and
// concentration κ > 0 (Stan Functions Reference, "Circular distributions:
// von Mises distribution"): κ cos(y - μ) - log(2π I₀(κ)), normalised over
// any interval of length 2π; y and μ may be any reals. κ(cos d - 1) is
// taken as -2κ sin²(d/2) and I₀ scaled by e^-κ, so that a large κ cancels
// nothing. ∂/∂κ is cos(y - μ) - I₁(κ)/I₀(κ).
var vonMisesDensity = &density{name: "von_mises", args: []string{"y", "mu", "kappa"},
	support: []Support{2: positiveConcentration},
	ok:      func(x []float64) bool { return x[2] > 0 },
	lp: func(x []float64) float64 {
		logI0e, _ := logBesselI0(x[2])
		h := math.Sin((x[0] - x[1]) / 2)
		return -2*x[2]*h*h - lnTwoPi - logI0e
	},
	grad: func(dx, x []float64) {
		_, ratio := logBesselI0(x[2])
		s := x[2] * math.Sin(x[0]-x[1])
		dx[0], dx[1], dx[2] = -s, s, math.Cos(x[0]-x[1])-ratio
	}}
