package stdlib

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/autodiff"
)

// TestLogCDFs checks every log CDF against its distribution's CDF written
// out (Φ by erfc, the logistic's sigmoid, the Cauchy's arctangent, the
// Laplace's two exponentials, the exponential's), at points across the
// support and in the far tails, where the log forms must stay finite and
// continuous (log Φ at z = -35 from its asymptotic series, which meets
// erfc's at z = -30 to 1e-14 relative); and every log CDF's partials, the
// rest of the distributions' included (their values are R's to check:
// TestLogCDFsAgainstR), against central finite differences.
func TestLogCDFs(t *testing.T) {
	refs := map[string]func(y float64, p []float64) float64{ // P(Y ≤ y)
		"normal":   func(y float64, p []float64) float64 { return 0.5 * math.Erfc(-(y-p[0])/p[1]/math.Sqrt2) },
		"logistic": func(y float64, p []float64) float64 { return 1 / (1 + math.Exp(-(y-p[0])/p[1])) },
		"cauchy":   func(y float64, p []float64) float64 { return 0.5 + math.Atan((y-p[0])/p[1])/math.Pi },
		"double_exponential": func(y float64, p []float64) float64 {
			z := (y - p[0]) / p[1]
			if z < 0 {
				return 0.5 * math.Exp(z)
			}
			return 1 - 0.5*math.Exp(-z)
		},
		"exponential": func(y float64, p []float64) float64 { return 1 - math.Exp(-p[0]*y) },
		"lognormal":   func(y float64, p []float64) float64 { return 0.5 * math.Erfc(-(math.Log(y)-p[0])/p[1]/math.Sqrt2) },
	}
	points := map[string][][]float64{ // y, then the parameters
		"normal":             {{0.3, 0, 1}, {-2.5, 1, 2}, {4, 0.5, 0.7}, {-8, 0, 1}},
		"logistic":           {{0.3, 0, 1}, {-6, 1, 2}, {5, -1, 0.5}},
		"cauchy":             {{0.3, 0, 1}, {-20, 1, 2}, {40, -1, 0.5}},
		"double_exponential": {{0.3, 0, 1}, {-2, 1, 2}, {5, -1, 0.5}},
		"exponential":        {{0.3, 1.5}, {4, 0.2}, {0.01, 3}},
		"lognormal":          {{0.3, 0, 1}, {5, 1, 0.5}, {0.02, -1, 2}},
	}
	for name, ref := range refs {
		c, ok := LookupLogCDF(name)
		if !ok {
			t.Fatalf("no log CDF of %s", name)
		}
		for _, x := range points[name] {
			p := ref(x[0], x[1:])
			for k, want := range []float64{math.Log(p), math.Log1p(-p)} {
				f := []*autodiff.ScalarFunc{c.Lower, c.Upper}[k]
				if got := f.Value(x); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("%s at %v: %.12g, want %.12g", f.Name, x, got, want)
				}
			}
		}
	}
	maps.Copy(points, morePoints)
	checkLogCDFGradients(t, points)
	// The far lower tail of Φ: the series meets erfc where it takes over,
	// and stays finite and rising beyond erfc's underflow.
	z := -30 - 1e-9 // the series' side
	series, _ := logPhi(z)
	if exact := math.Log(0.5 * math.Erfc(-z/math.Sqrt2)); math.Abs(series-exact) > 1e-14*math.Abs(exact) {
		t.Errorf("log Φ(-30): the series %.12g, erfc %.12g", series, exact)
	}
	far, mills := logPhi(-40)
	if want := -0.5*1600 - lnSqrt2Pi - math.Log(40); math.Abs(far-want) > 1e-3 || !(mills > 40) {
		t.Errorf("log Φ(-40) %.6g (want about %.6g), φ/Φ %.6g", far, want, mills)
	}
}

