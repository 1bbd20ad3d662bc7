package stdlib

import (
	"math"

	"gonum.org/v1/gonum/integrate/quad"
)

// The log CDFs of the skew normal and the von Mises, whose tails are
// integrals with no closed form: Owen's T function for the skew normal,
// the density itself on the circle for the von Mises. Each is written as
// integrals of positive functions, one per tail, so that neither tail is
// a difference and both keep their relative digits far out (where Stan's
// Φ(z) - 2T(z, α) and its series and normal approximation for the von
// Mises keep only absolute ones); the integrals are taken by adaptive
// Gauss-Legendre quadrature (peakIntegral) with the integrand's maximum
// factored out as a logarithm.

// glRule is a Gauss-Legendre rule on [-1, 1].
type glRule struct{ x, w []float64 }

func legendreRule(n int) glRule {
	r := glRule{make([]float64, n), make([]float64, n)}
	quad.Legendre{}.FixedLocations(r.x, r.w, -1, 1)
	return r
}

// The 10- and 20-point rules: a panel's 20-point sum is accepted where the
// 10-point one agrees with it to 1e-13, the 20-point error being far
// smaller than the 10-point one's (exact to degree 39 against 19).
var gl10, gl20 = legendreRule(10), legendreRule(20)

// peakQuad accumulates peakIntegral's panels.
type peakQuad struct {
	f      func(d float64) (v, g float64)
	v, g   float64
	panels int
}

// peakPanels bounds the panels of one integral: an integrand whose
// rounding noise exceeds the tolerance (it should not: each is written
// so that its exponent keeps its relative digits) costs a bounded time.
const peakPanels = 2000

// panel adds ∫_a^b f, bisecting while the two rules disagree by more than
// 1e-13 of the panel or 1e-17 of the sum so far (40 levels, and
// peakPanels panels in all, at most).
func (q *peakQuad) panel(a, b float64, depth int) {
	q.panels++
	c, h := (a+b)/2, (b-a)/2
	var v10, v20, g20 float64
	for i, x := range gl20.x {
		v, g := q.f(c + h*x)
		v20 += gl20.w[i] * v
		g20 += gl20.w[i] * g
	}
	for i, x := range gl10.x {
		v, _ := q.f(c + h*x)
		v10 += gl10.w[i] * v
	}
	v10, v20, g20 = v10*h, v20*h, g20*h
	if depth < 40 && q.panels < peakPanels && math.Abs(v20-v10) > 1e-13*v20+1e-17*q.v {
		q.panel(a, c, depth+1)
		q.panel(c, b, depth+1)
		return
	}
	q.v += v20
	q.g += g20
}

// peakIntegral integrates f over d in [0, L], for a weight f(d).v that is
// positive and decreasing in d with f(0).v = 1 or so, and a companion
// f(d).g (a partial of the weight) alongside on the same nodes. The
// panels start at the maximum with width w, the scale on which the weight
// falls there, and double; each is bisected until its two rules agree;
// the panels stop where the rest, at most f(d).v (L - d), is below 1e-17
// of the sum.
func peakIntegral(f func(d float64) (v, g float64), L, w float64) (v, g float64) {
	if !(L > 0) {
		return 0, 0
	}
	if !(w > 0 && w < L) {
		w = L
	}
	q := peakQuad{f: f}
	for lo, width := 0.0, w; lo < L; lo, width = lo+width, 2*width {
		if lo > 0 {
			if rest, _ := f(lo); rest*(L-lo) <= 1e-17*q.v {
				break
			}
		}
		q.panel(lo, math.Min(lo+width, L), 0)
	}
	return q.v, q.g
}

// The skew normal's tails, for α ≥ 0 (the skew_normal row reflects a
// negative α: -Y is skew normal of shape -α), by the angle forms of
// Owen's T, T(h, a) = (1/2π) ∫_0^atan(a) exp(-h²/(2cos²θ)) dθ (x = tan θ
// in its integral over x in [0, a], so that no a needs the |a| > 1
// identity), with Craig's
// Q(h) = 1 - Φ(h) = (1/π) ∫_0^(π/2) of the same integrand (h ≥ 0):
//
//	z < 0, h = -z:  F = Q(h) - 2T(h, α) = (1/π) ∫_0^atan(1/α) exp(-h²/(2sin²φ)) dφ
//	z ≥ 0, h = z:   1 - F = Q(h) + 2T(h, α)
//	                F = atan(1/α)/π + (Φ(h) - ½) + (1/π) ∫_0^atan(α) (1 - exp(-h²/(2cos²θ))) dθ
//
// every term positive. The tail on the side away from the skew (z < 0)
// falls as fast as e^(-(1+α²)z²/2); its integral with θ = π/2 - φ avoids
// the difference of two nearly equal numbers, which is all that Φ(z) -
// 2T(z, α) would leave of it.
func skewNormalLogs(z, a float64) (lower, upper float64) {
	if z < 0 {
		lower = logSkewThin(-z, a)
		return lower, log1mExp(lower)
	}
	h := z
	q, _ := logPhi(-h)
	upper = logAddExp(q, logTwoOwenT(h, a))
	lower = math.Log(math.Atan(1/a)/math.Pi + math.Erf(h/math.Sqrt2)/2 + skewNormalMiddle(h, a))
	return lower, upper
}

