package infer_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// compLogistic is g(z) = 1/(1 + e^{-z}), Barker's acceptance probability.
func compLogistic(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// compPaper is the setting of seed 001, Section 3: σ*² = 0.2, λ = 10 and the
// first 3 terms of the series (9).
func compPaper(t testing.TB) *infer.Compensation {
	t.Helper()
	c, err := infer.NewCompensation(0.2, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Eq. 18 of seed 001. With x = λσ*²/4 = 1/2 the Hermite values are H_0 = 1,
// H_1(x) = 2x = 1, H_2(x) = 4x² - 2 = -1, so the weights (-1)^n H_n/(λ^n n!)
// of Eq. 9 are 1, -1/10 and -1/200, and from g' = g - g² (Appendix B)
//
//	g'    = g -   g²
//	g'''  = g -  7g² +  12g³ -   6g⁴
//	g⁽⁵⁾  = g - 31g² + 180g³ - 390g⁴ + 360g⁵ - 120g⁶
//
// give q̂_C = 179/200 g - 29/200 g² - 21/10 g³ + 51/20 g⁴ - 9/5 g⁵ + 3/5 g⁶.
// These rationals are finite decimals, so the values printed in Eq. 18
// (0.895, -0.145, -2.1, 2.55, -1.8, 0.6, multiplying g, g², ..., g⁶) are
// exact, not rounded. In float64 each coefficient is a sum of at most three
// products of exact integers with 1, 0.1 and 0.005, so it is off by a few
// ulps (about 1e-15); 1e-12 leaves room and still pins the last printed
// digit a billion times over.
func TestCompensationEq18Coefficients(t *testing.T) {
	got := compPaper(t).Coefficients()
	want := []float64{0, 179. / 200, -29. / 200, -21. / 10, 51. / 20, -9. / 5, 3. / 5}
	if len(got) != len(want) {
		t.Fatalf("got %d coefficients %v, want %d (powers g⁰ to g⁶)", len(got), got, len(want))
	}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("coefficient of g^%d = %.17g, want %g (Eq. 18)", k, got[k], want[k])
		}
	}
}

// Coefficients returns a copy: a caller cannot corrupt the distribution.
func TestCompensationCoefficientsCopy(t *testing.T) {
	c := compPaper(t)
	c.Coefficients()[1] = 100
	if got := c.Coefficients()[1]; got != 0.895 {
		t.Errorf("after writing to a returned slice the coefficient of g is %g, want 0.895", got)
	}
}

// Series and Density are the polynomial of Eq. 18 evaluated at g(z), and the
// truncated series integrates to 1 and has variance π²/3 - σ*²: ∫ g' = 1,
// ∫ g^(2n+1) = 0 for n ≥ 1; ∫ z² g' = π²/3, ∫ z² g^(3) = 2 (by parts twice),
// ∫ z² g^(2n+1) = 0 for n ≥ 2; and w_1·2 = -2·(λσ*²/2)/λ = -σ*². So z_C +
// z_N has exactly the logistic variance π²/3, as Eq. 12 requires.
func TestCompensationSeries(t *testing.T) {
	c := compPaper(t)
	a := c.Coefficients()
	for _, z := range []float64{-30, -5, -1, -0.25, 0, 0.5, 2, 7, 30} {
		g := compLogistic(z)
		want := 0.0
		for k := len(a) - 1; k >= 0; k-- {
			want = want*g + a[k]
		}
		// Relative 1e-9: Series works in g(-|z|) for precision in the
		// tails, the direct form loses digits to 1 - g there.
		if got := c.Series(z); math.Abs(got-want) > 1e-9*math.Abs(want)+1e-15 {
			t.Errorf("Series(%g) = %g, want %g", z, got, want)
		}
		if c.Density(z) != c.Series(z) {
			t.Errorf("Density(%g) = %g differs from Series %g although nothing is clipped", z, c.Density(z), c.Series(z))
		}
	}
	// Trapezoid rule with h = 0.005 on [-60, 60]: the integrand is smooth and
	// decays like e^{-|z|}, so the error is far below 1e-9.
	mass, second := 0.0, 0.0
	const h = 0.005
	for z := -60.0; z <= 60; z += h {
		q := c.Series(z)
		mass += q * h
		second += z * z * q * h
	}
	if math.Abs(mass-1) > 1e-9 {
		t.Errorf("∫ q̂_C = %.12f, want 1", mass)
	}
	if want := math.Pi*math.Pi/3 - 0.2; math.Abs(second-want) > 1e-7 {
		t.Errorf("∫ z² q̂_C = %.10f, want π²/3 - σ*² = %.10f", second, want)
	}
	if c.ClippedMass() != 0 {
		t.Errorf("ClippedMass = %g, want 0: q̂_C of Eq. 18 is positive everywhere", c.ClippedMass())
	}
}

// Figure 1 (right) of seed 001: q̂_C of Eq. 18 convolved with N(0, σ*²)
// reconstructs the standard logistic density (Eq. 12). The convolution is a
// Riemann sum on a grid of step h = 0.01 over [-40, 40]; for a Gaussian of
// standard deviation 0.45 (45 grid steps) and a smooth integrand this is
// accurate to far below 1e-6, and the tails beyond ±40 carry e^{-40}. The
// brief's tolerance is 0.01; the measured error is 0.0018, what λ = 10
// leaves of the exact deconvolution (λ = 100 gives 0.00013).
func TestCompensationReconstructsLogistic(t *testing.T) {
	c := compPaper(t)
	const h, half = 0.01, 4000 // grid y_i = (i - half)·h
	q := make([]float64, 2*half+1)
	for i := range q {
		q[i] = c.Series(float64(i-half) * h)
	}
	sigma := math.Sqrt(0.2)
	width := int(10 * sigma / h) // ±10σ of the Gaussian
	kernel := make([]float64, 2*width+1)
	for j := range kernel {
		x := float64(j-width) * h
		kernel[j] = math.Exp(-x*x/(2*0.2)) / (sigma * math.Sqrt(2*math.Pi)) * h
	}
	worst, at := 0.0, 0.0
	for i := width; i < len(q)-width; i += 5 { // z from -40 + 10σ to 40 - 10σ by 0.05
		conv := 0.0
		for j, k := range kernel {
			conv += q[i-width+j] * k
		}
		z := float64(i-half) * h
		g := compLogistic(z)
		if e := math.Abs(conv - g*(1-g)); e > worst {
			worst, at = e, z
		}
	}
	t.Logf("max |q̂_C * N(0, 0.2) - logistic density| = %.5f at z = %.2f", worst, at)
	if worst > 0.01 {
		t.Errorf("reconstruction error %.4f at z = %.2f exceeds 0.01 (Figure 1, right)", worst, at)
	}
}

// Sample draws exactly from Density: its empirical CDF is compared (the
// Kolmogorov-Smirnov distance) with the CDF integrated numerically from
// Density, and its variance with π²/3 - σ*² (TestCompensationSeries). The
// KS critical value at level 0.001 is 1.95/√n; the variance estimate has
// standard error √((μ₄ - σ⁴)/n) ≈ 0.012 for n = 2·10⁵ (logistic-like
// kurtosis 4.2, so μ₄ ≈ 40), and 0.05 is four of them.
func TestCompensationSample(t *testing.T) {
	for _, setting := range []struct {
		sigmaStar2, lambda float64
		terms              int
	}{
		{0.2, 10, 3}, // Eq. 18
		{1, 4, 3},    // a wider Gaussian part, a coarser kernel
		{2.5, 10, 2}, // negative tails, clipped (TestCompensationClipping)
	} {
		t.Run(fmt.Sprintf("%g/%g/%d", setting.sigmaStar2, setting.lambda, setting.terms), func(t *testing.T) {
			c, err := infer.NewCompensation(setting.sigmaStar2, setting.lambda, setting.terms)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(7, uint64(setting.terms)))
			const n = 200_000
			draws := make([]float64, n)
			second := 0.0
			for i := range draws {
				draws[i] = c.Sample(rng)
				second += draws[i] * draws[i]
			}
			sort.Float64s(draws)
			// CDF of Density by the trapezoid rule, step 0.002 from -60.
			const h = 0.002
			z, cdf, prev := -60.0, 0.0, c.Density(-60)
			ks := 0.0
			for i, x := range draws {
				for z+h <= x {
					next := c.Density(z + h)
					cdf += (prev + next) / 2 * h
					z, prev = z+h, next
				}
				f := cdf + prev*(x-z) // partial cell
				ks = max(ks, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
			}
			if limit := 1.95 / math.Sqrt(n); ks > limit {
				t.Errorf("Kolmogorov-Smirnov distance %.5f exceeds %.5f", ks, limit)
			}
			if c.ClippedMass() == 0 {
				if want := math.Pi*math.Pi/3 - setting.sigmaStar2; math.Abs(second/n-want) > 0.05 {
					t.Errorf("sample variance %.4f, want π²/3 - σ*² = %.4f", second/n, want)
				}
			}
			t.Logf("KS distance %.5f, sample variance %.4f, clipped mass %.5f", ks, second/n, c.ClippedMass())
		})
	}
}

// With 2 terms the series is q̂_C = g' - (σ*²/2) g^(3) for any λ (w_1 =
// -H_1(λσ*²/4)/λ = -σ*²/2), whose tails e^{-|z|}(1 - σ*²/2) are negative
// when σ*² > 2. In u = g(z) its density is r(u) = 1 - (σ*²/2)(1 - 6u + 6u²),
// negative below u₀ = 1/2 - √(12 + 48/σ*²)/12 (and above 1 - u₀), so the
// clipped mass is -2 ∫_0^{u₀} r = -2[u₀ - (σ*²/2)(u₀ - 3u₀² + 2u₀³)].
func TestCompensationClipping(t *testing.T) {
	const s2 = 2.5
	c, err := infer.NewCompensation(s2, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	u0 := 0.5 - math.Sqrt(12+48/s2)/12
	want := -2 * (u0 - s2/2*(u0-3*u0*u0+2*u0*u0*u0))
	// Roots by bisection to the last ulp and a cubic evaluated at them: 1e-12.
	if got := c.ClippedMass(); math.Abs(got-want) > 1e-12 {
		t.Errorf("ClippedMass = %.15f, want %.15f", got, want)
	}
	z0 := math.Log(u0 / (1 - u0)) // q̂_C changes sign at ±z0
	if c.Series(z0-0.1) >= 0 || c.Density(z0-0.1) != 0 || c.Density(-z0+0.1) != 0 {
		t.Errorf("beyond |z| = %.3f the series is %g and the density %g, want negative and 0", -z0, c.Series(z0-0.1), c.Density(z0-0.1))
	}
	mass := 0.0
	for z := -60.0; z <= 60; z += 0.005 {
		mass += c.Density(z) * 0.005
	}
	if math.Abs(mass-1) > 1e-6 { // the kinks at ±z0 cost the trapezoid rule O(h²)
		t.Errorf("Density integrates to %.9f, want 1 after renormalisation", mass)
	}
	t.Logf("clipped mass %.6f (closed form %.6f), sign change at |z| = %.4f", c.ClippedMass(), want, -z0)
}

// Algorithm 1 and Eq. 17 of seed 001: for a log acceptance ratio ΔE seen
// only through ΔẼ = ΔE + N(0, v) with v < σ*², Accept swaps with Barker's
// probability g(ΔE) (Theorem 2), which keeps detailed balance (Eq. 6);
// Barker's test applied to the noisy ΔẼ does not.
//
// Tolerance 0.005 (the brief's): the compensated test's bias is the
// reconstruction error of the CDF, |∫ (q̂_C * N(0, σ*²) - q_L)|, at most
// 0.0010 for Eq. 18 (computed by quadrature while developing), and the
// binomial standard error of 10⁶ trials is at most 0.0005, so 0.005 is
// the bias plus eight standard errors. The naive test's bias is
// E g(ΔE + N(0, v)) - g(ΔE) ≈ v g^(2)(ΔE)/2, -0.0084 at ΔE = 1 for v = 0.19,
// seven standard errors beyond 0.005.
func TestCompensationAcceptDetailedBalance(t *testing.T) {
	c := compPaper(t)
	const v, trials = 0.19, 1_000_000
	rng := rand.New(rand.NewPCG(2020, 1))
	worstNaive := 0.0
	for _, dE := range []float64{-4, -2, -1, 0, 1, 2, 4} {
		accepted, naive := 0, 0
		for range trials {
			noisy := dE + math.Sqrt(v)*rng.NormFloat64()
			ok, err := c.Accept(noisy, v, rng)
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				accepted++
			}
			if rng.Float64() < compLogistic(noisy) {
				naive++
			}
		}
		want := compLogistic(dE)
		got, gotNaive := float64(accepted)/trials, float64(naive)/trials
		t.Logf("ΔE = %+g: Barker %.4f, compensated test %.4f (%+.4f), naive test on ΔẼ %.4f (%+.4f)",
			dE, want, got, got-want, gotNaive, gotNaive-want)
		if math.Abs(got-want) > 0.005 {
			t.Errorf("ΔE = %g: acceptance %.4f, want Barker's %.4f ± 0.005", dE, got, want)
		}
		worstNaive = max(worstNaive, math.Abs(gotNaive-want))
	}
	if worstNaive <= 0.005 {
		t.Errorf("the naive Barker test on ΔẼ is within %.4f of Barker for every ΔE; the noise should bias it beyond 0.005", worstNaive)
	}
}

func TestCompensationErrors(t *testing.T) {
	for _, bad := range []struct {
		sigmaStar2, lambda float64
		terms              int
		want               string
	}{
		{0, 10, 3, "σ*² must be positive and finite, got 0"},
		{-0.2, 10, 3, "σ*² must be positive and finite, got -0.2"},
		{math.NaN(), 10, 3, "σ*² must be positive and finite, got NaN"},
		{math.Inf(1), 10, 3, "σ*² must be positive and finite, got +Inf"},
		{3.3, 10, 3, "σ*² = 3.3 must be below π²/3 ≈ 3.2899"},
		{0.2, 0, 3, "bandwidth λ must be positive and finite, got 0"},
		{0.2, -10, 3, "bandwidth λ must be positive and finite, got -10"},
		{0.2, math.NaN(), 3, "bandwidth λ must be positive and finite, got NaN"},
		{0.2, 10, 0, "the series needs at least 1 term, got 0"},
		{0.2, 10, -3, "the series needs at least 1 term, got -3"},
		{0.2, 10, infer.CompensationMaxTerms + 1, "13 terms is more than 12"},
	} {
		c, err := infer.NewCompensation(bad.sigmaStar2, bad.lambda, bad.terms)
		if err == nil || c != nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewCompensation(%g, %g, %d) = %v, %v; want an error containing %q", bad.sigmaStar2, bad.lambda, bad.terms, c, err, bad.want)
		}
	}

	c := compPaper(t)
	rng := rand.New(rand.NewPCG(1, 1))
	for _, bad := range []struct {
		deltaE, variance float64
		want             string
		isVariance       bool
	}{
		{1, 0.2, "variance 0.2 ≥ σ*² = 0.2; enlarge the minibatch", true},
		{1, 5, "variance 5 ≥ σ*² = 0.2", true},
		{1, -0.01, "variance -0.01 is not a variance", true},
		{1, math.NaN(), "variance NaN is not a variance", true},
		{math.NaN(), 0.1, "energy difference is NaN", false},
	} {
		ok, err := c.Accept(bad.deltaE, bad.variance, rng)
		if ok || err == nil || !strings.Contains(err.Error(), bad.want) || errors.Is(err, infer.ErrCompensationVariance) != bad.isVariance {
			t.Errorf("Accept(%g, %g) = %v, %v; want false and an error containing %q (wrapping ErrCompensationVariance: %v)", bad.deltaE, bad.variance, ok, err, bad.want, bad.isVariance)
		}
	}
	// The edges of the contract: an exact energy (v = 0) and infinite ΔẼ.
	for _, edge := range []struct {
		deltaE, variance float64
		want             bool
	}{{math.Inf(1), 0, true}, {math.Inf(-1), 0.1, false}, {50, 0, true}, {-50, 0.19, false}} {
		if ok, err := c.Accept(edge.deltaE, edge.variance, rng); err != nil || ok != edge.want {
			t.Errorf("Accept(%g, %g) = %v, %v; want %v", edge.deltaE, edge.variance, ok, err, edge.want)
		}
	}
}

func BenchmarkCompensationSample(b *testing.B) {
	c := compPaper(b)
	rng := rand.New(rand.NewPCG(1, 2))
	s := 0.0
	for b.Loop() {
		s += c.Sample(rng)
	}
	_ = s
}

// The compensation distribution of seed 001 (Eq. 18) and one noise-aware
// exchange test: ΔẼ = 1.3 estimated with variance 0.05 < σ*² = 0.2.
func ExampleCompensation() {
	c, err := infer.NewCompensation(0.2, 10, 3)
	if err != nil {
		panic(err)
	}
	var terms []string
	for k, a := range c.Coefficients()[1:] {
		terms = append(terms, fmt.Sprintf("%+.4g g^%d", a, k+1))
	}
	fmt.Println(strings.Join(terms, " "))
	swap, err := c.Accept(1.3, 0.05, rand.New(rand.NewPCG(1, 2)))
	fmt.Println(swap, err)
	// Output:
	// +0.895 g^1 -0.145 g^2 -2.1 g^3 +2.55 g^4 -1.8 g^5 +0.6 g^6
	// true <nil>
}
