package hmm_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

var update = flag.Bool("update", false, "write data.json from the simulation")

// simulate draws T = 150 observations of the two-state HMM with
// reference.json's true parameters: the first state uniform, then the
// transition rows Gamma[1] = (0.9, 0.1) and Gamma[2] = (0.2, 0.8), y[t] ~
// normal(mu[z[t]], sigma), from PCG(2026, 351) with math/rand/v2's
// variates; values rounded to 6 decimals as data.json holds them.
func simulate() []float64 {
	const n = 150
	rng := rand.New(rand.NewPCG(2026, 351))
	mu := [2]float64{-1, 2} // the truth of reference.json
	const sigma = 1.0
	stay := [2]float64{0.9, 0.8} // Gamma[1, 1] and Gamma[2, 2]
	z := 0
	if rng.Float64() < 0.5 {
		z = 1
	}
	y := make([]float64, n)
	for t := range y {
		if t > 0 && rng.Float64() >= stay[z] {
			z = 1 - z
		}
		y[t] = math.Round((mu[z]+sigma*rng.NormFloat64())*1e6) / 1e6
	}
	return y
}

// TestData checks that data.json is the simulation (go test -update
// writes it).
func TestData(t *testing.T) {
	reference.CheckSeries(t, "data.json", simulate(), *update)
}
