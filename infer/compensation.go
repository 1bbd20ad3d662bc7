package infer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Compensation is the compensation distribution q̂_C of the noise-aware
// logistic (Barker) exchange test of seed 001 (Luo et al. 2020, RENHD,
// Section 2.2 and Algorithm 1).
//
// Barker's test accepts a swap with probability g(ΔE) = 1/(1 + e^{-ΔE}),
// that is when z_L + ΔE > 0 with z_L standard logistic (Eq. 11). With
// minibatches only ΔẼ = ΔE + N(0, σ²) is known (Eq. 8), so z_L is split as
// z_C + z_N where z_N ~ N(0, σ*²) and q_C solves q_L = q_C * N(0, σ*²)
// (Eq. 12). Deconvolving with the low-pass kernel ψ_λ(ω) = e^{-ω⁴/λ²}
// (Eq. 14) and expanding ψ_λ/φ_N in Hermite polynomials (Eq. 15) gives the
// series of Eq. 9 and 16,
//
//	q̂_C(z) = Σ_{n<terms} w_n g^(2n+1)(z),   w_n = (-1)^n H_n(λσ*²/4) / (λ^n n!),
//
// with H_n the physicists' Hermite polynomials and g^(k) the k-th
// derivative of the logistic function g. Since g' = g(1 - g), every
// g^(k) is a polynomial in g (Appendix B of seed 001), so q̂_C is a
// polynomial in g of degree 2·terms with no constant term: Eq. 18 for
// σ*² = 0.2, λ = 10 and 3 terms.
//
// The truncated series integrates to exactly 1: ∫ g' dz = 1 and, for
// n ≥ 1, ∫ g^(2n+1) dz = [g^(2n)]_{-∞}^{∞} = 0; with 2 terms or more its
// variance is exactly π²/3 - σ*², as Eq. 12 requires (the n = 1 term
// removes σ*², later terms have no second moment). It need not be
// non-negative, though. Compensation samples its positive part, clipped at
// 0 and renormalised; ClippedMass reports the negative mass removed (0 for
// the paper's setting, where q̂_C > 0 everywhere).
//
// A Compensation is built once before sampling and is read-only afterwards,
// so one value may serve every replica pair and goroutine (each with its
// own rng).
type Compensation struct {
	sigmaStar2, lambda float64
	terms              int

	// coefficients[k] multiplies g^k in q̂_C (Eq. 18).
	coefficients []float64
	// In u = g(z) ∈ (0, 1) the density is q̂_C dz = r(u) du with
	// r(u) = q̂_C/(u(1 - u)) = Σ w_n (P_{2n})'(u), where P_k(g) = g^(k);
	// its antiderivative is cdf(u) = Σ w_n P_{2n}(u), with cdf(0) = 0 and
	// cdf(1/2) = 1/2 (g^(2n) is odd in z for n ≥ 1, so zero at z = 0).
	density, cdf []float64
	// The inverse-CDF table of the positive part r⁺ = max(r, 0) on the
	// half line u ∈ [0, 1/2] (z ≤ 0; q̂_C is even in z): knots[i] are
	// increasing, from 0 to 1/2, and include every sign change of r;
	// mass[i] = ∫_0^{knots[i]} r⁺(u) du; positive[i] says whether r ≥ 0
	// on (knots[i], knots[i+1]).
	knots, mass []float64
	positive    []bool
	clipped     float64
}

// ErrCompensationVariance is wrapped by the error Accept returns when the
// variance of ΔẼ is not below the threshold σ*²: the caller should enlarge
// the minibatch and retry (Algorithm 1 of seed 001, lines 2-4).
var ErrCompensationVariance = errors.New("variance of the energy difference is not below the compensation threshold")

// CompensationMaxTerms bounds the number of series terms. The coefficients
// of g^(k) as a polynomial in g (Worpitzky numbers) grow faster than k!,
// while |g^(k)| itself is of order k!/π^{k+1}, so evaluating g^(k) in
// float64 cancels about 0.45·k digits: 10.6 of the 16 digits for g^(23),
// the last derivative of 12 terms. Seed 001 uses 3 terms (g^(5): 2.4
// digits lost).
const CompensationMaxTerms = 12

// compTableCells is the number of uniform cells of the inverse-CDF table on
// u ∈ [0, 1/2]. It only sets the Newton starting bracket (Sample is exact
// for any value): with 512 cells a bracket holds at most about 0.2 % of the
// mass and Newton converges in two or three steps.
const compTableCells = 512

