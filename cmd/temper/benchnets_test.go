package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/cmd/temper/internal/mnist"
)

// TestBenchNets runs the LSTM (at H = 32) and the CNN for two steps of
// 32 images each on the shipped subset and checks what --json reports of
// them. (Small, since the run's end judges the step size by the Hessian
// of every chain on the training rows, which costs more than the steps.)
func TestBenchNets(t *testing.T) {
	for _, c := range []struct {
		args   []string
		net    string
		params float64 // lstm.ppl at H = 32: W 28·128, U 32·128, b 128, W1 32·64, b1 64, W2 64·10, b2 10
		mflop  float64
	}{
		{[]string{"--net", "lstm", "--hidden", "32"}, "lstm", 10570, func() float64 { n := mnist.LSTMNet; n.H = 32; return n.StepFLOPs(32) / 1e6 }()},
		{[]string{"--net", "cnn"}, "cnn", 12682, mnist.CNNNet.StepFLOPs(32) / 1e6},
	} {
		args := append([]string{"bench", "--data", subsetDir, "--replicas", "2", "--epochs", "1", "--batch", "32", "--limit-train", "64", "--limit-test", "50", "--json"}, c.args...)
		code, stdout, stderr := runCLI(t, context.Background(), args...)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.net, code, stderr)
		}
		var results []map[string]any
		if err := json.Unmarshal([]byte(stdout), &results); err != nil || len(results) != 1 {
			t.Fatalf("%s: %v in %s", c.net, err, stdout)
		}
		r := results[0]
		want := map[string]any{"net": c.net, "replicas": 2.0, "steps": 2.0, "warmup_steps": 1.0, "timed_steps": 2.0,
			"params_per_replica": c.params, "mflop_per_replica_step": c.mflop, "train_rows": 64.0, "test_rows": 50.0, "samples_per_chain": 1.0}
		for k, v := range want {
			if r[k] != v {
				t.Errorf("%s: %s = %v, want %v", c.net, k, r[k], v)
			}
		}
		if rate, _ := r["replica_steps_per_s"].(float64); !(rate > 0) {
			t.Errorf("%s: replica_steps_per_s %v", c.net, r["replica_steps_per_s"])
		}
		if acc, _ := r["test_accuracy"].(float64); !(acc >= 0 && acc <= 1) {
			t.Errorf("%s: test accuracy %v", c.net, r["test_accuracy"])
		}
	}
}

// TestBenchInit checks the start of each network: every drawn parameter
// within ±1/√fan_in and nearly reaching it (the draws are uniform, not
// squeezed), the layer norm's gain 1 and bias 0.
func TestBenchInit(t *testing.T) {
	fanIns := map[string]map[string]float64{
		"mlp":  {"W1": 784, "b1": 784, "W2": 100, "b2": 100},
		"lstm": {"W": 28, "U": 128, "b": 128, "W1": 128, "b1": 128, "W2": 64, "b2": 64},
		"cnn":  {"W1": 9, "b1": 9, "W2": 144, "b2": 144, "W3": 144, "b3": 144, "g": 0, "be": 0, "D": 784, "d": 784},
	}
	for _, net := range benchNets {
		_, m := benchModel(t, net, net.hidden, 200)
		theta := make([]float64, m.Dim())
		net.initialise(theta, m.Params(), rand.New(rand.NewPCG(1, 2)))
		if len(m.Params()) != len(fanIns[net.name]) {
			t.Errorf("%s: %d parameters, want %d", net.name, len(m.Params()), len(fanIns[net.name]))
		}
		for _, p := range m.Params() {
			x := theta[p.Offset : p.Offset+p.Size]
			fanIn, ok := fanIns[net.name][p.Name]
			switch {
			case !ok:
				t.Errorf("%s: unexpected parameter %s", net.name, p.Name)
			case fanIn == 0:
				for _, v := range x {
					if v != net.constants[p.Name] {
						t.Fatalf("%s: %s starts at %v, want %v", net.name, p.Name, v, net.constants[p.Name])
					}
				}
			default:
				bound, top := 1/math.Sqrt(fanIn), 0.0
				for _, v := range x {
					if math.Abs(v) > bound {
						t.Fatalf("%s: %s: %v outside ±%v", net.name, p.Name, v, bound)
					}
					top = max(top, math.Abs(v))
				}
				// With n ≥ 10 uniform draws, max |x| < 0.7·bound has probability 0.7^n ≤ 0.03.
				if top < 0.7*bound && len(x) >= 10 {
					t.Errorf("%s: %s: largest |x| %v of bound %v", net.name, p.Name, top, bound)
				}
			}
		}
	}
}

// benchModel is the network's model bound to the first n images of the
// shipped subset.
func benchModel(t *testing.T, net *benchNet, hidden, n int) (*benchConfig, *temper.Model) {
	t.Helper()
	c := &benchConfig{batch: n, epochs: 1, net: net, hidden: hidden, data: subsetDir, limitTrain: n, limitTest: 1}
	if err := c.loadData(); err != nil {
		t.Fatal(err)
	}
	m, err := c.compileOn(c.train)
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// torchPython is a python3 that imports torch, or the test is skipped.
// The peers are checked only where PyTorch is installed: CI does not
// install it, so these tests skip there too (not missingTool's failure).
func torchPython(t *testing.T) string {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		if py, err = exec.LookPath("python3"); err != nil {
			t.Skip("no python3: the PyTorch peers are not checked (apt-get install python3-torch libopenblas0-pthread; CI installs neither and skips this)")
		}
	}
	if out, err := exec.Command(py, "-c", "import torch").CombinedOutput(); err != nil {
		t.Skipf("%s cannot import torch (%v: %s): the PyTorch peers are not checked (apt-get install python3-torch libopenblas0-pthread; CI does not install PyTorch and skips this)", py, err, strings.TrimSpace(string(out)))
	}
	return py
}

