package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDivergingChains: on U(x) = x⁴ SGLD at step 0.13 lets a chain's noise
// throw it past the point where a step overshoots (seed 4: chain 2 at
// iteration 335), and at 0.2 every chain. One chain lost is a warning and
// exit 0, with the summary of the other three; every chain lost is exit 1.
func TestDivergingChains(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "quartic.ppl", "param { x: real }\nmodel { target += -x^4 }\n")
	code, out, errs := runCLI(t, context.Background(), "run", model, "--sampler", "sgld", "--set", "lr=0.13", "--iters", "1000", "--seed", "4", "--out", filepath.Join(dir, "one"))
	if code != 0 {
		t.Fatalf("one chain of four diverged: exit %d: %s", code, errs)
	}
	for _, want := range []string{"summary of 3 of the 4 chains (the others diverged)", "warning: 1 of 4 chains diverged and stopped (chain 2 replica 1 at iteration"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, context.Background(), "run", model, "--sampler", "sgld", "--set", "lr=0.2", "--iters", "1000", "--seed", "4", "--out", filepath.Join(dir, "all"))
	if code != 1 || !strings.Contains(errs, "every chain diverged") || !strings.Contains(out, "no chain finished: nothing to summarise") {
		t.Errorf("every chain diverged: exit %d\n%s\n%s", code, out, errs)
	}
}
