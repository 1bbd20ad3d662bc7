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

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestExportReadByXarray exports the eight schools' draws (made with
// --log-lik, beside a run of its prior made with --prior) as InferenceData
// and has the real client, xarray with zarr (what az.from_zarr runs on),
// read it: the groups are ArviZ's (posterior, posterior_predictive for
// --predictive y_rep, log_likelihood, sample_stats, prior,
// prior_predictive, observed_data for --observed y,sigma with the data's
// values), the sampler's columns carry ArviZ's names and types
// (diverging boolean, tree_depth and n_steps integers, as az.from_cmdstan
// makes them), every variable's shape is (chains, draws, elements) with
// dimensions chain, draw and NAME_dim_0, and the mean of each element
// equals the mean of its column in the draws to 1e-12 relative (the same
// numbers summed in another order), so each column landed where its name
// says.
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
	model := filepath.Join("..", "..", "examples", "eight-schools", "model.ppl")
	out, prior := t.TempDir(), t.TempDir()
	for _, args := range [][]string{{"--log-lik", "--out", out}, {"--prior", "--out", prior}} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), append([]string{"run", model, "--quiet", "--iters", "300", "--sampler", "nuts"}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("temper run %v: exit %d: %s", args, code, stderr.String())
		}
	}
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"export", out, "--predictive", "y_rep", "--prior", prior, "--observed", "y,sigma", "--model", model}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper export: exit %d: %s", code, stderr.String())
	}
	store := filepath.Join(out, "inference_data.zarr")
	script := fmt.Sprintf(`
import xarray as xr
for g in ("posterior", "posterior_predictive", "log_likelihood", "sample_stats", "prior", "prior_predictive"):
    ds = xr.open_zarr(%q, group=g)
    for name, v in ds.data_vars.items():
        flat = v.values.reshape(v.shape[0], v.shape[1], -1).astype(float)
        for k in range(flat.shape[2]):
            print(g, name, k, "x".join(str(n) for n in v.shape), ",".join(v.dims), v.dtype, repr(float(flat[:, :, k].mean())))
ds = xr.open_zarr(%q, group="observed_data")
for name, v in ds.data_vars.items():
    print("observed", name, ",".join(v.dims), ",".join(repr(float(x)) for x in v.values))
`, store, store)
	raw, err := exec.Command(py, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", py, err, raw)
	}
	tables := map[string]*draws.Table{}
	for dir, tab := range map[string]string{out: "run", prior: "prior"} {
		tt, err := draws.ReadFile(filepath.Join(dir, runfiles.DrawsFile))
		if err != nil {
			t.Fatal(err)
		}
		tables[tab] = tt
	}
	mean := func(tab *draws.Table, col string) float64 {
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
	column := map[string]string{} // ArviZ's sample_stats name -> the column
	for _, c := range tables["run"].Columns {
		column[draws.ArvizName(c)] = c
	}
	dtypes := map[string]string{"diverging": "bool", "tree_depth": "int64", "n_steps": "int64", "lp": "float64", "mu": "float64"}
	checked, groups := map[string]int{}, map[string]bool{}
	observed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "observed" {
			if f[2] != f[1]+"_dim_0" {
				t.Errorf("observed_data %s: dimensions %s", f[1], f[2])
			}
			observed[f[1]] = f[3]
			continue
		}
		if len(f) != 7 {
			t.Fatalf("python printed %q", line)
		}
		g, name, shape, dims, dtype := f[0], f[1], f[3], f[4], f[5]
		k, _ := strconv.Atoi(f[2])
		groups[g] = true
		tab := tables["run"]
		if strings.HasPrefix(g, "prior") {
			tab = tables["prior"]
		}
		col := name
		switch {
		case g == "sample_stats":
			col = column[name]
		case strings.Count(shape, "x") == 2:
			col = fmt.Sprintf("%s.%d", name, k+1)
			if want := "chain,draw," + name + "_dim_0"; dims != want {
				t.Errorf("%s %s: dimensions %s, want %s", g, name, dims, want)
			}
		}
		if want, ok := dtypes[name]; ok && dtype != want {
			t.Errorf("%s %s: dtype %s, ArviZ's is %s", g, name, dtype, want)
		}
		want := mean(tab, col)
		got, _ := strconv.ParseFloat(f[6], 64)
		if !strings.HasPrefix(shape, "4x300") || math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s %s: shape %s, mean %v; the draws' %s has mean %v over 4 × 300", g, name, shape, got, col, want)
		}
		checked[g]++
	}
	for _, g := range []string{"posterior", "posterior_predictive", "log_likelihood", "sample_stats", "prior", "prior_predictive"} {
		if !groups[g] {
			t.Errorf("no group %s: xarray read %v", g, checked)
		}
	}
	if n := checked["posterior"] + checked["posterior_predictive"] + checked["log_likelihood"] + checked["sample_stats"]; n != len(tables["run"].Columns) {
		t.Errorf("xarray read %d columns of the run's %d: %v", n, len(tables["run"].Columns), checked)
	}
	schools := map[string]string{"y": "28,8,-3,7,-1,1,18,12", "sigma": "15,10,16,11,9,11,10,18"}
	for name, want := range schools {
		var got []string
		for _, v := range strings.Split(observed[name], ",") {
			x, _ := strconv.ParseFloat(v, 64)
			got = append(got, strconv.FormatFloat(x, 'g', -1, 64))
		}
		if strings.Join(got, ",") != want {
			t.Errorf("observed_data %s: %v, the data's %s", name, got, want)
		}
	}
	if checked["log_likelihood"] != 8 || checked["posterior_predictive"] != 8 {
		t.Errorf("log_likelihood %d and posterior_predictive %d values, want the 8 schools' each", checked["log_likelihood"], checked["posterior_predictive"])
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
