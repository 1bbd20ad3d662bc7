package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPlotModesProjected runs pt on a three-parameter mixture of two
// components, 0.3 at -2·1 and 0.7 at +2·1, and draws its modes without a
// 2-D model: the draws on their first two principal components, coloured
// by the run's two modes, each marked with its mass. The first component
// is the axis joining the modes, which carries nearly all the variance
// (a between-mode variance of 4·0.21·4 = 3.4 per coordinate against a
// within-mode 1: (3 · 3.4 + 1)/(3 · 3.4 + 3) = 85%), so the axis label
// must say so; the masses printed are the run's.
func TestPlotModesProjected(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "mixture.ppl")
	if err := os.WriteFile(model, []byte(`param { x: real[3] }
model {
  target += log_sum_exp([log(0.3) - 0.5 * sum((x + 2) ^ 2), log(0.7) - 0.5 * sum((x - 2) ^ 2)])
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "run")
	if code := run(context.Background(), []string{"run", model, "--sampler", "pt", "--seed", "1", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	svg := filepath.Join(dir, "modes.svg")
	if code := run(context.Background(), []string{"plot", out, "--kind", "modes", "--out", svg}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper plot: exit %d\n%s", code, stderr.String())
	}
	raw, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	for _, want := range []string{"first two principal components", "by the nearest of 2 modes", "PC1 (85%"} {
		if !strings.Contains(text, want) {
			t.Errorf("the projected modes plot lacks %q", want)
		}
	}
	// The masses, within 3 of their Monte Carlo errors (about 0.01 here).
	for mode, exact := range map[string]float64{"1": 0.7, "2": 0.3} {
		m := regexp.MustCompile(`mode ` + mode + `, mass ([0-9.]+)`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("the plot does not mark mode %s", mode)
			continue
		}
		if got, _ := strconv.ParseFloat(m[1], 64); math.Abs(got-exact) > 0.03 {
			t.Errorf("mode %s marked with mass %s, exact %.1f", mode, m[1], exact)
		}
	}
	// A --modes file needs a 2-D model's density.
	stderr.Reset()
	if code := run(context.Background(), []string{"plot", out, "--kind", "modes", "--modes", model, "--out", svg}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "principal components") {
		t.Errorf("--modes without a 2-D model: exit %d, %s", code, stderr.String())
	}
}
