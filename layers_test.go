package temper_test

import (
	"context"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/autodiff"
)

// TestLayersOnCUDA: a CNN run with Device "cuda" never panics. Without the
// cuda tag the error says how to get a build with CUDA; with it the layers
// have kernels, so it runs where a device does (the emulator's included)
// and otherwise fails opening the device, never for want of a kernel.
func TestLayersOnCUDA(t *testing.T) {
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
	_, err = m.Sample(context.Background(), temper.Options{Sampler: "sgld", Settings: map[string]any{"lr": 1e-3},
		Chains: 1, Iters: 2, Device: "cuda"})
	if len(autodiff.Devices()) == 0 {
		if want := "built without CUDA support"; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a CNN on cuda: %v, want an error containing %q", err, want)
		}
		return
	}
	t.Logf("a CNN on cuda: %v", err)
	if err != nil && strings.Contains(err.Error(), "no CUDA kernel") {
		t.Fatalf("a CNN on cuda: %v", err)
	}
}
