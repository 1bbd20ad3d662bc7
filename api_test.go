package temper_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAPIFitsOneScreen: go doc of the root package lists what an embedder
// calls (compile, sample with a context, read the draws and summaries,
// the errors) and fits one screen (issue 36); what the command, the REPL
// and the gallery use lives in internal packages, SBC in package sbc.
func TestAPIFitsOneScreen(t *testing.T) {
	const most = 30
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the go tool is not on PATH, and CI=true: go doc cannot list the root package")
		}
		t.Skip("the go tool is not on PATH: go doc cannot list the root package")
	}
	out, err := exec.Command(goTool, "doc", "-short", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc -short .: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > most {
		t.Errorf("go doc -short lists %d lines, more than %d (one screen); move what only the command, the REPL or the tests use behind an internal package:\n%s", len(lines), most, out)
	}
}
