package stdlib

import (
	"math"
	"testing"
)

// TestLogCDFs checks every log CDF against its distribution's CDF written
// out (Φ by erfc, the logistic's sigmoid, the Cauchy's arctangent, the
// Laplace's two exponentials, the exponential's), at points across the
// support and in the far tails, where the log forms must stay finite and
// continuous (log Φ at z = -35 from its asymptotic series, which meets
// erfc's at z = -30 to 1e-9 relative); and every partial against central
// finite differences (relative 1e-6).
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
			for k, f := range []struct {
				want float64
				fn   func([]float64) float64
				grad func([]float64, []float64, float64)
			}{{math.Log(p), c.Lower.Value, c.Lower.Grad}, {math.Log1p(-p), c.Upper.Value, c.Upper.Grad}} {
				got := f.fn(x)
				if math.Abs(got-f.want) > 1e-9*math.Max(1, math.Abs(f.want)) {
					t.Errorf("%s %s at %v: %.12g, want %.12g", name, []string{"lcdf", "lccdf"}[k], x, got, f.want)
				}
				dx := make([]float64, len(x))
				f.grad(dx, x, got)
				for i := range x {
					h := 1e-6 * math.Max(1, math.Abs(x[i]))
					up, down := append([]float64(nil), x...), append([]float64(nil), x...)
					up[i] += h
					down[i] -= h
					fd := (f.fn(up) - f.fn(down)) / (2 * h)
					if math.Abs(fd-dx[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
						t.Errorf("%s %s at %v: ∂/∂x%d %.10g, finite differences %.10g", name, []string{"lcdf", "lccdf"}[k], x, i, dx[i], fd)
					}
				}
			}
		}
	}
	// The far lower tail of Φ: the series meets erfc where it takes over,
	// and stays finite and rising beyond erfc's underflow.
	z := -30 - 1e-9 // the series' side
	series, _ := logPhi(z)
	if exact := math.Log(0.5 * math.Erfc(-z/math.Sqrt2)); math.Abs(series-exact) > 1e-9*math.Abs(exact) {
		t.Errorf("log Φ(-30): the series %.12g, erfc %.12g", series, exact)
	}
	far, mills := logPhi(-40)
	if want := -0.5*1600 - lnSqrt2Pi - math.Log(40); math.Abs(far-want) > 1e-3 || !(mills > 40) {
		t.Errorf("log Φ(-40) %.6g (want about %.6g), φ/Φ %.6g", far, want, mills)
	}
}