// NewCompensation returns the compensation distribution q̂_C of Eq. 9 for
// the variance threshold σ*² = sigmaStar2, the bandwidth λ = lambda of the
// kernel ψ_λ (Eq. 14) and the first terms terms of the series (n = 0, ...,
// terms-1). Seed 001 uses σ*² = 0.2, λ = 10 and 3 terms (Eq. 18).
//
// It returns an error unless 0 < σ*² < π²/3, λ > 0 and 1 ≤ terms ≤
// CompensationMaxTerms. The bound π²/3 is the variance of the standard
// logistic law: a larger Gaussian part cannot be deconvolved from it
// (Var z_L = Var z_C + σ*² by Eq. 12).
func NewCompensation(sigmaStar2, lambda float64, terms int) (*Compensation, error) {
	switch {
	case !(sigmaStar2 > 0) || math.IsInf(sigmaStar2, 0):
		return nil, fmt.Errorf("compensation: variance threshold σ*² must be positive and finite, got %g", sigmaStar2)
	case sigmaStar2 >= math.Pi*math.Pi/3:
		return nil, fmt.Errorf("compensation: variance threshold σ*² = %g must be below π²/3 ≈ %.4f, the variance of the standard logistic law it is deconvolved from", sigmaStar2, math.Pi*math.Pi/3)
	case !(lambda > 0) || math.IsInf(lambda, 0):
		return nil, fmt.Errorf("compensation: bandwidth λ must be positive and finite, got %g", lambda)
	case terms < 1:
		return nil, fmt.Errorf("compensation: the series needs at least 1 term, got %d", terms)
	case terms > CompensationMaxTerms:
		return nil, fmt.Errorf("compensation: %d terms is more than %d, beyond which float64 loses the series to cancellation", terms, CompensationMaxTerms)
	}
	c := &Compensation{sigmaStar2: sigmaStar2, lambda: lambda, terms: terms}

	// P_k(g) = g^(k) as coefficients in powers of g: P_0 = g and, by the
	// chain rule with g' = g - g², P_{k+1} = P_k'(g)·(g - g²).
	derivatives := make([][]float64, 2*terms)
	derivatives[0] = []float64{0, 1}
	for k := 1; k < 2*terms; k++ {
		derivatives[k] = compTimesLogistic(compDerivative(derivatives[k-1]))
	}
	c.coefficients = make([]float64, 2*terms+1)
	c.density = make([]float64, 2*terms)
	c.cdf = make([]float64, 2*terms)
	for n, w := range compWeights(sigmaStar2, lambda, terms) {
		odd := compTimesLogistic(compDerivative(derivatives[2*n])) // P_{2n+1}
		for k, a := range odd {
			c.coefficients[k] += w * a
		}
		for k, a := range compDerivative(derivatives[2*n]) {
			c.density[k] += w * a
		}
		for k, a := range derivatives[2*n] {
			c.cdf[k] += w * a
		}
	}
	c.buildTable()
	return c, nil
}

// compWeights returns w_n = (-1)^n H_n(λσ*²/4)/(λ^n n!) for n < terms, the
// weights of g^(2n+1) in Eq. 9 and 16, with the physicists' Hermite
// polynomials from H_0 = 1, H_1(x) = 2x, H_{n+1} = 2x H_n - 2n H_{n-1}.
func compWeights(sigmaStar2, lambda float64, terms int) []float64 {
	x := lambda * sigmaStar2 / 4
	w := make([]float64, terms)
	hPrev, h := 0.0, 1.0 // H_{-1} is never used: 2·0·H_{-1} = 0
	scale := 1.0         // (-1)^n / (λ^n n!)
	for n := range terms {
		w[n] = scale * h
		hPrev, h = h, 2*x*h-2*float64(n)*hPrev
		scale *= -1 / (lambda * float64(n+1))
	}
	return w
}

// compDerivative returns the coefficients of p' for p in powers of g.
func compDerivative(p []float64) []float64 {
	if len(p) <= 1 {
		return []float64{0}
	}
	d := make([]float64, len(p)-1)
	for k := 1; k < len(p); k++ {
		d[k-1] = float64(k) * p[k]
	}
	return d
}

// compTimesLogistic returns p(g)·(g - g²).
func compTimesLogistic(p []float64) []float64 {
	q := make([]float64, len(p)+2)
	for k, a := range p {
		q[k+1] += a
		q[k+2] -= a
	}
	return q
}

