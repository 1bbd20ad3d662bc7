package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/settings"
)

func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const regression = `data {
  N: int
  x: real[N]
  y: real[N]
}
param {
  a: real
  b: real
  sigma: real<lower=0>
}
model {
  a ~ normal(0, 10)
  b ~ normal(0, 10)
  sigma ~ exponential(1)
  for n in plate(N) {
    y[n] ~ normal(a + b * x[n], sigma)
  }
}
`

// TestBadInput is the table of malformed programs and data: each gives exit
// code 2 and a message naming the place, and none panics.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := write(t, dir, "good.ppl", regression)
	goodData := write(t, dir, "good.json", `{"N": 3, "x": [1, 2, 3], "y": [1.5, 2.5, 2.9]}`)
	cases := []struct {
		name  string
		model string // source, or "" for good.ppl
		data  string // JSON or CSV content, or "" for good.json
		ext   string
		args  []string
		want  []string
	}{
		{name: "syntax error", model: "param { a: real }\nmodel {\n  a ~ normal(0, 1\n}\n", want: []string{"bad.ppl:4:1", `expected "," or ")", found "}"`}},
		{name: "unknown name", model: "param { a: real }\nmodel { a ~ normal(mu, 1) }\n", want: []string{"2:20", `unknown name "mu"`}},
		{name: "unknown distribution", model: "param { a: real }\nmodel { a ~ nromal(0, 1) }\n", want: []string{"2:13", `"nromal"`}},
		{name: "wrong arity", model: "param { a: real }\nmodel { a ~ normal(0, 1, 2) }\n", want: []string{"2:", "normal takes 2 arguments"}},
		{name: "shape mismatch", model: "data { N: int  x: real[N] }\nparam { w: real[2] }\nmodel { target += sum(w * x) }\n",
			data: `{"N": 3, "x": [1, 2, 3]}`, want: []string{"3:", "cannot be broadcast"}},
		{name: "matmul shapes", model: "data { N: int  X: real[N, 3] }\nparam { w: real[4] }\nmodel { target += sum(X @ w) }\n",
			data: `{"N": 2, "X": [[1, 2, 3], [4, 5, 6]]}`, want: []string{"3:", "inner dimensions 3 and 4 differ"}},
		{name: "missing data", data: `{"N": 3, "x": [1, 2, 3]}`, want: []string{"good.ppl:4:3", "missing data for y"}},
		{name: "wrong length", data: `{"N": 3, "x": [1, 2], "y": [1, 2, 3]}`, want: []string{"good.ppl:3:3", "shape [2], declared real[N] = [3]"}},
		{name: "NaN data", data: `{"N": 3, "x": [1, "NaN", 3], "y": [1, 2, 3]}`, want: []string{"x[2] is NaN"}},
		{name: "non-integer", model: "data { N: int  k: int[N] }\nparam { l: real<lower=0> }\nmodel { for n in plate(N) { k[n] ~ poisson(l) } }\n",
			data: `{"N": 2, "k": [1, 2.5]}`, want: []string{"k[2] is 2.5", "declared int"}},
		{name: "constraint violated in data", model: "data { N: int  y: int<lower=0, upper=1>[N] }\nparam { a: real }\nmodel { for n in plate(N) { y[n] ~ bernoulli_logit(a) } }\n",
			data: `{"N": 2, "y": [0, 2]}`, want: []string{"y[2] is 2", "above its upper bound 1"}},
		{name: "ragged JSON", data: `{"N": 2, "x": [[1], [2, 3]], "y": [1, 2]}`, want: []string{"ragged"}},
		{name: "bad JSON", data: `{"N": 3,`, want: []string{"not a JSON object"}},
		{name: "CSV with a bad cell", data: "x,y\n1,2\noops,3\n", ext: ".csv", want: []string{":3:", `"oops" is not a number`}},
		{name: "CSV with unbound columns", data: "x,y,z\n1,2,3\n", ext: ".csv", want: []string{`"z"`, "bind no data field"}},
		{name: "unknown sampler", args: []string{"--sampler", "gibbs"}, want: []string{`unknown sampler "gibbs"`}},
		{name: "bad sampler option", args: []string{"--set", "lr=-1"}, want: []string{"lr: must be positive"}},
		{name: "unknown sampler option", args: []string{"--set", "frction=0.1", "--sampler", "sghmc"}, want: []string{`sampler sghmc has no setting "frction"; did you mean friction?`}},
		{name: "setting of another composition", args: []string{"--set", "rho=0.9"}, want: []string{"rho: does not apply"}},
		{name: "one replica", args: []string{"--sampler", "deo_sgd", "--replicas", "1"}, want: []string{"replica exchange needs at least 2 replicas"}},
		{name: "lr ends reversed", args: []string{"--sampler", "deo_sgd", "--set", "lr_min=0.5", "--set", "lr_max=0.1"}, want: []string{"lr_min = 0.5 must be below lr_max = 0.1"}},
		{name: "swap rate outside (0, 1)", args: []string{"--sampler", "deo_sgd", "--set", "swap_rate=1.5"}, want: []string{"swap_rate: the target swap rate S must lie in (0, 1)"}},
		{name: "bad keep", args: []string{"--keep", "some"}, want: []string{"--keep must be target or all"}},
		{name: "bad replica setting in the file", model: "param { a: real }\nmodel { a ~ normal(0, 1) }\ninfer {\n  sampler = resgld(t_max = 0.5)\n}\n", want: []string{"bad.ppl:4:20", "t_min = 1 must be below t_max = 0.5"}},
		{name: "bad flag", args: []string{"--chains", "many"}, want: []string{`--chains must be a whole number ≥ 1, got "many"`}},
		{name: "zero chains", args: []string{"--chains", "0", "--iters", "10"}, want: []string{`--chains must be a whole number ≥ 1, got "0"`}},
		{name: "zero iters", args: []string{"--iters", "0"}, want: []string{`--iters must be a whole number ≥ 1, got "0"`}},
		{name: "zero thin", args: []string{"--thin", "0"}, want: []string{`--thin must be a whole number ≥ 1, got "0"`}},
		{name: "zero replicas", args: []string{"--sampler", "deo_sgd", "--replicas", "0"}, want: []string{`--replicas must be a whole number ≥ 1, got "0"`}},
		{name: "zero replicas by --set", args: []string{"--set", "replicas=0"}, want: []string{`--set replicas must be a whole number ≥ 1, got "0"`}},
		{name: "zero batch", args: []string{"--batch", "0"}, want: []string{`--batch must be a whole number ≥ 1, got "0"; leave it out for every row`}},
		{name: "negative batch", args: []string{"--batch", "-2"}, want: []string{`--batch must be a whole number ≥ 1, got "-2"`}},
		{name: "batch above the rows", args: []string{"--batch", "4"}, want: []string{"batch = 4 is more than the 3 rows of the data"}},
		{name: "negative noise", args: []string{"--energy-noise", "-1"}, want: []string{`--energy-noise must be a number ≥ 0, got "-1"`}},
		{name: "checkpoint interval without a file", args: []string{"--checkpoint-every", "30"}, want: []string{"no checkpoint file is named"}},
		{name: "zero checkpoint interval", args: []string{"--checkpoint", filepath.Join(dir, "c"), "--checkpoint-every", "0"}, want: []string{`--checkpoint-every must be a positive number of seconds, got "0"`}},
		{name: "resume from nothing", args: []string{"--resume", filepath.Join(dir, "none.ckpt")}, want: []string{"--resume:", "no such file"}},
		{name: "zero replicas in the file", model: "param { a: real }\nmodel { a ~ normal(0, 1) }\ninfer {\n  replicas = 0\n}\n", want: []string{"bad.ppl:4:3", `replicas must be a whole number ≥ 1, got "0"`}},
		{name: "resume in the file", model: "param { a: real }\nmodel { a ~ normal(0, 1) }\ninfer {\n  resume = \"x\"\n}\n", want: []string{"bad.ppl:4:3", "resume belongs in temper run's flags, not in an infer block"}},
		{name: "missing file", args: []string{"--data", filepath.Join(dir, "nope.json")}, want: []string{"no such file"}},
		{name: "plate index misuse", model: "data { N: int  y: real[N] }\nparam { a: real }\nmodel { for n in plate(N) { y[n] ~ normal(a * n, 1) } }\n",
			data: `{"N": 2, "y": [1, 2]}`, want: []string{"3:", "plate index"}},
		{name: "misspelt setting", model: "param { a: real }\nmodel { a ~ normal(0, 1) }\ninfer {\n  iter = 100\n}\n", want: []string{"bad.ppl:4:3", `"iter" is neither a run setting`, "did you mean iters?"}},
		{name: "no parameters", model: "data { N: int }\nmodel { }\n", data: `{"N": 1}`, want: []string{"no parameters"}},
		// A constant outside a distribution's support would make every chain
		// diverge at its first step: the checker says which argument.
		{name: "negative literal scale", model: "param { a: real }\nmodel { a ~ normal(0, -1) }\n", want: []string{"bad.ppl:2:23: normal's scale must be positive, got -1"}},
		{name: "zero literal rate", model: "param { a: real<lower=0> }\nmodel { a ~ gamma(2, 0) }\n", want: []string{"bad.ppl:2:22: gamma's rate must be positive, got 0"}},
		{name: "literal probability above 1", model: "data { N: int  y: int[N] }\nparam { a: real }\nmodel { a ~ normal(0, 1)\n  for n in plate(N) { y[n] ~ bernoulli(1.5) } }\n",
			data: `{"N": 1, "y": [1]}`, want: []string{"bad.ppl:4:40: bernoulli's probability must be in [0, 1], got 1.5"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := good
			if c.model != "" {
				model = write(t, t.TempDir(), "bad.ppl", c.model)
			}
			data := goodData
			if c.data != "" {
				ext := c.ext
				if ext == "" {
					ext = ".json"
				}
				data = write(t, t.TempDir(), "data"+ext, c.data)
			}
			args := append([]string{"run", model, "--data", data, "--out", t.TempDir(), "--iters", "5", "--quiet"}, c.args...)
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != exitBadInput {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, exitBadInput, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestBatchWithoutPlate: a model without data has no rows to minibatch.
func TestBatchWithoutPlate(t *testing.T) {
	cosine := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	code, _, stderr := runCLI(t, context.Background(), "run", cosine, "--batch", "2", "--iters", "5", "--out", t.TempDir(), "--quiet")
	if code != exitBadInput || !strings.Contains(stderr, "batch = 2, but the model has no plate") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestRunFlagsFromTable: temper run -h lists a flag for each run key that
// the command line may set, with its value and doc, and so does the usage
// synopsis of docs/running.md; --set may give a run key, over the infer
// block.
func TestRunFlagsFromTable(t *testing.T) {
	code, _, stderr := runCLI(t, context.Background(), "run", "-h")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, k := range settings.Keys() {
		if want := "--" + k.Flag + " " + k.Arg; !strings.Contains(stderr, want) || !strings.Contains(stderr, k.Doc) {
			t.Errorf("temper run -h lacks %q or its doc:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"--set key=value", "--sampler NAME", "--quiet"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("temper run -h lacks %q", want)
		}
	}
	running, err := os.ReadFile(filepath.Join("..", "..", "docs", "running.md"))
	if err != nil {
		t.Fatal(err)
	}
	language, err := os.ReadFile(filepath.Join("..", "..", "docs", "language.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range settings.Keys() {
		written := strings.Contains(string(running), "[--"+k.Flag+" ") || k.Kind == settings.Switch && strings.Contains(string(running), "[--"+k.Flag+"]")
		if k.Allowed(settings.OnCommandLine) == nil && !written {
			t.Errorf("docs/running.md's temper run synopsis lacks --%s", k.Flag)
		}
		if k.Allowed(settings.InInferBlock) == nil && !strings.Contains(string(language), "| `"+k.Name+"` |") {
			t.Errorf("docs/language.md's infer block table lacks %s", k.Name)
		}
	}
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", regression+"infer {\n  chains = 3\n  iters = 50\n}\n")
	data := write(t, dir, "d.json", `{"N": 4, "x": [1, 2, 3, 4], "y": [1.1, 2.0, 2.9, 4.2]}`)
	out := filepath.Join(dir, "out")
	code, _, stderr = runCLI(t, context.Background(), "run", model, "--data", data, "--out", out, "--quiet", "--set", "chains=2", "--set", "lr=1e-3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tab, err := draws.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.ByChain("a")) != 2 || len(tab.ByChain("a")[0]) != 50 {
		t.Errorf("want 2 chains (--set) × 50 draws (the infer block)")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", regression)
	data := write(t, dir, "d.json", `{"x": [1, 2, 3], "y": [1.5, 2.5, 2.9]}`) // N inferred from x
	code, stdout, stderr := runCLI(t, context.Background(), "check", model, "--data", data)
	if code != 0 || !strings.Contains(stdout, "ok (3 unconstrained parameters, 3 observations)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	bad := write(t, dir, "bad.ppl", "param { a: real }\nmodel { a ~ normal(0, s) }\n")
	code, _, stderr = runCLI(t, context.Background(), "check", bad)
	if code != exitBadInput || !strings.Contains(stderr, "bad.ppl:2:23") || !strings.Contains(stderr, "^") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestRunWritesOutputs samples the regression and checks the three files.
func TestRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", regression)
	data := write(t, dir, "d.json", `{"N": 4, "x": [1, 2, 3, 4], "y": [1.1, 2.0, 2.9, 4.2]}`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, context.Background(), "run", model, "--data", data, "--out", out,
		"--sampler", "sgld", "--set", "lr=1e-3", "--chains", "2", "--iters", "200", "--thin", "2", "--batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "sigma") || !strings.Contains(stdout, "ess_bulk") {
		t.Errorf("the summary table is missing:\n%s", stdout)
	}
	tab, err := draws.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Columns, ","); got != "lp__,a,b,sigma" {
		t.Errorf("columns %q", got)
	}
	if len(tab.ByChain("a")) != 2 || len(tab.ByChain("a")[0]) != 100 {
		t.Errorf("want 2 chains × 100 draws")
	}
	for _, s := range tab.Values[tab.Index("sigma")] {
		if s <= 0 {
			t.Fatalf("sigma = %v on the constrained scale", s)
		}
	}
	for _, f := range []string{"summary.csv", "diagnostics.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	code, stdout, _ = runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"))
	if code != 0 || !strings.Contains(stdout, "sigma") {
		t.Errorf("summary: exit %d\n%s", code, stdout)
	}
	code, _, stderr = runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"), "--replica", "2")
	if code != exitBadInput || !strings.Contains(stderr, "has no replica__ column (it was written without --keep all)") {
		t.Errorf("summary --replica 2 of a file without replicas: exit %d, %s", code, stderr)
	}
}

// TestInterruptKeepsDraws cancels a run (as Ctrl-C does) and finds every
// draw made before it in draws.csv, with the summary of those draws.
func TestInterruptKeepsDraws(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	cosine := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	done := make(chan int)
	var stderr strings.Builder
	go func() {
		done <- run(ctx, []string{"run", cosine, "--out", out, "--iters", "100000000", "--thin", "1", "--quiet"}, &strings.Builder{}, &stderr)
	}()
	// Wait for some draws, then interrupt.
	for {
		info, err := os.Stat(filepath.Join(out, "draws.csv"))
		if err == nil && info.Size() > 20000 {
			break
		}
	}
	cancel()
	if code := <-done; code != exitFailure {
		t.Fatalf("exit %d, want %d; %s", code, exitFailure, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
	tab, err := draws.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatalf("draws.csv after an interrupt: %v", err)
	}
	if len(tab.Chain) < 100 {
		t.Fatalf("only %d draws kept", len(tab.Chain))
	}
	if _, err := os.Stat(filepath.Join(out, "summary.csv")); err != nil {
		t.Error(err)
	}
}

// TestCosineWithNoise runs the DEO paper's 2D target with the synthetic
// noise of the papers' experiments.
func TestCosineWithNoise(t *testing.T) {
	cosine := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	code, stdout, stderr := runCLI(t, context.Background(), "run", cosine, "--grad-noise", "2", "--energy-noise", "2",
		"--iters", "2000", "--out", t.TempDir())
	if code != 0 || !strings.Contains(stdout, "beta.2") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestPredict runs a classifier and evaluates its predict block on the
// training rows: the labels are separable by the sign of x, so the model
// average must classify all of them.
func TestPredict(t *testing.T) {
	dir := t.TempDir()
	model := write(t, dir, "m.ppl", `data { N: int  x: real[N]  y: int[N] }
param { w: real }
model {
  w ~ normal(0, 3)
  for n in plate(N) { y[n] ~ bernoulli_logit(w * x[n]) }
}
predict {
  for n in plate(N) { y[n] ~ bernoulli_logit(w * x[n]) }
}
`)
	data := write(t, dir, "d.json", `{"x": [-2, -1, -0.5, 0.5, 1, 2], "y": [0, 0, 0, 1, 1, 1]}`)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, context.Background(), "run", model, "--data", data, "--out", out, "--iters", "500",
		"--set", "lr=0.01", "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCLI(t, context.Background(), "predict", model, "--draws", filepath.Join(out, "draws.csv"), "--data", data)
	if code != 0 || !strings.Contains(stdout, "y[n]: 6 rows") || !strings.Contains(stdout, "accuracy 1.0000") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, context.Background(), "predict", model, "--draws", data, "--data", data)
	if code != exitBadInput {
		t.Fatalf("a JSON file as draws: exit %d, %s", code, stderr)
	}
}

// TestSamplersNamePapers: temper samplers names the source papers as
// readers know them, not by the code's seed numbers, and temper check
// counts in the singular where there is one.
func TestSamplersNamePapers(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"samplers"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper samplers: exit %d", code)
	}
	if out := stdout.String(); strings.Contains(out, "seed 00") || !strings.Contains(out, "Deng et al. 2023") || !strings.Contains(out, "Luo et al. 2020") {
		t.Errorf("temper samplers says:\n%s", out)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"check", filepath.Join("..", "..", "examples", "modes", "double_well.ppl")}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "(1 unconstrained parameter, 0 observations)") {
		t.Errorf("temper check: exit %d, %q", code, stdout.String())
	}
}
