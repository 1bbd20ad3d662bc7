package pkode_test

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

// pkData is data.json.
type pkData struct {
	N    int       `json:"N"`
	Ts   []float64 `json:"ts"`
	Conc []float64 `json:"conc"`
	Dose float64   `json:"dose"`
	V    float64   `json:"V"`
}

// simulate draws the concentrations after one oral dose of 100 mg with
// reference.json's true parameters (ka = 1/h, ke = 0.2/h, sigma = 0.15, V
// = 10 L known), from PCG(2026, 35) with math/rand/v2's normal variates,
// by the closed form C(t) = D·ka/(V(ka − ke))·(e^{−ke t} − e^{−ka t});
// values rounded to 4 decimals as data.json holds them.
func simulate() pkData {
	const ka, ke, sigma, dose, v = 1.0, 0.2, 0.15, 100.0, 10.0 // the truth of reference.json
	ts := []float64{0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24}
	rng := rand.New(rand.NewPCG(2026, 35))
	d := pkData{N: len(ts), Ts: ts, Dose: dose, V: v}
	for _, t := range ts {
		c := dose * ka / (v * (ka - ke)) * (math.Exp(-ke*t) - math.Exp(-ka*t))
		d.Conc = append(d.Conc, math.Round(c*math.Exp(sigma*rng.NormFloat64())*1e4)/1e4)
	}
	return d
}

// TestData checks that data.json is the simulation (go test -update
// writes it).
func TestData(t *testing.T) {
	want := simulate()
	if *update {
		raw, _ := json.Marshal(want)
		if err := os.WriteFile("data.json", append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile("data.json")
	if err != nil {
		t.Fatal(err)
	}
	var got pkData
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if got.N != want.N || got.Dose != want.Dose || got.V != want.V || !slices.Equal(got.Ts, want.Ts) || !slices.Equal(got.Conc, want.Conc) {
		t.Errorf("data.json is not the simulation: got %+v, want %+v (go test -update writes it)", got, want)
	}
}
