package stdlib

import (
	"math"
	"math/rand/v2"
)

// The generators of densities_stan.go's distributions, each by inversion
// or a textbook transformation named at it; E is an Exp(1) variate.
func init() {
	// Inversion: μ - β log E (E = -log U, the Gumbel quantile μ - β log(-log U)).
	positiveArgsRNG("gumbel", []string{"mu", "beta"}, []int{1}, func(r *rand.Rand, x []float64) float64 {
		return x[0] - x[1]*math.Log(r.ExpFloat64())
	})
	// Inversion: y_min·U^(-1/α) = y_min·e^(E/α).
	positiveArgsRNG("pareto", []string{"y_min", "alpha"}, []int{0, 1}, func(r *rand.Rand, x []float64) float64 {
		return x[0] * math.Exp(r.ExpFloat64()/x[1])
	})
	// 2G with G ~ gamma(ν/2, 1), drawn in logs (logGammaDraw) so that a
	// small ν neither underflows nor loses the draw.
	positiveArgsRNG("chi_square", []string{"nu"}, []int{0}, func(r *rand.Rand, x []float64) float64 {
		return math.Exp(math.Ln2 + logGammaDraw(r, x[0]/2))
	})
	// 1/(2G), G as for chi_square.
	positiveArgsRNG("inv_chi_square", []string{"nu"}, []int{0}, func(r *rand.Rand, x []float64) float64 {
		return math.Exp(-math.Ln2 - logGammaDraw(r, x[0]/2))
	})
	// νs²/(2G), G as for chi_square.
	positiveArgsRNG("scaled_inv_chi_square", []string{"nu", "s"}, []int{0, 1}, func(r *rand.Rand, x []float64) float64 {
		return math.Exp(math.Log(x[0]/2) + 2*math.Log(x[1]) - logGammaDraw(r, x[0]/2))
	})
	// Inversion: σ√(2E).
	positiveArgsRNG("rayleigh", []string{"sigma"}, []int{0}, func(r *rand.Rand, x []float64) float64 {
		return x[0] * math.Sqrt(2*r.ExpFloat64())
	})
	// Inversion: σ·E^(-1/α).
	positiveArgsRNG("frechet", []string{"alpha", "sigma"}, []int{0, 1}, func(r *rand.Rand, x []float64) float64 {
		return x[1] * math.Pow(r.ExpFloat64(), -1/x[0])
	})
	// Inversion: α·(U/(1-U))^(1/β), the odds taken as e^(log U - log(1-U)).
	positiveArgsRNG("loglogistic", []string{"alpha", "beta"}, []int{0, 1}, func(r *rand.Rand, x []float64) float64 {
		u := openUnit(r)
		return x[0] * math.Exp((math.Log(u)-math.Log1p(-u))/x[1])
	})
	// Its definition: μ + σZ + E/λ.
	positiveArgsRNG("exp_mod_normal", []string{"mu", "sigma", "lambda"}, []int{1, 2}, func(r *rand.Rand, x []float64) float64 {
		return x[0] + x[1]*r.NormFloat64() + r.ExpFloat64()/x[2]
	})
	// Inversion: μ + λ(U^(-1/α) - 1) = μ + λ·expm1(E/α).
	positiveArgsRNG("pareto_type_2", []string{"mu", "lambda", "alpha"}, []int{1, 2}, func(r *rand.Rand, x []float64) float64 {
		return x[0] + x[1]*math.Expm1(r.ExpFloat64()/x[2])
	})
}

// positiveArgsRNG registers name(args), whose arguments at the indices pos
// must be positive: a draw is NaN (refused) unless each is.
func positiveArgsRNG(name string, args []string, pos []int, draw func(r *rand.Rand, x []float64) float64) {
	scalarRNG(RNG{Name: name, Args: args}, func(r *rand.Rand, x []float64) float64 {
		for _, i := range pos {
			if !(x[i] > 0) {
				return math.NaN()
			}
		}
		return draw(r, x)
	})
}
