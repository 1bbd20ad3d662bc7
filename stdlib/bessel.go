package stdlib

import "math"

// besselAsymptotic is where logBesselI0 changes from the power series to
// the asymptotic expansion: from κ = 25 the expansion's terms fall below
// 1e-17 of its sum (at the 21st) before they start to grow, and below 25 the
// series' terms, all positive, lose nothing to cancellation.
const besselAsymptotic = 25

// logBesselI0 returns log I₀(κ) - κ, the log of the exponentially scaled
// I₀, and the ratio I₁(κ)/I₀(κ) of the modified
// Bessel functions of the first kind, for κ > 0, to about 1e-15 relative
// (gonum's mathext has no Bessel functions of real order). Below
// besselAsymptotic it sums the power series (DLMF 10.25.2)
//
//	I₀(κ) = Σ_m q^m/(m!)²,  I₁(κ) = (κ/2) Σ_m q^m/(m!(m+1)!),  q = κ²/4,
//
// with log I₀ taken as log1p of the terms after the first, exact for small κ;
// above, the exponentially scaled asymptotic expansion (DLMF 10.40.1)
//
//	I_ν(κ) e^-κ √(2πκ) ~ Σ_j t_j,  t_0 = 1,  t_j = t_{j-1} ((2j-1)² - 4ν²)/(8jκ),
//
// so that neither overflows for any finite κ.
func logBesselI0(kappa float64) (logI0Scaled, ratio float64) {
	if kappa < besselAsymptotic {
		q := kappa * kappa / 4
		s0, s1 := 0.0, 1.0 // Σ_{m≥1} q^m/(m!)², Σ_{m≥0} q^m/(m!(m+1)!)
		t0, t1 := 1.0, 1.0
		for m := 1.0; ; m++ {
			t0 *= q / (m * m)
			t1 *= q / (m * (m + 1))
			s0 += t0
			s1 += t1
			if t0 <= 1e-17*s0 && t1 <= 1e-17*s1 {
				break
			}
		}
		return math.Log1p(s0) - kappa, kappa / 2 * s1 / (1 + s0)
	}
	s0, s1 := 1.0, 1.0
	t0, t1 := 1.0, 1.0
	for j := 1.0; math.Abs(t0) > 1e-17*s0 || math.Abs(t1) > 1e-17*s1; j++ {
		t0 *= (2*j - 1) * (2*j - 1) / (8 * j * kappa)
		t1 *= ((2*j-1)*(2*j-1) - 4) / (8 * j * kappa)
		s0 += t0
		s1 += t1
	}
	return math.Log(s0) - 0.5*math.Log(2*math.Pi*kappa), s1 / s0
}
