package stdlib_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// Each scalar density is checked through the harness on equal shapes and on
// two broadcasting layouts (values against an independent reference,
// gradients against finite differences, replicas bit for bit), and at fixed
// points that reach into the tails. The references are gonum's distuv where
// it has the distribution, closed forms otherwise.

type scalarCase struct {
	name  string                      // Stan name, for stdlib.Lookup
	build func(x []*ad.Node) *ad.Node // the exported constructor
	ref   func(x []float64) float64   // independent reference at one point
	draw  []func(*rand.Rand) float64  // per argument
	ints  []bool                      // integer arguments: data, no gradient
	tails [][]float64                 // fixed points, one argument tuple each
	// tailFD also checks gradients at the tails; off where a step of 1e-3·|x|
	// would leave the support (y = 1e-8 for beta, θ = 1e-10).
	tailFD bool
	// tailTol loosens the value check at the tails where the reference is
	// the less accurate of the two (say why at the case).
	tailTol float64
}

func logSigmoid(a float64) float64 { return -math.Log1p(math.Exp(-a)) }

// logitProb is σ(a) for the mean-parameterized references, used only for
// |a| ≤ 5 where 1 - σ(a) keeps all but a digit or two.
func logitProb(a float64) float64 { return 1 / (1 + math.Exp(-a)) }

