package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestGalleryProgramRun makes a slow page whose run is an example's own Go
// program (as the Fashion-MNIST pages' are): the program gets the run's
// flags and --out, the page shows it as go run, its results read what it
// wrote (and record it for the reduced check, which runs the program again
// with its flags), and the check fails once the program's sources change.
func TestGalleryProgramRun(t *testing.T) {
	root := filepath.Join(t.TempDir(), "examples")
	dst := copyExample(t, root, "eight-schools", "model.ppl")
	source := filepath.Join(dst, "program.go")
	if err := os.WriteFile(source, []byte("package program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got, reduced []string
	program := &galleryProgram{path: "run", sources: []string{"program.go"},
		main: func(_ context.Context, args []string, _, _ io.Writer) error {
			if got == nil {
				got = args
			} else {
				reduced = args
			}
			out := args[slices.Index(args, "--out")+1]
			return os.WriteFile(filepath.Join(out, "result.txt"), []byte("0.875"), 0o644)
		}}
	page := galleryPage{name: "program", dir: "eight-schools", file: "program.md", title: "A program", shows: "a test", slow: true,
		runs:    []galleryRun{{label: "A, 0%", args: []string{"--epochs", "1"}, program: program}},
		reduced: &reducedRuns{args: sameArgs("--epochs", "0.5")},
		results: func(g *galleryRuns) (string, error) {
			r, err := g.get("A, 0%")
			if err != nil {
				return "", err
			}
			raw, err := os.ReadFile(filepath.Join(r.dirs[0], "result.txt"))
			if err != nil {
				return "", err
			}
			v, err := strconv.ParseFloat(string(raw), 64)
			g.headline("A, 0%: accuracy", v, tolShare)
			return "accuracy " + string(raw), err
		}}
	gallery := func(check bool) (string, error) {
		var stdout, stderr strings.Builder
		err := makeGallery(context.Background(), []galleryPage{page}, root, "program", false, check, &stdout, &stderr)
		return stdout.String() + stderr.String(), err
	}
	if out, err := gallery(false); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != 4 || got[0] != "--epochs" || got[2] != "--out" {
		t.Errorf("the program got %q", got)
	}
	if len(reduced) != 6 || reduced[2] != "--epochs" || reduced[3] != "0.5" {
		t.Errorf("the program's reduced run got %q", reduced)
	}
	raw, err := os.ReadFile(filepath.Join(dst, "program.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go run ./examples/eight-schools/run --epochs 1 --out out/eight-schools-a-0", "accuracy 0.875"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the page lacks %q:\n%s", want, raw)
		}
	}
	if out, err := gallery(true); err != nil {
		t.Fatalf("the check of a fresh page: %v: %s", err, out)
	}
	if err := os.WriteFile(source, []byte("package program // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := gallery(true); err == nil || !strings.Contains(err.Error(), "made from other inputs") {
		t.Errorf("the check after the program's source changed: %v", err)
	}
}
