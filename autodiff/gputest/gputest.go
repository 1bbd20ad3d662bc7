// Package gputest holds the check that GPU tests start with, for the
// tests of every package that runs a model on a device.
package gputest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/internal/cuda"
)

// Require skips the test when no CUDA device can run a program (a build
// without -tags cuda, no driver, no GPU), and fails it instead under
// TEMPER_REQUIRE_GPU=1, so that a run on a GPU machine proves the GPU
// tests ran.
//
// Under TEMPER_CUDA_EMULATOR=1 the "device" is the CPU emulator of the
// driver and cuBLAS (autodiff/internal/cuda/emulator), built here with the
// host's C++ compiler: the backend's lowering and kernels then run
// without a GPU, one thread per launch (see emulator.cpp for what that
// leaves unchecked). Without a C++ compiler the test fails, as the
// emulator was asked for.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv("TEMPER_CUDA_EMULATOR") == "1" {
		if err := useEmulator(); err != nil {
			t.Fatalf("TEMPER_CUDA_EMULATOR=1: %v", err)
		}
	}
	g := autodiff.NewGraph(1)
	x := g.Input("x", autodiff.Param, 1)
	p, err := g.CompileOn("cuda", false, autodiff.SumAll(x))
	if err == nil {
		p.Close()
		return
	}
	if os.Getenv("TEMPER_REQUIRE_GPU") == "1" || os.Getenv("TEMPER_CUDA_EMULATOR") == "1" {
		t.Fatalf("no CUDA device runs: %v", err)
	}
	t.Skipf("no CUDA device: %v", err)
}

// Emulated reports whether the device is the CPU emulator: tests of
// speed or of many threads' behaviour skip under it.
func Emulated() bool { return os.Getenv("TEMPER_CUDA_EMULATOR") == "1" }

var emulator struct {
	once sync.Once
	err  error
}

// useEmulator builds the emulator once per process, into the user's cache
// under the hash of its sources, and points the driver's loader at it.
func useEmulator() error {
	emulator.once.Do(func() { emulator.err = buildEmulator() })
	return emulator.err
}

func buildEmulator() error {
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		return fmt.Errorf("cannot find the emulator's sources")
	}
	src := filepath.Join(filepath.Dir(here), "..", "internal", "cuda")
	h := sha256.New()
	for _, f := range append([]string{"emulator/emulator.cpp"}, cuda.Sources...) {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return err
		}
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "temper", "cuda-emulator")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lib := filepath.Join(dir, fmt.Sprintf("libcuda-emulator-%x.so", h.Sum(nil)[:8]))
	if _, err := os.Stat(lib); err != nil {
		cxx := ""
		for _, c := range []string{"c++", "g++", "clang++"} {
			if p, err := exec.LookPath(c); err == nil {
				cxx = p
				break
			}
		}
		if cxx == "" {
			return fmt.Errorf("no C++ compiler (c++, g++ or clang++) on PATH to build the emulator")
		}
		tmp := fmt.Sprintf("%s.%d", lib, os.Getpid())
		out, err := exec.Command(cxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-I", src,
			"-o", tmp, filepath.Join(src, "emulator", "emulator.cpp")).CombinedOutput()
		if err != nil {
			return fmt.Errorf("building the emulator: %v\n%s", err, out)
		}
		if err := os.Rename(tmp, lib); err != nil {
			return err
		}
	}
	os.Setenv("TEMPER_LIBCUDA", lib)
	os.Setenv("TEMPER_CUBLAS", lib)
	return nil
}
