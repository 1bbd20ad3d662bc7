package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/draws"
)

// TestExportReadByXarray exports the eight schools' draws as InferenceData
// and has the real client, xarray with zarr (what az.from_zarr runs on),
// read it: every variable's shape is (chains, draws, elements), and the
// mean of each element, and of lp in sample_stats, equals the mean of its
// column in the draws to 1e-12 relative (the same numbers summed in
// another order), so each column landed where its name says.
func TestExportReadByXarray(t *testing.T) {
	py := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import xarray, zarr").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		missingTool(t, "no python3 with xarray and zarr (apt-get install python3-xarray python3-zarr): the export is not read back")
	}
	_, out := runExample(t, "eight-schools", "300")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"export", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper export: exit %d: %s", code, stderr.String())
	}
	store := filepath.Join(out, "inference_data.zarr")
	script := fmt.Sprintf(`
import xarray as xr
for g in ("posterior", "sample_stats"):
    ds = xr.open_zarr(%q, group=g)
    for name, v in ds.data_vars.items():
        flat = v.values.reshape(v.shape[0], v.shape[1], -1)
        for k in range(flat.shape[2]):
            print(g, name, k, "x".join(str(n) for n in v.shape), repr(float(flat[:, :, k].mean())))
`, store)
	raw, err := exec.Command(py, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", py, err, raw)
	}
	tab, err := draws.ReadFile(filepath.Join(out, temper.DrawsFile))
	if err != nil {
		t.Fatal(err)
	}
	mean := func(col string) float64 {
		k := tab.Index(col)
		if k < 0 {
			return math.NaN()
		}
		s := 0.0
		for _, v := range tab.Values[k] {
			s += v
		}
		return s / float64(len(tab.Values[k]))
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Fatalf("python printed %q", line)
		}
		k, _ := strconv.Atoi(f[2])
		col := f[1]
		if f[0] == "sample_stats" {
			col += "__"
		} else if strings.Count(f[3], "x") == 2 {
			col = fmt.Sprintf("%s.%d", f[1], k+1)
		}
		want := mean(col)
		got, _ := strconv.ParseFloat(f[4], 64)
		if !strings.HasPrefix(f[3], "4x300") || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s %s: shape %s, mean %v; the draws' %s has mean %v over 4 × 300", f[0], f[1], f[3], got, col, want)
		}
		checked++
	}
	if checked != len(tab.Columns) {
		t.Errorf("xarray read %d columns of %d", checked, len(tab.Columns))
	}
}

// missingTool skips a test that needs a tool this machine lacks, and fails
// it under CI=true, where .ci/run installs every tool the tests use.
func missingTool(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
