package temper_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/internal/settings"
)

// TestInits: a run's first draw (burn 0) is its starting point, so the
// inits given on the constrained scale come back there, shared or per
// chain; init_radius = 0 starts every chain at θ = 0 (sigma = 1); bad inits
// are errors naming the file and the parameter.
func TestInits(t *testing.T) {
	m, err := temper.Compile("m.ppl", `param { mu: real  sigma: real<lower=0>  p: real<lower=0, upper=1>[2] }
model { mu ~ normal(0, 1)  sigma ~ exponential(1)  p ~ beta(2, 2) }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := func(o temper.Options) [][]float64 {
		o.Iters, o.Chains, o.Settings = 5, 2, map[string]any{"lr": 1e-6}
		res, err := m.Sample(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return [][]float64{res.Draws[0][0][1:], res.Draws[1][0][1:]}
	}
	near := func(got, want []float64) bool {
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				return false
			}
		}
		return true
	}
	shared := file("shared.json", `{"mu": 1.5, "sigma": 0.25, "p": [0.1, 0.9]}`)
	for c, got := range first(temper.Options{InitFile: shared}) {
		if !near(got, []float64{1.5, 0.25, 0.1, 0.9}) {
			t.Errorf("shared init: chain %d starts at %v", c+1, got)
		}
	}
	each := file("each.json", `[{"mu": 1, "sigma": 2, "p": [0.5, 0.5]}, {"mu": -1, "sigma": 3, "p": [0.2, 0.3]}]`)
	got := first(temper.Options{InitFile: each})
	if !near(got[0], []float64{1, 2, 0.5, 0.5}) || !near(got[1], []float64{-1, 3, 0.2, 0.3}) {
		t.Errorf("an init per chain: chains start at %v", got)
	}
	for c, got := range first(temper.Options{InitRadius: 1e-300}) {
		if !near(got, []float64{0, 1, 0.5, 0.5}) {
			t.Errorf("init radius ~0: chain %d starts at %v, want θ = 0", c+1, got)
		}
	}
	var o temper.Options
	if err := settings.Set(&o, "init_radius", "0"); err == nil || !strings.Contains(err.Error(), "must be a positive number") {
		t.Errorf("init_radius = 0: %v", err)
	}
	for _, c := range []struct{ name, text, want string }{
		{"three.json", `[{}, {}, {}]`, "3 starting points for 2 chains"},
		{"outside.json", `{"mu": 0, "sigma": -1, "p": [0.5, 0.5]}`, "starting point 1: sigma: value 1, -1, is outside the parameter's support"},
		{"missing.json", `{"mu": 0, "p": [0.5, 0.5]}`, "no value for the parameter sigma"},
		{"ragged.json", `{"mu": 0, "sigma": 1, "p": [0.5, [0.5]]}`, "p:"},
		{"syntax.json", `{"mu": }`, "syntax.json: invalid character"},
	} {
		_, err := m.Sample(context.Background(), temper.Options{Chains: 2, Iters: 5, InitFile: file(c.name, c.text)})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
