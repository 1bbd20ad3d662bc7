package stdlib

import (
	"math"
	"slices"

	"github.com/temper-ppl/temper/autodiff"
)

// The log CDFs of the rest of Stan's univariate distributions, each a row
// of cdfRows: the gamma family and Poisson through the regularized
// incomplete gamma function, the beta family, Student's t and the
// binomials through the incomplete beta (incomplete.go), the beta-binomial
// as a finite sum, and closed forms for the others. Stan's parameter
// orders throughout, as the densities take them. The skew normal's and
// the von Mises' are integrals taken by quadrature (cdfs_quad.go).

// cdfRow is one distribution's log CDFs as a formula for both tails at
// once, and the partials of the CDF itself; pair turns it into the two
// scalar functions, so that the guards outside the support and the chain
// rule to each tail's logarithm are written once.
type cdfRow struct {
	name string
	args []string // the arguments after the value, as the density's
	// logs returns log P(Y ≤ y) and log P(Y > y) for a finite y: -Inf and
	// 0 below the support, 0 and -Inf above it, NaN for parameters
	// outside their domain.
	logs func(x []float64) (lower, upper float64)
	// slopes sets dx[i] = ∂P(Y ≤ y)/∂x_i / e^logv, for logv either log
	// tail, for the arguments with closed-form partials; dx is zeroed
	// before, and counts keep 0.
	slopes func(dx, x []float64, lower, upper, logv float64)
	// shapes are the arguments differentiated by shapeSlope instead.
	shapes []int
}

// pair builds the row's NAME_lcdf and NAME_lccdf. Where a tail's
// probability is exactly 0 or 1 (outside the support, or saturated) both
// are constant and every partial is 0.
func (r *cdfRow) pair() LogCDF {
	logs := func(x []float64) (float64, float64) {
		lower, upper := r.logs(x)
		switch {
		case math.IsNaN(lower) || math.IsNaN(x[0]):
			return math.NaN(), math.NaN()
		case math.IsInf(x[0], 1):
			return 0, math.Inf(-1)
		case math.IsInf(x[0], -1):
			return math.Inf(-1), 0
		}
		return lower, upper
	}
	side := func(suffix string, upper bool) *autodiff.ScalarFunc {
		value := func(x []float64) float64 {
			lower, up := logs(x)
			if upper {
				return up
			}
			return lower
		}
		return &autodiff.ScalarFunc{Name: r.name + suffix, Arity: len(r.args) + 1, Value: value,
			Grad: func(dx, x []float64, logv float64) {
				clear(dx)
				lower, up, sign := logv, log1mExp(logv), 1.0 // the other tail from this one's value
				if upper {
					lower, up, sign = up, lower, -1 // ∂ log(1 - F) = -∂F / (1 - F)
				}
				if !(lower > math.Inf(-1) && up > math.Inf(-1)) {
					return
				}
				r.slopes(dx, x, lower, up, logv)
				for i := range dx {
					dx[i] *= sign
				}
				for _, i := range r.shapes {
					dx[i] = shapeSlope(value, x, i)
				}
			}}
	}
	return LogCDF{Args: r.args, Lower: side("_lcdf", false), Upper: side("_lccdf", true)}
}

// shapeSlope is ∂f/∂x_i for a shape parameter x_i > 0 in which the
// incomplete gamma or beta function has no closed-form partial (it is a
// hypergeometric series, Stan's grad_reg_inc_gamma and inc_beta_dda):
// the fourth-order central difference (f(-2h) - 8f(-h) + 8f(h) - f(2h)) /
// 12h of the stable log value itself. With h = 10⁻³x_i, and f varying on
// the scale of x_i, the truncation error h⁴f⁽⁵⁾/30 is about 10⁻¹⁴
// relative, and the value's own rounding (about 10⁻¹⁵ relative) divided
// by h adds about 10⁻¹² relative: well inside what a gradient-based
// sampler needs, at four evaluations of f.
func shapeSlope(f func([]float64) float64, x []float64, i int) float64 {
	h := 1e-3 * x[i]
	p := slices.Clone(x)
	at := func(k float64) float64 {
		p[i] = x[i] + k*h
		return f(p)
	}
	return (at(-2) - 8*at(-1) + 8*at(1) - at(2)) / (12 * h)
}

