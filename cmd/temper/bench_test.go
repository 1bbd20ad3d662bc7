package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// subsetDir is the MNIST subset shipped in the repository, from this
// package's folder.
const subsetDir = "../../examples/mnist/data"

// minAccuracy is the least test accuracy a chain must reach after 10 epochs
// of the 2,000-image subset (150 steps, one draw at the end). The most
// frequent digit is 13.4% of the 500 test images, so guessing does no
// better than that; chains measured 0.60 to 0.70 over seeds 1 to 6
// (12 chains), so 0.45 fails a sampler that does not learn, not an
// unlucky seed.
const minAccuracy = 0.45

// TestBenchJSON runs two configurations on the shipped subset from its
// files, as --data reads them, and checks the figures --json reports.
func TestBenchJSON(t *testing.T) {
	code, stdout, stderr := runCLI(t, context.Background(), "bench", "--data", subsetDir, "--replicas", "1,2",
		"--epochs", "10", "--seed", "3", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("--json should print no progress, got %q", stderr)
	}
	var results []map[string]any
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if len(results) != 2 {
		t.Fatalf("%d results for --replicas 1,2", len(results))
	}
	for i, r := range results {
		p := float64(i + 1)
		want := map[string]any{"replicas": p, "threads": float64(runtime.GOMAXPROCS(0)), "precision": "float32",
			"batch": 128.0, "epochs": 10.0, "steps": 150.0, "burn_in_steps": 75.0, "train_rows": 2000.0, "test_rows": 500.0,
			"params_per_replica": 79510.0, "warmup_steps": 50.0, "timed_steps": 101.0, "samples_per_chain": 1.0,
			"data": subsetDir, "mflop_per_replica_step": 40.9088}
		for k, v := range want {
			if r[k] != v {
				t.Errorf("P = %v: %s = %v, want %v", p, k, r[k], v)
			}
		}
		rate, _ := r["replica_steps_per_s"].(float64)
		steps, _ := r["steps_per_s"].(float64)
		if !(rate > 0) || math.Abs(rate-p*steps) > 1e-9*rate {
			t.Errorf("P = %v: replica_steps_per_s %v, steps_per_s %v", p, rate, steps)
		}
		if g, _ := r["gflops"].(float64); math.Abs(g-rate*40.9088e-3) > 1e-9*g {
			t.Errorf("P = %v: gflops %v for %v replica-steps/s of 40.9 MFLOP", p, g, rate)
		}
		for _, k := range []string{"noise_update_ns_per_param", "peak_rss_mib", "eval_s"} {
			if x, _ := r[k].(float64); !(x > 0) {
				t.Errorf("P = %v: %s = %v, want a positive number", p, k, r[k])
			}
		}
		per, _ := r["test_accuracy_per_chain"].([]any)
		if len(per) != i+1 {
			t.Fatalf("P = %v: accuracy per chain %v", p, r["test_accuracy_per_chain"])
		}
		for _, a := range append(per, r["test_accuracy"]) {
			if x, _ := a.(float64); !(x >= minAccuracy && x <= 1) {
				t.Errorf("P = %v: accuracy %v, want at least %v", p, a, minAccuracy)
			}
		}
		if runs, _ := r["replica_steps_per_s_runs"].([]any); len(runs) != 1 || runs[0] != rate {
			t.Errorf("P = %v: runs %v", p, r["replica_steps_per_s_runs"])
		}
	}
	// Chain 1 of P = 2 is chain 1 of P = 1: same seed, same streams.
	a1 := results[0]["test_accuracy_per_chain"].([]any)[0]
	a2 := results[1]["test_accuracy_per_chain"].([]any)[0]
	if a1 != a2 {
		t.Errorf("chain 1 reached %v alone and %v beside another", a1, a2)
	}
}

// TestBenchTable runs the default data (the built-in subset: the shared
// full copy is not beside this folder) and prints the table, on one thread,
// float64, twice for the median.
func TestBenchTable(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	code, stdout, stderr := runCLI(t, context.Background(), "bench", "--replicas", "1", "--epochs", "2",
		"--threads", "1", "--precision", "float64", "--repeat", "2", "--limit-test", "100")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if runtime.GOMAXPROCS(0) != procs {
		t.Errorf("GOMAXPROCS left at %d, was %d", runtime.GOMAXPROCS(0), procs)
	}
	for _, want := range []string{
		"data: examples/mnist/data (the shipped subset), 2000 training and 100 test images",
		"2 epochs of 15 steps (burn-in 15, a draw every 100), float64, cpu, 1 thread, seed 1, median of 2 runs",
		"steps/s over 16 of 30 steps",
		"replicas  steps/s  replica-steps/s  GFLOP/s",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, stdout)
		}
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if row := strings.Fields(lines[len(lines)-1]); len(row) != 8 || row[0] != "1" {
		t.Errorf("last row %q, want 8 figures for P = 1", lines[len(lines)-1])
	}
	for _, want := range []string{"P = 1, run 2 of 2", "epoch 1/2: warming up", "epoch 2/2: "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
}

