package temper_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestOneChainOfFourDiverges: U(x) = x⁴ with SGLD at step 0.01 is stable
// near 0 and explodes from x = 30 (a step moves x by about -1000). The
// chain started there stops; the run goes on with the other three, its
// summary is of them and says so, and diagnostics.json names the failure.
func TestOneChainOfFourDiverges(t *testing.T) {
	m, err := temper.Compile("quartic.ppl", "param { x: real }\nmodel { target += -x^4 }", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Sampler: "sgld", Settings: map[string]any{"lr": 0.01},
		Chains: 4, Iters: 300, Seed: 1, Init: [][]float64{{0.1}, {-0.2}, {30}, {0.3}}})
	if err != nil {
		t.Fatalf("one chain's divergence failed the run: %v", err)
	}
	var table strings.Builder
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteWarnings(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"summary of 3 of the 4 chains (the others diverged)", "warning: 1 of 4 chains diverged and stopped (chain 3 replica 1 at iteration"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, table.String())
		}
	}
	dir := t.TempDir()
	if err := res.Save(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, runfiles.DiagnosticsFile))
	if err != nil {
		t.Fatal(err)
	}
	var diag struct {
		ChainsFinished int `json:"chains_finished"`
		Failures       []struct {
			Chain, Replica, Iteration int
			What, Value               string
		}
		Warnings []string
		Draws    int `json:"draws_per_chain"`
	}
	if err := json.Unmarshal(raw, &diag); err != nil {
		t.Fatal(err)
	}
	if diag.ChainsFinished != 3 || len(diag.Failures) != 1 || diag.Failures[0].Chain != 3 || diag.Draws != 300 || len(diag.Warnings) == 0 || !strings.HasPrefix(diag.Warnings[0], "1 of 4 chains diverged") {
		t.Errorf("diagnostics.json: %s", raw)
	}
	if f := diag.Failures[0]; f.Replica != 1 || f.Iteration < 1 || f.What == "" || f.Value == "" {
		t.Errorf("the failure does not say where and what: %+v", f)
	}
}
