package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestSummaryReadsBothLayouts: temper summary of a run's folder, of its
// draws.csv and of its per-chain files in CmdStan's layout prints the
// same table, so the chains were read apart in both.
func TestSummaryReadsBothLayouts(t *testing.T) {
	model, out := runExample(t, "eight-schools", "300")
	files := runfiles.ChainFiles(out)
	if len(files) != 4 {
		t.Fatalf("%d chain files, want 4", len(files))
	}
	var tables []string
	for _, args := range [][]string{{out}, {filepath.Join(out, runfiles.DrawsFile)}, files} {
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

	// temper plot reads the same folder.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plot", out, "--kind", "rank", "--params", "mu,tau"}, 0, "rank plot of mu, tau in " + filepath.Join(out, "rank.svg")},
		{[]string{"plot", out, "--kind", "pair", "--params", "eta", "--out", filepath.Join(out, "eta.png")}, 2, "--params eta names 8 columns; a plot takes at most 6"},
		{[]string{"plot", out, "--params", "sgima"}, 2, `no column "sgima"`},
		{[]string{"plot", out, "--kind", "violin"}, 2, `no kind "violin"`},
		{[]string{"plot", out, "--kind", "modes"}, 2, "lists no modes"},
		{[]string{"plot", out, "--kind", "swaps"}, 2, "is not a replica-exchange run"},
		{[]string{"plot", out, "--kind", "modes", "--model", model}, 2, "--kind modes draws a 2-D model's density under the draws"},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String()+stderr.String(), c.want) {
			t.Errorf("temper %v: exit %d, %q %q; want exit %d and %q", c.args, code, stdout.String(), stderr.String(), c.code, c.want)
		}
	}
}

// TestPlotExchange draws a replica-exchange run's ladder plots from its
// folder.
func TestPlotExchange(t *testing.T) {
	_, out := runExample(t, "cosine2d", "400")
	var so, se strings.Builder
	if code := run(context.Background(), []string{"plot", out, "--kind", "schedule"}, &so, &se); code != 2 || !strings.Contains(se.String(), "no cyclical schedule") {
		t.Errorf("temper plot --kind schedule of a ladder run: exit %d, %q", code, se.String())
	}
	for _, kind := range []string{"index", "ladder", "swaps"} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), []string{"plot", out, "--kind", kind}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), kind+" plot of chain 1's ladder") {
			t.Errorf("temper plot --kind %s: exit %d, %q %q", kind, code, stdout.String(), stderr.String())
		}
	}
	// --rounds draws the start of the index process: fewer paths, a
	// smaller file than the whole run's.
	size := func(args ...string) int64 {
		var stdout, stderr strings.Builder
		path := filepath.Join(t.TempDir(), "index.svg")
		if code := run(context.Background(), append([]string{"plot", out, "--kind", "index", "--out", path}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("temper plot --kind index %v: exit %d, %s", args, code, stderr.String())
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	if all, first := size(), size("--rounds", "100"); first >= all {
		t.Errorf("--rounds 100 drew %d bytes, the whole run %d", first, all)
	}
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"plot", out, "--kind", "index", "--rounds", "-5"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--rounds -5") {
		t.Errorf("--rounds -5: exit %d, %q", code, stderr.String())
	}
}

// runExample runs examples/NAME/model.ppl with its infer block for iters
// iterations into a temporary folder, and returns the model's path and
// the folder.
func runExample(t *testing.T, name, iters string) (model, out string) {
	t.Helper()
	out = t.TempDir()
	model = filepath.Join("..", "..", "examples", name, "model.ppl")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"run", model, "--out", out, "--quiet", "--iters", iters}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run %s exited %d: %s", model, code, stderr.String())
	}
	return model, out
}

// TestPlotSchedule draws a cyclical run's schedule from its folder.
func TestPlotSchedule(t *testing.T) {
	_, out := runExample(t, "mog25", "600")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"plot", out, "--kind", "schedule"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "schedule plot of cyclical(lr0=0.09, cycles=30, iterations=600") {
		t.Errorf("temper plot --kind schedule: exit %d, %q %q", code, stdout.String(), stderr.String())
	}
}