var scalarCases = []scalarCase{
	{name: "normal",
		build: func(x []*ad.Node) *ad.Node { return stdlib.NormalLPDF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.Normal{Mu: x[1], Sigma: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Real, adtest.Positive},
		tails: [][]float64{{30, 0, 1}, {-300, 0, 10}, {1e3, 1, 0.5}, {0.3, 0.1, 1e-3}}, tailFD: true},
	{name: "student_t",
		build: func(x []*ad.Node) *ad.Node { return stdlib.StudentTLPDF(x[0], x[1], x[2], x[3]) },
		ref: func(x []float64) float64 {
			return distuv.StudentsT{Mu: x[2], Sigma: x[3], Nu: x[1]}.LogProb(x[0])
		},
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Uniform(0.5, 8), adtest.Real, adtest.Positive},
		tails: [][]float64{{1e3, 3, 0, 1}, {-1e5, 0.5, 1, 2}, {0.5, 1e4, 0, 1}, {2, 1, 0.5, 0.3}}, tailFD: true},
	{name: "cauchy",
		build: func(x []*ad.Node) *ad.Node { return stdlib.CauchyLPDF(x[0], x[1], x[2]) },
		ref: func(x []float64) float64 {
			z := (x[0] - x[1]) / x[2]
			return -math.Log(math.Pi * x[2] * (1 + z*z))
		},
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Real, adtest.Positive},
		tails: [][]float64{{1e6, 0, 1}, {-1e12, 1, 3}, {0.5, 0.5, 2}}, tailFD: true},
	{name: "double_exponential",
		build: func(x []*ad.Node) *ad.Node { return stdlib.DoubleExponentialLPDF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.Laplace{Mu: x[1], Scale: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Uniform(0.5, 2), adtest.Uniform(-2, 0.3), adtest.Positive},
		tails: [][]float64{{50, 0, 1}, {-1e4, 3, 0.5}, {1, 2, 3}}, tailFD: true},
	{name: "logistic",
		build: func(x []*ad.Node) *ad.Node { return stdlib.LogisticLPDF(x[0], x[1], x[2]) },
		// distuv.Logistic's LogProb is that of the standard logistic whatever
		// Mu and S hold, so the reference standardizes by hand. Its
		// x - 2 log(e^x + 1) is exact to rounding for |x| < 709.
		ref: func(x []float64) float64 {
			return distuv.Logistic{}.LogProb((x[0]-x[1])/x[2]) - math.Log(x[2])
		},
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Real, adtest.Positive},
		tails: [][]float64{{300, 0, 1}, {-300, 0, 1}, {5, 1, 0.05}, {0.1, 0.2, 3}}, tailFD: true},
	{name: "exponential",
		build: func(x []*ad.Node) *ad.Node { return stdlib.ExponentialLPDF(x[0], x[1]) },
		ref:   func(x []float64) float64 { return distuv.Exponential{Rate: x[1]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive},
		tails: [][]float64{{0, 2}, {1e3, 1.5}, {1e-8, 1e4}}},
	{name: "gamma",
		build: func(x []*ad.Node) *ad.Node { return stdlib.GammaLPDF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.Gamma{Alpha: x[1], Beta: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive, adtest.Positive},
		tails: [][]float64{{1e-6, 0.5, 2}, {200, 3, 1}, {1, 1e3, 1e3}}},
	{name: "inv_gamma",
		build: func(x []*ad.Node) *ad.Node { return stdlib.InvGammaLPDF(x[0], x[1], x[2]) },
		ref: func(x []float64) float64 {
			return distuv.InverseGamma{Alpha: x[1], Beta: x[2]}.LogProb(x[0])
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive, adtest.Positive},
		tails: [][]float64{{1e-3, 2, 1}, {1e4, 3, 2}, {1, 0.5, 0.5}}},
	{name: "beta",
		build: func(x []*ad.Node) *ad.Node { return stdlib.BetaLPDF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.Beta{Alpha: x[1], Beta: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Unit, adtest.Positive, adtest.Positive},
		tails: [][]float64{{1e-8, 0.5, 2}, {1 - 1e-8, 2, 0.5}, {0.5, 100, 100}}},
	{name: "lognormal",
		build: func(x []*ad.Node) *ad.Node { return stdlib.LognormalLPDF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.LogNormal{Mu: x[1], Sigma: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Real, adtest.Positive},
		tails: [][]float64{{1e-10, 0, 1}, {1e10, 0, 2}, {1, 0, 1}}},
	{name: "uniform",
		build: func(x []*ad.Node) *ad.Node { return stdlib.UniformLPDF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.Uniform{Min: x[1], Max: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Uniform(-5, -3), adtest.Uniform(3, 5)},
		tails: [][]float64{{0, -1, 1}, {1e6, -1e6, 2e6}, {0.5, 0.49, 0.51}}},
	{name: "half_normal",
		build: func(x []*ad.Node) *ad.Node { return stdlib.HalfNormalLPDF(x[0], x[1]) },
		ref:   func(x []float64) float64 { return math.Ln2 + distuv.Normal{Sigma: x[1]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive},
		tails: [][]float64{{0, 1}, {30, 1}, {1e3, 2}}},
	{name: "half_cauchy",
		build: func(x []*ad.Node) *ad.Node { return stdlib.HalfCauchyLPDF(x[0], x[1]) },
		ref: func(x []float64) float64 {
			z := x[0] / x[1]
			return math.Log(2 / (math.Pi * x[1] * (1 + z*z)))
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive},
		tails: [][]float64{{0, 1}, {1e6, 1}, {3, 0.5}}},
	{name: "bernoulli",
		build: func(x []*ad.Node) *ad.Node { return stdlib.BernoulliLPMF(x[0], x[1]) },
		ref:   func(x []float64) float64 { return distuv.Bernoulli{P: x[1]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 1), adtest.Unit},
		ints:  []bool{true, false},
		tails: [][]float64{{1, 1e-10}, {0, 1e-10}, {0, 0.999}, {1, 0.5}},
		// distuv takes log(1 - P), which at P = 1e-10 keeps only 6 digits
		// (1 - P rounds at 1e-16); the density uses log1p(-θ).
		tailTol: 1e-5},
	{name: "bernoulli_logit",
		build: func(x []*ad.Node) *ad.Node { return stdlib.BernoulliLogitLPMF(x[0], x[1]) },
		ref: func(x []float64) float64 {
			if math.Abs(x[1]) <= 5 {
				return distuv.Bernoulli{P: logitProb(x[1])}.LogProb(x[0])
			}
			if x[0] == 1 {
				return logSigmoid(x[1])
			}
			return logSigmoid(-x[1])
		},
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 1), adtest.Real},
		ints:  []bool{true, false},
		tails: [][]float64{{1, 40}, {0, 40}, {1, -40}, {0, -40}, {1, 700}, {0, -700}}, tailFD: true},
	{name: "binomial",
		build: func(x []*ad.Node) *ad.Node { return stdlib.BinomialLPMF(x[0], x[1], x[2]) },
		ref:   func(x []float64) float64 { return distuv.Binomial{N: x[1], P: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 5), adtest.Ints(5, 12), adtest.Unit},
		ints:  []bool{true, true, false},
		tails: [][]float64{{0, 1000, 0.5}, {1000, 1000, 0.999}, {3, 10000, 1e-6}, {2, 3, 0.5}}},
	{name: "binomial_logit",
		build: func(x []*ad.Node) *ad.Node { return stdlib.BinomialLogitLPMF(x[0], x[1], x[2]) },
		ref: func(x []float64) float64 {
			k, n, a := x[0], x[1], x[2]
			if math.Abs(a) <= 5 {
				return distuv.Binomial{N: n, P: logitProb(a)}.LogProb(k)
			}
			lchoose, _ := math.Lgamma(n + 1)
			lk, _ := math.Lgamma(k + 1)
			lnk, _ := math.Lgamma(n - k + 1)
			return lchoose - lk - lnk + k*logSigmoid(a) + (n-k)*logSigmoid(-a)
		},
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 5), adtest.Ints(5, 12), adtest.Real},
		ints:  []bool{true, true, false},
		tails: [][]float64{{0, 100, 40}, {100, 100, 40}, {3, 20, -40}, {2, 3, 0.5}}, tailFD: true},
	{name: "poisson",
		build: func(x []*ad.Node) *ad.Node { return stdlib.PoissonLPMF(x[0], x[1]) },
		ref:   func(x []float64) float64 { return distuv.Poisson{Lambda: x[1]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 8), adtest.Positive},
		ints:  []bool{true, false},
		tails: [][]float64{{1000, 3}, {1e6, 0.5}, {0, 500}, {1e4, 1e4}}, tailFD: true},
	{name: "poisson_log",
		build: func(x []*ad.Node) *ad.Node { return stdlib.PoissonLogLPMF(x[0], x[1]) },
		ref: func(x []float64) float64 {
			if math.Abs(x[1]) <= 20 {
				return distuv.Poisson{Lambda: math.Exp(x[1])}.LogProb(x[0])
			}
			lk, _ := math.Lgamma(x[0] + 1)
			return x[0]*x[1] - math.Exp(x[1]) - lk
		},
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 8), adtest.Real},
		ints:  []bool{true, false},
		tails: [][]float64{{1000, 1}, {0, 6}, {5, -40}, {100, math.Log(100)}}, tailFD: true},
	{name: "weibull", build: lookup("weibull"),
		ref:   func(x []float64) float64 { return distuv.Weibull{K: x[1], Lambda: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Uniform(0.5, 4), adtest.Positive},
		tails: [][]float64{{1e-6, 2, 1}, {30, 1.5, 2}, {1, 0.2, 1e3}, {5, 10, 4}}, tailFD: true},
	{name: "neg_binomial_2", build: lookup("neg_binomial_2"),
		ref: func(x []float64) float64 {
			k, m, p := x[0], x[1], x[2]
			return lg(k+p) - lg(k+1) - lg(p) + k*math.Log(m/(m+p)) + p*math.Log(p/(m+p))
		},
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 10), adtest.Positive, adtest.Positive},
		ints:  []bool{true, false, false},
		tails: [][]float64{{0, 3, 0.5}, {1000, 5, 2}, {3, 2, 1e4}, {50, 50, 0.05}}, tailFD: true},
	{name: "neg_binomial_2_log", build: lookup("neg_binomial_2_log"),
		ref: func(x []float64) float64 {
			k, m, p := x[0], math.Exp(x[1]), x[2]
			return lg(k+p) - lg(k+1) - lg(p) + k*math.Log(m/(m+p)) + p*math.Log(p/(m+p))
		},
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 10), adtest.Real, adtest.Positive},
		ints:  []bool{true, false, false},
		tails: [][]float64{{0, -10, 2}, {1000, 7, 3}, {3, 0.5, 1e4}, {2, 20, 1}}, tailFD: true},
	{name: "beta_binomial", build: lookup("beta_binomial"),
		ref: func(x []float64) float64 {
			k, n, a, b := x[0], x[1], x[2], x[3]
			return lg(n+1) - lg(k+1) - lg(n-k+1) + lg(k+a) + lg(n-k+b) - lg(n+a+b) - lg(a) - lg(b) + lg(a+b)
		},
		draw:  []func(*rand.Rand) float64{adtest.Ints(0, 5), adtest.Ints(5, 12), adtest.Positive, adtest.Positive},
		ints:  []bool{true, true, false, false},
		tails: [][]float64{{0, 1000, 0.5, 2}, {1000, 1000, 3, 0.1}, {3, 10, 1e3, 1e3}}, tailFD: true},
	{name: "skew_normal", build: lookup("skew_normal"),
		ref: func(x []float64) float64 {
			z := (x[0] - x[1]) / x[2]
			return math.Log(2/x[2]) + distuv.UnitNormal.LogProb(z) + math.Log(distuv.UnitNormal.CDF(x[3]*z))
		},
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Real, adtest.Positive, adtest.Uniform(-3, 3)},
		tails: [][]float64{{3, 0, 1, -2}, {-2, 0, 1, 4}, {0.5, 0, 2, 0}, {1, 0, 1, -10}}, tailFD: true},
	{name: "von_mises", build: lookup("von_mises"), ref: vonMisesRef,
		draw: []func(*rand.Rand) float64{adtest.Uniform(-4, 4), adtest.Real, adtest.Uniform(0.1, 40)},
		// Both sides of the series/asymptotic switch at κ = 25, tiny and
		// huge κ, and y many turns away from μ.
		tails:  [][]float64{{0.3, 0, 1e-6}, {1, 0.5, 24.999}, {1, 0.5, 25.001}, {0.01, 0, 300}, {-0.002, 0, 1e5}, {100, -3, 2}},
		tailFD: true},
	// densities_stan.go's densities. References are distuv's own
	// distribution where it has it, else one it is a transformation of:
	// rayleigh(σ) is weibull(2, σ√2); 1/Y for Y ~ frechet(α, σ) is
	// weibull(α, 1/σ); log Y for Y ~ loglogistic(α, β) is logistic(log α,
	// 1/β); Y - μ + λ for Y ~ pareto_type_2(μ, λ, α) is pareto(λ, α); the
	// inverse χ²s are inverse gammas.
	{name: "gumbel", build: lookup("gumbel"),
		ref:   func(x []float64) float64 { return distuv.GumbelRight{Mu: x[1], Beta: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Real, adtest.Real, adtest.Positive},
		tails: [][]float64{{30, 0, 1}, {-5, 0, 1}, {1e3, 1, 50}, {0.3, 0.1, 0.05}}, tailFD: true},
	{name: "pareto", build: lookup("pareto"),
		ref:   func(x []float64) float64 { return distuv.Pareto{Xm: x[1], Alpha: x[2]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Uniform(3, 6), adtest.Uniform(0.5, 2.5), adtest.Positive},
		tails: [][]float64{{1e8, 1, 2}, {1.0001, 1, 0.1}, {1e-3, 1e-4, 30}}, tailFD: true},
	{name: "chi_square", build: lookup("chi_square"),
		ref:   func(x []float64) float64 { return distuv.ChiSquared{K: x[1]}.LogProb(x[0]) },
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Uniform(0.5, 8)},
		tails: [][]float64{{1e-8, 0.5}, {300, 3}, {1e3, 1e3}, {0.2, 2}}, tailFD: true},
	{name: "inv_chi_square", build: lookup("inv_chi_square"),
		ref: func(x []float64) float64 {
			return distuv.InverseGamma{Alpha: x[1] / 2, Beta: 0.5}.LogProb(x[0])
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Uniform(0.5, 8)},
		tails: [][]float64{{1e-3, 2}, {1e4, 3}, {1e-3, 1e3}, {1, 0.1}}, tailFD: true},
	{name: "scaled_inv_chi_square", build: lookup("scaled_inv_chi_square"),
		ref: func(x []float64) float64 {
			nu, s := x[1], x[2]
			return distuv.InverseGamma{Alpha: nu / 2, Beta: nu * s * s / 2}.LogProb(x[0])
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Uniform(0.5, 8), adtest.Positive},
		tails: [][]float64{{1e-3, 2, 0.1}, {1e4, 3, 2}, {1, 1e3, 1}, {5, 0.2, 20}}, tailFD: true},
	{name: "rayleigh", build: lookup("rayleigh"),
		ref: func(x []float64) float64 {
			return distuv.Weibull{K: 2, Lambda: x[1] * math.Sqrt2}.LogProb(x[0])
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive},
		tails: [][]float64{{1e-8, 1}, {40, 1}, {1e3, 100}, {0.5, 0.05}}, tailFD: true},
	{name: "frechet", build: lookup("frechet"),
		ref: func(x []float64) float64 {
			return distuv.Weibull{K: x[1], Lambda: 1 / x[2]}.LogProb(1/x[0]) - 2*math.Log(x[0])
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Uniform(0.5, 4), adtest.Positive},
		tails: [][]float64{{0.1, 2, 1}, {1e6, 1.5, 2}, {1, 0.2, 1e3}, {5, 10, 4}}, tailFD: true},
	{name: "loglogistic", build: lookup("loglogistic"),
		ref: func(x []float64) float64 {
			y, a, b := x[0], x[1], x[2]
			return distuv.Logistic{}.LogProb(b*math.Log(y/a)) + math.Log(b) - math.Log(y)
		},
		draw:  []func(*rand.Rand) float64{adtest.Positive, adtest.Positive, adtest.Uniform(0.5, 4)},
		tails: [][]float64{{1e-8, 1, 2}, {1e8, 2, 3}, {1, 1e3, 0.5}, {3, 2, 50}}, tailFD: true},
	{name: "exp_mod_normal", build: lookup("exp_mod_normal"), ref: expModNormalRef,
		draw: []func(*rand.Rand) float64{adtest.Real, adtest.Real, adtest.Positive, adtest.Positive},
		// Deep in the left tail (log Φ's argument -27, where erfc's
		// reference still holds its digits) and far right.
		tails: [][]float64{{-25, 0, 1, 2}, {50, 0, 1, 0.5}, {0, 0, 0.01, 10}, {1, 0, 2, 1e-3}}, tailFD: true,
		// log Φ by its asymptotic series below -20 truncates at the x⁻⁶
		// term: a relative error of about 105/x⁸ ≈ 4e-10 in Φ there.
		tailTol: 1e-9},
	{name: "pareto_type_2", build: lookup("pareto_type_2"),
		ref: func(x []float64) float64 {
			y, mu, l, a := x[0], x[1], x[2], x[3]
			return distuv.Pareto{Xm: l, Alpha: a}.LogProb(y - mu + l)
		},
		draw:  []func(*rand.Rand) float64{adtest.Uniform(1, 5), adtest.Uniform(-2, 0.5), adtest.Positive, adtest.Positive},
		tails: [][]float64{{1e8, 0, 1, 2}, {1e-6, 0, 1, 3}, {5, 1, 1e3, 0.1}, {2, -1, 0.5, 50}}, tailFD: true},
}

