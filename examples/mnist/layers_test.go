package mnist_test

import (
	"compress/gzip"
	"context"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/examples/mnist"
)

// subset reads the first n training images of the shipped subset, pixels
// scaled to [0, 1], and their labels plus 1.
func subset(t *testing.T, n int) (pixels, labels []float64) {
	t.Helper()
	read := func(name string, skip, size int) []byte {
		f, err := mnist.Subset().Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, skip+size)
		if _, err := io.ReadFull(z, buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return buf[skip:]
	}
	for _, b := range read("train-images-idx3-ubyte.gz", 16, n*784) {
		pixels = append(pixels, float64(b)/255)
	}
	for _, b := range read("train-labels-idx1-ubyte.gz", 8, n) {
		labels = append(labels, float64(b)+1)
	}
	return pixels, labels
}

// trainLayers compiles a model of this folder on n training images given
// the shape of one image, runs a few SGLD steps in float32 and checks what
// a run of a network must show: a finite energy and a gradient reaching
// every parameter at the start, and finite draws that moved.
func trainLayers(t *testing.T, file string, image []int, extra map[string]any, n, batch, steps int) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pixels, labels := subset(t, n)
	data := map[string]any{
		"X":     &compile.Value{Shape: append([]int{n}, image...), Values: pixels, Source: "the subset"},
		"label": &compile.Value{Shape: []int{n}, Values: labels, Source: "the subset"},
	}
	for k, v := range extra {
		data[k] = v
	}
	m, err := temper.Compile(file, string(src), data)
	if err != nil {
		t.Fatal(err)
	}
	// PyTorch's initialisation scale: each block uniform in ±1/√fan_in,
	// fan_in the block's rows (a filter's KH·KW·C).
	init := make([]float64, m.Dim())
	seed := uint64(1)
	for _, p := range m.Params() {
		fanIn := 1
		for _, d := range p.Shape[:max(len(p.Shape)-1, 0)] {
			fanIn *= d
		}
		for i := range p.Size {
			seed = seed*6364136223846793005 + 1442695040888963407
			u := float64(seed>>11)/float64(1<<53)*2 - 1
			init[p.Offset+i] = u / math.Sqrt(float64(fanIn))
		}
	}
	grad := make([]float64, m.Dim())
	lp, err := m.LogDensity(init, grad)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 0) {
		t.Fatalf("log density at the start %v (%v)", lp, err)
	}
	for _, p := range m.Params() {
		norm := 0.0
		for _, g := range grad[p.Offset : p.Offset+p.Size] {
			norm += g * g
		}
		if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
			t.Errorf("the gradient of %s has squared norm %v", p.Name, norm)
		}
	}
	res, err := m.Sample(context.Background(), temper.Options{
		Sampler: "sgld", Settings: map[string]any{"lr": 1e-5},
		Chains: 2, Iters: steps, Batch: batch, Seed: 1, Precision: "float32",
		Init: [][]float64{init},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != nil || len(res.Failures) > 0 {
		t.Fatalf("the run stopped (%v) or chains failed (%v)", res.Stopped, res.Failures)
	}
	for c, draws := range res.Draws {
		for _, d := range draws {
			for _, v := range d {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("chain %d: a draw holds %v", c, v)
				}
			}
		}
		last := draws[len(draws)-1][1:] // lp__ first
		moved := 0.0
		for i, v := range last {
			moved = math.Max(moved, math.Abs(v-init[i]))
		}
		if moved == 0 {
			t.Errorf("chain %d did not move", c)
		}
	}
}

// TestCNN runs a few SGLD steps of cnn.ppl (convolutions, pooling, a
// residual block, a layer norm) on 64 training images, minibatches of 16.
func TestCNN(t *testing.T) {
	trainLayers(t, "cnn.ppl", []int{28, 28, 1}, nil, 64, 16, 10)
}

// TestLSTM runs a few SGLD steps of lstm.ppl at H = 32 on 128 training
// images, minibatches of 32.
func TestLSTM(t *testing.T) {
	trainLayers(t, "lstm.ppl", []int{28, 28}, map[string]any{"H": 32}, 128, 32, 10)
}

// TestLanguageDocShowsCNN: the example of docs/language.md's layers
// section is cnn.ppl's model, which TestCNN runs.
func TestLanguageDocShowsCNN(t *testing.T) {
	doc, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("cnn.ppl")
	if err != nil {
		t.Fatal(err)
	}
	// The predict block, which repeats the model's network for temper
	// bench's test accuracy, is left out of the docs.
	model := string(src[strings.Index(string(src), "data {"):strings.Index(string(src), "predict {")])
	if !strings.Contains(string(doc), model) {
		t.Error("docs/language.md does not show cnn.ppl's data, param and model blocks")
	}
}
