package stdlib

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// The generators of the scalar continuous distributions, in Stan's
// parameterisations and argument order. Where gonum's distuv has a sampler
// (gamma, inverse gamma, Student's t) it is used, with the *rand.Rand as its
// source; the others are a line of inversion or a textbook transformation,
// named at each.

func init() {
	// The location-scale families: μ + σ·(a standard variate).
	locationScaleRNG("normal", func(r *rand.Rand) float64 { return r.NormFloat64() })
	// The ratio of two independent standard normals is standard Cauchy.
	locationScaleRNG("cauchy", func(r *rand.Rand) float64 { return r.NormFloat64() / r.NormFloat64() })
	// An exponential with a random sign is standard Laplace.
	locationScaleRNG("double_exponential", func(r *rand.Rand) float64 { return randomSign(r) * r.ExpFloat64() })
	// Inversion: the logistic quantile log(u/(1-u)).
	locationScaleRNG("logistic", func(r *rand.Rand) float64 {
		u := openUnit(r)
		return math.Log(u) - math.Log1p(-u)
	})
	// The half distributions: σ·|a standard variate|.
	scaleRNG("half_normal", func(r *rand.Rand) float64 { return math.Abs(r.NormFloat64()) })
	scaleRNG("half_cauchy", func(r *rand.Rand) float64 { return math.Abs(r.NormFloat64() / r.NormFloat64()) })

	scalarRNG(RNG{Name: "lognormal", Args: []string{"mu", "sigma"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[1] > 0) {
			return math.NaN()
		}
		return math.Exp(x[0] + x[1]*r.NormFloat64())
	})
	scalarRNG(RNG{Name: "student_t", Args: []string{"nu", "mu", "sigma"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] > 0 && x[2] > 0) {
			return math.NaN()
		}
		return distuv.StudentsT{Nu: x[0], Mu: x[1], Sigma: x[2], Src: r}.Rand()
	})
	// Rate β: an Exp(1) variate over β.
	scalarRNG(RNG{Name: "exponential", Args: []string{"beta"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] > 0) {
			return math.NaN()
		}
		return r.ExpFloat64() / x[0]
	})
	// Shape α and rate β (gonum's Beta is the rate too).
	shapeRateRNG("gamma", func(r *rand.Rand, a, b float64) float64 {
		return distuv.Gamma{Alpha: a, Beta: b, Src: r}.Rand()
	})
	// Shape α and scale β: 1/X for X ~ gamma(α, rate β).
	shapeRateRNG("inv_gamma", func(r *rand.Rand, a, b float64) float64 {
		return distuv.InverseGamma{Alpha: a, Beta: b, Src: r}.Rand()
	})
	shapeRateRNG("beta", func(r *rand.Rand, a, b float64) float64 {
		return betaDraw(r, a, b)
	})
	// α(1-u) + βu rather than α + (β-α)u, which overflows for α = -β = 1e308.
	scalarRNG(RNG{Name: "uniform", Args: []string{"alpha", "beta"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] < x[1]) {
			return math.NaN()
		}
		u := r.Float64()
		return x[0]*(1-u) + x[1]*u
	})
	// Shape α and scale σ, by inversion: σ·E^(1/α) with E ~ Exp(1).
	scalarRNG(RNG{Name: "weibull", Args: []string{"alpha", "sigma"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] > 0 && x[1] > 0) {
			return math.NaN()
		}
		return x[1] * math.Pow(r.ExpFloat64(), 1/x[0])
	})
	scalarRNG(RNG{Name: "skew_normal", Args: []string{"xi", "omega", "alpha"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[1] > 0) {
			return math.NaN()
		}
		return x[0] + x[1]*skewNormalDraw(r, x[2])
	})
	scalarRNG(RNG{Name: "von_mises", Args: []string{"mu", "kappa"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[1] >= 0) {
			return math.NaN()
		}
		return math.Mod(x[0], 2*math.Pi) + vonMisesDraw(r, x[1])
	})
}

// locationScaleRNG registers name(mu, sigma) as μ + σ·std(r), for σ > 0.
func locationScaleRNG(name string, std func(r *rand.Rand) float64) {
	scalarRNG(RNG{Name: name, Args: []string{"mu", "sigma"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[1] > 0) {
			return math.NaN()
		}
		return x[0] + x[1]*std(r)
	})
}

// scaleRNG registers name(sigma) as σ·std(r), for σ > 0.
func scaleRNG(name string, std func(r *rand.Rand) float64) {
	scalarRNG(RNG{Name: name, Args: []string{"sigma"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] > 0) {
			return math.NaN()
		}
		return x[0] * std(r)
	})
}

// shapeRateRNG registers name(alpha, beta) for two positive parameters.
func shapeRateRNG(name string, draw func(r *rand.Rand, a, b float64) float64) {
	scalarRNG(RNG{Name: name, Args: []string{"alpha", "beta"}}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] > 0 && x[1] > 0) {
			return math.NaN()
		}
		return draw(r, x[0], x[1])
	})
}