// logSkewThin is log (1/π) ∫_0^L exp(-h²/(2sin²φ)) dφ, L = atan(1/α), the
// integrand taken over its value at L, e^(-h²(1+α²)/2): with d = L - φ the
// exponent's difference is h²/2 (sin²L - sin²(L-d))/(sin²L sin²(L-d)) and
// sin²L - sin²(L-d) = sin(2L-d) sin d, no digits lost to the difference.
func logSkewThin(h, a float64) float64 {
	L := math.Atan(1 / a) // π/2 at α = 0
	if h == 0 {
		return math.Log(L / math.Pi)
	}
	s := math.Sin(L) // 1/√(1+α²)
	f := func(d float64) (float64, float64) {
		if d == 0 {
			return 1, 0
		}
		sn := math.Sin(L - d)
		return math.Exp(-h * h / 2 * math.Sin(2*L-d) * math.Sin(d) / (s * s * sn * sn)), 0
	}
	// The exponent falls at rate h² cos L/sin³L at d = 0, and curves on
	// the scale sin L/h.
	v, _ := peakIntegral(f, L, 1/(h*h*math.Cos(L)/(s*s*s)+h/s))
	return -h*h/(2*s*s) + math.Log(v/math.Pi)
}

// logTwoOwenT is log 2T(h, α) = log (1/π) ∫_0^atan(α) exp(-h²/(2cos²θ)) dθ,
// e^(-h²/2) taken out: the integrand left is exp(-h² tan²θ/2), on the
// scale 1/h.
func logTwoOwenT(h, a float64) float64 {
	f := func(d float64) (float64, float64) {
		t := math.Tan(d)
		return math.Exp(-h * h * t * t / 2), 0
	}
	v, _ := peakIntegral(f, math.Atan(a), 1/h)
	return -h*h/2 + math.Log(v/math.Pi)
}

// skewNormalMiddle is (1/π) ∫_0^atan(α) (1 - exp(-h²/(2cos²θ))) dθ, taken
// from θ = atan(α) down, where the integrand is largest, on the scale cos
// atan(α) over which sec²θ doubles there.
func skewNormalMiddle(h, a float64) float64 {
	top := math.Atan(a)
	f := func(d float64) (float64, float64) {
		c := math.Cos(top - d)
		return -math.Expm1(-h * h / (2 * c * c)), 0
	}
	v, _ := peakIntegral(f, top, 1/math.Sqrt(1+a*a))
	return v / math.Pi
}

// vonMisesMass is the log of the von Mises (μ, κ) mass on [a, b], a
// sub-interval of [-π, π], and ∂/∂κ of that mass over the mass: the
// density exp(κ cos(t - μ))/(2π I₀(κ)) integrated between its modes and
// antimodes (the points μ + kπ), on each piece from its larger end, with
// the partial's integrand (cos(t - μ) - I₁(κ)/I₀(κ)) times the density on
// the same nodes. Each piece's largest value is taken out as a logarithm,
// so that a mass far below e^-745 keeps its digits.
func vonMisesMass(a, b, mu, kappa float64) (logMass, dKappa float64) {
	logI0e, ratio := logBesselI0(kappa)
	ell := func(t float64) float64 { // κ(cos(t - μ) - 1)
		h := math.Sin((t - mu) / 2)
		return -2 * kappa * h * h
	}
	// ell(e + s) - ell(e) = -2κ (sin²((e+s-μ)/2) - sin²((e-μ)/2)) =
	// -2κ sin(e - μ + s/2) sin(s/2), not a difference of two large
	// numbers where κ is large.
	cuts := []float64{a}
	for k := math.Floor((a-mu)/math.Pi) + 1; mu+k*math.Pi < b; k++ {
		cuts = append(cuts, mu+k*math.Pi)
	}
	cuts = append(cuts, b)
	var logs, slopes []float64
	for i := 0; i+1 < len(cuts); i++ {
		p, q := cuts[i], cuts[i+1]
		if !(q > p) {
			continue
		}
		e, dir := p, 1.0
		if ell(q) > ell(p) {
			e, dir = q, -1
		}
		top := ell(e)
		f := func(d float64) (float64, float64) {
			s := dir * d
			v := math.Exp(-2 * kappa * math.Sin(e-mu+s/2) * math.Sin(s/2))
			return v, (math.Cos(e+s-mu) - ratio) * v
		}
		// log f falls at rate κ|sin(e - μ)| from e, and curves on the
		// scale 1/√(κ|cos(e - μ)|).
		w := 1 / (kappa*math.Abs(math.Sin(e-mu)) + math.Sqrt(kappa*math.Abs(math.Cos(e-mu))))
		v, g := peakIntegral(f, q-p, w)
		logs = append(logs, top+math.Log(v))
		slopes = append(slopes, g/v)
	}
	logMass = math.Inf(-1)
	for _, l := range logs {
		logMass = logAddExp(logMass, l)
	}
	for i, l := range logs {
		dKappa += math.Exp(l-logMass) * slopes[i]
	}
	return logMass - lnTwoPi - logI0e, dKappa
}