// finitePositive reports whether every v is a finite positive number.
func finitePositive(v ...float64) bool {
	for _, x := range v {
		if !(x > 0) || math.IsInf(x, 1) {
			return false
		}
	}
	return true
}

// nan2 is the log CDFs at parameters outside their domain.
func nan2() (float64, float64) { return math.NaN(), math.NaN() }

// gammaSlope is the gamma(a, 1) density at u over e^logv: ∂P(a, u)/∂u /
// e^logv.
func gammaSlope(a, u, logv float64) float64 {
	return math.Exp((a-1)*math.Log(u) - u - autodiff.Lgamma64(a) - logv)
}

// betaSlope is the beta(a, b) density at x (y = 1 - x) over e^logv:
// ∂I_x(a, b)/∂x / e^logv.
func betaSlope(a, b, x, y, logv float64) float64 {
	return math.Exp((a-1)*math.Log(x) + (b-1)*math.Log(y) - lbeta(a, b) - logv)
}

// gammaFamily is a distribution on y > 0 whose CDF is P(a, u) (or, with
// inverse, Q(a, u)) for a shape a = x[1] and an argument u(y, θ): param
// returns a and u and whether the parameters are in their domain, du
// sets u's partials in the other arguments.
func gammaFamily(name string, args []string, inverse bool, param func(x []float64) (a, u float64, ok bool), du func(dx, x []float64, u float64)) *cdfRow {
	return &cdfRow{name: name, args: args, shapes: []int{1},
		logs: func(x []float64) (float64, float64) {
			a, u, ok := param(x)
			switch {
			case !ok:
				return nan2()
			case x[0] <= 0:
				return math.Inf(-1), 0
			}
			lower, upper := logIncGamma(a, u)
			if inverse {
				return upper, lower
			}
			return lower, upper
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			a, u, _ := param(x)
			g := gammaSlope(a, u, logv)
			if inverse {
				g = -g
			}
			du(dx, x, u)
			for i := range dx {
				dx[i] *= g
			}
		}}
}

// expTail is a distribution one of whose tails is e^-u for u(y, θ) ≥ 0:
// the upper tail (Weibull, Rayleigh, the Paretos) or, with lowerTail, the
// lower (Fréchet, Gumbel); the other is log(1 - e^-u). param returns u,
// whether y lies below the support, and whether the parameters are in
// their domain; du sets u's partials.
func expTail(name string, args []string, lowerTail bool, param func(x []float64) (u float64, below, ok bool), du func(dx, x []float64, u float64)) *cdfRow {
	return &cdfRow{name: name, args: args,
		logs: func(x []float64) (float64, float64) {
			u, below, ok := param(x)
			switch {
			case !ok:
				return nan2()
			case below:
				return math.Inf(-1), 0
			case lowerTail:
				return -u, log1mExp(-u)
			}
			return log1mExp(-u), -u
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			u, _, _ := param(x)
			du(dx, x, u)
			s := math.Exp(-u - logv) // ∂e^-u = -e^-u ∂u
			if lowerTail {
				s = -s
			}
			for i := range dx {
				dx[i] *= s
			}
		}}
}

// locationScaleSlopes sets the partials in y, a location and a scale
// (indices iy, im, is) of a CDF of z = (y - μ)/σ, given p = ∂F/∂y / e^logv.
func locationScaleSlopes(dx []float64, iy, im, is int, p, z float64) {
	dx[iy], dx[im], dx[is] = p, -p, -p*z
}

