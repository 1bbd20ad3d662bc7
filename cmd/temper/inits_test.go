package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestInitFile: an infer block's init file is read relative to the model,
// and --init replaces it; the first draw of a run without burn-in is its
// start. An init outside the support is bad input (exit 2).
func TestInitFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "inits.json", `{"mu": 0.75, "sigma": 0.5}`)
	other := write(t, dir, "other.json", `[{"mu": -2, "sigma": 3}, {"mu": 2, "sigma": 4}]`)
	bad := write(t, dir, "bad.json", `{"mu": 0, "sigma": 0}`)
	model := write(t, dir, "m.ppl", "param { mu: real  sigma: real<lower=0> }\nmodel { mu ~ normal(0, 1)  sigma ~ exponential(1) }\ninfer {\n  init = \"inits.json\"\n  lr = 1e-9\n  chains = 2\n  iters = 3\n}\n")
	starts := func(args ...string) [][2]float64 {
		out := filepath.Join(dir, "out")
		if code, _, errs := runCLI(t, context.Background(), append([]string{"run", model, "--quiet", "--out", out}, args...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		tab, err := draws.ReadFile(filepath.Join(out, runfiles.DrawsFile))
		if err != nil {
			t.Fatal(err)
		}
		var s [][2]float64
		for r, it := range tab.Iter {
			if it == 1 {
				s = append(s, [2]float64{tab.Values[tab.Index("mu")][r], tab.Values[tab.Index("sigma")][r]})
			}
		}
		return s
	}
	if got := starts(); len(got) != 2 || got[0] != got[1] || got[0][0] != 0.75 || got[0][1]-0.5 > 1e-12 || got[0][1]-0.5 < -1e-12 {
		t.Errorf("the infer block's inits: chains start at %v", got)
	}
	if got := starts("--init", other); len(got) != 2 || got[0][0] != -2 || got[1][0] != 2 {
		t.Errorf("--init: chains start at %v", got)
	}
	code, _, errs := runCLI(t, context.Background(), "run", model, "--quiet", "--out", filepath.Join(dir, "bad"), "--init", bad)
	if code != 2 || !strings.Contains(errs, "bad.json: starting point 1: sigma: value 1, 0, is outside the parameter's support") {
		t.Errorf("an init outside the support: exit %d, %s", code, errs)
	}
}
