package stdlib

import (
	"math"
	"testing"
)

// bruteIntegral is ∫_a^b e^(lp(t) - top) dt by the 20-point Gauss-Legendre
// rule on n equal panels: the reference the skew normal's and von Mises'
// log CDFs are checked against, a different route from theirs (fixed
// panels in y, not adaptive ones in an angle, and the density as the
// densities compute it rather than the CDFs' integrands).
func bruteIntegral(lp func(t float64) float64, a, b, top float64, n int) float64 {
	h := (b - a) / float64(n)
	sum := 0.0
	for k := range n {
		c := a + (float64(k)+0.5)*h
		for i, x := range gl20.x {
			sum += gl20.w[i] * math.Exp(lp(c+h/2*x)-top)
		}
	}
	return sum * h / 2
}

// TestQuadratureCDFs checks the skew normal's and the von Mises' log
// CDFs, both tails, against the density integrated by bruteIntegral: for
// the skew normal over 60 standard deviations of z beyond y (where the
// density has fallen by e^-1800 or more) on panels of 0.01, for the von
// Mises over [-π, y] and [y, π] on 4,000 panels, each tail as its own
// integral with the density at y taken out, so that tails far below
// e^-745 are compared too. On panels that narrow the 20-point rule's
// error is below 1e-20 of each panel, and the sums of ~10⁵ positive terms
// keep about 1e-14 relative: the tolerance, 1e-12 relative on the
// probability (not on its logarithm), leaves a factor of 100 over what
// either side's rounding can do, and is a thousand times tighter than
// the 1e-9 a sampler or a truncation would ever notice. Far out, where
// the log probability is -2,260, one rounding of the logarithm itself is
// 4.5e-13 of the probability: there the tolerance grows to 4 ulps of the
// log, 4ε|log p|. The von Mises is
// also checked against Stan's series (Hill's algorithm, scipy's
// von_mises_cdf_series) for κ < 40, where Stan uses it, to 1e-13
// absolute: the series is a difference of two values near ½ and keeps no
// more than that (its last terms, I_p(κ)/I₀(κ) for p = 12 terms at κ = 1,
// are about 1e-14).
func TestQuadratureCDFs(t *testing.T) {
	type check struct {
		name string
		x    []float64
	}
	var checks []check
	for _, x := range [][]float64{
		{0.3, 0, 1, 0}, {0.3, 0, 1, 2}, {-0.7, 1, 2, -3}, {2.5, 0, 1, 5}, {-2.5, 0, 1, 5}, {-0.1, 0, 1, 50},
		{0.05, 0, 1, 50}, {3, 1, 0.5, -0.4}, {-8, 0, 1, 1}, {8, 0, 1, -1}, {-30, 0, 1, 2}, {30, 0, 1, -2},
		{40, 0, 1, 3}, {-40, 0, 1, -3}, {1e-3, 0, 1, 1e3}, {-1e-3, 0, 1, 1e3}, {6, 2, 3, 0.7}, {0, 0, 1, 0.2},
		{-3, 0, 1, 0.05}, {12, -1, 1.5, 20},
	} {
		checks = append(checks, check{"skew_normal", x})
	}
	for _, x := range [][]float64{
		{0.3, 0, 1}, {-3, 0, 1}, {3, 0, 1}, {-3.1, 0, 10}, {3.1, 0, 10}, {0.2, 1, 0.01}, {-1, 2.5, 4},
		{2, -2.5, 4}, {0.5, 7, 2}, {-2, -20, 0.7}, {0.01, 0, 60}, {-0.3, 0, 60}, {1, 0.9, 500}, {-3, 0, 200},
		{2.9, 3.1, 50}, {-3.14, 3.1, 50}, {0, 1, 1e-8}, {3.14159, 0, 5}, {-3.14159, 0, 5}, {0.7, 0.7, 1e4},
	} {
		checks = append(checks, check{"von_mises", x})
	}
	worst := map[string]float64{}
	for _, c := range checks {
		cdf, _ := LookupLogCDF(c.name)
		y := c.x[0]
		var lp func(t float64) float64
		var tails [2][2]float64 // the two tails' intervals
		n := 4000
		if c.name == "skew_normal" {
			lp = func(t float64) float64 { return skewNormalDensity.lp([]float64{t, c.x[1], c.x[2], c.x[3]}) }
			w := 60 * c.x[2]
			tails = [2][2]float64{{y - w, y}, {y, y + w}}
			n = 6000
		} else {
			lp = func(t float64) float64 { return vonMisesDensity.lp([]float64{t, c.x[1], c.x[2]}) }
			tails = [2][2]float64{{-math.Pi, y}, {y, math.Pi}}
		}
		for k, f := range []func([]float64) float64{cdf.Lower.Value, cdf.Upper.Value} {
			got := f(c.x)
			a, b := tails[k][0], tails[k][1]
			top := math.Inf(-1) // the density's largest value on [a, b], roughly
			for i := range 1001 {
				top = math.Max(top, lp(a+(b-a)*float64(i)/1000))
			}
			// A steep skew (|α| ω/ω = 1000) changes the density over
			// ω/|α| about ξ: 2,000 panels of its own across ξ ± ω/10.
			sum := 0.0
			if c.name == "skew_normal" && math.Abs(c.x[3]) > 20 {
				cuts := []float64{a, math.Max(a, c.x[1]-c.x[2]/10), math.Min(b, c.x[1]+c.x[2]/10), b}
				for i, m := range []int{n, 2000, n} {
					if cuts[i+1] > cuts[i] {
						sum += bruteIntegral(lp, cuts[i], cuts[i+1], top, m)
					}
				}
			} else {
				sum = bruteIntegral(lp, a, b, top, n)
			}
			want := top + math.Log(sum)
			// The relative error of the probability e^got against e^want.
			rel := math.Abs(math.Expm1(got - want))
			worst[c.name] = math.Max(worst[c.name], rel)
			if tol := 1e-12 + 4*0x1p-52*math.Abs(want); !(rel < tol) {
				t.Errorf("%s tail %d at %v: %.15g, the integrated density %.15g (relative %.2g)", c.name, k, c.x, got, want, rel)
			}
		}
		if c.name == "von_mises" && c.x[2] < 40 {
			p := vonMisesSeries(y-c.x[1], c.x[2]) - vonMisesSeries(-math.Pi-c.x[1], c.x[2])
			got := math.Exp(cdf.Lower.Value(c.x))
			if math.Abs(got-p) > 1e-13 {
				t.Errorf("von_mises_lcdf at %v: e^ %.15g, Stan's series %.15g", c.x, got, p)
			}
		}
	}
	t.Logf("worst relative error of the probability against the integrated density: skew_normal %.2g, von_mises %.2g",
		worst["skew_normal"], worst["von_mises"])
}

// vonMisesSeries is Stan's von_mises_cdf_series (Hill 1977, scipy's):
// 1/2 + x/2π + (1/π) Σ_n (I_n(κ)/I₀(κ)) sin(nx)/n, the ratios by the
// backward recurrence of their continued fraction. It is an antiderivative
// of the centred density that gains 1 every 2π, so that the mass on [-π,
// y] is its difference between y - μ and -π - μ.
func vonMisesSeries(x, kappa float64) float64 {
	p := int(28 + 0.5*kappa - 100/(kappa+5) + 1)
	s, c := math.Sin(x), math.Cos(x)
	sn, cn := math.Sin(float64(p)*x), math.Cos(float64(p)*x)
	r, v := 0.0, 0.0
	for n := 1; n < p; n++ {
		sn, cn = sn*c-cn*s, cn*c+sn*s
		r = 1 / (2*float64(p-n)/kappa + r)
		v = r * (sn/float64(p-n) + v)
	}
	return 0.5 + x/(2*math.Pi) + v/math.Pi
}
