package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// Log cumulative distribution functions, Stan's NAME_lcdf(y | θ) = log
// P(Y ≤ y) and NAME_lccdf(y | θ) = log P(Y > y), elementwise with hand-
// written partials, for the distributions whose CDF has a closed form
// temper can differentiate stably: censored observations' likelihoods
// (target += normal_lccdf(c | mu, sigma)) and truncations.

// LogCDF is one distribution's pair of log CDFs.
type LogCDF struct {
	// Args are the arguments after the value, as the distribution's.
	Args         []string
	Lower, Upper *autodiff.ScalarFunc // log P(Y ≤ y), log P(Y > y)
}

// LookupLogCDF finds a distribution's log CDFs.
func LookupLogCDF(name string) (LogCDF, bool) {
	c, ok := logCDFs[name]
	return c, ok
}

// HostOnly lists the elementwise functions that have no device kernel
// yet, the log CDFs, the densities of hostOnlyDensities and log_mix: a
// model that calls one compiles for the CPU, and the CUDA backend names
// the op it cannot run (autodiff's noKernel) rather than run it.
func HostOnly() []string {
	var names []string
	for _, d := range hostOnlyDensities {
		names = append(names, d.name)
	}
	names = append(names, logMixFunc.Name, logDiffExpFunc.Name)
	for _, c := range logCDFs {
		names = append(names, c.Lower.Name, c.Upper.Name)
	}
	return names
}

// LogCDFNames lists the distributions with log CDFs.
func LogCDFNames() []string {
	var names []string
	for n := range logCDFs {
		names = append(names, n)
	}
	return names
}

// logPhi is log Φ(z), accurate in the far lower tail (erfc, then the
// asymptotic series where erfc underflows), and mills φ(z)/Φ(z), its
// derivative.
func logPhi(z float64) (lp, mills float64) {
	if z > -30 {
		p := 0.5 * math.Erfc(-z/math.Sqrt2)
		return math.Log(p), math.Exp(-0.5*z*z-lnSqrt2Pi) / p
	}
	// Φ(z) ≈ φ(z)/(-z) Σ_k (-1)^k (2k-1)!!/z^2k, summed while its terms
	// fall (below z = -30 to 1e-17 in ten terms or fewer): the ratio φ/Φ ≈
	// -z (1 + 1/z² ...).
	z2 := z * z
	series, term := 1.0, 1.0
	for k := 1.0; k < 40; k++ {
		next := -term * (2*k - 1) / z2
		if math.Abs(next) >= math.Abs(term) || math.Abs(next) < 1e-17 {
			break
		}
		term = next
		series += term
	}
	lp = -0.5*z2 - lnSqrt2Pi - math.Log(-z) + math.Log(series)
	return lp, -z / series
}

// location-scale log CDFs: f(z) and its derivative in z, z = (y - μ)/σ,
// with the chain rule to y, μ and σ written once.
func locationScale(name string, f func(z float64) (float64, float64)) *autodiff.ScalarFunc {
	return &autodiff.ScalarFunc{Name: name, Arity: 3,
		Value: func(x []float64) float64 {
			if !(x[2] > 0) {
				return math.NaN()
			}
			v, _ := f((x[0] - x[1]) / x[2])
			return v
		},
		Grad: func(dx, x []float64, _ float64) {
			z := (x[0] - x[1]) / x[2]
			_, d := f(z)
			dx[0], dx[1], dx[2] = d/x[2], -d/x[2], -d*z/x[2]
		}}
}

