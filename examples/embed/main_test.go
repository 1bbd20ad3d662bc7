package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbed runs the program briefly: the posterior means must land near
// the coefficients the data were simulated from (with 500 rows the
// posterior sd is about 0.1 to 0.15, so 0.5 is over three sds), and the
// output files must be written.
func TestEmbed(t *testing.T) {
	var out strings.Builder
	dir := t.TempDir()
	res, err := run(context.Background(), &out, 2000, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(out.String())
	for _, w := range []string{"running mean of beta.1", "ess_bulk", "beta.3", "max R-hat"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q", w)
		}
	}
	truth := append([]float64{trueAlpha}, trueBeta...)
	for i, s := range res.Summary()[1:] {
		if math.Abs(s.Mean-truth[i]) > 0.5 {
			t.Errorf("%s: posterior mean %.3f, simulated from %g", s.Name, s.Mean, truth[i])
		}
	}
	for _, f := range []string{"draws.csv", "summary.csv", "diagnostics.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
