package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPlotChecks runs a normal mean with a generated replication of its
// data and --log-lik, and draws every model check of it: k̂, the
// replications' densities over the data's, a statistic's replications
// against the data's, and LOO-PIT. The model is the data's own (a normal
// of known sd, a flat-enough prior), so its LOO-PIT values must look
// uniform: their Kolmogorov-Smirnov distance from the uniform's must be
// below 0.356, the 1% critical value for 20 values, and every k̂ of a
// model this regular below the threshold. Each plot's title says what it
// shows; a check without the data field it needs is refused.
func TestPlotChecks(t *testing.T) {
	dir := t.TempDir()
	data, err := filepath.Abs(filepath.Join("..", "..", "examples", "evidence", "normal_mean.json"))
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model.ppl")
	src := `data { N: int  y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 2)
  for n in plate(N) { y[n] ~ normal(mu, 1) }
}
generated {
  for n in plate(N) { y_rep = normal_rng(mu, 1) }
}
infer { data = "` + data + `" }
`
	if err := os.WriteFile(model, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"run", model, "--sampler", "nuts", "--log-lik", "--seed", "1", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	for _, c := range []struct {
		kind  string
		title string
	}{
		{"khat", "0 of 20 above 0.70"},
		{"ppc", "y: replications (50 draws, light) and the data (dark)"},
		{"ppc-stat", "sd(y) of 8000 replications"},
		{"loo-pit", "LOO-PIT of y (20)"},
	} {
		svg := filepath.Join(dir, c.kind+".svg")
		stdout.Reset()
		if code := run(context.Background(), []string{"plot", out, "--kind", c.kind, "--model", model, "--y", "y", "--yrep", "y_rep", "--stat", "sd", "--out", svg}, &stdout, &stderr); code != 0 {
			t.Fatalf("temper plot --kind %s: exit %d\n%s", c.kind, code, stderr.String())
		}
		raw, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), c.title) {
			t.Errorf("--kind %s: the plot does not say %q", c.kind, c.title)
		}
	}
	tab, err := readDraws([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Y []float64 }
	if err := json.Unmarshal([]byte(readFile(t, data)), &d); err != nil {
		t.Fatal(err)
	}
	y := d.Y
	reps, err := replications(tab, "y_rep", len(y))
	if err != nil {
		t.Fatal(err)
	}
	pit, err := looPIT(tab, y, false, reps)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(pit)
	ks := 0.0
	for i, v := range pit {
		ks = math.Max(ks, math.Max(float64(i+1)/float64(len(pit))-v, v-float64(i)/float64(len(pit))))
	}
	t.Logf("LOO-PIT %v; KS distance %.3f", pit, ks)
	if ks > 0.356 {
		t.Errorf("LOO-PIT is not uniform: KS distance %.3f", ks)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"plot", out, "--kind", "ppc", "--model", model}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "--y (the data field)") {
		t.Errorf("--kind ppc without --y: exit %d, %s", code, stderr.String())
	}
}

func readFile(t *testing.T, path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