// vonMisesLogDensity is the von Mises log density at t, as vonMisesDensity's.
func vonMisesLogDensity(t, mu, kappa float64) float64 {
	logI0e, _ := logBesselI0(kappa)
	h := math.Sin((t - mu) / 2)
	return -2*kappa*h*h - lnTwoPi - logI0e
}

func init() {
	// Stan's skew_normal_lcdf(y | ξ, ω, α): F = Φ(z) - 2T(z, α), z = (y -
	// ξ)/ω (skewNormalLogs). ∂F/∂y is the density, ∂F/∂α = -2 ∂T/∂α =
	// -exp(-z²(1+α²)/2)/(π(1+α²)).
	skewNormal := &cdfRow{name: "skew_normal", args: []string{"xi", "omega", "alpha"},
		logs: func(x []float64) (float64, float64) {
			xi, omega, a := x[1], x[2], x[3]
			if !finitePositive(omega) || math.IsInf(xi, 0) || math.IsNaN(xi) || math.IsInf(a, 0) || math.IsNaN(a) {
				return nan2()
			}
			z := (x[0] - xi) / omega
			switch {
			case math.IsInf(z, 1): // y finite, but z beyond the floats
				return 0, math.Inf(-1)
			case math.IsInf(z, -1):
				return math.Inf(-1), 0
			case a < 0:
				upper, lower := skewNormalLogs(-z, -a)
				return lower, upper
			}
			return skewNormalLogs(z, a)
		},
		slopes: func(dx, x []float64, _, _, logv float64) {
			z, a := (x[0]-x[1])/x[2], x[3]
			p := math.Exp(skewNormalDensity.lp(x) - logv)
			locationScaleSlopes(dx, 0, 1, 2, p, z)
			dx[3] = -math.Exp(-z*z*(1+a*a)/2 - math.Log(math.Pi*(1+a*a)) - logv)
		}}
	// Stan's von_mises_lcdf(y | μ, κ): the mass on [-π, y] for y in [-π, π]
	// (Stan's support; below it -∞, above it 0), whatever μ. The smaller
	// tail is integrated, the other is its complement. ∂F/∂y is the density
	// at y, ∂F/∂μ the density at -π less that at y, ∂F/∂κ the integral of
	// the density's partial over the smaller tail.
	vonMises := &cdfRow{name: "von_mises", args: []string{"mu", "kappa"},
		logs: func(x []float64) (float64, float64) {
			y, mu, kappa := x[0], x[1], x[2]
			switch {
			case !finitePositive(kappa) || math.IsInf(mu, 0) || math.IsNaN(mu):
				return nan2()
			case y <= -math.Pi:
				return math.Inf(-1), 0
			case y >= math.Pi:
				return 0, math.Inf(-1)
			}
			if lower, _ := vonMisesMass(-math.Pi, y, mu, kappa); lower < -math.Ln2 {
				return lower, log1mExp(lower)
			}
			upper, _ := vonMisesMass(y, math.Pi, mu, kappa)
			return log1mExp(upper), upper
		},
		slopes: func(dx, x []float64, lower, upper, logv float64) {
			y, mu, kappa := x[0], x[1], x[2]
			dx[0] = math.Exp(vonMisesLogDensity(y, mu, kappa) - logv)
			dx[1] = math.Exp(vonMisesLogDensity(-math.Pi, mu, kappa)-logv) - dx[0]
			if lower <= upper {
				m, dk := vonMisesMass(-math.Pi, y, mu, kappa)
				dx[2] = math.Exp(m-logv) * dk
			} else {
				m, dk := vonMisesMass(y, math.Pi, mu, kappa)
				dx[2] = -math.Exp(m-logv) * dk
			}
		}}
	for _, r := range []*cdfRow{skewNormal, vonMises} {
		logCDFs[r.name] = r.pair()
	}
}
