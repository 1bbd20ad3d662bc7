package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

// TestMain makes the test binary a temper command when temper bench data,
// the gallery's reduced check or a test starts it as its child process
// (os.Executable is the test binary here).
func TestMain(m *testing.M) {
	if os.Getenv(benchDataChild) != "" || os.Getenv(galleryChild) != "" || os.Getenv(testChild) != "" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBenchData writes a 3,000 × 3 table in the three formats, loads each
// in a child process and checks the figures; the three formats hold the
// same values, and a second bench into the same folder reuses the files.
func TestBenchData(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "bench", "data", "--rows", "3000", "--cols", "3", "--dir", dir, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var loads []dataLoad
	if err := json.Unmarshal([]byte(stdout), &loads); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	if len(loads) != 3 {
		t.Fatalf("%d results, want 3: %s", len(loads), stdout)
	}
	for i, l := range loads {
		if l.Format != []string{"csv", "npy", "parquet"}[i] || l.Rows != 3000 || l.Cols != 3 || l.DataMB != 3000*4*8/1e6 ||
			!(l.LoadS > 0) || !(l.ReadS > 0) || !(l.FileMB > 0) || !(l.MBPerS > 0) || !(l.PeakRSSMiB > 1) || len(l.Runs) != 1 {
			t.Errorf("result %d: %+v", i+1, l)
		}
	}
	decls := []compile.FieldDecl{{Name: "N", Int: true}, {Name: "y", Rank: 1, Int: true}, {Name: "X", Rank: 2}}
	var first compile.Data
	for _, files := range [][]string{{"data.csv"}, {"X.npy", "y.npy"}, {"data.parquet"}} {
		var paths []string
		for _, f := range files {
			paths = append(paths, filepath.Join(dir, f))
		}
		d, err := compile.ReadAll(paths, decls)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = d
		}
		for _, name := range []string{"y", "X"} {
			if !slices.Equal(d[name].Float64s(), first[name].Float64s()) || !slices.Equal(d[name].Shape, first[name].Shape) { // .npy ints stay int8 ... int64 (Stored)
				t.Errorf("%v: %s is not the CSV's", files, name)
			}
		}
	}
	code, _, stderr = runCLI(t, context.Background(), "bench", "data", "--rows", "3000", "--cols", "3", "--dir", dir, "--formats", "npy")
	if code != exitOK || strings.Contains(stderr, "wrote") {
		t.Errorf("a second bench into the folder: exit %d, %q; want the files reused", code, stderr)
	}
}
