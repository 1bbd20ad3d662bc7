package stdlib_test

import (
	"math"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Each generator against the language's own density, which catches a
// parameterisation that differs from the density's (a rate taken for a
// scale, arguments swapped): continuous ones by a Kolmogorov–Smirnov
// distance to the CDF integrated numerically from exp(LogDensity), discrete
// ones by a χ² test against exp(log pmf). Densities not in the table yet
// (von_mises, ordered_logistic) and the vector ones are formulas here.

// pAlpha is the significance of each test: with fixed seeds the tests are
// deterministic, and a correct generator fails one with probability 1e-4.
const pAlpha = 1e-4

// ksCase is a continuous generator at one setting, and the grid on which
// its density is integrated: x = center + scale·sinh(u) for [lo, hi] (fine
// near the center, reaching far tails), or x = e^u where logGrid (mass
// piled against 0).
type ksCase struct {
	name                  string
	args                  []float64
	lo, hi, center, scale float64
	logGrid               bool
	// logDensity is a formula for a density not in the table, normalised
	// on the grid; nil: the table's, which must integrate to 1.
	logDensity func(x float64) float64
}

// vonMisesLogDensity is κ cos(x - μ) up to its constant.
func vonMisesLogDensity(mu, kappa float64) func(float64) float64 {
	return func(x float64) float64 { return kappa * math.Cos(x-mu) }
}

// vonMisesCase is von_mises(mu, kappa) on [m - π, m + π], m = fmod(μ, 2π)
// as Stan's range.
func vonMisesCase(mu, kappa, scale float64) ksCase {
	m := math.Mod(mu, 2*math.Pi)
	return ksCase{name: "von_mises", args: []float64{mu, kappa}, lo: m - math.Pi, hi: m + math.Pi, center: m, scale: scale,
		logDensity: vonMisesLogDensity(m, kappa)}
}

var ksCases = []ksCase{
	{name: "normal", args: []float64{1, 2}, lo: -30, hi: 32, center: 1, scale: 2},
	{name: "student_t", args: []float64{3, 1, 2}, lo: -1e5, hi: 1e5, center: 1, scale: 2},
	{name: "student_t", args: []float64{10, -1, 0.5}, lo: -1e3, hi: 1e3, center: -1, scale: 0.5},
	{name: "cauchy", args: []float64{1, 2}, lo: -1e8, hi: 1e8, center: 1, scale: 2},
	{name: "double_exponential", args: []float64{1, 2}, lo: -60, hi: 62, center: 1, scale: 2},
	{name: "logistic", args: []float64{1, 2}, lo: -80, hi: 82, center: 1, scale: 2},
	{name: "exponential", args: []float64{2}, lo: 0, hi: 30, scale: 0.5},
	{name: "gamma", args: []float64{2.5, 1.5}, lo: 0, hi: 60, scale: 1},
	{name: "gamma", args: []float64{0.1, 2}, lo: 1e-250, hi: 50, logGrid: true},
	{name: "inv_gamma", args: []float64{3, 2}, lo: 0, hi: 1e7, scale: 0.5},
	{name: "beta", args: []float64{2, 3}, lo: 0, hi: 1, center: 0.5, scale: 1},
	{name: "lognormal", args: []float64{0.2, 0.5}, lo: 1e-10, hi: 1e4, logGrid: true},
	{name: "uniform", args: []float64{-1, 3}, lo: -1, hi: 3, center: 1, scale: 1},
	{name: "half_normal", args: []float64{2}, lo: 0, hi: 40, scale: 2},
	{name: "half_cauchy", args: []float64{2}, lo: 0, hi: 1e8, scale: 2},
	{name: "weibull", args: []float64{1.5, 2}, lo: 0, hi: 60, scale: 1},
	{name: "weibull", args: []float64{0.7, 0.5}, lo: 1e-200, hi: 1e3, logGrid: true},
	{name: "skew_normal", args: []float64{1, 2, 3}, lo: -40, hi: 42, center: 1, scale: 2},
	{name: "skew_normal", args: []float64{0, 1, -10}, lo: -20, hi: 20, scale: 1},
	{name: "gumbel", args: []float64{1, 2}, lo: -20, hi: 100, center: 1, scale: 2},
	{name: "pareto", args: []float64{1.5, 3}, lo: 1.5, hi: 1e8, logGrid: true},
	{name: "chi_square", args: []float64{3}, lo: 0, hi: 80, scale: 1},
	{name: "chi_square", args: []float64{0.3}, lo: 1e-250, hi: 60, logGrid: true},
	{name: "inv_chi_square", args: []float64{4}, lo: 1e-5, hi: 1e9, logGrid: true},
	{name: "scaled_inv_chi_square", args: []float64{5, 0.7}, lo: 1e-5, hi: 1e9, logGrid: true},
	{name: "rayleigh", args: []float64{2}, lo: 0, hi: 40, scale: 2},
	{name: "frechet", args: []float64{1.5, 2}, lo: 1e-2, hi: 1e12, logGrid: true},
	{name: "loglogistic", args: []float64{2, 3}, lo: 1e-8, hi: 1e8, logGrid: true},
	{name: "exp_mod_normal", args: []float64{1, 2, 0.5}, lo: -30, hi: 100, center: 3, scale: 2},
	{name: "pareto_type_2", args: []float64{1, 2, 3}, lo: 1, hi: 1e8, logGrid: true},
	vonMisesCase(1, 2, 1),
	vonMisesCase(7, 1e4, 0.01),
	vonMisesCase(-2, 1e-6, 1),
	vonMisesCase(0.5, 1e-9, 1),
}

const gridPoints = 20001

// grid returns the points x_i and the CDF at them, the trapezoid rule in u
// from lo, and the raw moments E[X^k], k = 1..4, by the same rule.
func (c ksCase) grid(t *testing.T) (xs, cdf []float64, raw [5]float64) {
	t.Helper()
	x := func(u float64) float64 { return c.center + c.scale*math.Sinh(u) }
	dx := func(u float64) float64 { return c.scale * math.Cosh(u) }
	u0, u1 := math.Asinh((c.lo-c.center)/c.scale), math.Asinh((c.hi-c.center)/c.scale)
	if c.logGrid {
		x, dx = math.Exp, math.Exp
		u0, u1 = math.Log(c.lo), math.Log(c.hi)
	}
	du := (u1 - u0) / (gridPoints - 1)
	xs = make([]float64, gridPoints)
	for i := range xs {
		xs[i] = x(u0 + float64(i)*du)
	}
	xs[0], xs[gridPoints-1] = c.lo, c.hi
	logf := make([]float64, gridPoints)
	if c.logDensity != nil {
		for i, v := range xs {
			logf[i] = c.logDensity(v)
		}
	} else {
		points := make([][]float64, gridPoints)
		for i, v := range xs {
			points[i] = append([]float64{v}, c.args...)
		}
		logf, _ = evalDensityAt(t, c.name, points)
	}
	g := make([]float64, gridPoints) // f(x(u)) x'(u)
	for i := range g {
		g[i] = math.Exp(logf[i]) * dx(u0+float64(i)*du)
	}
	cdf = make([]float64, gridPoints)
	for i := 1; i < gridPoints; i++ {
		cdf[i] = cdf[i-1] + (g[i-1]+g[i])/2*du
		for k := range raw {
			raw[k] += (g[i-1]*math.Pow(xs[i-1], float64(k)) + g[i]*math.Pow(xs[i], float64(k))) / 2 * du
		}
	}
	if c.logDensity != nil { // normalise the formula
		total := cdf[gridPoints-1]
		for i := range cdf {
			cdf[i] /= total
		}
		for k := range raw {
			raw[k] /= total
		}
	}
	return xs, cdf, raw
}

// ksDistance is sup |F_n - F| over the sorted draws, F interpolated
// linearly between grid points (0 below the grid, its end above).
func ksDistance(draws, xs, cdf []float64) float64 {
	s := slices.Clone(draws)
	slices.Sort(s)
	n := float64(len(s))
	d := 0.0
	for i, x := range s {
		var f float64
		switch j := sort.SearchFloat64s(xs, x); {
		case j == 0:
			f = 0
		case j == len(xs):
			f = cdf[len(cdf)-1]
		default:
			w := (x - xs[j-1]) / (xs[j] - xs[j-1])
			f = cdf[j-1] + w*(cdf[j]-cdf[j-1])
		}
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// TestRNGAgainstDensity: the KS distance of n draws from the density's CDF
// is within the Dvoretzky–Kiefer–Wolfowitz bound (Massart's constant),
// P(sup|F_n - F| > ε) ≤ 2e^(-2nε²), at pAlpha, plus the mass the grid
// misses (|1 - ∫f|, at most 1e-3 by the check) and 1e-4 for the quadrature.
func TestRNGAgainstDensity(t *testing.T) {
	eps := math.Sqrt(math.Log(2/pAlpha) / (2 * nDraws))
	for _, c := range ksCases {
		xs, cdf, raw := c.grid(t)
		total := cdf[len(cdf)-1]
		if math.Abs(total-1) > 1e-3 {
			t.Errorf("%s%v: the density integrates to %.6f on the grid", c.name, c.args, total)
			continue
		}
		draws := drawScalars(t, c.name, sc(c.args...), nDraws)
		if d, tol := ksDistance(draws, xs, cdf), eps+math.Abs(1-total)+1e-4; d > tol {
			t.Errorf("%s%v: KS distance %.4f to the density's CDF, want ≤ %.4f", c.name, c.args, d, tol)
		}
		if c.name == "von_mises" { // the range, and the moments the grid gives
			for _, x := range draws {
				if x < c.lo || x > c.hi {
					t.Errorf("von_mises%v: variate %v outside [%v, %v]", c.args, x, c.lo, c.hi)
					break
				}
			}
			checkMoments(t, "von_mises"+labelOf(sc(c.args...)), draws, fromRaw(func(k int) float64 { return raw[k] }))
		}
	}
}

// pmfCases are the discrete generators against their pmf on 0..kmax: the
// table's where pmf is nil.
var pmfCases = []struct {
	name string
	args [][]float64
	kmax int
	pmf  func(k int) float64
}{
	{"bernoulli", sc(0.3), 1, nil},
	{"bernoulli_logit", sc(-0.7), 1, nil},
	{"binomial", sc(10, 0.3), 10, nil},
	{"binomial", sc(100, 0.004), 100, nil},
	{"binomial", sc(200, 0.7), 200, nil},
	{"binomial_logit", sc(20, 1), 20, nil},
	{"binomial_logit", sc(1000, 30), 1000, nil},
	{"poisson", sc(3.5), 60, nil},
	{"poisson", sc(40), 200, nil},
	{"poisson_log", sc(math.Log(25)), 150, nil},
	{"neg_binomial_2", sc(4, 2.5), 200, nil},
	{"neg_binomial_2", sc(30, 0.5), 3000, nil},
	{"neg_binomial_2_log", sc(math.Log(4), 2.5), 200, nil},
	{"beta_binomial", sc(10, 2, 3), 10, nil},
	{"beta_binomial", sc(30, 0.3, 0.6), 30, nil},
	{"ordered_logistic", [][]float64{{0.5}, {-1, 0.5, 2}}, 4, orderedLogisticPMF(0.5, []float64{-1, 0.5, 2})},
	{"ordered_logistic", [][]float64{{-3}, {-2}}, 2, orderedLogisticPMF(-3, []float64{-2})},
	{"categorical", [][]float64{{0.2, 0, 0.5, 0.3}}, 4, labelPMF([]float64{0.2, 0, 0.5, 0.3})},
	{"categorical_logit", [][]float64{{1, -1, 0.5, 3}}, 4, labelPMF(softmaxRow([]float64{1, -1, 0.5, 3}))},
}

// TestRNGAgainstPMF: the counts of each value against the pmf by Pearson's
// χ², over the values expected at least 5 times and one bin for all the
// others, at significance pAlpha; a draw of probability 0 fails at once.
func TestRNGAgainstPMF(t *testing.T) {
	for _, c := range pmfCases {
		label := c.name + labelOf(c.args)
		p := make([]float64, c.kmax+1)
		if c.pmf != nil {
			for k := range p {
				p[k] = c.pmf(k)
			}
		} else {
			points := make([][]float64, len(p))
			for k := range points {
				points[k] = []float64{float64(k)}
				for _, a := range c.args {
					points[k] = append(points[k], a[0])
				}
			}
			lp, _ := evalDensityAt(t, c.name, points)
			for k, v := range lp {
				p[k] = math.Exp(v)
			}
		}
		counts := make([]float64, len(p))
		for _, x := range drawScalars(t, c.name, c.args, nDraws) {
			if x < 0 || x > float64(c.kmax) || p[int(x)] == 0 {
				t.Errorf("%s: drew %v, of probability 0", label, x)
				continue
			}
			counts[int(x)]++
		}
		stat, df, restP, restN := 0.0, -1, 1.0, float64(nDraws)
		for k, pk := range p {
			if e := nDraws * pk; e >= 5 {
				stat += (counts[k] - e) * (counts[k] - e) / e
				df++
				restP -= pk
				restN -= counts[k]
			}
		}
		if e := nDraws * max(restP, 0); e > 1e-9 || restN > 0 {
			stat += (restN - e) * (restN - e) / max(e, 1e-9)
			df++
		}
		if pv := (distuv.ChiSquared{K: float64(df)}).Survival(stat); pv < pAlpha {
			t.Errorf("%s: χ² = %.1f on %d degrees of freedom, p = %.2g", label, stat, df, pv)
		}
	}
}
