package repl

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
)

// session is a Session on a buffer, with a helper that evaluates an input
// and returns what it printed.
type session struct {
	*Session
	out *strings.Builder
	t   *testing.T
}

func newTestSession(t *testing.T) *session {
	var out strings.Builder
	return &session{NewSession(&out), &out, t}
}

func (s *session) eval(input string) string {
	s.t.Helper()
	s.out.Reset()
	s.Eval(context.Background(), input)
	return s.out.String()
}

// expect evaluates input and fails unless the output has every want.
func (s *session) expect(input string, want ...string) string {
	s.t.Helper()
	got := s.eval(input)
	for _, w := range want {
		if !strings.Contains(got, w) {
			s.t.Errorf("%s\n  printed:\n%s\n  lacks %q", input, got, w)
		}
	}
	return got
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNeedsMore(t *testing.T) {
	cases := []struct {
		text string
		more bool
	}{
		{"log(2)", false},
		{"model {", true},
		{"model {\n  y ~ normal(0, 1)\n", true},
		{"model {\n  y ~ normal(0, 1)\n}", false},
		{"f(1,\n", true},
		{"[1, 2,", true},
		{"model { // }\n", true},
		{"model { /* } */ }", false},
		{"/* open", true},
		{`infer { out = "}" }`, false},
		{`infer { out = "{" `, true},
		{"}", false},
		{")) (", false},
		{":load {", false},
	}
	for _, c := range cases {
		if got := NeedsMore(c.text); got != c.more {
			t.Errorf("NeedsMore(%q) = %v, want %v", c.text, got, c.more)
		}
	}
}

const regressionBlocks = `data {
  N: int
  x: real[N]
  y: real[N]
}
param { a: real  b: real  sigma: real<lower=0> }
`

// TestSession is a whole session: blocks, a mistake and its correction,
// data, expressions, a run and everything done with its draws.
func TestSession(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t)
	s.expect("log_sum_exp([1, 2, 3])", "3.40761")
	s.expect("[1, 2] * 2", "[2, 4]")
	s.expect("log(", "<input 3>:1:5", "^")
	s.expect(regressionBlocks, "data: N, x, y", "param: a, b, sigma")
	// A mistake: the caret is under the input's line and column, and the
	// session keeps going without the block.
	out := s.expect("model {\n  a ~ normal(0, 10)\n  for n in plate(N) { y[n] ~ normal(a + b * x[n], sgma) }\n}",
		`<input 5>:3:51: unknown name "sgma"`, "did you mean \"sigma\"?", "  for n in plate(N) { y[n] ~ normal(a + b * x[n], sgma) }\n"+strings.Repeat(" ", 50)+"^")
	if strings.Contains(out, "model:") {
		t.Errorf("a model block with an error was accepted:\n%s", out)
	}
	s.expect("exp(a)", ":run first")
	s.expect(":run", "no model yet")
	s.expect("model {\n  a ~ normal(0, 10)\n  b ~ normal(0, 10)\n  sigma ~ exponential(1)\n  for n in plate(N) { y[n] ~ normal(a + b * x[n], sigma) }\n}",
		"model: 4 statements", "waiting for data: N, x, y")
	s.expect("sum(x)", "need values first: N, x, y")
	data := writeFile(t, dir, "d.json", `{"N": 4, "x": [1, 2, 3, 4], "y": [1.1, 2.0, 2.9, 4.2]}`)
	s.expect(":data "+data, "x[4]", "compiled: 3 unconstrained parameters, 4 observations")
	s.expect("sum(x) / N", "2.5")
	s.expect(":summary", "no draws yet")
	// 300 draws at lr 1e-3 are too few for an ESS of 200: the run is judged
	// after its table, and in :diag.
	s.expect(":run sgld lr=1e-3 iters=300 chains=2 seed=3", "sampling with sgld: 2 chains × 300 iterations", "2 chains × 300 draws", "ess_bulk", "sigma", "warning: bulk ESS below 100 per chain (200 for 2 chains)")
	s.expect("exp(a) + b", "over 300 draws of 2 chains", "exp(a) + b ")
	s.expect("[a, sigma]", "[a, sigma].1", "[a, sigma].2")
	out = s.expect(":summary sigma a", "sigma", "a ")
	if strings.Contains(out, "lp__") {
		t.Errorf(":summary sigma a shows lp__:\n%s", out)
	}
	s.expect(":summary sgma", `no parameter "sgma"`, "did you mean sigma?")
	s.expect(":diag", "sgld: 300 iterations, 2 chains × 300 draws, completed", "worst over the parameters", "warning: bulk ESS below 100 per chain")
	svg := filepath.Join(dir, "b.svg")
	s.expect(":plot b "+svg, "trace plot of b", svg)
	if raw, err := os.ReadFile(svg); err != nil || !strings.Contains(string(raw), "<svg") || !strings.Contains(string(raw), "trace of b") {
		t.Errorf("the plot: %v\n%.200s", err, raw)
	}
	// The format is the extension's: a .png is a PNG, not SVG under its
	// name; an unknown extension is refused.
	png := filepath.Join(dir, "b.png")
	s.expect(":plot b "+png, "trace plot of b", png)
	if raw, err := os.ReadFile(png); err != nil || !strings.HasPrefix(string(raw), "\x89PNG") {
		t.Errorf("the .png plot: %v, starts %q", err, raw[:min(8, len(raw))])
	}
	s.expect(":plot b "+filepath.Join(dir, "b.gif"), "a plot is written as .svg, .png")
	for _, kind := range []string{"density", "rank", "acf"} {
		file := filepath.Join(dir, kind+".svg")
		s.expect(":plot "+kind+" a b "+file, kind+" plot of a, b in "+file)
	}
	pair := filepath.Join(dir, "pair.svg")
	s.expect(":plot pair a b sigma "+pair, "pair plot of a, b, sigma in "+pair)
	s.expect(":plot pair a "+pair, "a pair plot takes 2 to 6 columns, got 1")
	s.expect(":plot swaps "+filepath.Join(dir, "swaps.svg"), "swaps plots a replica-exchange run's ladder; the last run has none")
	save := filepath.Join(dir, "saved")
	s.expect(":save "+save, "draws, summary and diagnostics in "+save)
	tab, err := draws.ReadFile(filepath.Join(save, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Chain) != 600 || strings.Join(tab.Columns, ",") != "lp__,a,b,sigma" {
		t.Errorf("saved draws: %d rows, columns %v", len(tab.Chain), tab.Columns)
	}
	for _, f := range []string{"summary.csv", "diagnostics.json"} {
		if _, err := os.Stat(filepath.Join(save, f)); err != nil {
			t.Error(err)
		}
	}
	// Changing the program leaves the draws and the program they came from.
	s.expect("param { a: real  b: real  sigma: real<lower=0>  c: real }", "param: a, b, sigma, c")
	s.expect("b * 2", "over 300 draws")
	s.expect(":reset", "empty")
	s.expect(":summary", "no draws yet")
	if s.Eval(context.Background(), ":q") != true {
		t.Error(":q did not end the session")
	}
}

// TestRunInterrupted cancels a run part-way, as Ctrl-C does: the draws so
// far are kept and summarised.
func TestRunInterrupted(t *testing.T) {
	s := newTestSession(t)
	s.eval("param { mu: real }\nmodel { mu ~ normal(0, 1) }")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.Progress = func(p temper.Progress) {
		if p.Done == 250 {
			cancel()
		}
	}
	s.out.Reset()
	s.Eval(ctx, ":run sghmc iters=1000000 chains=2")
	out := s.out.String()
	for _, w := range []string{"interrupted after 250 iterations; the 250 draws per chain made so far are kept", "mu", "ess_bulk"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	s.Progress = nil
	s.expect(":diag", "stopped early: context canceled")
	s.expect(":run batch=2", "batch = 2, but the model has no plate")
}

// TestLoadAndInferBlock loads a file whose infer block names its data and
// sampler; :run takes them as temper run does, and arguments override.
func TestLoadAndInferBlock(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "d.json", `{"x": [1, 2, 3, 4], "y": [1.1, 2.0, 2.9, 4.2]}`)
	model := writeFile(t, dir, "m.ppl", regressionBlocks+`model {
  a ~ normal(0, 10)
  b ~ normal(0, 10)
  sigma ~ exponential(1)
  for n in plate(N) { y[n] ~ normal(a + b * x[n], sigma) }
}
infer {
  data = "d.json"
  sampler = sghmc(lr = 2e-4, friction = 0.2)
  chains = 3
  iters = 200
}
`)
	s := newTestSession(t)
	s.expect(":load "+model, "loaded "+model+": data, param, model, infer", "x[4]", "compiled: 3 unconstrained parameters, 4 observations")
	s.expect(":run", "sampling with sghmc: 3 chains × 200 iterations", "sghmc, 3 chains × 200 draws")
	s.expect(":run iters=100", "sghmc, 3 chains × 100 draws")
	// Another sampler drops the settings written for sghmc (friction).
	s.expect(":run sgld chains=1", "sgld, 1 chains × 200 draws")
	s.expect(":run resgld replicas=3 iters=150 keep=all", "replica exchange: 3 replicas")
	s.expect(":diag", "pair", "1-2", "round trips")
	s.expect(":run lrr=1", `"lrr" is neither a run key`, "did you mean lr?")
	s.expect(":run sgld friction=0.1", "friction: does not apply")
	s.expect(":run gibbs", `unknown sampler "gibbs"`)
	s.expect(":run chains=0", `chains must be a whole number ≥ 1, got "0"`)
	s.expect(":run replicas=0", `replicas must be a whole number ≥ 1, got "0"`)
	s.expect(":run batch=0", "batch must be a whole number ≥ 1", "leave it out for every row")
	s.expect(":run batch=5", "batch = 5 is more than the 4 rows of the data")
	s.expect(":run checkpoint=x.ckpt", "checkpoint belongs in an infer block and temper run's flags, not in :run")
	s.expect(":run energy-noise=-1", `energy_noise must be a number ≥ 0, got "-1"`)
	s.expect(":load "+filepath.Join(dir, "none.ppl"), "no such file")
	bad := writeFile(t, dir, "bad.ppl", "param { a: real }\nmodel { a ~ nromal(0, 1) }\n")
	s.expect(":load "+bad, "bad.ppl:2:13", `"nromal"`)
	s.expect(":run iters=10", "sghmc, 3 chains × 10 draws") // the good model is still there
	s.expect("infer { sampler = resgld(t_max = 0.5) }", "<input", "t_min = 1 must be below t_max = 0.5")
	s.expect("infer { sampler = sgld  iters = 50 }", "infer: sampler, iters")
	s.expect(":run", "sgld, 4 chains × 50 draws")
}

func TestCommandsAndHelp(t *testing.T) {
	s := newTestSession(t)
	s.expect(":help", ":load FILE.ppl", ":run [SAMPLER]", ":quit", "Ctrl-D")
	s.expect(":help run", "chains, replicas, iters, burn")
	out := s.expect(":help keys", "energy_noise=s", "add N(0, s²) noise to every energy", "keep=target|all")
	if strings.Contains(out, "checkpoint") || strings.Contains(out, "out=") {
		t.Errorf(":help keys lists keys that :run refuses:\n%s", out)
	}
	s.expect(":help sghmc", "friction", "0.1")
	s.expect(":help normal", "y ~ normal(mu, sigma)")
	s.expect(":help log_sum_exp", "log_sum_exp(x)")
	s.expect(":help conv2d", "conv2d(x, W, b[, stride[, padding]])")
	s.expect(":help gp_exp_quad_cov", "gp_exp_quad_cov(x, alpha, rho) or gp_exp_quad_cov(x1, x2, alpha, rho)")
	s.expect(":help skew_normal_lccdf", "skew_normal_lccdf(y, xi, omega, alpha)")
	s.expect(":help samplers", "deo_sgd", "resgld")
	s.expect(":help blocks", "transformed data", "generated", "_rng")
	s.expect(":help generated", "for each kept draw")
	s.expect(":help transformed data", "transformed data: definitions computed once", "transformed param:")
	s.expect(":help normal_rng", "normal_rng(mu, sigma)", "the generated block only")
	s.expect(":help nromal", "did you mean normal?")
	s.expect(":help statements", "while cond", "break leaves", "T[L, U]")
	s.expect(":help while", "unrolled")
	s.expect(":help T", "renormalised to the bounds")
	s.expect(":help ode_rk45", "ode_rk45(f, y0, t0, ts, ...)", "forward sensitivities")
	s.expect(":help ode_bdf_tol", "rtol, atol, max_steps")
	s.expect(":s", "ambiguous", ":summary", ":save")
	s.expect(":lod x", "unknown command :lod; did you mean :load?")
	s.expect(":", "a command follows")
	s.expect("x = 3", "belongs in a model or predict block")
	s.expect(":plot", "usage: :plot [KIND] PARAM... [FILE]")
	s.expect("model { }\nparam { }\nmodel { }", "a second model block")
}

func TestComplete(t *testing.T) {
	s := newTestSession(t)
	s.eval(regressionBlocks)
	cases := []struct {
		line string
		want []string
		n    int
	}{
		{"log_su", []string{"log_sum_exp"}, 6},
		{"x + no", []string{"normal"}, 2},
		{"sig", []string{"sigma", "sigmoid"}, 3},
		{"pa", []string{"param"}, 2},
		{"gene", []string{"generated"}, 4},
		{"simp", []string{"simplex"}, 4},
		{"x + normal_r", []string{"normal_rng"}, 8},
		{":su", []string{":summary"}, 3},
		{":run sg", []string{"sgd", "sghmc", "sgld", "sgnht"}, 2},
		{":run sgld fri", []string{"friction="}, 3},
		{":run sgld dynamics=ham", []string{"hamiltonian"}, 3},
		{":help deo_s", []string{"deo_sgd"}, 5},
		{"z = ode_", []string{"ode_bdf", "ode_bdf_tol", "ode_rk45", "ode_rk45_tol"}, 4},
		{"whi", []string{"while"}, 3},
		{":help whi", []string{"while"}, 3},
		{"3 + ", nil, 0},
	}
	for _, c := range cases {
		got, n := s.Complete(c.line)
		if n != c.n || !slices.Equal(got, c.want) && !(len(c.want) > 0 && containsAll(got, c.want)) {
			t.Errorf("Complete(%q) = %v, %d; want %v, %d", c.line, got, n, c.want, c.n)
		}
	}
	dir := t.TempDir()
	writeFile(t, dir, "model.ppl", "")
	if got, _ := s.Complete(":load " + filepath.Join(dir, "mo")); !slices.Equal(got, []string{filepath.Join(dir, "model.ppl")}) {
		t.Errorf("file completion: %v", got)
	}
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// TestKeywords keeps the completion's keywords in step with the language.
func TestKeywords(t *testing.T) {
	for _, k := range append(keywords, blockKeywords...) {
		if !lang.IsKeyword(k) {
			t.Errorf("%q is not a keyword of the language", k)
		}
	}
	for _, w := range []string{"normal", "sigma", "sum"} {
		if lang.IsKeyword(w) {
			t.Errorf("%q is a keyword the completion does not know", w)
		}
	}
}

// TestDefaultHistoryFile: the history lives in the user's configuration
// folder (on Linux the one XDG_CONFIG_HOME names).
func TestDefaultHistoryFile(t *testing.T) {
	if runtime.GOOS == "linux" {
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := DefaultHistoryFile(), filepath.Join(dir, "temper", "repl_history"); got != want {
		t.Errorf("DefaultHistoryFile() = %s, want %s", got, want)
	}
}

// TestProgressLine: the REPL's progress shows the rate, the time left and
// the replica-exchange, cyclical and failure notes.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p       temper.Progress
		elapsed time.Duration
		want    string
	}{
		{temper.Progress{Done: 0, Total: 100}, 0, "sampling: 0 of 100 iterations"},
		{temper.Progress{Done: 500, Total: 2000}, 2 * time.Second, "sampling: 500 of 2000 iterations, 250 it/s, 6s left"},
		{temper.Progress{Done: 500, Total: 2000, Replicas: 4, SwapRate: 0.38, RoundTrips: 12, Cycles: 4, Cycle: 2, Exploring: true, Chains: 4, Failed: 1}, 2 * time.Second,
			"sampling: 500 of 2000 iterations, 250 it/s, 6s left; swap 0.38, 12 round trips; cycle 3/4 exploring; 1 of 4 chains stopped"},
	} {
		if got := progressLine(c.p, c.elapsed); got != c.want {
			t.Errorf("%+v after %v:\n got %q\nwant %q", c.p, c.elapsed, got, c.want)
		}
	}
}

// TestDerivedBlocks enters the transformed and generated blocks in a
// session: their columns join the run's table after the parameters, and an
// expression over the draws may use a transformed parameter.
func TestDerivedBlocks(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t)
	s.expect(regressionBlocks, "data: N, x, y", "param: a, b, sigma")
	s.expect("transformed data {\n  xbar = mean(x)\n}", "transformed data: 1 statement")
	s.expect("transformed param {\n  slope2 = 2 * b\n}", "transformed param: 1 statement")
	s.expect("model {\n  a ~ normal(0, 10)\n  b ~ normal(0, 10)\n  sigma ~ exponential(1)\n  for n in plate(N) { y[n] ~ normal(a + b * (x[n] - xbar), sigma) }\n}", "model: 4 statements")
	s.expect("generated {\n  y_new = normal_rng(a + b * (5 - xbar), sigma)\n}", "generated: 1 statement")
	data := writeFile(t, dir, "d.json", `{"N": 4, "x": [1, 2, 3, 4], "y": [1.1, 2.0, 2.9, 4.2]}`)
	s.expect(":data "+data, "compiled: 3 unconstrained parameters, 4 observations")
	out := s.expect(":run iters=300 chains=2 seed=3", "slope2", "y_new")
	if strings.Index(out, "slope2") < strings.Index(out, "sigma") || strings.Index(out, "y_new") < strings.Index(out, "slope2") {
		t.Errorf("columns out of Stan's order:\n%s", out)
	}
	s.expect("slope2 / b", "over 300 draws of 2 chains", "2")
}

// TestPlotLadder: after a replica-exchange run, :plot draws its ladder.
func TestPlotLadder(t *testing.T) {
	s := newTestSession(t)
	dir := t.TempDir()
	s.expect("param { x: real }", "param: x")
	s.expect("model { x ~ normal(0, 1) }", "model: 1 statement")
	s.expect(":run resgld replicas=4 lr=0.05 iters=400 chains=1 seed=1", "resgld")
	for _, kind := range []string{"index", "ladder", "swaps"} {
		file := filepath.Join(dir, kind+".svg")
		s.expect(":plot "+kind+" "+file, kind+" plot of chain 1's ladder in "+file)
		if raw, err := os.ReadFile(file); err != nil || !strings.Contains(string(raw), "<svg") {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// TestProgressLineStage: a long step after sampling replaces the progress
// line at once, and the run's end erases it.
func TestProgressLineStage(t *testing.T) {
	var w strings.Builder
	show := newProgressLine(&w)
	show(temper.Progress{Stage: "judging the draws"})
	show(temper.Progress{})
	if got, want := w.String(), "\r\033[Kjudging the draws …\r\033[K"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
