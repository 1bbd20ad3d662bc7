package stdlib_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// TestGLMs runs the three GLMs through the harness: values against gonum's
// distuv at the predictor α + x·β computed by a plain loop (1e-10 relative:
// the densities are those of the scalar table, checked there, at predictors
// of order one), gradients in x, α, β (and σ) against finite differences.
// The intercept is a scalar or one per row.
func TestGLMs(t *testing.T) {
	const rows, d = 5, 3
	cases := []struct {
		name string
		y    func(*rand.Rand) float64
		ref  func(y, eta, sigma float64) float64
	}{
		{"bernoulli_logit_glm", adtest.Ints(0, 1), func(y, eta, _ float64) float64 {
			return distuv.Bernoulli{P: 1 / (1 + math.Exp(-eta))}.LogProb(y)
		}},
		{"poisson_log_glm", adtest.Ints(0, 6), func(y, eta, _ float64) float64 {
			return distuv.Poisson{Lambda: math.Exp(eta)}.LogProb(y)
		}},
		{"normal_id_glm", adtest.Real, func(y, eta, sigma float64) float64 {
			return distuv.Normal{Mu: eta, Sigma: sigma}.LogProb(y)
		}},
	}
	for _, c := range cases {
		for _, alpha := range []ad.Shape{{}, {rows}} {
			inputs := []adtest.Input{
				{Shape: ad.Shape{rows}, Draw: c.y, Data: true},
				{Shape: ad.Shape{rows, d}, Draw: adtest.Uniform(-1, 1)},
				{Shape: alpha, Draw: adtest.Real},
				{Shape: ad.Shape{d}, Draw: adtest.Uniform(-1, 1)},
			}
			if c.name == "normal_id_glm" {
				inputs = append(inputs, adtest.Input{Shape: ad.Shape{}, Draw: adtest.Positive})
			}
			adtest.Run(t, adtest.Case{Name: c.name, Inputs: inputs, Build: lookup(c.name),
				Reference: func(x [][]float64) []float64 {
					out := make([]float64, rows)
					for r := range out {
						eta := glmEta(x, r, d)
						sigma := 0.0
						if len(x) > 4 {
							sigma = x[4][0]
						}
						out[r] = c.ref(x[0][r], eta, sigma)
					}
					return out
				}})
		}
	}
}

// glmEta is row r's predictor α + x·β by a plain loop, from the operands
// y, x, α and β of a GLM case (α a scalar or one per row).
func glmEta(x [][]float64, r, d int) float64 {
	eta := x[2][r%len(x[2])]
	for j := range d {
		eta += x[1][r*d+j] * x[3][j]
	}
	return eta
}