// openUnit is uniform on the open interval (0, 1).
func openUnit(r *rand.Rand) float64 {
	for {
		if u := r.Float64(); u > 0 {
			return u
		}
	}
}

func randomSign(r *rand.Rand) float64 {
	if r.Uint64()&1 == 0 {
		return -1
	}
	return 1
}

// logGammaDraw is log X for X ~ gamma(α, 1), finite for any α > 0. Below
// α = 1 it is log Y + log(U)/α with Y ~ gamma(α+1, 1), U uniform on (0, 1]
// (Marsaglia & Tsang 2000, section 6), kept in logs: for tiny α, X itself
// underflows to 0.
func logGammaDraw(r *rand.Rand, alpha float64) float64 {
	if alpha >= 1 {
		return math.Log(distuv.Gamma{Alpha: alpha, Beta: 1, Src: r}.Rand())
	}
	y := distuv.Gamma{Alpha: alpha + 1, Beta: 1, Src: r}.Rand()
	return math.Log(y) + math.Log(1-r.Float64())/alpha
}

// betaLogDraw returns log X and log(1-X) for X ~ beta(a, b), as
// X = G_a/(G_a+G_b) with independent gammas drawn in logs, so that neither
// small shapes (both gammas underflow: 0/0) nor X near 1 lose the draw.
func betaLogDraw(r *rand.Rand, a, b float64) (logX, log1mX float64) {
	la, lb := logGammaDraw(r, a), logGammaDraw(r, b)
	s := logAddExp(la, lb)
	return la - s, lb - s
}

// betaDraw is X ~ beta(a, b).
func betaDraw(r *rand.Rand, a, b float64) float64 {
	logX, _ := betaLogDraw(r, a, b)
	return math.Exp(logX)
}

// skewNormalDraw is the standard skew normal of shape α by Azzalini's
// representation: with δ = α/√(1+α²) and independent standard normals u, v,
// δ|u| + √(1-δ²)·v.
func skewNormalDraw(r *rand.Rand, alpha float64) float64 {
	delta := alpha / math.Hypot(1, alpha)
	return delta*math.Abs(r.NormFloat64()) + math.Sqrt(1-delta*delta)*r.NormFloat64()
}

// vonMisesDraw is a von Mises variate about 0 with concentration κ ≥ 0, in
// [-π, π]: Best & Fisher's (1979) rejection from a wrapped Cauchy envelope
// (bestFisherTrial). As in Stan, below κ = 1.4e-8 the variate is uniform
// (the density differs from uniform by a factor e^(±κ)).
func vonMisesDraw(r *rand.Rand, kappa float64) float64 {
	if kappa < 1.4e-8 {
		return math.Pi * (2*r.Float64() - 1)
	}
	d := bestFisherD(kappa)
	for {
		oneMinusF, c := bestFisherTrial(kappa, d, r.Float64())
		u := r.Float64()
		if c*(2-c) > u || math.Log(c/u)+1-c >= 0 {
			return randomSign(r) * 2 * math.Asin(math.Sqrt(oneMinusF/2))
		}
	}
}

// bestFisherD is d = r - 1 of Best & Fisher's r = (1+ρ²)/(2ρ), ρ = (τ -
// √(2τ))/(2κ), τ = 1 + √(1+4κ²): d = (1-ρ)²/(2ρ), with ρ = 2κ/(τ + √(2τ))
// and 1 - ρ = (1 + 1/(√(1+4κ²)+2κ) + √(2τ))/(τ + √(2τ)), free of the
// cancellations of the textbook form at large and at small κ.
func bestFisherD(kappa float64) float64 {
	q := math.Sqrt(1 + 4*kappa*kappa)
	tau := 1 + q
	den := tau + math.Sqrt(2*tau)
	rho := 2 * kappa / den
	oneMinusRho := (1 + 1/(q+2*kappa) + math.Sqrt(2*tau)) / den
	return oneMinusRho * oneMinusRho / (2 * rho)
}

// bestFisherTrial is one proposal of Best & Fisher's algorithm from the
// uniform u: their f = (1+rz)/(r+z) with z = cos(πu), returned as 1 - f,
// and c = κ(r - f). With s = sin²(πu/2), 1 - z = 2s and 1 + z = 2(1-s), so
// 1 - f = 2ds/(d + 2(1-s)) and c = κd(d+2)/(d + 2(1-s)), which keep their
// digits where r and f both tend to 1 (large κ, θ near 0).
func bestFisherTrial(kappa, d, u float64) (oneMinusF, c float64) {
	sn, cs := math.Sincos(math.Pi * u / 2)
	s, cc := sn*sn, cs*cs
	return 2 * d * s / (d + 2*cc), kappa * d * (d + 2) / (d + 2*cc)
}