// expModNormalRef is Stan's own form of exp_mod_normal: log λ - log 2 +
// λ(2μ + λσ² - 2y)/2 + log erfc((μ + λσ² - y)/(√2 σ)).
func expModNormalRef(x []float64) float64 {
	y, mu, s, l := x[0], x[1], x[2], x[3]
	return math.Log(l) - math.Ln2 + l*(2*mu+l*s*s-2*y)/2 + math.Log(math.Erfc((mu+l*s*s-y)/(math.Sqrt2*s)))
}

// vonMisesRef is κ cos(y - μ) - log(2π I₀(κ)) with I₀ from its integral
// I₀(κ) = (1/π) ∫_0^π e^(κ cos t) dt, scaled by e^-κ, by the trapezoid rule:
// for a periodic analytic integrand its error falls geometrically in the
// number of points, and 2,000 + 40√κ points put it below 1e-16 for every κ
// tested (about ten points across the peak of width 1/√κ at large κ).
func vonMisesRef(x []float64) float64 {
	y, mu, kappa := x[0], x[1], x[2]
	n := 2000 + int(40*math.Sqrt(kappa))
	h := math.Pi / float64(n)
	s := 0.5 * (1 + math.Exp(-2*kappa)) // the ends, t = 0 and t = π
	for i := 1; i < n; i++ {
		s += math.Exp(kappa * (math.Cos(float64(i)*h) - 1))
	}
	logI0Scaled := math.Log(s * h / math.Pi)
	return kappa*(math.Cos(y-mu)-1) - math.Log(2*math.Pi) - logI0Scaled
}