// morePoints are points of cdfs_more.go's distributions, y then the
// parameters, across the support and into both tails.
var morePoints = map[string][][]float64{
	"gamma":                 {{1.5, 2, 0.8}, {0.01, 3, 1}, {30, 2, 1}, {0.5, 0.3, 2}},
	"inv_gamma":             {{0.8, 2, 1}, {0.05, 3, 1}, {40, 2, 1}},
	"chi_square":            {{2, 3}, {0.01, 4}, {60, 5}},
	"inv_chi_square":        {{0.5, 3}, {0.02, 4}, {20, 2}},
	"scaled_inv_chi_square": {{0.5, 3, 0.8}, {0.05, 4, 1.2}, {30, 2, 0.5}},
	"poisson":               {{3, 2.5}, {0, 4}, {20, 3}},
	"beta":                  {{0.3, 2, 3}, {0.001, 2, 5}, {0.999, 3, 2}},
	"student_t":             {{0.3, 3, 0, 1}, {-40, 4, 1, 2}, {25, 2.5, -1, 0.5}, {1e-3, 5, 0, 1}},
	"binomial":              {{3, 10, 0.4}, {0, 20, 0.3}, {18, 20, 0.4}},
	"neg_binomial_2":        {{3, 4, 2}, {0, 10, 0.5}, {40, 5, 3}},
	"beta_binomial":         {{3, 10, 2, 3}, {0, 20, 1.5, 1}, {9, 10, 2, 5}},
	"bernoulli":             {{0, 0.3}},
	"uniform":               {{0.3, -1, 2}, {1.9, -1, 2}},
	"half_normal":           {{0.3, 1}, {5, 0.7}, {1.5, 2}},
	"half_cauchy":           {{0.3, 1}, {50, 2}},
	"weibull":               {{1.2, 2, 1.5}, {0.01, 1.5, 2}, {6, 3, 2}},
	"rayleigh":              {{0.5, 1}, {5, 0.8}},
	"pareto":                {{2, 1, 3}, {1.01, 1, 2}, {50, 0.5, 1.5}},
	"pareto_type_2":         {{2, 0, 1, 3}, {0.51, 0.5, 2, 2}, {100, -1, 2, 1.5}},
	"frechet":               {{1.2, 2, 1}, {0.2, 3, 1}, {20, 1.5, 2}},
	"gumbel":                {{0.3, 0, 1}, {-3, 1, 2}, {20, 0, 1.5}},
	"loglogistic":           {{1.2, 2, 3}, {0.01, 1, 2}, {50, 1, 1.5}},
	"exp_mod_normal":        {{0.5, 0, 1, 2}, {-3, 1, 0.5, 0.8}, {10, 1, 2, 0.3}, {-8, 0, 1, 1}},
	"skew_normal":           {{0.3, 0, 1, 2}, {-0.7, 1, 2, -3}, {2.5, 0, 1, 5}, {-2.5, 0, 1, 5}, {-8, 0, 1, 1}, {30, 0, 1, -2}, {0.2, 0.5, 1.5, 0}, {0.01, 0, 1, 40}},
	"von_mises":             {{0.3, 0, 1}, {-3, 0, 1}, {3.1, 0, 10}, {-1, 2.5, 4}, {0.5, 7, 2}, {-0.3, 0, 60}, {1, 0.9, 500}, {-2, -20, 0.05}},
}

// checkLogCDFGradients checks, at the points of every distribution with
// log CDFs, that the two tails' probabilities add to 1 (to 1e-13), and
// every partial of a real argument against central finite differences
// with h = 10⁻⁶ max(1, |x|), whose error (h²f‴/6 plus ε|f|/h) stays far
// below the relative 10⁻⁶ allowed at these points. The shape partials
// of shapeSlope are differences too, of fourth order with a step a
// thousand times larger: agreement checks their plumbing, and the R test
// the values they difference.
func checkLogCDFGradients(t *testing.T, points map[string][][]float64) {
	t.Helper()
	checks, worst := 0, 0.0
	for _, name := range LogCDFNames() {
		c, _ := LookupLogCDF(name)
		d, _ := Lookup(name)
		if len(points[name]) == 0 {
			t.Errorf("no test points for %s's log CDFs", name)
		}
		for _, x := range points[name] {
			lower, upper := c.Lower.Value(x), c.Upper.Value(x)
			if total := logAddExp(lower, upper); !(math.Abs(total) < 1e-13) {
				t.Errorf("%s at %v: the tails %.15g and %.15g add to e^%.3g", name, x, lower, upper, total)
			}
			for _, f := range []*autodiff.ScalarFunc{c.Lower, c.Upper} {
				v := f.Value(x)
				dx := make([]float64, len(x))
				f.Grad(dx, x, v)
				for i := range x {
					if i < len(d.Int) && d.Int[i] {
						if dx[i] != 0 {
							t.Errorf("%s at %v: ∂/∂x%d of a count %g, want 0", f.Name, x, i, dx[i])
						}
						continue
					}
					h := 1e-6 * math.Max(1, math.Abs(x[i]))
					up, down := slices.Clone(x), slices.Clone(x)
					up[i] += h
					down[i] -= h
					fd := (f.Value(up) - f.Value(down)) / (2 * h)
					rel := math.Abs(fd-dx[i]) / math.Max(1, math.Abs(fd))
					checks++
					worst = math.Max(worst, rel)
					if !(rel < 1e-6) {
						t.Errorf("%s at %v: ∂/∂x%d %.10g, finite differences %.10g", f.Name, x, i, dx[i], fd)
					}
				}
			}
		}
	}
	t.Logf("%d partials against finite differences, worst relative difference %.2g", checks, worst)
}
