package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTranslateCommand: a Stan program with counterparts for everything
// translates (exit 0) to a model that temper check accepts with the
// example's data; one with gaps lists them at line:col and exits 1, still
// printing the translation; one that does not parse exits 2.
func TestTranslateCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "model.ppl")
	code, stdout, stderr := runCLI(t, context.Background(), "translate", filepath.Join("..", "..", "examples", "eight-schools", "model.stan"), "-o", out)
	if code != exitOK || !strings.Contains(stdout, "translated to") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, context.Background(), "check", out, "--data", filepath.Join("..", "..", "examples", "eight-schools", "schools.json"))
	if code != exitOK || !strings.Contains(stdout, "ok (10 unconstrained parameters, 8 observations)") {
		t.Fatalf("check: exit %d\n%s%s", code, stdout, stderr)
	}

	gaps := filepath.Join("..", "..", "lang", "stan", "testdata", "gaps.stan")
	code, stdout, stderr = runCLI(t, context.Background(), "translate", gaps)
	if code != exitFailure || !strings.Contains(stderr, "gaps.stan:25:24: integrate_ode_rk45") || !strings.Contains(stderr, "constructs without a counterpart") {
		t.Fatalf("gaps: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "// TODO(translate): reject has no counterpart") || !strings.Contains(stdout, "while k < 3 {") || !strings.Contains(stdout, "sigma ~ normal(0, 1)") {
		t.Fatalf("gaps: the translation is not printed:\n%s", stdout)
	}

	bad := write(t, dir, "bad.stan", "parameters {\n  real x\n}\n")
	code, _, stderr = runCLI(t, context.Background(), "translate", bad)
	if code != exitBadInput || !strings.Contains(stderr, "bad.stan:3:1: expected \";\", found \"}\"") {
		t.Fatalf("syntax error: exit %d\n%s", code, stderr)
	}

	// An if on a parameter translates, but the .ppl refuses it: exit 2
	// with the checker's diagnostic against the translation.
	cond := write(t, dir, "cond.stan", "parameters {\n  real b;\n}\nmodel {\n  if (b > 0) b ~ normal(0, 1);\n}\n")
	code, _, stderr = runCLI(t, context.Background(), "translate", cond, "-o", filepath.Join(dir, "cond.ppl"))
	if code != exitBadInput || !strings.Contains(stderr, "the translation does not check") || !strings.Contains(stderr, "cond.ppl:6:6:") || !strings.Contains(stderr, "cond.ppl:6:6: from "+cond+":5:3") {
		t.Fatalf("a translation that does not check: exit %d\n%s", code, stderr)
	}

	code, stdout, _ = runCLI(t, context.Background(), "help", "translate")
	if code != exitOK || !strings.HasPrefix(stdout, "usage: temper translate") {
		t.Fatalf("help translate: exit %d\n%s", code, stdout)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
