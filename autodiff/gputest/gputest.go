// Package gputest holds the check that GPU tests start with, for the
// tests of every package that runs a model on a device.
package gputest

import (
	"os"
	"testing"

	"github.com/temper-ppl/temper/autodiff"
)

// Require skips the test when no CUDA device can run a program (a build
// without -tags cuda, no driver, no GPU), and fails it instead under
// TEMPER_REQUIRE_GPU=1, so that a run on a GPU machine proves the GPU
// tests ran.
func Require(t testing.TB) {
	t.Helper()
	g := autodiff.NewGraph(1)
	x := g.Input("x", autodiff.Param, 1)
	p, err := g.CompileOn("cuda", false, autodiff.SumAll(x))
	if err == nil {
		p.Close()
		return
	}
	if os.Getenv("TEMPER_REQUIRE_GPU") == "1" {
		t.Fatalf("TEMPER_REQUIRE_GPU=1, but no CUDA device runs: %v", err)
	}
	t.Skipf("no CUDA device: %v", err)
}