// compPolynomial evaluates p at x by Horner's rule.
func compPolynomial(p []float64, x float64) float64 {
	y := 0.0
	for k := len(p) - 1; k >= 0; k-- {
		y = y*x + p[k]
	}
	return y
}

// compSignChanges returns the points of (lo, hi) where p changes sign, in
// increasing order. Between consecutive sign changes of p' (found
// recursively) p is monotone, so it has at most one root there, which
// bisection finds to full precision; roots of even multiplicity, where p
// touches 0 without changing sign, are not reported (they bound no region
// of negative mass).
func compSignChanges(p []float64, lo, hi float64) []float64 {
	if len(p) <= 1 {
		return nil
	}
	ends := append(append([]float64{lo}, compSignChanges(compDerivative(p), lo, hi)...), hi)
	var roots []float64
	for i := 0; i+1 < len(ends); i++ {
		a, b := ends[i], ends[i+1]
		pa, pb := compPolynomial(p, a), compPolynomial(p, b)
		if pa == 0 || pb == 0 || (pa < 0) == (pb < 0) {
			continue // p = 0 at a critical point is an extremum: no sign change
		}
		for {
			m := a + (b-a)/2
			if m <= a || m >= b {
				break
			}
			if pm := compPolynomial(p, m); (pm < 0) == (pa < 0) {
				a = m
			} else {
				b = m
			}
		}
		roots = append(roots, a+(b-a)/2)
	}
	return roots
}

// buildTable lays the inverse-CDF table of r⁺ on u ∈ [0, 1/2]: uniform knots
// merged with the sign changes of r, so that r has one sign on every cell and
// the mass of a positive cell is cdf(b) - cdf(a), exact up to rounding.
func (c *Compensation) buildTable() {
	knots := make([]float64, 0, compTableCells+1)
	for i := range compTableCells + 1 {
		knots = append(knots, 0.5*float64(i)/compTableCells)
	}
	knots = append(knots, compSignChanges(c.density, 0, 0.5)...)
	slices.Sort(knots)
	c.knots = slices.Compact(knots)
	c.mass = make([]float64, len(c.knots))
	c.positive = make([]bool, len(c.knots)-1)
	negative := 0.0
	for i := 0; i+1 < len(c.knots); i++ {
		a, b := c.knots[i], c.knots[i+1]
		m := compPolynomial(c.cdf, b) - compPolynomial(c.cdf, a)
		c.positive[i] = compPolynomial(c.density, a+(b-a)/2) >= 0
		if c.positive[i] {
			c.mass[i+1] = c.mass[i] + max(m, 0)
		} else {
			c.mass[i+1] = c.mass[i]
			negative -= min(m, 0)
		}
	}
	c.clipped = 2 * negative // both half lines
}

// SigmaStar2 returns the variance threshold σ*²: Accept needs the variance
// of ΔẼ below it.
func (c *Compensation) SigmaStar2() float64 { return c.sigmaStar2 }

// Lambda returns the bandwidth λ of the kernel ψ_λ (Eq. 14).
func (c *Compensation) Lambda() float64 { return c.lambda }

// Terms returns the number of series terms kept.
func (c *Compensation) Terms() int { return c.terms }

// Coefficients returns a fresh slice a with q̂_C(z) = Σ_k a[k] g(z)^k, k =
// 0, ..., 2·terms (a[0] = 0); for σ*² = 0.2, λ = 10 and 3 terms these are
// the coefficients of g, g², ..., g⁶ in Eq. 18.
func (c *Compensation) Coefficients() []float64 { return slices.Clone(c.coefficients) }

// Series returns the truncated series q̂_C(z) of Eq. 9 itself, which may be
// negative where the truncation undershoots; it integrates to 1.
func (c *Compensation) Series(z float64) float64 {
	// q̂_C is even; g(-|z|) keeps full relative precision in the tails.
	u := 1 / (1 + math.Exp(math.Abs(z)))
	return u * (1 - u) * compPolynomial(c.density, u)
}

// Density returns the density Sample draws from: the positive part of the
// series, max(q̂_C(z), 0), divided by its mass 1 + ClippedMass().
func (c *Compensation) Density(z float64) float64 {
	return max(c.Series(z), 0) / (1 + c.clipped)
}

// ClippedMass returns ∫ max(-q̂_C(z), 0) dz, the negative mass of the
// truncated series that Sample and Density leave out.
func (c *Compensation) ClippedMass() float64 { return c.clipped }

