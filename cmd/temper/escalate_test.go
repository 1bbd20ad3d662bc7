package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestRunEscalates: temper run with the defaults on the centred eight
// schools, a batch given (so sampler auto starts with SGHMC, whose
// warm-up fails in the funnel), prints the plan's choice and each
// escalation, keeps each earlier attempt's files under attempts/, writes
// the last attempt's (NUTS's) draws where the user looks, and lists the
// attempts in diagnostics.json. A stale attempts folder from an earlier
// run is removed first.
func TestRunEscalates(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "centred.ppl", `data { J: int  y: real[J]  sigma: real<lower=0>[J] }
param { mu: real  tau: real<lower=0>  theta: real[J] }
model {
  mu ~ normal(0, 5)
  tau ~ cauchy(0, 5)
  theta ~ normal(mu, tau)
  for j in plate(J) { y[j] ~ normal(theta[j], sigma[j]) }
}
`)
	data := write(t, dir, "schools.json", `{"J": 8, "y": [28, 8, -3, 7, -1, 1, 18, 12], "sigma": [15, 10, 16, 11, 9, 11, 10, 18]}`)
	out := filepath.Join(dir, "out")
	stale := filepath.Join(out, "attempts", "9-sgld")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, context.Background(), "run", model, "--data", data, "--batch", "4", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sampler auto chose sghmc: batch = 4 was given", "escalating to nuts, because in attempt 1 (sghmc) the run failed: warm-up", "attempt 1 is kept in " + filepath.Join(out, "attempts", "1-sghmc")} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the stale %s is still there", stale)
	}
	for _, f := range []string{runfiles.DiagnosticsFile, runfiles.DrawsFile, runfiles.SummaryFile} {
		if _, err := os.Stat(filepath.Join(out, "attempts", "1-sghmc", f)); err != nil {
			t.Errorf("attempt 1: %v", err)
		}
	}
	if head := rows(t, filepath.Join(out, runfiles.DrawsFile))[0]; !strings.Contains(head, "accept_stat__") {
		t.Errorf("the final draws.csv is not NUTS's: %s", head)
	}
	diag := readJSON(t, filepath.Join(out, runfiles.DiagnosticsFile))
	attempts, _ := diag["attempts"].([]any)
	plan, _ := diag["plan"].(map[string]any)
	if len(attempts) < 2 || plan["sampler"] != "sghmc" || diag["sampler"] != "nuts" {
		t.Errorf("diagnostics.json: sampler %v, plan %v, attempts %v", diag["sampler"], plan, attempts)
	}
}

// readJSON reads a JSON object from a file.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