// logScale is a location-scale log CDF of log y (lognormal's): f(z) with
// z = (log y - μ)/σ, 0 mass at y ≤ 0.
func logScale(name string, f func(z float64) (float64, float64), belowZero float64) *autodiff.ScalarFunc {
	return &autodiff.ScalarFunc{Name: name, Arity: 3,
		Value: func(x []float64) float64 {
			if !(x[2] > 0) {
				return math.NaN()
			}
			if x[0] <= 0 {
				return belowZero
			}
			v, _ := f((math.Log(x[0]) - x[1]) / x[2])
			return v
		},
		Grad: func(dx, x []float64, _ float64) {
			dx[0], dx[1], dx[2] = 0, 0, 0
			if x[0] <= 0 {
				return
			}
			z := (math.Log(x[0]) - x[1]) / x[2]
			_, d := f(z)
			dx[0], dx[1], dx[2] = d/(x[2]*x[0]), -d/x[2], -d*z/x[2]
		}}
}

var logCDFs = map[string]LogCDF{
	"lognormal": {Args: []string{"mu", "sigma"},
		Lower: logScale("lognormal_lcdf", logPhi, math.Inf(-1)),
		Upper: logScale("lognormal_lccdf", func(z float64) (float64, float64) { lp, m := logPhi(-z); return lp, -m }, 0)},
	"normal": {Args: []string{"mu", "sigma"},
		Lower: locationScale("normal_lcdf", logPhi),
		Upper: locationScale("normal_lccdf", func(z float64) (float64, float64) { lp, m := logPhi(-z); return lp, -m })},
	"logistic": {Args: []string{"mu", "sigma"},
		Lower: locationScale("logistic_lcdf", func(z float64) (float64, float64) { return -softplus(-z), sigmoid(-z) }),
		Upper: locationScale("logistic_lccdf", func(z float64) (float64, float64) { return -softplus(z), -sigmoid(z) })},
	"cauchy": {Args: []string{"mu", "sigma"},
		Lower: locationScale("cauchy_lcdf", func(z float64) (float64, float64) {
			p := 0.5 + math.Atan(z)/math.Pi
			return math.Log(p), 1 / (math.Pi * (1 + z*z) * p)
		}),
		Upper: locationScale("cauchy_lccdf", func(z float64) (float64, float64) {
			q := 0.5 - math.Atan(z)/math.Pi
			return math.Log(q), -1 / (math.Pi * (1 + z*z) * q)
		})},
	"double_exponential": {Args: []string{"mu", "sigma"},
		Lower: locationScale("double_exponential_lcdf", func(z float64) (float64, float64) {
			if z < 0 {
				return math.Log(0.5) + z, 1
			}
			q := 0.5 * math.Exp(-z)
			return math.Log1p(-q), q / (1 - q)
		}),
		Upper: locationScale("double_exponential_lccdf", func(z float64) (float64, float64) {
			if z >= 0 {
				return math.Log(0.5) - z, -1
			}
			p := 0.5 * math.Exp(z)
			return math.Log1p(-p), -p / (1 - p)
		})},
	"exponential": {Args: []string{"beta"},
		Lower: &autodiff.ScalarFunc{Name: "exponential_lcdf", Arity: 2,
			Value: func(x []float64) float64 {
				if !(x[1] > 0) {
					return math.NaN()
				}
				if x[0] <= 0 {
					return math.Inf(-1)
				}
				return math.Log(-math.Expm1(-x[1] * x[0]))
			},
			Grad: func(dx, x []float64, _ float64) {
				if x[0] <= 0 {
					dx[0], dx[1] = 0, 0
					return
				}
				e := math.Expm1(x[1] * x[0]) // d/d(λy) log(1 - e^{-λy}) = 1/(e^{λy} - 1)
				dx[0], dx[1] = x[1]/e, x[0]/e
			}},
		Upper: &autodiff.ScalarFunc{Name: "exponential_lccdf", Arity: 2,
			Value: func(x []float64) float64 {
				if !(x[1] > 0) {
					return math.NaN()
				}
				return -x[1] * math.Max(x[0], 0)
			},
			Grad: func(dx, x []float64, _ float64) {
				dx[0], dx[1] = 0, 0
				if x[0] > 0 {
					dx[0], dx[1] = -x[1], -x[0]
				}
			}}},
}

func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
