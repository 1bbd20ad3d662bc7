package stan_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/lang/stan"
)

// compileWith parses, checks and compiles a .ppl source with one data file.
func compileWith(t *testing.T, name string, src []byte, dataPath string) *compile.Model {
	t.Helper()
	f, err := lang.Parse(name, src)
	if err == nil {
		_, err = lang.Check(f, compile.Env())
	}
	if err != nil {
		t.Fatalf("%s:\n%s\n%s", name, lang.Format(err, src), src)
	}
	data, err := compile.ReadAll([]string{dataPath}, compile.DataDecls(f))
	if err != nil {
		t.Fatal(err)
	}
	m, err := compile.Compile(f, data)
	if err != nil {
		t.Fatalf("%s:\n%s\n%s", name, lang.Format(err, src), src)
	}
	return m
}

// logDensity is the exact log density at the unconstrained point theta,
// log-Jacobians included.
func logDensity(t *testing.T, m *compile.Model, theta []float64) float64 {
	t.Helper()
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var energy, variance [1]float64
	grad := make([]float64, m.Dim())
	if err := ev.Evaluate(theta, nil, energy[:], grad, variance[:]); err != nil {
		t.Fatal(err)
	}
	return -energy[0]
}

// TestExamplesTranslate translates each example's model.stan, a Stan
// program of the example's model as a Stan user writes it, compiles the
// result with the example's data, and checks that its log density equals
// that of the shipped model.ppl at random unconstrained points: the same
// parameters in the same order, the same density up to rounding (the
// .ppl's ~ keeps every normalising constant, as the translation's does).
func TestExamplesTranslate(t *testing.T) {
	for _, c := range []struct{ name, data string }{
		{"eight-schools", "schools.json"},
		{"garch", "data.json"},
		{"arma", "data.json"},
		{"gp-poisson", "data.json"},
		{"logistic", "../data/german_credit.csv"},
		{"radon", "radon.json"},
		{"varying-slopes", "sleep.json"},
		{"pk-ode", "data.json"},
		{"hmm", "data.json"},
		{"mixture", "data.json"},
		{"lotka-volterra", "data.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", c.name)
			src, err := os.ReadFile(filepath.Join(dir, "model.stan"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := stan.TranslateSource(string(src), stan.Options{Env: compile.Env(), Name: "model.stan"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Gaps) > 0 {
				t.Fatalf("gaps: %v\n%s", res.Gaps, res.PPL)
			}
			dataPath := filepath.Join(dir, c.data)
			got := compileWith(t, c.name+"/model.stan.ppl", []byte(res.PPL), dataPath)
			shipped, err := os.ReadFile(filepath.Join(dir, "model.ppl"))
			if err != nil {
				t.Fatal(err)
			}
			want := compileWith(t, c.name+"/model.ppl", shipped, dataPath)
			if !slices.Equal(got.ParamNames(), want.ParamNames()) {
				t.Fatalf("parameters %v, the shipped model's %v\n%s", got.ParamNames(), want.ParamNames(), res.PPL)
			}
			rng := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			theta := make([]float64, got.Dim())
			worst := 0.0
			for range 5 {
				for i := range theta {
					theta[i] = rng.Float64()*2 - 1
				}
				a, b := logDensity(t, got, theta), logDensity(t, want, theta)
				d := math.Abs(a - b)
				if !(d <= 1e-8*(1+math.Abs(b))) {
					t.Fatalf("at %v: the translation's log density %.12g, the shipped model's %.12g\n%s", theta, a, b, res.PPL)
				}
				worst = max(worst, d)
			}
			t.Logf("%d parameters; largest log density difference %.3g", got.Dim(), worst)
		})
	}
}
