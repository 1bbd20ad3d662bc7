package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// The regularized incomplete gamma and beta functions in log space, both
// tails at once: the log CDFs of the gamma family (P(a, x) and Q(a, x))
// and of the beta family, Student's t and the binomials (I_x(a, b)).
// gonum's mathext.GammaIncReg and RegIncBeta return the probability
// itself, which underflows to 0 in the far tails a censored likelihood
// reaches (Q(2, 800) = e^-793); here the prefactor x^a e^-x / Γ(a) stays a
// logarithm and only the series or continued fraction, a number near 1 or
// a modest multiple of it, is exponentiated. The smaller tail is computed
// directly and the other as log(1 - p) of it, so neither loses digits to
// a subtraction from 1.

// incompleteTerms bounds the terms of a series or continued fraction:
// both converge in O(√a) terms near the transition x ≈ a, far fewer away
// from it, so this is reached only at absurd shapes (a ≈ 10¹⁰).
const incompleteTerms = 1 << 20

// lentzTiny stands in for a zero denominator in Lentz's algorithm.
const lentzTiny = 1e-300

// log1mExp is log(1 - e^v) for v ≤ 0, by expm1 near 0 and log1p far from
// it (Mächler, "Accurately computing log(1 - exp(-|a|))", 2012).
func log1mExp(v float64) float64 {
	if v > -math.Ln2 {
		return math.Log(-math.Expm1(v))
	}
	return math.Log1p(-math.Exp(v))
}

// logIncGamma returns log P(a, x) and log Q(a, x) = log(1 - P(a, x)), the
// regularized lower and upper incomplete gamma functions, for a > 0.
// Below x = a + 1 the series P = x^a e^-x / Γ(a+1) Σ xⁿ / ((a+1)…(a+n))
// (DLMF 8.7.1) gives the smaller tail, above it Legendre's continued
// fraction for Q (DLMF 8.9.2), evaluated by Lentz's method.
func logIncGamma(a, x float64) (lower, upper float64) {
	switch {
	case math.IsNaN(a) || math.IsNaN(x) || !(a > 0):
		return math.NaN(), math.NaN()
	case x <= 0:
		return math.Inf(-1), 0
	case math.IsInf(x, 1):
		return 0, math.Inf(-1)
	}
	prefix := a*math.Log(x) - x - autodiff.Lgamma64(a) // log x^a e^-x / Γ(a)
	if x < a+1 {
		sum, term := 1.0, 1.0
		for n := 1.0; n < incompleteTerms; n++ {
			term *= x / (a + n)
			sum += term
			if term < sum*1e-17 {
				break
			}
		}
		lower = prefix - math.Log(a) + math.Log(sum)
		return lower, log1mExp(lower)
	}
	// Q = prefix / (b₀ - 1(1-a)/(b₁ - 2(2-a)/(b₂ - …))), bₙ = x + 2n + 1 - a.
	b := x + 1 - a
	c, d := 1/lentzTiny, 1/b
	f := d
	for n := 1.0; n < incompleteTerms; n++ {
		an := -n * (n - a)
		b += 2
		d = lentzNonzero(an*d + b)
		c = lentzNonzero(b + an/c)
		d = 1 / d
		step := d * c
		f *= step
		if math.Abs(step-1) < 1e-16 {
			break
		}
	}
	upper = prefix + math.Log(f)
	return log1mExp(upper), upper
}

// lentzNonzero keeps a Lentz denominator off zero.
func lentzNonzero(v float64) float64 {
	if math.Abs(v) < lentzTiny {
		return lentzTiny
	}
	return v
}

// logIncBeta returns log I_x(a, b) and log(1 - I_x(a, b)), the regularized
// incomplete beta function and its complement I_y(b, a), given both x and
// y = 1 - x so that a caller keeps the digits of whichever is small (the
// binomial's 1 - θ, Student's t²/(ν + t²)). Below x = (a+1)/(a+b+2) the
// continued fraction of DLMF 8.17.22 gives I_x(a, b), the smaller tail;
// above it the same fraction gives I_y(b, a).
func logIncBeta(a, b, x, y float64) (lower, upper float64) {
	switch {
	case math.IsNaN(x) || math.IsNaN(y) || !(a > 0) || !(b > 0):
		return math.NaN(), math.NaN()
	case x <= 0:
		return math.Inf(-1), 0
	case y <= 0:
		return 0, math.Inf(-1)
	case x > (a+1)/(a+b+2):
		upper, lower = logIncBeta(b, a, y, x)
		return lower, upper
	}
	prefix := a*math.Log(x) + b*math.Log(y) - math.Log(a) - lbeta(a, b)
	// I = prefix / (1 + d₁/(1 + d₂/(1 + …))), d₂ₘ₊₁ = -(a+m)(a+b+m)x /
	// ((a+2m)(a+2m+1)), d₂ₘ = m(b-m)x / ((a+2m-1)(a+2m)).
	c, d := 1.0, 1/lentzNonzero(1-(a+b)*x/(a+1))
	f := d
	for m := 1.0; m < incompleteTerms; m++ {
		even := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / lentzNonzero(1+even*d)
		c = lentzNonzero(1 + even/c)
		f *= d * c
		odd := -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / lentzNonzero(1+odd*d)
		c = lentzNonzero(1 + odd/c)
		step := d * c
		f *= step
		if math.Abs(step-1) < 1e-16 {
			break
		}
	}
	lower = prefix + math.Log(f)
	return lower, log1mExp(lower)
}
