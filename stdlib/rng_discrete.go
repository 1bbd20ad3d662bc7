package stdlib

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper/autodiff"
)

// The generators of the counts and labels, in Stan's parameterisations and
// argument order. Like Stan's, they refuse a Poisson rate of 2^30 or more
// (the variate would not fit Stan's 32-bit int), and a number of trials
// beyond the largest int.

const (
	maxPoissonRate = 1 << 30       // Stan's POISSON_MAX_RATE
	maxTrials      = math.MaxInt32 // Stan's int
)

func init() {
	scalarRNG(RNG{Name: "bernoulli", Args: []string{"theta"}, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] >= 0 && x[0] <= 1) {
			return math.NaN()
		}
		return b2f(r.Float64() < x[0])
	})
	scalarRNG(RNG{Name: "bernoulli_logit", Args: []string{"alpha"}, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		return b2f(r.Float64() < autodiff.Sigmoid64(x[0]))
	})
	trials := []bool{true, false}
	scalarRNG(RNG{Name: "binomial", Args: []string{"n", "theta"}, Int: trials, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		if !(x[1] >= 0 && x[1] <= 1) {
			return math.NaN()
		}
		return binomialDraw(r, x[0], x[1], 1-x[1])
	})
	// θ = σ(α) and 1-θ = σ(-α), each exact where it is small.
	scalarRNG(RNG{Name: "binomial_logit", Args: []string{"n", "alpha"}, Int: trials, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		return binomialDraw(r, x[0], autodiff.Sigmoid64(x[1]), autodiff.Sigmoid64(-x[1]))
	})
	scalarRNG(RNG{Name: "beta_binomial", Args: []string{"n", "alpha", "beta"}, Int: []bool{true, false, false}, IntOut: true},
		func(r *rand.Rand, x []float64) float64 {
			if !(x[1] > 0 && x[2] > 0) {
				return math.NaN()
			}
			logP, logQ := betaLogDraw(r, x[1], x[2])
			return binomialDraw(r, x[0], math.Exp(logP), math.Exp(logQ))
		})
	scalarRNG(RNG{Name: "poisson", Args: []string{"lambda"}, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		return poissonDraw(r, x[0])
	})
	scalarRNG(RNG{Name: "poisson_log", Args: []string{"alpha"}, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		return poissonDraw(r, math.Exp(x[0]))
	})
	// The gamma-Poisson mixture: λ ~ gamma(φ, rate φ/μ), k ~ poisson(λ).
	scalarRNG(RNG{Name: "neg_binomial_2", Args: []string{"mu", "phi"}, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		if !(x[0] > 0) {
			return math.NaN()
		}
		return negBinomial2Draw(r, math.Log(x[0]), x[1])
	})
	scalarRNG(RNG{Name: "neg_binomial_2_log", Args: []string{"eta", "phi"}, IntOut: true}, func(r *rand.Rand, x []float64) float64 {
		return negBinomial2Draw(r, x[0], x[1])
	})
}

// binomialDraw is a binomial variate of n trials with success probability
// p = 1 - q, where both p and q are given so that the smaller keeps its
// digits (σ(α) rounds to 1 where σ(-α) does not); NaN unless n is a count
// up to maxTrials. It draws the rarer outcome through gonum's sampler.
func binomialDraw(r *rand.Rand, n, p, q float64) float64 {
	switch {
	case !(n >= 0 && n <= maxTrials):
		return math.NaN()
	case p == 0 || n == 0:
		return 0
	case q == 0:
		return n
	case p > q:
		return n - distuv.Binomial{N: n, P: q, Src: r}.Rand()
	}
	return distuv.Binomial{N: n, P: p, Src: r}.Rand()
}

// poissonDraw is a Poisson variate of rate λ (gonum's sampler: counting
// exponential arrivals below 10, Hörmann's transformed rejection above);
// NaN unless 0 ≤ λ < 2^30.
func poissonDraw(r *rand.Rand, lambda float64) float64 {
	if !(lambda >= 0 && lambda < maxPoissonRate) {
		return math.NaN()
	}
	return distuv.Poisson{Lambda: lambda, Src: r}.Rand()
}

// negBinomial2Draw is neg_binomial_2(e^η, φ) as a Poisson of rate
// e^η·G/φ, G ~ gamma(φ, 1), taken through logs so that e^η may overflow
// while the rate does not. As in Stan, a rate drawn at 2^30 or above fails.
func negBinomial2Draw(r *rand.Rand, eta, phi float64) float64 {
	if !(phi > 0) {
		return math.NaN()
	}
	return poissonDraw(r, math.Exp(eta+logGammaDraw(r, phi)-math.Log(phi)))
}

func init() {
	registerRNG(RNG{Name: "categorical", Args: []string{"theta"}, Rank: []int{1}, IntOut: true,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			theta := a[0]
			if len(theta) == 0 || !isSimplex(theta) {
				return false
			}
			out[0] = float64(inverseCDFDraw(r, theta))
			return true
		}})
	// The Gumbel-max trick: argmax β_k + G_k with G_k = -log E_k standard
	// Gumbel is a draw of softmax(β), with no normalisation to overflow.
	registerRNG(RNG{Name: "categorical_logit", Args: []string{"beta"}, Rank: []int{1}, IntOut: true,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			beta := a[0]
			if len(beta) == 0 || !allFiniteRow(beta) {
				return false
			}
			best, arg := math.Inf(-1), 0
			for k, b := range beta {
				if v := b - math.Log(r.ExpFloat64()); v > best {
					best, arg = v, k
				}
			}
			out[0] = float64(arg + 1)
			return true
		}})
	// The latent logistic: z = η + L with L standard logistic falls between
	// the cutpoints c_{k-1} < z ≤ c_k of label k, so P(y ≤ k) = σ(c_k - η),
	// Stan's ordered_logistic; the labels run 1..len(c)+1.
	registerRNG(RNG{Name: "ordered_logistic", Args: []string{"eta", "c"}, Rank: []int{0, 1}, IntOut: true,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			eta, c := a[0][0], a[1]
			if !isFinite(eta) || !isOrdered(c) {
				return false
			}
			u := openUnit(r)
			z := eta + math.Log(u) - math.Log1p(-u)
			k := 1
			for _, ck := range c {
				if z > ck {
					k++
				}
			}
			out[0] = float64(k)
			return true
		}})
}

// inverseCDFDraw returns a label 1..K drawn with probabilities p (summing to
// one up to rounding), never one of probability 0: the first k whose running
// sum exceeds u·Σp for u uniform on [0, 1).
func inverseCDFDraw(r *rand.Rand, p []float64) int {
	total := 0.0
	for _, v := range p {
		total += v
	}
	u, acc, last := r.Float64()*total, 0.0, 0
	for k, v := range p {
		acc += v
		if v > 0 {
			last = k + 1
		}
		if u < acc {
			return k + 1
		}
	}
	return last // only where u·Σp rounded up to Σp
}

// isOrdered reports whether c is finite and strictly increasing (Stan's
// ordered vector).
func isOrdered(c []float64) bool {
	for k, v := range c {
		if !isFinite(v) || k > 0 && !(v > c[k-1]) {
			return false
		}
	}
	return true
}
