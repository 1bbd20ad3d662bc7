package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestSummaryReadsBothLayouts: temper summary of a run's folder, of its
// draws.csv and of its per-chain files in CmdStan's layout prints the
// same table, so the chains were read apart in both.
func TestSummaryReadsBothLayouts(t *testing.T) {
	out := t.TempDir()
	model := filepath.Join("..", "..", "examples", "eight-schools", "model.ppl")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"run", model, "--out", out, "--quiet", "--iters", "300"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run exited %d: %s", code, stderr.String())
	}
	files := temper.ChainFiles(out)
	if len(files) != 4 {
		t.Fatalf("%d chain files, want 4", len(files))
	}
	var tables []string
	for _, args := range [][]string{{out}, {filepath.Join(out, temper.DrawsFile)}, files} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), append([]string{"summary"}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("temper summary %v exited %d: %s", args, code, stderr.String())
		}
		tables = append(tables, stdout.String())
	}
	if tables[0] != tables[1] || tables[1] != tables[2] {
		t.Errorf("the summaries differ:\nfolder:\n%s\ndraws.csv:\n%s\nchain files:\n%s", tables[0], tables[1], tables[2])
	}
	if !strings.Contains(tables[0], "mu") {
		t.Errorf("no mu in the summary:\n%s", tables[0])
	}
}
