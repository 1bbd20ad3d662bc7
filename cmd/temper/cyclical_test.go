package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
)

var mog25Model = filepath.Join("..", "..", "examples", "mog25", "model.ppl")

// TestCyclicalPresetsFromCLI runs the three cyclical presets on the mixture
// of 25 Gaussians: draws.csv gets a cycle__ column numbering the cycles from
// 1, the exploration stages keep no draws, and snapshot keeps one draw at
// the end of each cycle.
func TestCyclicalPresetsFromCLI(t *testing.T) {
	for _, c := range []struct {
		sampler string
		draws   int // per chain: 2,400 iterations, 12 cycles of 200
	}{
		{"cyclical_sgld", 12 * 150},  // β = 1/4 of every cycle explores
		{"cyclical_sghmc", 12 * 100}, // β = 1/2
		{"snapshot", 12},
	} {
		out := t.TempDir()
		args := []string{"run", mog25Model, "--sampler", c.sampler, "--set", "cycles=12", "--iters", "2400", "--chains", "2", "--out", out, "--quiet"}
		if c.sampler == "cyclical_sghmc" {
			args = append(args, "--set", "explore_fraction=0.5", "--set", "lr=0.01")
		}
		if code, stdout, stderr := runCLI(t, context.Background(), args...); code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", c.sampler, code, stdout, stderr)
		}
		tab, err := draws.ReadFile(filepath.Join(out, "draws.csv"))
		if err != nil {
			t.Fatal(err)
		}
		cyc := tab.ByChain("cycle__")
		if cyc == nil || len(cyc) != 2 || len(cyc[0]) != c.draws || len(cyc[1]) != c.draws {
			t.Fatalf("%s: cycle__ column %d chains, want 2 of %d draws", c.sampler, len(cyc), c.draws)
		}
		for i, v := range cyc[0] {
			if want := float64(i*12/c.draws + 1); v != want {
				t.Fatalf("%s: draw %d in cycle %g, want %g", c.sampler, i+1, v, want)
			}
		}
		if c.sampler == "snapshot" {
			var ends []int
			for r, iter := range tab.Iter {
				if tab.Chain[r] == 1 {
					ends = append(ends, iter)
				}
			}
			for i, iter := range ends {
				if iter != 200*(i+1) {
					t.Errorf("snapshot draw %d at iteration %d, want the cycle's end %d", i+1, iter, 200*(i+1))
				}
			}
		}
		code, stdout, stderr := runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"), "--weight-cycles")
		if code != 0 || !strings.Contains(stdout, "cycle-weighted") || !strings.Contains(stdout, "x.2") {
			t.Errorf("%s: summary --weight-cycles: exit %d\n%s%s", c.sampler, code, stdout, stderr)
		}
	}
	// A file without cycles cannot be weighted by cycle.
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "run", mog25Model, "--sampler", "sgld", "--iters", "100", "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"), "--weight-cycles")
	if code != exitBadInput || !strings.Contains(stderr, "needs the lp__ and cycle__ columns") {
		t.Errorf("--weight-cycles without cycle__: exit %d, %s", code, stderr)
	}
}

// TestCyclicalBadSettings: impossible cycles are bad input (exit 2) with the
// setting named, at its place in the file when the file set it.
func TestCyclicalBadSettings(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "explore_fraction=1"}, "explore_fraction: the exploration proportion β must lie in [0, 1), got 1"},
		{[]string{"--set", "lr=0"}, "lr: must be positive, got 0"},
		{[]string{"--set", "cycles=500", "--iters", "100", "--burn", "50"}, "cycles: M = 500 cycles do not fit in the K = 150 iterations"},
		{[]string{"--set", "samples_per_cycle=2", "--thin", "5"}, "samples_per_cycle = 2 and thin = 5 both choose the draws kept"},
		{[]string{"--sampler", "resgld", "--set", "schedule=cyclical"}, "does not combine with exchange=metropolis"},
	} {
		args := append([]string{"run", mog25Model, "--out", dir, "--quiet"}, c.args...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	src, err := os.ReadFile(mog25Model)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "explore_fraction = 0.25", "explore_fraction = 1.5", 1)
	model := write(t, dir, "model.ppl", bad)
	code, _, stderr := runCLI(t, context.Background(), "run", model, "--out", dir, "--quiet")
	line := 1 + strings.Count(bad[:strings.Index(bad, "explore_fraction = 1.5")], "\n")
	if want := fmt.Sprintf("model.ppl:%d:", line); code != exitBadInput || !strings.Contains(stderr, want) || !strings.Contains(stderr, "got 1.5") {
		t.Errorf("explore_fraction = 1.5 in the infer block: exit %d, %q; want exit 2 at %s", code, stderr, want)
	}
}

