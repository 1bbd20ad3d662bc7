package mixture_test

import (
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "write data.json from the simulation")

// simulate draws N = 200 observations of the two-component mixture with
// reference.json's true parameters (theta = 0.35 for the component of
// mean −1 and sd 0.7, else mean 2 and sd 1.2) from PCG(2026, 352) with
// math/rand/v2's variates; values rounded to 6 decimals as data.json
// holds them.
func simulate() []float64 {
	const n = 200
	rng := rand.New(rand.NewPCG(2026, 352))
	const theta = 0.35
	mu := [2]float64{-1, 2} // the truth of reference.json
	sigma := [2]float64{0.7, 1.2}
	y := make([]float64, n)
	for i := range y {
		k := 1
		if rng.Float64() < theta {
			k = 0
		}
		y[i] = math.Round((mu[k]+sigma[k]*rng.NormFloat64())*1e6) / 1e6
	}
	return y
}

// TestData checks that data.json is the simulation (go test -update
// writes it).
func TestData(t *testing.T) {
	y := simulate()
	if *update {
		raw, _ := json.Marshal(map[string]any{"N": len(y), "y": y})
		if err := os.WriteFile("data.json", append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile("data.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		N int
		Y []float64
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.N != len(y) || !slices.Equal(d.Y, y) {
		t.Fatal("data.json is not the simulation: run the test with -update to write it")
	}
}
