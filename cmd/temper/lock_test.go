package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFolderLocked: a run into a folder that another live run is
// writing is refused, saying so; a lock left by a process that is gone is
// taken over; and a finished run leaves no lock behind.
func TestOutputFolderLocked(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl")
	out := t.TempDir()
	lock := filepath.Join(out, lockName)
	if err := os.WriteFile(lock, []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644); err != nil { // a live run: this test's process
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	args := []string{"run", model, "--sampler", "sghmc", "--iters", "50", "--out", out, "--quiet"}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "a run still under way") {
		t.Errorf("a locked folder: exit %d, %s", code, stderr.String())
	}
	gone := exec.Command(os.Args[0], "-test.run=^$") // this test binary, run to do nothing: a process that is gone
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, []byte(fmt.Sprintf("%d\n", gone.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Errorf("a stale lock: exit %d, %s", code, stderr.String())
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the finished run left its lock: %v", err)
	}
}