// peersDir is cmd/temper/peers, from this package's folder.
const peersDir = "peers"

// TestBenchPeersMatchTemper is the check that a peer is temper's model:
// at the same point and on the same 16 images, the peer's potential at
// N/B = 1 (cross-entropy summed plus the prior's quadratic) plus the
// normal prior's constants, ½·log 2π per value with the prior, is minus
// temper's log density, and the gradients agree, both within float32
// rounding. A different gate order, prior, layout or flattening moves them
// far apart.
func TestBenchPeersMatchTemper(t *testing.T) {
	py := torchPython(t)
	for _, c := range []struct {
		net    string
		hidden int
	}{{"lstm", 16}, {"cnn", 0}} {
		net := benchNetNamed(c.net)
		cfg, m := benchModel(t, net, c.hidden, 16)
		theta := make([]float64, m.Dim())
		rng := rand.New(rand.NewPCG(3, 4))
		net.initialise(theta, m.Params(), rng)
		for i := range theta { // away from the start, so that the gain and bias are not 1 and 0
			theta[i] += 0.1 * rng.NormFloat64()
		}
		grad := make([]float64, m.Dim())
		lp, err := m.LogDensity(theta, grad)
		if err != nil {
			t.Fatal(err)
		}
		var shapes [][]int
		for _, p := range m.Params() {
			shapes = append(shapes, p.Shape)
		}
		req, _ := json.Marshal(map[string]any{"net": c.net, "hidden": c.hidden, "theta": theta, "shapes": shapes,
			"images": cfg.train.Pixels, "labels": cfg.train.Labels})
		cmd := exec.Command(py, filepath.Join(peersDir, "check_energy.py"))
		cmd.Stdin = bytes.NewReader(req)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: check_energy.py: %v\n%s", c.net, err, out)
		}
		var got struct {
			Energy     float64   `json:"energy"`
			PriorTerms int       `json:"prior_terms"`
			Grad       []float64 `json:"grad"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v in %s", c.net, err, out)
		}
		energy := got.Energy + float64(got.PriorTerms)*0.5*math.Log(2*math.Pi)
		if math.Abs(energy+lp) > 1e-5*math.Abs(lp) {
			t.Errorf("%s: the peer's energy %v (with the prior's constants), temper's −log density %v", c.net, energy, -lp)
		}
		if len(got.Grad) != len(grad) {
			t.Fatalf("%s: the peer's gradient has %d values, temper's %d", c.net, len(got.Grad), len(grad))
		}
		diff, norm := 0.0, 0.0
		for i, g := range grad { // temper's is of the log density, the peer's of the energy
			diff += (got.Grad[i] + g) * (got.Grad[i] + g)
			norm += g * g
		}
		if math.Sqrt(diff) > 1e-4*math.Sqrt(norm) {
			t.Errorf("%s: gradients differ by %v in norm (of %v)", c.net, math.Sqrt(diff), math.Sqrt(norm))
		}
	}
}

// TestBenchPeersRun runs each PyTorch peer for a few steps of two replicas
// on the shipped subset and reads its RESULT line.
func TestBenchPeersRun(t *testing.T) {
	py := torchPython(t)
	for _, c := range []struct {
		peer   string
		args   []string
		params float64
	}{
		{"torch_sgld_lstm.py", []string{"--hidden", "32"}, 10570},
		{"torch_sgld_cnn.py", nil, 12682},
	} {
		args := append([]string{filepath.Join(peersDir, c.peer), "--data", subsetDir, "--limit-train", "384", "--limit-test", "50",
			"--epochs", "1", "--chains", "2", "--threads", "1", "--warmup-steps", "1", "--thin", "1"}, c.args...)
		out, err := exec.Command(py, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.peer, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		last, ok := strings.CutPrefix(lines[len(lines)-1], "RESULT ")
		if !ok {
			t.Fatalf("%s: no RESULT line last:\n%s", c.peer, out)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(last), &r); err != nil {
			t.Fatalf("%s: %v in %s", c.peer, err, last)
		}
		want := map[string]any{"chains": 2.0, "batch": 128.0, "train_rows": 384.0, "test_rows": 50.0, "steps_per_epoch": 3.0,
			"timed_steps": 2.0, "n_params_per_chain": c.params, "threads": 1.0}
		for k, v := range want {
			if r[k] != v {
				t.Errorf("%s: %s = %v, want %v", c.peer, k, r[k], v)
			}
		}
		if rate, _ := r["chain_steps_per_s"].(float64); !(rate > 0) {
			t.Errorf("%s: chain_steps_per_s %v", c.peer, r["chain_steps_per_s"])
		}
	}
}
