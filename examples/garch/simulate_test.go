package garch_test

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

var update = flag.Bool("update", false, "write data.json from the simulation")

// simulate draws T = 500 returns of GARCH(1,1) with reference.json's
// true parameters, the first variance the stationary one ω/(1 − α − β), from
// PCG(2026, 35) with math/rand/v2's normal variates; values rounded to 6
// decimals as data.json holds them.
func simulate() []float64 {
	const n = 500
	rng := rand.New(rand.NewPCG(2026, 35))
	const mu, omega, alpha, beta = 0.1, 0.2, 0.15, 0.7 // the truth of reference.json
	s2 := omega / (1 - alpha - beta)
	y := make([]float64, n)
	for t := range y {
		if t > 0 {
			s2 = omega + alpha*(y[t-1]-mu)*(y[t-1]-mu) + beta*s2
		}
		y[t] = math.Round((mu+math.Sqrt(s2)*rng.NormFloat64())*1e6) / 1e6
	}
	return y
}

// TestData checks that data.json is the simulation (go test -update
// writes it).
func TestData(t *testing.T) {
	reference.CheckSeries(t, "data.json", simulate(), *update)
}
