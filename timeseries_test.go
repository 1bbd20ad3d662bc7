package temper_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/temper-ppl/temper"
)

// The time-series examples (examples/garch, examples/arma), whose
// likelihoods are recursions written with local variables and loops:
// their log densities against the same densities written in Go, and
// their gradients against finite differences.

// readSeries reads the y of an example's data.json.
func readSeries(t *testing.T, path string) []float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Y []float64 }
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d.Y
}

func logNormal(x, mu, sigma float64) float64 {
	z := (x - mu) / sigma
	return -0.5*math.Log(2*math.Pi) - math.Log(sigma) - 0.5*z*z
}

// logistic is 1/(1 + e^-u), and logLogistic its log, as Stan's interval
// transform and its Jacobian use them.
func logistic(u float64) float64    { return 1 / (1 + math.Exp(-u)) }
func logLogistic(u float64) float64 { return -math.Log1p(math.Exp(-u)) }

// garchLogDensity is examples/garch/model.ppl's log density at the
// unconstrained point th = (mu, log omega, logit alpha, logit of beta's
// share of 1 - alpha), with the transforms' log-Jacobians.
func garchLogDensity(th, y []float64) float64 {
	mu, omega := th[0], math.Exp(th[1])
	alpha := logistic(th[2])
	beta := (1 - alpha) * logistic(th[3])
	lp := th[1] + // omega = e^u
		logLogistic(th[2]) + logLogistic(-th[2]) + // alpha in (0, 1)
		math.Log(1-alpha) + logLogistic(th[3]) + logLogistic(-th[3]) // beta in (0, 1 - alpha)
	lp += logNormal(mu, 0, 1) + logNormal(omega, 0, 1)
	s2 := omega / (1 - alpha - beta)
	for t := range y {
		if t > 0 {
			s2 = omega + alpha*(y[t-1]-mu)*(y[t-1]-mu) + beta*s2
		}
		lp += logNormal(y[t], mu, math.Sqrt(s2))
	}
	return lp
}

// armaLogDensity is examples/arma/model.ppl's at th = (mu, phi, theta,
// log sigma), phi and theta in (-1, 1).
func armaLogDensity(th, y []float64) float64 {
	mu, sigma := th[0], math.Exp(th[3])
	phi, theta := -1+2*logistic(th[1]), -1+2*logistic(th[2])
	lp := math.Log(2) + logLogistic(th[1]) + logLogistic(-th[1]) +
		math.Log(2) + logLogistic(th[2]) + logLogistic(-th[2]) + th[3]
	lp += logNormal(mu, 0, 10) + logNormal(phi, 0, 2) + logNormal(theta, 0, 2) -
		math.Log(math.Pi*5) - math.Log1p(sigma*sigma/25)
	prevY, prevErr := mu, 0.0
	for _, x := range y {
		nu := mu + phi*prevY + theta*prevErr
		prevErr, prevY = x-nu, x
		lp += logNormal(prevErr, 0, sigma)
	}
	return lp
}

func TestTimeSeriesExamples(t *testing.T) {
	for _, c := range []struct {
		dir    string
		want   func(th, y []float64) float64
		points [][]float64
	}{
		{"examples/garch", garchLogDensity, [][]float64{{0.1, math.Log(0.2), -1.7, 1.4}, {-0.2, -0.5, 0.3, -0.8}, {0.5, -3, -3, 2.5}}},
		{"examples/arma", armaLogDensity, [][]float64{{0.5, 1.4, 0.6, 0}, {-1, -0.3, -1.2, 0.7}, {2, 2.5, 1.5, -0.5}}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			m, err := temper.CompileFile(c.dir+"/model.ppl", nil)
			if err != nil {
				t.Fatal(err)
			}
			y := readSeries(t, c.dir+"/data.json")
			for _, th := range c.points {
				grad := make([]float64, len(th))
				lp, err := m.LogDensity(th, grad)
				if err != nil {
					t.Fatal(err)
				}
				want := c.want(th, y)
				// Both sum the same T terms in the same order; 1e-10
				// relative leaves room for the ops' own rounding.
				if math.Abs(lp-want) > 1e-10*math.Abs(want) {
					t.Errorf("at %v: log density %.15g, in Go %.15g", th, lp, want)
				}
				for i := range th {
					const h = 1e-6
					up, down := append([]float64(nil), th...), append([]float64(nil), th...)
					up[i] += h
					down[i] -= h
					fd := (c.want(up, y) - c.want(down, y)) / (2 * h)
					// Central differences err by O(h²·f''') plus
					// rounding of O(ε|f|/h): 1e-6 relative to the
					// larger of 1 and the derivative covers both.
					if math.Abs(grad[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
						t.Errorf("at %v: ∂/∂θ%d = %.10g, finite difference %.10g", th, i, grad[i], fd)
					}
				}
			}
		})
	}
}
