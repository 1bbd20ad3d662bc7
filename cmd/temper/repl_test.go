package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREPLScript runs temper repl on a model and data given as arguments,
// with commands from a file instead of a terminal (the REPL itself is
// tested in package repl, on a pseudo-terminal too).
func TestREPLScript(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", regression)
	data := write(t, dir, "d.json", `{"x": [1, 2, 3, 4], "y": [1.1, 2.0, 2.9, 4.2]}`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runScript(t, "sum(y)\n:run iters=100 lr=1e-3\n:save "+out+"\n:quit\nnot reached\n", "repl", model, "--data", data, "--no-history")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"loaded " + model, "compiled: 3 unconstrained parameters, 4 observations", "10.2", "sghmc, 4 chains × 100 draws", "ess_bulk", "draws, summary and diagnostics in " + out} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "not reached") {
		t.Error("the session went on after :quit")
	}
	for _, f := range []string{"draws.csv", "summary.csv", "diagnostics.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestREPLScriptFails: a piped script whose inputs fail goes on to the end,
// as a session does, and then exits 1 saying how many failed, so that a
// shell or CI sees it.
func TestREPLScriptFails(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", regression)
	code, stdout, stderr := runScript(t, "sum(nope)\n:lod x\n1 + 1\n", "repl", model, "--no-history")
	if code != 1 || !strings.Contains(stderr, "the script had errors: 2 of its inputs failed") {
		t.Errorf("exit %d, stderr %q; want 1 and the count", code, stderr)
	}
	for _, w := range []string{`unknown name "nope"`, "unknown command :lod", "\n2\n"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
}

// runScript runs the command line args with script as the REPL's standard
// input, a file rather than a terminal.
func runScript(t *testing.T, script string, args ...string) (int, string, string) {
	t.Helper()
	f, err := os.Open(write(t, t.TempDir(), "script", script))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	replInput = f
	defer func() { replInput = os.Stdin }()
	return runCLI(t, context.Background(), args...)
}
