package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testChild, set in its environment, makes this test binary a temper
// command (TestMain), for tests that must run temper in a process of its
// own, as under a ulimit.
const testChild = "TEMPER_TEST_CHILD"

// TestMemoryLimitRefused runs temper under ulimit -v 2.5 GB with a run
// whose draws (4 chains × 400,000 draws × 35 columns, about 1.2 GB and
// 2.4 GB with the collector's headroom) cannot fit beside the 1.6-1.9 GB
// of address space a Go process holds: before the check it ended in the
// runtime's "fatal error: out of memory" with every goroutine's stack;
// now it must fail before sampling with a sentence that says what to
// change, and exit 2 as for other impossible settings.
func TestMemoryLimitRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -v and /proc/self/status are Linux's")
	}
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command("sh", "-c", `ulimit -v 2500000 && exec "$0" "$@"`, os.Args[0],
		"run", filepath.Join("..", "..", "examples", "eight-schools", "model.ppl"), "--out", out, "--quiet",
		"--set", "iters=400000", "--set", "escalate=never")
	cmd.Env = append(os.Environ(), testChild+"=1")
	raw, err := cmd.CombinedOutput()
	stderr := string(raw)
	exit, ok := err.(*exec.ExitError)
	if !ok || exit.ExitCode() != exitBadInput {
		t.Fatalf("exit %v, want %d:\n%.2000s", err, exitBadInput, stderr)
	}
	if !strings.Contains(stderr, "not enough memory: this run keeps its draws in memory, 4 chains × 400000 draws × 35 columns") ||
		!strings.Contains(stderr, "thin =") && !strings.Contains(stderr, "raise the limit") {
		t.Errorf("the refusal does not say what the run needs and what to change:\n%.2000s", stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "fatal error") {
		t.Errorf("a Go stack trace reached the user:\n%.2000s", stderr)
	}
}