// lookup builds the named density through the table, as the compiler does.
func lookup(name string) func(x []*ad.Node) *ad.Node {
	return func(x []*ad.Node) *ad.Node {
		d, _ := stdlib.Lookup(name)
		return d.LogDensity(x...)
	}
}

// lg is log Γ, for the closed-form references.
func lg(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// scalarLayouts are the argument shapes of the harness cases: equal shapes, then
// two ways of broadcasting (the first argument's shape is index 0).
var scalarLayouts = []struct {
	name   string
	shapes []ad.Shape
}{
	{"same", []ad.Shape{{2, 3}, {2, 3}, {2, 3}, {2, 3}}},
	{"broadcast_rows", []ad.Shape{{4, 3}, {3}, {}, {4, 1}}},
	{"broadcast_outer", []ad.Shape{{}, {2, 1}, {3}, {}}},
	// A variate with scalar parameters: normal's own loop (normalScalarOp).
	{"scalar_params", []ad.Shape{{2, 3}, {}, {}, {}}},
}

func TestScalarDensities(t *testing.T) {
	for _, c := range scalarCases {
		n := len(c.draw)
		for _, l := range scalarLayouts {
			shapes := l.shapes[:n]
			inputs := make([]adtest.Input, n)
			for i := range inputs {
				inputs[i] = adtest.Input{Shape: shapes[i], Draw: c.draw[i], Data: c.ints != nil && c.ints[i]}
			}
			t.Run(c.name+"/"+l.name, func(t *testing.T) {
				adtest.Run(t, adtest.Case{Name: c.name + "/" + l.name, Inputs: inputs, Build: c.build,
					Reference: broadcastReference(shapes, c.ref)})
			})
		}
		t.Run(c.name+"/tails", func(t *testing.T) { runTails(t, c) })
	}
}

// runTails checks c at its fixed points, each argument a vector of them.
// Without tailFD the arguments are data, and a parameter multiplied by zero
// gives the harness something to replicate and differentiate.
func runTails(t *testing.T, c scalarCase) {
	n := len(c.draw)
	inputs := make([]adtest.Input, n)
	for i := range inputs {
		vals := make([]float64, len(c.tails))
		for j, p := range c.tails {
			vals[j] = p[i]
		}
		inputs[i] = adtest.Input{Shape: ad.Shape{len(vals)}, Values: vals,
			Data: !c.tailFD || c.ints != nil && c.ints[i]}
	}
	build := c.build
	if !c.tailFD {
		inputs = append(inputs, adtest.Input{Shape: ad.Shape{}, Draw: adtest.Real})
		build = func(x []*ad.Node) *ad.Node {
			pad := ad.Mul(x[n], x[n].Graph().Scalar(0))
			return ad.Add(c.build(x[:n]), pad)
		}
	}
	adtest.Run(t, adtest.Case{Name: c.name + "/tails", Inputs: inputs, Build: build, ValueTol: c.tailTol, Float64Only: true,
		Reference: func(x [][]float64) []float64 {
			out := make([]float64, len(c.tails))
			args := make([]float64, n)
			for j := range out {
				for i := range args {
					args[i] = x[i][j]
				}
				out[j] = c.ref(args)
			}
			return out
		}})
}

// broadcastReference applies f to operands of the given shapes broadcast
// together, by its own index arithmetic (not the package's).
func broadcastReference(shapes []ad.Shape, f func([]float64) float64) func([][]float64) []float64 {
	out, err := ad.BroadcastShapes(shapes...)
	if err != nil {
		panic(err)
	}
	return func(x [][]float64) []float64 {
		res := make([]float64, out.Size())
		args := make([]float64, len(shapes))
		idx := make([]int, len(out))
		for e := range res {
			r := e
			for d := len(out) - 1; d >= 0; d-- {
				idx[d], r = r%out[d], r/out[d]
			}
			for k, s := range shapes {
				off := 0
				for d, ext := range s {
					i := idx[len(out)-len(s)+d]
					if ext == 1 {
						i = 0
					}
					off = off*ext + i
				}
				args[k] = x[k][off]
			}
			res[e] = f(args)
		}
		return res
	}
}

// evalDensity builds a density on vector arguments, all parameters so that
// every partial shows, and returns its values and the gradient of their
// sum with respect to each argument.
func evalDensity(t *testing.T, f func(...*ad.Node) *ad.Node, shapes []ad.Shape, args [][]float64) ([]float64, [][]float64) {
	t.Helper()
	g := ad.NewGraph(1)
	ins := make([]*ad.Node, len(args))
	for i := range ins {
		ins[i] = g.Input("x", ad.Param, shapes[i]...)
	}
	out := f(ins...)
	loss := ad.SumAll(out)
	prog, err := g.Compile(out, loss)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range ins {
		if err := prog.Set(n, args[i]); err != nil {
			t.Fatal(err)
		}
	}
	prog.Forward()
	if err := prog.Backward(loss); err != nil {
		t.Fatal(err)
	}
	grads := make([][]float64, len(ins))
	for i, n := range ins {
		grads[i] = prog.Grad(n)
	}
	return prog.Value(out), grads
}

// evalDensityAt runs a scalar density at points, one argument tuple each.
func evalDensityAt(t *testing.T, name string, points [][]float64) ([]float64, [][]float64) {
	t.Helper()
	d, ok := stdlib.Lookup(name)
	if !ok {
		t.Fatalf("no density %q", name)
	}
	args := make([][]float64, d.Arity())
	shapes := make([]ad.Shape, d.Arity())
	for i := range args {
		shapes[i] = ad.Shape{len(points)}
		for _, p := range points {
			args[i] = append(args[i], p[i])
		}
	}
	return evalDensity(t, d.LogDensity, shapes, args)
}

var plusInf = math.Inf(1)

// outOfSupport lists, per density, points outside its support or domain.
var outOfSupport = map[string][][]float64{
	"normal":             {{0, 0, 0}, {0, 0, -1}, {plusInf, 0, 1}, {0, -plusInf, 1}, {0, 0, plusInf}},
	"student_t":          {{0, 0, 0, 1}, {0, -1, 0, 1}, {0, 3, 0, 0}, {plusInf, 3, 0, 1}, {0, plusInf, 0, 1}},
	"cauchy":             {{0, 0, 0}, {0, 0, -2}, {-plusInf, 0, 1}},
	"double_exponential": {{0, 0, 0}, {1, 0, -1}, {0, plusInf, 1}},
	"logistic":           {{0, 0, 0}, {1, 0, -1}, {plusInf, 0, 1}},
	"exponential":        {{-1e-300, 1}, {-1, 1}, {1, 0}, {1, -1}, {plusInf, 1}},
	"gamma":              {{0, 1, 1}, {-1, 1, 1}, {1, 0, 1}, {1, 1, 0}, {1, -1, 1}, {plusInf, 1, 1}},
	"inv_gamma":          {{0, 1, 1}, {-1, 1, 1}, {1, 0, 1}, {1, 1, -1}, {1, plusInf, 1}},
	"beta":               {{0, 1, 1}, {1, 1, 1}, {1.5, 1, 1}, {-0.5, 1, 1}, {0.5, 0, 1}, {0.5, 1, -1}},
	"lognormal":          {{0, 0, 1}, {-1, 0, 1}, {1, 0, 0}, {plusInf, 0, 1}},
	"uniform":            {{-1.5, -1, 1}, {1.5, -1, 1}, {0, 1, 1}, {0, 1, -1}, {0, -plusInf, 1}},
	"half_normal":        {{-1e-300, 1}, {-1, 1}, {1, 0}, {1, -1}, {plusInf, 1}},
	"half_cauchy":        {{-1, 1}, {1, 0}, {1, -1}, {plusInf, 1}},
	"bernoulli":          {{2, 0.5}, {-1, 0.5}, {0.5, 0.5}, {1, 1.5}, {0, -0.1}, {1, 0}, {0, 1}},
	"bernoulli_logit":    {{2, 0.5}, {-1, 0.5}, {0.5, 0.5}, {1, plusInf}},
	"binomial":           {{-1, 5, 0.5}, {6, 5, 0.5}, {1.5, 5, 0.5}, {1, 5.5, 0.5}, {1, 5, 1.5}, {1, 5, -0.5}, {1, 5, 0}, {1, 1, 0}, {0, 1, 1}},
	"binomial_logit":     {{-1, 5, 0.5}, {6, 5, 0.5}, {1.5, 5, 0.5}, {1, -1, 0}, {1, 5, plusInf}},
	"poisson":            {{-1, 1}, {1.5, 1}, {1, -1}, {1, 0}, {1, plusInf}},
	"poisson_log":        {{-1, 1}, {1.5, 1}, {1, plusInf}, {1, -plusInf}},
	"weibull":            {{0, 1, 1}, {-1, 1, 1}, {1, 0, 1}, {1, 1, -1}, {plusInf, 1, 1}},
	"neg_binomial_2":     {{-1, 1, 1}, {1.5, 1, 1}, {1, 0, 1}, {1, 1, 0}, {1, 1, -1}},
	"neg_binomial_2_log": {{-1, 0, 1}, {1.5, 0, 1}, {1, 0, 0}, {1, plusInf, 1}},
	"beta_binomial":      {{-1, 5, 1, 1}, {6, 5, 1, 1}, {1.5, 5, 1, 1}, {1, 5, 0, 1}, {1, 5, 1, -1}},
	"skew_normal":        {{0, 0, 0, 1}, {0, 0, -1, 1}, {plusInf, 0, 1, 1}, {0, 0, 1, plusInf}},
	"von_mises":          {{0, 0, 0}, {0, 0, -1}, {plusInf, 0, 1}, {0, -plusInf, 1}, {0, 0, plusInf}},
	// Stan's supports: pareto y ≥ y_min, pareto_type_2 y ≥ μ, the
	// positive ones y > 0 (the density is 0 or unbounded at 0).
	"gumbel":                {{0, 0, 0}, {0, 0, -1}, {plusInf, 0, 1}, {0, -plusInf, 1}},
	"pareto":                {{0.5, 1, 2}, {-1, 1, 2}, {2, 0, 2}, {2, -1, 2}, {2, 1, 0}, {plusInf, 1, 2}},
	"chi_square":            {{0, 2}, {-1, 2}, {1, 0}, {1, -1}, {plusInf, 2}},
	"inv_chi_square":        {{0, 2}, {-1, 2}, {1, 0}, {1, -1}, {1, plusInf}},
	"scaled_inv_chi_square": {{0, 2, 1}, {-1, 2, 1}, {1, 0, 1}, {1, 2, 0}, {1, 2, -1}, {plusInf, 2, 1}},
	"rayleigh":              {{0, 1}, {-1, 1}, {1, 0}, {1, -1}, {plusInf, 1}},
	"frechet":               {{0, 1, 1}, {-1, 1, 1}, {1, 0, 1}, {1, 1, -1}, {plusInf, 1, 1}},
	"loglogistic":           {{0, 1, 1}, {-1, 1, 1}, {1, 0, 1}, {1, 1, -1}, {1, plusInf, 1}},
	"exp_mod_normal":        {{0, 0, 0, 1}, {0, 0, 1, 0}, {0, 0, -1, 1}, {0, 0, 1, -1}, {-plusInf, 0, 1, 1}, {0, 0, 1, plusInf}},
	"pareto_type_2":         {{-0.5, 0, 1, 1}, {1, 0, 0, 1}, {1, 0, 1, 0}, {1, 0, -1, 1}, {plusInf, 0, 1, 1}},
}

// TestOutOfSupport checks that every point outside a density's support or
// domain is exactly -Inf with all partials 0, not NaN. (Zero-probability
// points inside the support, like bernoulli(1 | 0), are listed too.)
func TestOutOfSupport(t *testing.T) {
	for _, c := range scalarCases {
		points, ok := outOfSupport[c.name]
		if !ok {
			t.Errorf("%s: no out-of-support points", c.name)
			continue
		}
		vals, grads := evalDensityAt(t, c.name, points)
		for j, v := range vals {
			if !math.IsInf(v, -1) {
				t.Errorf("%s%v = %v, want -Inf", c.name, points[j], v)
			}
			for i := range grads {
				if g := grads[i][j]; g != 0 {
					t.Errorf("%s%v: ∂/∂%s = %v, want 0", c.name, points[j], stdlibArgs(c.name)[i], g)
				}
			}
		}
	}
}

func stdlibArgs(name string) []string {
	d, _ := stdlib.Lookup(name)
	return d.Args
}

// TestSupportEdges checks points on the edge of the support, and finite
// points far beyond anything a model sees, for exact values and finite
// partials.
func TestSupportEdges(t *testing.T) {
	lnSqrt2Pi := 0.5 * math.Log(2*math.Pi)
	cases := []struct {
		name  string
		point []float64
		want  float64
	}{
		{"poisson", []float64{0, 0}, 0},
		{"poisson_log", []float64{0, -745}, -math.Exp(-745)},
		{"bernoulli", []float64{0, 0}, 0},
		{"bernoulli", []float64{1, 1}, 0},
		{"bernoulli_logit", []float64{1, 800}, 0},
		{"bernoulli_logit", []float64{0, 800}, -800},
		{"binomial", []float64{0, 5, 0}, 0},
		{"binomial", []float64{5, 5, 1}, 0},
		{"binomial", []float64{0, 0, 0.3}, 0},
		{"exponential", []float64{0, 2}, math.Ln2},
		{"half_normal", []float64{0, 1}, math.Ln2 - lnSqrt2Pi},
		{"half_cauchy", []float64{0, 2}, math.Log(1 / math.Pi)},
		{"uniform", []float64{-1, -1, 1}, -math.Ln2},
		{"uniform", []float64{1, -1, 1}, -math.Ln2},
		{"cauchy", []float64{1e200, 0, 1}, -math.Log(math.Pi) - 2*200*math.Ln10},
		{"half_cauchy", []float64{1e200, 1}, math.Log(2/math.Pi) - 2*200*math.Ln10},
		{"student_t", []float64{1e200, 1, 0, 1}, -math.Log(math.Pi) - 2*200*math.Ln10},
		{"logistic", []float64{1e300, 0, 1}, -1e300},
	}
	for _, c := range cases {
		vals, grads := evalDensityAt(t, c.name, [][]float64{c.point})
		if v := vals[0]; math.Abs(v-c.want) > 1e-14*math.Abs(c.want) || math.IsNaN(v) {
			t.Errorf("%s%v = %.17g, want %.17g", c.name, c.point, v, c.want)
		}
		for i := range grads {
			if g := grads[i][0]; math.IsNaN(g) || math.IsInf(g, 0) {
				t.Errorf("%s%v: ∂/∂%s = %v", c.name, c.point, stdlibArgs(c.name)[i], g)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	names := stdlib.Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names not sorted: %v", names)
	}
	want := []string{"categorical", "categorical_logit", "multi_normal_cholesky", "multi_normal_diag",
		"multi_normal", "dirichlet", "lkj_corr_cholesky", "ordered_logistic",
		"bernoulli_logit_glm", "poisson_log_glm", "normal_id_glm",
		"multi_student_t", "multi_student_t_cholesky", "multinomial", "multinomial_logit", "wishart", "inv_wishart",
		"wishart_cholesky", "inv_wishart_cholesky", "lkj_corr"}
	for _, c := range scalarCases {
		want = append(want, c.name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("Names() = %v, want %v", names, want)
	}
	for _, name := range names {
		d, ok := stdlib.Lookup(name)
		if !ok || d.Name != name || len(d.Int) != d.Arity() || d.LogDensity == nil {
			t.Errorf("Lookup(%q) = %+v, %v", name, d, ok)
			continue
		}
		// A wrong number of arguments is a build error, not a panic.
		g := ad.NewGraph(1)
		args := make([]*ad.Node, d.Arity()+1)
		for i := range args {
			args[i] = g.Input("x", ad.Param, 3)
		}
		if n := d.LogDensity(args...); n == nil || g.Err() == nil {
			t.Errorf("%s with %d arguments: no error", name, len(args))
		}
	}
	if _, ok := stdlib.Lookup("normal_lpdf"); ok {
		t.Error("Lookup(normal_lpdf) found a density")
	}
	// The table is the package's: changing a result does not change it.
	d, _ := stdlib.Lookup("poisson")
	d.Int[0] = false
	if d2, _ := stdlib.Lookup("poisson"); !d2.Int[0] {
		t.Error("Lookup returned the registry's own slice")
	}
	if d, _ := stdlib.Lookup("binomial"); !slices.Equal(d.Int, []bool{true, true, false}) || !slices.Equal(d.Args, []string{"k", "n", "theta"}) {
		t.Errorf("binomial: args %v, ints %v", d.Args, d.Int)
	}
}

func TestScalarShapeErrors(t *testing.T) {
	g := ad.NewGraph(1)
	y, mu := g.Input("y", ad.Data, 4), g.Input("mu", ad.Param, 3)
	if out := stdlib.NormalLPDF(y, mu, g.Scalar(1)); !out.Failed() || g.Err() == nil {
		t.Error("normal of [4] and [3]: no error")
	}
}

// TestOutsideSupport: a constant on the edge of an argument's support is
// named with the argument's role; one inside it, or an argument without a
// support, is fine.
func TestOutsideSupport(t *testing.T) {
	cases := []struct {
		dist string
		arg  int
		v    float64
		want string
	}{
		{"normal", 2, 0, "normal's scale must be positive"},
		{"normal", 2, 1e-300, ""},
		{"normal", 1, -5, ""}, // the location may be anything
		{"student_t", 1, -1, "student_t's degrees of freedom must be positive"},
		{"exponential", 1, 0, "exponential's rate must be positive"},
		{"inv_gamma", 1, -2, "inv_gamma's shape must be positive"},
		{"poisson", 1, 0, ""},
		{"poisson", 1, -0.5, "poisson's rate must be ≥ 0"},
		{"binomial", 2, 1, ""},
		{"binomial", 2, 1.01, "binomial's probability must be in [0, 1]"},
		{"uniform", 1, 5, ""},     // a relation between two arguments: not judged here
		{"categorical", 5, 0, ""}, // an argument past the table
	}
	for _, c := range cases {
		d, ok := stdlib.Lookup(c.dist)
		if !ok {
			t.Fatalf("no %s", c.dist)
		}
		if got := d.Outside(c.arg, c.v); got != c.want {
			t.Errorf("%s argument %d = %v: %q, want %q", c.dist, c.arg, c.v, got, c.want)
		}
	}
}
