package temper_test

import (
	"context"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/autodiff"
)

// TestLayersRefuseCUDA: a model with a layer run with Device "cuda" fails
// with a clear error and never panics: in a build with the cuda tag the
// error names the layer (it has no CUDA kernel yet), whether or not a GPU
// is there; without the tag it says how to get a build with CUDA.
func TestLayersRefuseCUDA(t *testing.T) {
	rows := make([]any, 4)
	for i := range rows {
		img := make([]any, 6)
		for r := range img {
			px := make([]any, 6)
			for c := range px {
				px[c] = []float64{float64(i+r+c) / 10}
			}
			img[r] = px
		}
		rows[i] = img
	}
	m, err := temper.Compile("cnn.ppl", `
data { N: int  X: real[N, 6, 6, 1]  y: int<lower=1, upper=2>[N] }
param { W: real[3, 3, 1, 2];  b: real[2];  D: real[8, 2] }
model {
  for n in plate(N) {
    y[n] ~ categorical_logit(flatten(max_pool2d(relu(conv2d(X[n], W, b)), 2)) @ D)
  }
}`, map[string]any{"X": rows, "y": []int{1, 2, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	want := "built without CUDA support"
	if len(autodiff.Devices()) > 0 {
		want = "conv2d has no CUDA kernel yet"
	}
	_, err = m.Sample(context.Background(), temper.Options{Sampler: "sgld", Settings: map[string]any{"lr": 1e-3},
		Chains: 1, Iters: 2, Device: "cuda"})
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a CNN on cuda: %v, want an error containing %q", err, want)
	}
}
