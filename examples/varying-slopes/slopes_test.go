package varyingslopes_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/examples/internal/reference"
)

// TestVaryingSlopesAgainstHMC runs the example as `temper run` does (its
// infer block: the defaults, 4 chains × 10,000 draws) and checks mu, tau,
// the correlation L[2, 1] = Omega[1, 2], sigma, the 36 subject effects and
// the generated mean slope
// against a reference drawn by Metropolis-corrected HMC on the exact
// density (examples/internal/reference; 4 chains × 4,000 draws, its split
// R-hat below 1.01; sampling the model's non-centred form instead moves
// its mu, tau, L and sigma by at most 0.039 sd). Tolerances: means within
// 0.1 posterior sd and sds within 10%; the run's smallest bulk ESS,
// mu[2]'s, is about 2,800, where a mean's Monte Carlo error is 0.02 sd and
// an sd's 1.3% (the reference's own, at its ESS, about as much again).
// Measured with seed 1: the worst mean 0.035 sd off, the worst sd 7.0%
// off.
func TestVaryingSlopesAgainstHMC(t *testing.T) {
	m, err := temper.CompileFile("model.ppl", nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.HMC{Chains: 4, Warmup: 1000, Draws: 4000, Seed: 1}.Run(m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]reference.Moments{}
	for name, mo := range ref {
		if name != "L.1.1" && name != "L.1.2" && name != "L.2.2" { // L[1, 1] = 1 and L[1, 2] = 0 are fixed; L[2, 2] = √(1 - L[2, 1]²)
			want[name] = mo
		}
	}
	want["Omega.1.2"] = ref["L.2.1"]
	// The generated mean slope, mu[2] in the data's units.
	ySD := dataSD(t)
	want["slope"] = reference.Moments{Mean: ref["mu.2"].Mean * ySD, SD: ref["mu.2"].SD * ySD}
	res := reference.RunDefaults(t, "model.ppl", 1)
	if len(res.Warnings) > 0 {
		t.Errorf("warnings with the defaults: %q", res.Warnings)
	}
	worstMean, worstSD := reference.Compare(t, res, want, 0.1, 0.1)
	t.Logf("%d columns: worst mean %.3f sd, worst sd %.1f%%; reference mu.2 %+v, L.2.1 %+v", len(want), worstMean, 100*worstSD, ref["mu.2"], ref["L.2.1"])
}

// dataSD is the sample sd of y (n - 1), as the transformed data block's
// sd(y).
func dataSD(t *testing.T) float64 {
	raw, err := os.ReadFile("sleep.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Y []float64 }
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var m, ss float64
	for _, y := range d.Y {
		m += y / float64(len(d.Y))
	}
	for _, y := range d.Y {
		ss += (y - m) * (y - m)
	}
	return math.Sqrt(ss / float64(len(d.Y)-1))
}