// TestPredictWeightCycles: temper predict --weight-cycles runs on a
// cyclical run's draws, and the weighted model average it rests on agrees
// with the unweighted one for equal weights and ignores draws of weight 0.
func TestPredictWeightCycles(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", `data { N: int  x: real[N]  y: int[N] }
param { w: real }
model {
  w ~ normal(0, 3)
  for n in plate(N) { y[n] ~ bernoulli_logit(w * x[n]) }
}
predict {
  for n in plate(N) { y[n] ~ bernoulli_logit(w * x[n]) }
  p = w
}
`)
	data := write(t, dir, "d.json", `{"x": [-2, -1, -0.5, 0.5, 1, 2], "y": [0, 0, 1, 1, 0, 1]}`)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, context.Background(), "run", model, "--data", data, "--out", out, "--iters", "2000",
		"--sampler", "cyclical_sgld", "--set", "lr=0.05", "--set", "cycles=8", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "predict", model, "--draws", filepath.Join(out, "draws.csv"), "--data", data, "--weight-cycles")
	if code != 0 || !strings.Contains(stdout, "cycle-weighted") || !strings.Contains(stdout, "y[n]: 6 rows") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}

	src, _ := os.ReadFile(model)
	f, err := lang.Parse(model, src)
	if err == nil {
		_, err = lang.Check(f, compile.Env())
	}
	if err != nil {
		t.Fatal(err)
	}
	bound, err := compile.ReadAll([]string{data}, compile.DataDecls(f))
	if err != nil {
		t.Fatal(err)
	}
	m, err := compile.Compile(f, bound)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	points := [][]float64{{0.3}, {1.7}, {-0.4}}
	plain, _ := p.Predict(points)
	equal, _ := p.PredictWeighted(points, []float64{2, 2, 2})
	first, _ := p.Predict(points[:1])
	zeroed, _ := p.PredictWeighted(points, []float64{5, 0, 0})
	if math.Abs(plain.Samples[0].NLL-equal.Samples[0].NLL) > 1e-14 || math.Abs(plain.Defines[0].Mean[0]-equal.Defines[0].Mean[0]) > 1e-14 {
		t.Errorf("equal weights: NLL %v, mean %v; unweighted %v, %v", equal.Samples[0].NLL, equal.Defines[0].Mean[0], plain.Samples[0].NLL, plain.Defines[0].Mean[0])
	}
	if math.Abs(first.Samples[0].NLL-zeroed.Samples[0].NLL) > 1e-14 || math.Abs(zeroed.Defines[0].Mean[0]-0.3) > 1e-15 {
		t.Errorf("weights (5, 0, 0): NLL %v, mean %v; the first draw alone %v, 0.3", zeroed.Samples[0].NLL, zeroed.Defines[0].Mean[0], first.Samples[0].NLL)
	}
}

// TestTable5Direction is seed 002's Table 5 on German credit (the logistic
// example, 49 coefficients, minibatches of 500): with the paper's budget
// of 6,000 iterations (1,000 burn-in, appendix A.2) for each of 4 chains,
// cyclical SGLD and SGHMC (M = 30, β = 1/4) reach a higher minimum bulk ESS
// than the paper's "traditional" baselines, the same dynamics on the
// decreasing step size ε/√k with ε = η0 (Section 2; ε = 0.004 for SGLD,
// 0.002 for SGHMC with friction 0.1: in runs of 35,000 iterations these
// cyclical samplers keep every mean within 0.17 sd of Stan's). Seeds 1 and
// 2 give minimum bulk ESS 16.9-18.2 vs 4.7-4.9 (SGLD) and 103-136 vs
// 5.7-6.2 (SGHMC), mean bulk ESS 163-165 vs 11-13 and 415-430 vs 48-49; the paper
// reports mean ESS 978 vs 492 and 2436 vs 2007 (on 25 covariates). Against
// SGLD and SGHMC on a constant step the cyclical samplers do not win on
// this unimodal posterior (examples/mog25/README.md has the figures).
func TestTable5Direction(t *testing.T) {
	if testing.Short() {
		t.Skip("four 3-second sampling runs; skipped with -short")
	}
	model := filepath.Join("..", "..", "examples", "logistic", "model.ppl")
	minESS := func(sampler string, set ...string) float64 {
		out := t.TempDir()
		args := []string{"run", model, "--sampler", sampler, "--burn", "1000", "--iters", "5000", "--thin", "1", "--chains", "4", "--seed", "1", "--out", out, "--quiet"}
		for _, kv := range set {
			args = append(args, "--set", kv)
		}
		if code, _, stderr := runCLI(t, context.Background(), args...); code != 0 {
			t.Fatalf("%s: %s", sampler, stderr)
		}
		raw, err := os.ReadFile(filepath.Join(out, "diagnostics.json"))
		if err != nil {
			t.Fatal(err)
		}
		var diag struct {
			MinESSBulk float64 `json:"min_ess_bulk"`
		}
		if err := json.Unmarshal(raw, &diag); err != nil {
			t.Fatal(err)
		}
		return diag.MinESSBulk
	}
	for _, c := range []struct {
		name, baseline, cyclical, eps string
	}{
		{"SGLD", "sgld", "cyclical_sgld", "0.004"},
		{"SGHMC", "sghmc", "cyclical_sghmc", "0.002"},
	} {
		traditional := minESS(c.baseline, "lr="+c.eps, "gamma=0.5", "b=1")
		cyc := minESS(c.cyclical, "lr="+c.eps, "cycles=30", "explore_fraction=0.25")
		t.Logf("German credit, minimum bulk ESS: %s (ε/√k) %.1f, c%s %.1f", c.name, traditional, c.name, cyc)
		if !(cyc > traditional) {
			t.Errorf("c%s's minimum bulk ESS %.1f is not above %s's %.1f", c.name, cyc, c.name, traditional)
		}
	}
}

// TestModeCoverageFromCLI runs the mog25 example as its infer block says
// (cSGLD, the paper's settings, seed 1) and reports its mode coverage with
// temper summary --modes; examples/mog25/mog25_test.go finds 20 of 25 for
// this seed, and the test asks for at least 10 so that another platform's
// rounding cannot fail it.
func TestModeCoverageFromCLI(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := runCLI(t, context.Background(), "run", mog25Model, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	modes := filepath.Join("..", "..", "examples", "mog25", "modes.csv")
	code, stdout, stderr := runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"), "--modes", modes)
	var covered int
	i := strings.Index(stdout, "mode coverage: ")
	if code != 0 || i < 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := fmt.Sscanf(stdout[i:], "mode coverage: %d of 25 modes have more than 100 draws within 0.25", &covered); err != nil || covered < 10 {
		t.Errorf("%s: covered %d, %v", stdout[i:], covered, err)
	}
	bad := write(t, t.TempDir(), "modes.csv", "a,b\n0,0\n")
	code, _, stderr = runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"), "--modes", bad)
	if code != exitBadInput || !strings.Contains(stderr, "must have two columns named after columns of") {
		t.Errorf("modes file with unknown columns: exit %d, %s", code, stderr)
	}
}