// betaBinomialSums sums the beta-binomial's pmf over 0..k (or, with upper,
// k+1..n) as a log, with the partials of that sum in α and β over e^logv.
func betaBinomialSums(k, n, a, b float64, upper bool, logv float64) (logSum, da, db float64) {
	from, to := 0.0, k
	if upper {
		from, to = k+1, n
	}
	logSum = math.Inf(-1)
	common := autodiff.Digamma64(a+b) - autodiff.Digamma64(n+a+b)
	psiA, psiB, lbAB := autodiff.Digamma64(a), autodiff.Digamma64(b), lbeta(a, b)
	for j := from; j <= to; j++ {
		lp := lchoose(n, j) + lbeta(j+a, n-j+b) - lbAB
		logSum = logAddExp(logSum, lp)
		if !math.IsNaN(logv) {
			w := math.Exp(lp - logv)
			da += w * (autodiff.Digamma64(j+a) - psiA + common)
			db += w * (autodiff.Digamma64(n-j+b) - psiB + common)
		}
	}
	return logSum, da, db
}

// cdfRows are the log CDFs built by pair.
var cdfRows = []*cdfRow{
	// P(α, βy), β the rate.
	gammaFamily("gamma", []string{"alpha", "beta"}, false,
		func(x []float64) (float64, float64, bool) { return x[1], x[2] * x[0], finitePositive(x[1], x[2]) },
		func(dx, x []float64, _ float64) { dx[0], dx[2] = x[2], x[0] }),
	// Q(α, β/y), β the scale.
	gammaFamily("inv_gamma", []string{"alpha", "beta"}, true,
		func(x []float64) (float64, float64, bool) { return x[1], x[2] / x[0], finitePositive(x[1], x[2]) },
		func(dx, x []float64, u float64) { dx[0], dx[2] = -u/x[0], 1/x[0] }),
	// gamma(ν/2, rate ½).
	gammaFamily("chi_square", []string{"nu"}, false,
		func(x []float64) (float64, float64, bool) { return x[1] / 2, x[0] / 2, finitePositive(x[1]) },
		func(dx, x []float64, _ float64) { dx[0] = 0.5 }),
	// inv_gamma(ν/2, scale ½).
	gammaFamily("inv_chi_square", []string{"nu"}, true,
		func(x []float64) (float64, float64, bool) { return x[1] / 2, 0.5 / x[0], finitePositive(x[1]) },
		func(dx, x []float64, u float64) { dx[0] = -u / x[0] }),
	// inv_gamma(ν/2, scale νs²/2).
	gammaFamily("scaled_inv_chi_square", []string{"nu", "s"}, true,
		func(x []float64) (float64, float64, bool) {
			return x[1] / 2, x[1] * x[2] * x[2] / (2 * x[0]), finitePositive(x[1], x[2])
		},
		func(dx, x []float64, u float64) { dx[0], dx[2] = -u/x[0], 2*u/x[2] }),

	// P(Y ≤ k) = Q(k+1, λ), ∂/∂λ minus the pmf at k.
	{name: "poisson", args: []string{"lambda"},
		logs: func(x []float64) (float64, float64) {
			switch {
			case !(x[1] >= 0) || math.IsInf(x[1], 1):
				return nan2()
			case x[0] < 0:
				return math.Inf(-1), 0
			}
			lower, upper := logIncGamma(math.Floor(x[0])+1, x[1])
			return upper, lower
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			dx[1] = -gammaSlope(math.Floor(x[0])+1, x[1], logv)
		}},

	// I_y(α, β).
	{name: "beta", args: []string{"alpha", "beta"}, shapes: []int{1, 2},
		logs: func(x []float64) (float64, float64) {
			switch y := x[0]; {
			case !finitePositive(x[1], x[2]):
				return nan2()
			case y <= 0:
				return math.Inf(-1), 0
			case y >= 1:
				return 0, math.Inf(-1)
			}
			return logIncBeta(x[1], x[2], x[0], 1-x[0])
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			dx[0] = math.Exp(betaDensity.lp(x) - logv)
		}},

	// P(T ≤ -|t|) = I_w(ν/2, ½)/2 with w = ν/(ν + t²), its complement
	// 1 - w = t²/(ν + t²) passed as such so that a small t keeps its
	// digits.
	{name: "student_t", args: []string{"nu", "mu", "sigma"}, shapes: []int{1},
		logs: func(x []float64) (float64, float64) {
			nu, mu, sigma := x[1], x[2], x[3]
			if !finitePositive(nu, sigma) || math.IsInf(mu, 0) || math.IsNaN(mu) {
				return nan2()
			}
			t := (x[0] - mu) / sigma
			t2 := t * t
			both, _ := logIncBeta(nu/2, 0.5, 1/(1+t2/nu), 1/(1+nu/t2)) // log P(|T| > |t|)
			tail := both - math.Ln2
			if t < 0 {
				return tail, log1mExp(tail)
			}
			return log1mExp(tail), tail
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			locationScaleSlopes(dx, 0, 2, 3, math.Exp(studentTDensity.lp(x)-logv), (x[0]-x[2])/x[3])
		}},

	// P(Y ≤ k) = I_{1-θ}(n-k, k+1), ∂/∂θ minus n times binomial(k | n-1, θ).
	{name: "binomial", args: []string{"n", "theta"},
		logs: func(x []float64) (float64, float64) {
			k, n, theta := math.Floor(x[0]), x[1], x[2]
			switch {
			case !(n >= 0) || math.IsInf(n, 1) || !(theta >= 0 && theta <= 1):
				return nan2()
			case k < 0:
				return math.Inf(-1), 0
			case k >= n:
				return 0, math.Inf(-1)
			}
			return logIncBeta(n-k, k+1, 1-theta, theta)
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			k, n, theta := math.Floor(x[0]), x[1], x[2]
			dx[2] = -betaSlope(n-k, k+1, 1-theta, theta, logv)
		}},

	// P(Y ≤ k) = I_p(φ, k+1) with p = φ/(μ+φ).
	{name: "neg_binomial_2", args: []string{"mu", "phi"}, shapes: []int{2},
		logs: func(x []float64) (float64, float64) {
			k, mu, phi := math.Floor(x[0]), x[1], x[2]
			switch {
			case !finitePositive(mu, phi):
				return nan2()
			case k < 0:
				return math.Inf(-1), 0
			}
			return logIncBeta(phi, k+1, phi/(mu+phi), mu/(mu+phi))
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			k, mu, phi := math.Floor(x[0]), x[1], x[2]
			s := mu + phi
			dx[1] = -betaSlope(phi, k+1, phi/s, mu/s, logv) * phi / (s * s)
		}},

	// Sums of the pmf, each tail its own; ∂/∂α of either tail is minus
	// the other's, the sum of the pmf's partials over all k being 0, so
	// the partials come from the smaller tail.
	{name: "beta_binomial", args: []string{"n", "alpha", "beta"},
		logs: func(x []float64) (float64, float64) {
			k, n, a, b := math.Floor(x[0]), x[1], x[2], x[3]
			switch {
			case !(n >= 0) || math.IsInf(n, 1) || !finitePositive(a, b):
				return nan2()
			case k < 0:
				return math.Inf(-1), 0
			case k >= n:
				return 0, math.Inf(-1)
			}
			lower, _, _ := betaBinomialSums(k, n, a, b, false, math.NaN())
			upper, _, _ := betaBinomialSums(k, n, a, b, true, math.NaN())
			return lower, upper
		},
		slopes: func(dx, x []float64, lower, upper, logv float64) {
			k, n, a, b := math.Floor(x[0]), x[1], x[2], x[3]
			_, da, db := betaBinomialSums(k, n, a, b, upper < lower, logv)
			if upper < lower {
				da, db = -da, -db
			}
			dx[2], dx[3] = da, db
		}},

	// 1 - θ at y = 0.
	{name: "bernoulli", args: []string{"theta"},
		logs: func(x []float64) (float64, float64) {
			switch y, theta := x[0], x[1]; {
			case !(theta >= 0 && theta <= 1):
				return nan2()
			case y < 0:
				return math.Inf(-1), 0
			case y >= 1:
				return 0, math.Inf(-1)
			}
			return math.Log1p(-x[1]), math.Log(x[1])
		},
		slopes: func(dx, _ []float64, _, _, logv float64) { dx[1] = -math.Exp(-logv) }},

	// (y - α)/(β - α) on α < y < β.
	{name: "uniform", args: []string{"alpha", "beta"},
		logs: func(x []float64) (float64, float64) {
			y, a, b := x[0], x[1], x[2]
			switch {
			case math.IsInf(a, 0) || math.IsInf(b, 0) || !(a < b):
				return nan2()
			case y <= a:
				return math.Inf(-1), 0
			case y >= b:
				return 0, math.Inf(-1)
			}
			w := math.Log(b - a)
			return math.Log(y-a) - w, math.Log(b-y) - w
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			y, a, b := x[0], x[1], x[2]
			w := b - a
			s := math.Exp(-logv) / w
			dx[0], dx[1], dx[2] = s, s*(y-b)/w, -s*(y-a)/w
		}},

	// erf(z/√2), z = y/σ, by erf below z = 1 and by the upper tail 2Φ(-z)
	// above it.
	{name: "half_normal", args: []string{"sigma"},
		logs: func(x []float64) (float64, float64) {
			y, sigma := x[0], x[1]
			switch z := y / sigma; {
			case !finitePositive(sigma):
				return nan2()
			case y <= 0:
				return math.Inf(-1), 0
			case z < 1:
				p := math.Erf(z / math.Sqrt2)
				return math.Log(p), math.Log1p(-p)
			default:
				upper, _ := logPhi(-z)
				upper += math.Ln2
				return log1mExp(upper), upper
			}
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			z := x[0] / x[1]
			p := math.Exp(lnHalfNorm-z*z/2-logv) / x[1]
			dx[0], dx[1] = p, -p*z
		}},

	// (2/π) atan(y/σ), the upper tail (2/π) atan(σ/y), each tail the
	// smaller one's complement where it is the larger.
	{name: "half_cauchy", args: []string{"sigma"},
		logs: func(x []float64) (float64, float64) {
			y, sigma := x[0], x[1]
			switch {
			case !finitePositive(sigma):
				return nan2()
			case y <= 0:
				return math.Inf(-1), 0
			case y < sigma:
				p := math.Atan(y/sigma) / (math.Pi / 2)
				return math.Log(p), math.Log1p(-p)
			default:
				q := math.Atan(sigma/y) / (math.Pi / 2)
				return math.Log1p(-q), math.Log(q)
			}
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			z := x[0] / x[1]
			p := math.Exp(lnHalfCau-logv) / (x[1] * (1 + z*z))
			dx[0], dx[1] = p, -p*z
		}},

	// The upper tail e^-(y/σ)^α.
	expTail("weibull", []string{"alpha", "sigma"}, false,
		func(x []float64) (float64, bool, bool) {
			return math.Pow(x[0]/x[2], x[1]), x[0] <= 0, finitePositive(x[1], x[2])
		},
		func(dx, x []float64, u float64) {
			y, a, s := x[0], x[1], x[2]
			dx[0], dx[1], dx[2] = a*u/y, u*math.Log(y/s), -a*u/s
		}),
	// The upper tail e^-y²/(2σ²).
	expTail("rayleigh", []string{"sigma"}, false,
		func(x []float64) (float64, bool, bool) {
			z := x[0] / x[1]
			return z * z / 2, x[0] <= 0, finitePositive(x[1])
		},
		func(dx, x []float64, u float64) { dx[0], dx[1] = 2*u/x[0], -2*u/x[1] }),
	// The upper tail (y_min/y)^α on y ≥ y_min.
	expTail("pareto", []string{"y_min", "alpha"}, false,
		func(x []float64) (float64, bool, bool) {
			return x[2] * math.Log(x[0]/x[1]), x[0] < x[1], finitePositive(x[1], x[2])
		},
		func(dx, x []float64, u float64) {
			dx[0], dx[1], dx[2] = x[2]/x[0], -x[2]/x[1], u/x[2]
		}),
	// The upper tail (1 + (y-μ)/λ)^-α on y ≥ μ.
	expTail("pareto_type_2", []string{"mu", "lambda", "alpha"}, false,
		func(x []float64) (float64, bool, bool) {
			d, l, a := x[0]-x[1], x[2], x[3]
			return a * math.Log1p(d/l), d < 0, finitePositive(l, a) && !math.IsInf(x[1], 0)
		},
		func(dx, x []float64, u float64) {
			d, l, a := x[0]-x[1], x[2], x[3]
			dx[0] = a / (l + d)
			dx[1], dx[2], dx[3] = -dx[0], -dx[0]*d/l, u/a
		}),
	// The lower tail e^-(y/σ)^-α.
	expTail("frechet", []string{"alpha", "sigma"}, true,
		func(x []float64) (float64, bool, bool) {
			return math.Pow(x[0]/x[2], -x[1]), x[0] <= 0, finitePositive(x[1], x[2])
		},
		func(dx, x []float64, u float64) {
			y, a, s := x[0], x[1], x[2]
			dx[0], dx[1], dx[2] = -a*u/y, -u*math.Log(y/s), a*u/s
		}),
	// The lower tail e^-e^-z, z = (y-μ)/β.
	expTail("gumbel", []string{"mu", "beta"}, true,
		func(x []float64) (float64, bool, bool) {
			return math.Exp(-(x[0] - x[1]) / x[2]), false, finitePositive(x[2]) && !math.IsInf(x[1], 0)
		},
		func(dx, x []float64, u float64) {
			locationScaleSlopes(dx, 0, 1, 2, -u/x[2], (x[0]-x[1])/x[2])
		}),

	// The logistic CDF of v = β log(y/α): both tails softplus forms.
	{name: "loglogistic", args: []string{"alpha", "beta"},
		logs: func(x []float64) (float64, float64) {
			y, a, b := x[0], x[1], x[2]
			switch {
			case !finitePositive(a, b):
				return nan2()
			case y <= 0:
				return math.Inf(-1), 0
			}
			v := b * math.Log(y/a)
			return -autodiff.Softplus64(-v), -autodiff.Softplus64(v)
		},
		slopes: func(dx, x []float64, lower, upper, logv float64) {
			y, a, b := x[0], x[1], x[2]
			p := math.Exp(lower + upper - logv) // ∂F/∂v = F(1 - F)
			dx[0], dx[1], dx[2] = p*b/y, -p*b/a, p*math.Log(y/a)
		}},

	// F = Φ(z) - E and 1 - F = Φ(-z) + E, E = e^(-λd + λ²σ²/2) Φ(z - λσ),
	// d = y - μ, z = d/σ; each tail is its own sum, so neither subtracts
	// from 1. ∂F/∂y = λE, ∂F/∂σ = λφ(z) - λ²σE, ∂F/∂λ = (d - λσ²)E + σφ(z)
	// (e^(-λd + λ²σ²/2) φ(z - λσ) = φ(z) cancels the rest).
	{name: "exp_mod_normal", args: []string{"mu", "sigma", "lambda"},
		logs: func(x []float64) (float64, float64) {
			d, s, l := x[0]-x[1], x[2], x[3]
			if !finitePositive(s, l) || math.IsInf(x[1], 0) {
				return nan2()
			}
			z, ls := d/s, l*s
			lPhi, _ := logPhi(z - ls)
			logE := -l*d + ls*ls/2 + lPhi
			lower, _ := logPhi(z)
			upper, _ := logPhi(-z)
			upper = logAddExp(upper, logE)
			if r := logE - lower; r < 0 {
				return lower + log1mExp(r), upper
			}
			return log1mExp(upper), upper
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			d, s, l := x[0]-x[1], x[2], x[3]
			z, ls := d/s, l*s
			lPhi, _ := logPhi(z - ls)
			e := math.Exp(-l*d + ls*ls/2 + lPhi - logv)
			phi := math.Exp(-z*z/2 - lnSqrt2Pi - logv)
			dx[0], dx[1] = l*e, -l*e
			dx[2], dx[3] = l*phi-l*ls*e, (d-ls*s)*e+s*phi
		}},
}

func init() {
	for _, r := range cdfRows {
		logCDFs[r.name] = r.pair()
	}
}