// Sample draws z_C from Density exactly, by inversion in u = g(z):
//
//	z ≤ 0 has u ∈ (0, 1/2], where the mass below u is the polynomial
//	cdf(u) = Σ w_n g^(2n)|_{g=u} on cells where q̂_C ≥ 0 (and flat on the
//	clipped cells), since ∫ g^(2n+1) dz = g^(2n).
//
// One uniform t picks, by binary search in the table, the cell holding
// mass t; safeguarded Newton iterations on the polynomial then solve
// cdf⁺(u) = t to a relative 1e-14 (no truncation of the range: the
// logistic map covers the whole line), z = log(u) - log1p(-u), and a random
// sign uses the symmetry q̂_C(z) = q̂_C(-z). The cost is O(log table size +
// degree), about 0.1 µs.
func (c *Compensation) Sample(rng *rand.Rand) float64 {
	bits := rng.Uint64()
	// 53 bits for t ∈ (0, 1] (never 0, so u > 0 and z is finite), one for
	// the sign.
	t := float64(bits>>11+1) / (1 << 53) * c.mass[len(c.mass)-1]
	// The cell i with mass[i] < t ≤ mass[i+1], so of positive mass (mass[0]
	// = 0 < t ≤ mass[last]): a cell where q̂_C > 0.
	i, _ := slices.BinarySearch(c.mass, t)
	i--
	lo, hi := c.knots[i], c.knots[i+1]
	base, target := compPolynomial(c.cdf, lo), t-c.mass[i]
	u := lo + (hi-lo)*target/(c.mass[i+1]-c.mass[i])
	// Newton on the increasing cdf, kept inside the shrinking bracket by
	// bisection; it stops at a relative step of 1e-14 (z to about 1e-14),
	// two or three iterations from the table's linear guess.
	for range 100 {
		f := compPolynomial(c.cdf, u) - base - target
		step := f / compPolynomial(c.density, u)
		if math.Abs(step) <= 1e-14*u {
			u -= step
			break
		}
		if f > 0 {
			hi = u
		} else {
			lo = u
		}
		u -= step
		if !(u > lo && u < hi) {
			u = lo + (hi-lo)/2
		}
		if hi-lo <= 1e-14*lo {
			break
		}
	}
	z := math.Log(u) - math.Log1p(-u)
	if bits&1 == 1 {
		z = -z
	}
	return z
}

// Accept is the noise-aware logistic test of Algorithm 1 (lines 5-7) and
// Eq. 17 of seed 001: given the minibatch estimate deltaE = ΔẼ of the log
// acceptance ratio ΔE = [U(θ_j) - U(θ_k)][1/T_j - 1/T_k] (Eq. 7) and its
// estimated variance v = Var ΔẼ, it draws
// z_N ~ N(0, σ*² - v) and z_C ~ q̂_C and accepts when z_C + z_N + ΔẼ > 0.
// If ΔẼ ~ N(ΔE, v), z_N tops the noise up to exactly σ*², and the
// acceptance probability is (q̂_C * N(0, σ*²)) integrated above -ΔE, which
// is Barker's g(ΔE) = 1/(1 + e^{-ΔE}) up to the error of the truncated
// series (Theorem 2, Eq. 10').
//
// The contract: 0 ≤ v < σ*². The caller enlarges the minibatch until the
// variance is below the threshold (Algorithm 1, lines 2-4); Accept does not
// see the data, so a larger v returns false and an error wrapping
// ErrCompensationVariance, as does a negative or NaN v; a NaN ΔẼ returns
// false and a plain error. ΔẼ = ±Inf is accepted or rejected outright.
func (c *Compensation) Accept(deltaE, variance float64, rng *rand.Rand) (bool, error) {
	switch {
	case math.IsNaN(deltaE):
		return false, fmt.Errorf("compensation: the energy difference is NaN")
	case !(variance >= 0):
		return false, fmt.Errorf("%w: variance %g is not a variance", ErrCompensationVariance, variance)
	case variance >= c.sigmaStar2:
		return false, fmt.Errorf("%w: variance %g ≥ σ*² = %g; enlarge the minibatch", ErrCompensationVariance, variance, c.sigmaStar2)
	}
	z := c.Sample(rng) + math.Sqrt(c.sigmaStar2-variance)*rng.NormFloat64()
	return z+deltaE > 0, nil
}