// TestBenchErrors: each mistake is exit 2 with a message saying what is
// wrong, and none panics.
func TestBenchErrors(t *testing.T) {
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "train-images-idx3-ubyte"), []byte("not an IDX file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--data", filepath.Join(bad, "missing")}, "MNIST data folder " + filepath.Join(bad, "missing") + ": no such file or directory"},
		{[]string{"--data", bad}, "train-images-idx3-ubyte: bad magic number"},
		{[]string{"--data", t.TempDir()}, "has no train-images-idx3-ubyte or train-images-idx3-ubyte.gz"},
		{[]string{"--replicas", "1,x"}, `--replicas wants numbers of chains ≥ 1 separated by commas, such as 1,4,16; got "1,x"`},
		{[]string{"--replicas", "0"}, "--replicas wants"},
		{[]string{"--replicas", "4,-1"}, "--replicas wants"},
		{[]string{"--replicas", ""}, "--replicas wants"},
		{[]string{"--epochs", "0"}, "--epochs must be at least 1, got 0"},
		{[]string{"--batch", "0"}, "--batch must be at least 1"},
		{[]string{"--batch", "4000"}, "--batch 4000 is more than the 2000 training images"},
		{[]string{"--precision", "float16"}, `--precision must be float32 or float64, got "float16"`},
		{[]string{"--repeat", "0"}, "--repeat must be at least 1"},
		{[]string{"--threads", "-2"}, "--threads must be at least 1"},
		{[]string{"--lr", "-1"}, "--lr must be a positive number"},
		{[]string{"--epochs", "two"}, `invalid value "two" for flag -epochs`},
		{[]string{"--frobnicate"}, "flag provided but not defined: -frobnicate"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--replicas", "1,2", "--out", bad}, "--out saves one run: give one --replicas value and --repeat 1"},
		{[]string{"--net", "rnn"}, `--net must be mlp, lstm or cnn, got "rnn"`},
		{[]string{"--net", "cnn", "--hidden", "32"}, "--hidden sets the units of the mlp or the lstm; the cnn has none to set"},
		{[]string{"--hidden", "-1"}, "--hidden must be at least 1, got -1"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"bench"}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("temper bench %s: exit %d, %q; want exit 2 saying %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// TestBenchOut saves a bench's run as temper run saves one, which temper
// plot then reads.
func TestBenchOut(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "bench", "--data", subsetDir, "--replicas", "2", "--epochs", "2", "--thin", "5", "--limit-test", "50", "--json", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	t2, err := readDraws([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if chains := t2.ByChain("b2.1"); len(chains) != 2 || len(chains[0]) != 3 {
		t.Errorf("the saved draws of b2.1: %d chains of %d draws, want 2 of 3 (steps 20 to 30, every 5th)", len(chains), len(chains[0]))
	}
	var stdout, se strings.Builder
	if code := run(context.Background(), []string{"plot", out, "--kind", "trace", "--params", "b2.1", "--out", filepath.Join(out, "trace.svg")}, &stdout, &se); code != 0 {
		t.Errorf("temper plot of the saved run: exit %d, %s", code, se.String())
	}
}

// TestBenchCancel: an interrupted bench is a failure (exit 1), not a result.
func TestBenchCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := runCLI(t, ctx, "bench", "--replicas", "1", "--epochs", "1", "--json")
	if code != exitFailure || !strings.Contains(stderr, "context canceled") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}

// TestBenchFloat32MatchesFloat64 is the numerics check of float32
// execution: the same run in float32 and in float64 reaches the same test
// accuracy within 0.3 points (1.5 of the 500 test images). Both runs use
// the same noise and minibatches, and the float32 run's rounding (relative
// 6e-8) moves the chain far less than its noise does, so their accuracies
// agree (on full MNIST after 10 epochs: 97.36% and 97.41%); a float32
// kernel that is wrong by more than rounding moves them apart.
func TestBenchFloat32MatchesFloat64(t *testing.T) {
	acc := map[string]float64{}
	for _, prec := range []string{"float32", "float64"} {
		code, stdout, stderr := runCLI(t, context.Background(), "bench", "--data", subsetDir, "--replicas", "2",
			"--epochs", "10", "--thin", "10", "--seed", "3", "--precision", prec, "--json")
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", prec, code, stderr)
		}
		var results []struct {
			Accuracy float64 `json:"test_accuracy"`
		}
		if err := json.Unmarshal([]byte(stdout), &results); err != nil || len(results) != 1 {
			t.Fatalf("%s: %v in %s", prec, err, stdout)
		}
		acc[prec] = results[0].Accuracy
	}
	if acc["float64"] < minAccuracy || math.Abs(acc["float32"]-acc["float64"]) > 0.003 {
		t.Errorf("test accuracy float32 %.4f, float64 %.4f: want them within 0.003, above %.2f", acc["float32"], acc["float64"], minAccuracy)
	}
}
