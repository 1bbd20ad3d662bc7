package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// The univariate densities Stan users bring that the first tables lacked,
// in the Stan Functions Reference's parameterisations (its chapters
// "Unbounded continuous distributions", "Positive continuous
// distributions" and "Positive lower-bounded distributions"), normalised,
// each with hand-written partials (checked against finite differences in
// densities_test.go). They have no device kernel yet: hostOnlyDensities.
var (
	// Gumbel of location μ and scale β: -log β - z - e^-z, z = (y-μ)/β.
	gumbelDensity = &density{name: "gumbel", args: []string{"y", "mu", "beta"},
		support: []Support{2: positiveScale},
		ok:      func(x []float64) bool { return x[2] > 0 },
		lp: func(x []float64) float64 {
			z := (x[0] - x[1]) / x[2]
			return -math.Log(x[2]) - z - math.Exp(-z)
		},
		grad: func(dx, x []float64) {
			b := x[2]
			z := (x[0] - x[1]) / b
			dz := math.Exp(-z) - 1
			dx[0], dx[1], dx[2] = dz/b, -dz/b, -(1+z*dz)/b
		}}

	// Pareto of scale y_min and shape α: log α + α log y_min - (α+1) log y
	// on y ≥ y_min.
	paretoDensity = &density{name: "pareto", args: []string{"y", "y_min", "alpha"},
		support: []Support{1: positiveScale, 2: positiveShape},
		ok:      func(x []float64) bool { return x[1] > 0 && x[2] > 0 && x[0] >= x[1] },
		lp: func(x []float64) float64 {
			y, m, a := x[0], x[1], x[2]
			return math.Log(a) + a*math.Log(m) - (a+1)*math.Log(y)
		},
		grad: func(dx, x []float64) {
			y, m, a := x[0], x[1], x[2]
			dx[0], dx[1], dx[2] = -(a+1)/y, a/m, 1/a+math.Log(m/y)
		}}

	// χ² with ν degrees of freedom, gamma(ν/2, rate ½): -(ν/2) log 2 -
	// log Γ(ν/2) + (ν/2 - 1) log y - y/2 on y > 0.
	chiSquareDensity = &density{name: "chi_square", args: []string{"y", "nu"},
		support: []Support{1: positiveDF},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 },
		lp: func(x []float64) float64 {
			y, h := x[0], x[1]/2
			return -h*math.Ln2 - autodiff.Lgamma64(h) + (h-1)*math.Log(y) - y/2
		},
		grad: func(dx, x []float64) {
			y, h := x[0], x[1]/2
			dx[0] = (h-1)/y - 0.5
			dx[1] = (math.Log(y/2) - autodiff.Digamma64(h)) / 2
		}}

	// Inverse χ², inv_gamma(ν/2, scale ½): -(ν/2) log 2 - log Γ(ν/2) -
	// (ν/2 + 1) log y - 1/(2y) on y > 0.
	invChiSquareDensity = &density{name: "inv_chi_square", args: []string{"y", "nu"},
		support: []Support{1: positiveDF},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 },
		lp: func(x []float64) float64 {
			y, h := x[0], x[1]/2
			return -h*math.Ln2 - autodiff.Lgamma64(h) - (h+1)*math.Log(y) - 0.5/y
		},
		grad: func(dx, x []float64) {
			y, h := x[0], x[1]/2
			dx[0] = (0.5/y - (h + 1)) / y
			dx[1] = -(math.Log(2*y) + autodiff.Digamma64(h)) / 2
		}}

	// Scaled inverse χ², inv_gamma(ν/2, scale νs²/2): (ν/2) log(ν/2) -
	// log Γ(ν/2) + ν log s - (ν/2 + 1) log y - νs²/(2y) on y > 0.
	scaledInvChiSquareDensity = &density{name: "scaled_inv_chi_square", args: []string{"y", "nu", "s"},
		support: []Support{1: positiveDF, 2: positiveScale},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			y, nu, s := x[0], x[1], x[2]
			h := nu / 2
			return h*math.Log(h) - autodiff.Lgamma64(h) + nu*math.Log(s) - (h+1)*math.Log(y) - h*s*s/y
		},
		grad: func(dx, x []float64) {
			y, nu, s := x[0], x[1], x[2]
			h := nu / 2
			dx[0] = (h*s*s/y - (h + 1)) / y
			dx[1] = (math.Log(h)+1-autodiff.Digamma64(h)-math.Log(y)-s*s/y)/2 + math.Log(s)
			dx[2] = nu/s - nu*s/y
		}}

	// Rayleigh of scale σ: log y - 2 log σ - y²/(2σ²) on y > 0 (its density
	// is 0 at y = 0).
	rayleighDensity = &density{name: "rayleigh", args: []string{"y", "sigma"},
		support: []Support{1: positiveScale},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 },
		lp: func(x []float64) float64 {
			z := x[0] / x[1]
			return math.Log(z) - math.Log(x[1]) - z*z/2
		},
		grad: func(dx, x []float64) {
			y, s := x[0], x[1]
			z := y / s
			dx[0], dx[1] = 1/y-z/s, (z*z-2)/s
		}}

	// Fréchet of shape α and scale σ: log α - log σ - (α+1) log(y/σ) -
	// (y/σ)^-α on y > 0.
	frechetDensity = &density{name: "frechet", args: []string{"y", "alpha", "sigma"},
		support: []Support{1: positiveShape, 2: positiveScale},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			y, a, s := x[0], x[1], x[2]
			lz := math.Log(y / s)
			return math.Log(a) - math.Log(s) - (a+1)*lz - math.Exp(-a*lz)
		},
		grad: func(dx, x []float64) {
			y, a, s := x[0], x[1], x[2]
			lz := math.Log(y / s)
			w := math.Exp(-a * lz)
			dx[0] = (a*w - a - 1) / y
			dx[1] = 1/a - lz + w*lz
			dx[2] = a * (1 - w) / s
		}}

	// Log-logistic of scale α and shape β (Stan's order): log β - log α +
	// (β-1) log(y/α) - 2 log(1 + (y/α)^β) on y > 0, the last term a
	// softplus of β log(y/α) so that neither tail overflows.
	loglogisticDensity = &density{name: "loglogistic", args: []string{"y", "alpha", "beta"},
		support: []Support{1: positiveScale, 2: positiveShape},
		ok:      func(x []float64) bool { return x[0] > 0 && x[1] > 0 && x[2] > 0 },
		lp: func(x []float64) float64 {
			y, a, b := x[0], x[1], x[2]
			lz := math.Log(y / a)
			return math.Log(b) - math.Log(a) + (b-1)*lz - 2*autodiff.Softplus64(b*lz)
		},
		grad: func(dx, x []float64) {
			y, a, b := x[0], x[1], x[2]
			lz := math.Log(y / a)
			p := autodiff.Sigmoid64(b * lz) // (y/α)^β / (1 + (y/α)^β)
			dx[0] = (b - 1 - 2*b*p) / y
			dx[1] = b * (2*p - 1) / a
			dx[2] = 1/b + lz*(1-2*p)
		}}

	// Exponentially modified normal, Y = N(μ, σ) + Exp(rate λ): log λ +
	// λ(μ - y) + λ²σ²/2 + log Φ((y-μ)/σ - λσ). log Φ keeps its digits in
	// the far lower tail (logNormalCDF), where Stan's erfc form underflows.
	expModNormalDensity = &density{name: "exp_mod_normal", args: []string{"y", "mu", "sigma", "lambda"},
		support: []Support{2: positiveScale, 3: positiveRate},
		ok:      func(x []float64) bool { return x[2] > 0 && x[3] > 0 },
		lp: func(x []float64) float64 {
			d, s, l := x[0]-x[1], x[2], x[3]
			ls := l * s
			return math.Log(l) - l*d + ls*ls/2 + logNormalCDF(d/s-ls)
		},
		grad: func(dx, x []float64) {
			d, s, l := x[0]-x[1], x[2], x[3]
			r := millsRatio(d/s - l*s) // ∂ log Φ(v)/∂v
			dx[0] = r/s - l
			dx[1] = -dx[0]
			dx[2] = l*l*s - r*(d/(s*s)+l)
			dx[3] = 1/l - d + l*s*s - r*s
		}}

	// Pareto type II (Lomax shifted to μ) of location μ, scale λ and shape
	// α: log α - log λ - (α+1) log(1 + (y-μ)/λ) on y ≥ μ.
	paretoType2Density = &density{name: "pareto_type_2", args: []string{"y", "mu", "lambda", "alpha"},
		support: []Support{2: positiveScale, 3: positiveShape},
		ok:      func(x []float64) bool { return x[2] > 0 && x[3] > 0 && x[0] >= x[1] },
		lp: func(x []float64) float64 {
			d, l, a := x[0]-x[1], x[2], x[3]
			return math.Log(a) - math.Log(l) - (a+1)*math.Log1p(d/l)
		},
		grad: func(dx, x []float64) {
			d, l, a := x[0]-x[1], x[2], x[3]
			dy := -(a + 1) / (l + d)
			dx[0], dx[1] = dy, -dy
			dx[2] = -1/l - dy*d/l
			dx[3] = 1/a - math.Log1p(d/l)
		}}
)

// hostOnlyDensities are the densities without a device kernel (scalar.cuh
// has no id for them; kernels.ptx is regenerated only where nvcc is): a
// model that uses one runs on the CPU, and the CUDA backend names the op it
// cannot run.
var hostOnlyDensities = []*density{
	gumbelDensity, paretoDensity, chiSquareDensity, invChiSquareDensity, scaledInvChiSquareDensity,
	rayleighDensity, frechetDensity, loglogisticDensity, expModNormalDensity, paretoType2Density,
}
