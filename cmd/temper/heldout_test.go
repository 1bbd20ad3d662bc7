package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeldoutExample runs examples/heldout as its comment says: temper run
// on the first 800 German credit applicants (with its defaults, fewer
// iterations), then temper predict on the last 200. The held-out rows are
// 61 bad of 200: always answering "good" scores 0.695, and the rate alone
// gives an NLL of 0.616 per row (its entropy), so the model must beat
// both: it makes 0.75 and 0.494 at the defaults' 2,000 draws a chain; the
// bars 0.72 and 0.55 are a model that learnt something, with room for
// 500 draws' Monte Carlo error (an NLL's is under 0.005 here).
func TestHeldoutExample(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "heldout")
	out := filepath.Join(t.TempDir(), "out")
	model := filepath.Join(dir, "model.ppl")
	if code, _, stderr := runCLI(t, context.Background(), "run", model, "--out", out, "--iters", "500", "--seed", "1", "--quiet"); code != exitOK {
		t.Fatalf("temper run: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "predict", model, "--draws", filepath.Join(out, "draws.csv"), "--data", filepath.Join(dir, "test.csv"))
	if code != exitOK {
		t.Fatalf("temper predict: exit %d\n%s%s", code, stdout, stderr)
	}
	var rows int
	var nll, accuracy float64
	at := strings.Index(stdout, "y[n]: ")
	if at < 0 {
		t.Fatalf("no y[n] line in %q", stdout)
	}
	if _, err := fmt.Sscanf(stdout[at:], "y[n]: %d rows, NLL %g per row, accuracy %g", &rows, &nll, &accuracy); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	if rows != 200 || nll > 0.55 || accuracy < 0.72 {
		t.Errorf("held out: %d rows, NLL %.4f per row (want under 0.55), accuracy %.4f (want above 0.72)", rows, nll, accuracy)
	}
}
