package reference

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

// File is a reference posterior kept beside an example's model
// (reference.json): the command that made it, the simulation's true
// values where the data are simulated, and the posterior's moments.
type File struct {
	Command   string
	Truth     map[string]float64
	Posterior map[string]struct{ Mean, SD, MCSE float64 }
}

// ReadFile reads a reference.json, failing t on any error.
func ReadFile(t testing.TB, path string) *File {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f File
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &f
}

// Moments are the posterior's means and sds, for Compare.
func (f *File) Moments() map[string]Moments {
	out := map[string]Moments{}
	for name, p := range f.Posterior {
		out[name] = Moments{Mean: p.Mean, SD: p.SD}
	}
	return out
}

// CheckTruth fails t unless each true value lies within z posterior sds
// of the posterior mean, and returns the largest distance in sds.
func (f *File) CheckTruth(t testing.TB, z float64) float64 {
	t.Helper()
	worst := 0.0
	for name, truth := range f.Truth {
		p, ok := f.Posterior[name]
		if !ok {
			t.Errorf("%s: a true value but no posterior", name)
			continue
		}
		d := math.Abs(p.Mean-truth) / p.SD
		worst = max(worst, d)
		if d > z {
			t.Errorf("%s: posterior mean %.4f, sd %.4f: the true %.4f is %.1f sds away", name, p.Mean, p.SD, truth, d)
		}
	}
	return worst
}

// CheckPosterior checks an example whose reference posterior is
// refPath: the reference against its simulation's truth (within truthZ
// posterior sds), then, unless the tests are short, a run of model as
// `temper run` makes it (seed 1) against the reference (means within
// meanTol reference sds, sds within sdTol relatively).
func CheckPosterior(t *testing.T, model, refPath string, truthZ, meanTol, sdTol float64) {
	t.Helper()
	ref := ReadFile(t, refPath)
	t.Logf("truth: at most %.2f posterior sds from the reference means", ref.CheckTruth(t, truthZ))
	if testing.Short() {
		t.Skip("runs the example's sampler")
	}
	res := RunDefaults(t, model, 1)
	m, s := Compare(t, res, ref.Moments(), meanTol, sdTol)
	t.Logf("against the reference: means within %.3f sds, sds within %.1f%%", m, 100*s)
}

// CheckSeries checks that the data file path holds the series y as
// {"T": len(y), "y": y}; with write set, it writes the file first.
func CheckSeries(t testing.TB, path string, y []float64, write bool) {
	t.Helper()
	if write {
		raw, _ := json.Marshal(map[string]any{"T": len(y), "y": y})
		if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		T int
		Y []float64
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.T != len(y) || !slices.Equal(d.Y, y) {
		t.Fatalf("%s is not the simulation: run the test with -update to write it", path)
	}
}
