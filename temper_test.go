package temper_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/internal/runfiles"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/lang"
)

var regressionData = map[string]any{
	"x": []float64{1, 2, 3, 4},
	"y": []float64{1.1, 2.0, 2.9, 4.2},
}

func compileRegression(t *testing.T) *temper.Model {
	t.Helper()
	m, err := temper.Compile("regression.ppl", regression, regressionData)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const cosine = `param { beta: real[2] }
model { target += -0.2 * sum(beta ^ 2) + 2 * sum(cos(2 * pi() * beta)) }
`

// TestErrors: source and data problems are *Error with positions and
// carets; option problems are plain errors that name the setting.
func TestErrors(t *testing.T) {
	cases := []struct {
		name, src string
		data      map[string]any
		want      []string
	}{
		{"syntax", "param { a: real }\nmodel {\n  a ~ normal(0, 1\n}\n", nil, []string{"m.ppl:4:1", "^"}},
		{"missing data", regression, map[string]any{"x": []float64{1, 2}}, []string{"m.ppl:5:3", "missing data for y"}},
		{"wrong shape", regression, map[string]any{"N": 3, "x": []float64{1, 2}, "y": []float64{1, 2, 3}}, []string{"shape [2]"}},
		{"no parameters", "data { N: int }\nmodel { }\n", map[string]any{"N": 1}, []string{"no parameters"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := temper.Compile("m.ppl", c.src, c.data)
			var serr *temper.Error
			var list lang.ErrorList
			if !errors.As(err, &serr) || !errors.As(err, &list) {
				t.Fatalf("error %v (%T), want a *temper.Error wrapping a lang.ErrorList", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
	for _, c := range []struct {
		data map[string]any
		want string
	}{
		{map[string]any{"x": [][]float64{{1}, {2, 3}}}, "ragged"},
		{map[string]any{"x": "one"}, "unsupported type string"},
		{map[string]any{"x": []float64{}}, "empty array"},
		{map[string]any{"x": nil}, "nil value"},
	} {
		if _, err := temper.Compile("m.ppl", regression, c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("data %v: error %v, want %q", c.data, err, c.want)
		}
	}

	m := compileRegression(t)
	for _, c := range []struct {
		opts temper.Options
		want string
	}{
		{temper.Options{Sampler: "gibbs"}, `unknown sampler "gibbs"`},
		{temper.Options{Sampler: "sghmc", Settings: map[string]any{"frction": 0.1}}, `sampler sghmc has no setting "frction"; did you mean friction?`},
		{temper.Options{Settings: map[string]any{"lr": -1}}, "lr: must be positive"},
		{temper.Options{Settings: map[string]any{"lr": []int{1}}}, "neither a number nor a name"},
		{temper.Options{Chains: -1}, "chains must be at least 1"},
	} {
		res, err := m.Sample(context.Background(), c.opts)
		if err == nil || res != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: result %v, error %v; want %q", c.opts, res, err, c.want)
		}
	}
}

// TestGoValues binds data from every supported kind of Go value and
// checks the model sees the same data: the log densities agree.
func TestGoValues(t *testing.T) {
	src := `data { N: int  X: real[N, 2]  k: int[N]  v: real[2] }
param { w: real[2] }
model { w ~ normal(v, 1)  for n in plate(N) { k[n] ~ poisson(exp(dot(X[n], w))) } }`
	want := map[string]any{"X": [][]float64{{1, 2}, {3, 4}, {5, 6}}, "k": []int{0, 1, 2}, "v": []float64{0.5, -0.5}}
	variants := []map[string]any{
		{"X": mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}), "k": []int64{0, 1, 2}, "v": mat.NewVecDense(2, []float64{0.5, -0.5}), "N": 3},
		{"X": [3][2]float32{{1, 2}, {3, 4}, {5, 6}}, "k": []uint8{0, 1, 2}, "v": []any{0.5, -0.5}},
		{"X": []*mat.VecDense{mat.NewVecDense(2, []float64{1, 2}), mat.NewVecDense(2, []float64{3, 4}), mat.NewVecDense(2, []float64{5, 6})}, "k": []float64{0, 1, 2}, "v": [2]float64{0.5, -0.5}},
	}
	ref, err := temper.Compile("m.ppl", src, want)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.1, -0.2}
	lp, err := ref.LogDensity(theta, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, data := range variants {
		m, err := temper.Compile("m.ppl", src, data)
		if err != nil {
			t.Fatalf("variant %d: %v", i, err)
		}
		if got, _ := m.LogDensity(theta, nil); got != lp {
			t.Errorf("variant %d: log density %v, want %v", i, got, lp)
		}
	}
}

// TestSaveMatchesStream: the draws file the draws writer streams during a run
// and the one Save writes afterwards from memory are the same bytes, for a
// plain run, a ladder with every level kept, and a cyclical schedule.
func TestSaveMatchesStream(t *testing.T) {
	reg := compileRegression(t)
	cos, err := temper.Compile("cosine.ppl", cosine, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		m    *temper.Model
		opts temper.Options
		cols string
	}{
		{"sgld", reg, temper.Options{Settings: map[string]any{"lr": 1e-3}, Chains: 2, Iters: 100, Thin: 3, Batch: 2, Seed: 5}, "lp__,a,b,sigma"},
		{"deo_sgd keep all", cos, temper.Options{Sampler: "deo_sgd", Replicas: 4, KeepAll: true, Chains: 2, Iters: 90, Thin: 3, EnergyNoise: 1, GradNoise: 1}, "lp__,beta.1,beta.2,replica__,temperature__,lr__"},
		{"cyclical", reg, temper.Options{Sampler: "cyclical_sgld", Settings: map[string]any{"lr": 1e-3, "cycles": 3}, Iters: 120, Burn: 30}, "lp__,a,b,sigma,cycle__"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var streamed bytes.Buffer
			w, err := hook.DrawsWriter(c.m, &streamed, c.opts, "a test")
			if err != nil {
				t.Fatal(err)
			}
			opts := c.opts
			opts.OnDraw = func(d temper.Draw) error { return w.Write(hook.InferDraw(d)) }
			res, err := c.m.Sample(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := res.Save(dir, "a test"); err != nil {
				t.Fatal(err)
			}
			saved, err := os.ReadFile(filepath.Join(dir, runfiles.DrawsFile))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(saved, streamed.Bytes()) {
				t.Fatalf("saved and streamed draws differ:\n%.600s\n---\n%.600s", saved, streamed.Bytes())
			}
			tab, err := draws.Read(bytes.NewReader(saved))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(tab.Columns, ","); got != c.cols {
				t.Errorf("columns %s, want %s", got, c.cols)
			}
			for _, f := range []string{runfiles.SummaryFile, runfiles.DiagnosticsFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestConcurrentUse samples one model from several goroutines at once, and
// another model beside it, while evaluating log densities: under -race this
// proves the runs share no mutable state, and each run's draws are those
// of the same run made alone (a seed fixes the draws).
func TestConcurrentUse(t *testing.T) {
	reg := compileRegression(t)
	other, err := temper.Compile("regression.ppl", regression, map[string]any{
		"x": []float64{-1, 0, 1}, "y": []float64{3, 1, -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := func(seed uint64) temper.Options {
		return temper.Options{Sampler: "sghmc", Settings: map[string]any{"lr": 1e-3}, Chains: 2, Iters: 150, Batch: 2, Seed: seed}
	}
	alone := map[uint64][][][]float64{}
	for seed := range uint64(3) {
		res, err := reg.Sample(context.Background(), opts(seed))
		if err != nil {
			t.Fatal(err)
		}
		alone[seed] = res.Draws
	}
	otherAlone, err := other.Sample(context.Background(), opts(0))
	if err != nil {
		t.Fatal(err)
	}
	lpAlone, _ := reg.LogDensity([]float64{0.1, 0.9, 0}, nil)

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for seed := range uint64(3) {
		wg.Go(func() {
			res, err := reg.Sample(context.Background(), opts(seed))
			if err != nil {
				errs <- err
			} else if !reflect.DeepEqual(res.Draws, alone[seed]) {
				errs <- errors.New("draws of a concurrent run differ from the same run alone")
			}
		})
	}
	wg.Go(func() {
		res, err := other.Sample(context.Background(), opts(0))
		if err != nil {
			errs <- err
		} else if !reflect.DeepEqual(res.Draws, otherAlone.Draws) {
			errs <- errors.New("the other model's draws changed")
		}
	})
	for range 2 {
		wg.Go(func() {
			grad := make([]float64, 3)
			for range 200 {
				lp, err := reg.LogDensity([]float64{0.1, 0.9, 0}, grad)
				if err != nil || lp != lpAlone {
					errs <- errors.New("a concurrent LogDensity differs")
					return
				}
				if _, err := reg.Constrain([]float64{0, 0, 0}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestDrawsStopAndFail: breaking out of Draws stops the run; a failure is
// the last pair.
func TestDrawsStopAndFail(t *testing.T) {
	m := compileRegression(t)
	calls := 0
	opts := temper.Options{Chains: 1, Iters: 1_000_000, OnDraw: func(temper.Draw) error { calls++; return nil }}
	for range m.Draws(context.Background(), opts) {
		if calls == 10 {
			break
		}
	}
	if calls != 10 {
		t.Errorf("OnDraw saw %d draws after a break at 10", calls)
	}
	var last error
	n := 0
	for _, err := range m.Draws(context.Background(), temper.Options{Sampler: "sghmc", Settings: map[string]any{"lr": 10}}) {
		n++
		last = err
	}
	if last == nil || !strings.Contains(last.Error(), "diverged") {
		t.Errorf("a diverging run ended with %v after %d pairs", last, n)
	}
}

// TestCompileFileAndInferOptions reads a model whose infer block names a
// data file and the run's settings.
func TestCompileFileAndInferOptions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("d.json", `{"x": [1, 2, 3, 4]}`)
	path := write("m.ppl", regression+`infer {
  data = "d.json"
  sampler = sghmc(lr = 2e-4)
  friction = 0.2
  chains = 2
  iters = 300
  keep = all
  seed = 9
  out = "elsewhere"
}
`)
	m, err := temper.CompileFile(path, map[string]any{"y": []float64{1, 2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.InferOptions()
	if err != nil {
		t.Fatal(err)
	}
	want := temper.Options{Sampler: "sghmc", Settings: map[string]any{"lr": "0.0002", "friction": "0.2"}, Chains: 2, Iters: 300, KeepAll: true, Seed: 9}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("infer options %+v, want %+v", o, want)
	}
	if _, err := temper.CompileFile(path, map[string]any{"x": []float64{1}}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a field in the file and in Go: %v", err)
	}

	bad := write("bad.ppl", "param { a: real }\nmodel { a ~ normal(0, 1) }\ninfer {\n  sampler = resgld(t_max = 0.5)\n  iter = 3\n}\n")
	m, err = temper.CompileFile(bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.InferOptions()
	if err == nil || !strings.Contains(err.Error(), "5:3") || !strings.Contains(err.Error(), "did you mean iters?") {
		t.Errorf("a misspelt setting: %v", err)
	}
}

// TestSetRunSetting: the one reader of run settings written as text (the
// infer block's values, temper run's flags and the REPL's :run key=value).
func TestSetRunSetting(t *testing.T) {
	var o temper.Options
	for k, v := range map[string]string{"chains": "3", "iters": "1e3", "seed": "7", "keep": "all", "energy_noise": "0.5", "precision": "float32",
		"threads": "2", "replicas": "4", "batch": "16", "checkpoint": "run.ckpt", "checkpoint-every": "1.5", "resume": "old.ckpt"} {
		if err := settings.Set(&o, k, v); err != nil {
			t.Fatalf("%s=%s: %v", k, v, err)
		}
	}
	want := temper.Options{Chains: 3, Iters: 1000, Seed: 7, KeepAll: true, EnergyNoise: 0.5, Precision: "float32", Threads: 2, Replicas: 4, Batch: 16,
		Checkpoint: "run.ckpt", CheckpointEvery: 1500 * time.Millisecond, Resume: "old.ckpt"}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("options %+v, want %+v", o, want)
	}
	for _, c := range [][3]string{
		{"chains", "2.5", "chains must be a whole number ≥ 1"},
		{"chains", "0", "chains must be a whole number ≥ 1"},
		{"iters", "0", "iters must be a whole number ≥ 1"},
		{"thin", "0", "thin must be a whole number ≥ 1"},
		{"replicas", "0", "replicas must be a whole number ≥ 1"},
		{"batch", "0", `batch must be a whole number ≥ 1, got "0"; leave it out for every row`},
		{"batch", "-3", "batch must be a whole number ≥ 1"},
		{"burn", "-1", "burn must be a whole number ≥ 0"},
		{"keep", "some", "keep must be target or all"},
		{"grad_noise", "NaN", "grad_noise must be a number ≥ 0"},
		{"checkpoint_every", "0", "checkpoint_every must be a positive number of seconds"},
		{"checkpoint_every", "-5", "checkpoint_every must be a positive number of seconds"},
		{"lr", "0.1", "lr is not a run setting"},
		{"precision", "half", "precision must be float64 or float32"},
		{"out", "x", "out names files"},
	} {
		if err := settings.Set(&o, c[0], c[1]); err == nil || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("%s=%s: %v, want %q", c[0], c[1], err, c[2])
		}
	}
	if !settings.IsRunSetting("energy_noise") || !settings.IsRunSetting("sampler") || settings.IsRunSetting("lr") {
		t.Error("IsRunSetting")
	}
}

// TestInferBlockRunKeys: impossible run keys and keys that belong
// elsewhere are reported at their place in the file.
func TestInferBlockRunKeys(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{"replicas = 0", "3:9: replicas must be a whole number ≥ 1"},
		{"batch = 0", "3:9: batch must be a whole number ≥ 1"},
		{"resume = \"x\"", "3:9: resume belongs in temper run's flags, not in an infer block"},
		{"checkpoint = x", "3:9: checkpoint must be a quoted path"},
		{"checkpoint_every = 0", "3:9: checkpoint_every must be a positive number of seconds"},
	} {
		f, err := lang.Parse("m.ppl", []byte("param { a: real }\nmodel { a ~ normal(0, 1) }\ninfer { "+c.block+" }\n"))
		if err != nil {
			t.Fatal(err)
		}
		var o temper.Options
		if err := hook.ReadInferBlock(&o, f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.block, err, c.want)
		}
	}
}

// TestCheckData: a minibatch must fit the data's rows, and needs a plate.
func TestCheckData(t *testing.T) {
	for _, c := range []struct {
		batch, rows int
		want        string
	}{
		{0, 0, ""},
		{0, 10, ""},
		{10, 10, ""},
		{11, 10, "batch = 11 is more than the 10 rows of the data"},
		{5, 0, "the model has no plate"},
	} {
		err := hook.CheckData(temper.Options{Batch: c.batch}, c.rows)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("batch %d of %d rows: %v, want %q", c.batch, c.rows, err, c.want)
		}
	}
}

// TestFloat32Run: a model computed in float32, on two goroutines, samples
// the same posterior as in float64. The regression's draws from one seed
// follow nearly the same path in both (the noise is the same; only rounding
// differs), so the posterior means agree far inside their Monte Carlo
// error: 2% of a posterior sd is a generous bound for float32 rounding
// (relative 6e-8) carried through 2,000 contracting steps.
func TestFloat32Run(t *testing.T) {
	m := compileRegression(t)
	means := map[string][]float64{}
	for _, prec := range []string{"float64", "float32"} {
		res, err := m.Sample(context.Background(), temper.Options{Sampler: "sgld", Precision: prec, Threads: 2, Chains: 2, Seed: 3,
			Settings: map[string]any{"lr": 1e-3}})
		if err != nil {
			t.Fatalf("%s: %v", prec, err)
		}
		for _, name := range []string{"a", "b"} {
			cols := drawsOf(t, res, name)
			sum, n := 0.0, 0
			for _, c := range cols {
				for _, v := range c {
					sum += v
					n++
				}
			}
			means[name] = append(means[name], sum/float64(n))
		}
	}
	for name, m := range means {
		if d := math.Abs(m[0] - m[1]); d > 0.02*0.5 || m[0] == m[1] {
			t.Errorf("posterior mean of %s: float64 %v, float32 %v", name, m[0], m[1])
		}
	}
	_, err := m.Sample(context.Background(), temper.Options{Precision: "half"})
	if err == nil || !strings.Contains(err.Error(), "precision must be float64 or float32") {
		t.Errorf("precision half: %v", err)
	}
}

// drawsOf is a run's draws of a column that must be there.
func drawsOf(t testing.TB, res *temper.Result, name string) [][]float64 {
	t.Helper()
	chains, err := res.Column(name)
	if err != nil {
		t.Fatal(err)
	}
	return chains
}

// TestColumnOfArray: Column on an array's name is an error that lists its
// elements' columns, never a silent nil, and an absent name is an error.
func TestColumnOfArray(t *testing.T) {
	m, err := temper.Compile("v.ppl", "param { b: real[3]  s: real }\nmodel { b ~ normal(0, 1)\n  s ~ normal(0, 1) }\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Iters: 20, Chains: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := drawsOf(t, res, "b.2"); len(got) != 1 || len(got[0]) != 20 {
		t.Errorf("Column(b.2) has %d chains", len(got))
	}
	if _, err := res.Column("b"); err == nil || !strings.Contains(err.Error(), "b.1, b.2, b.3") {
		t.Errorf("Column(b) of a vector: %v, want an error listing b.1, b.2, b.3", err)
	}
	if _, err := res.Column("zz"); err == nil || !strings.Contains(err.Error(), `no column "zz"`) {
		t.Errorf("Column(zz): %v", err)
	}
}
