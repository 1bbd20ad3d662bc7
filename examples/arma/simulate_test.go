package arma_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

var update = flag.Bool("update", false, "write data.json from the simulation")

// simulate draws T = 300 values of ARMA(1,1) with reference.json's true parameters
// from err[0] = 0 and y[0] = mu, as the model conditions on, with
// N(0, sigma²) errors from PCG(2026, 36) and math/rand/v2's normal
// variates; values rounded to 6 decimals as data.json holds them.
func simulate() []float64 {
	const n = 300
	rng := rand.New(rand.NewPCG(2026, 36))
	const mu, phi, theta, sigma = 0.5, 0.6, 0.3, 1.0 // the truth of reference.json
	y := make([]float64, n)
	prevY, prevErr := mu, 0.0
	for t := range y {
		e := sigma * rng.NormFloat64()
		y[t] = math.Round((mu+phi*prevY+theta*prevErr+e)*1e6) / 1e6
		prevErr = y[t] - (mu + phi*prevY + theta*prevErr) // the error the model computes from the rounded value
		prevY = y[t]
	}
	return y
}

// TestData checks that data.json is the simulation (go test -update
// writes it).
func TestData(t *testing.T) {
	reference.CheckSeries(t, "data.json", simulate(), *update)
}
