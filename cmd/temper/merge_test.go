package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestMergeChainRuns runs German credit's logistic regression on four
// chains, then each chain alone with --chain-id as an array job's tasks
// would, and merges the four folders: the merged draws.csv and chain files
// hold the four-chain run's rows, and its summary.csv is that run's byte
// for byte, R-hat over the four chains included. Exactly, not to a
// tolerance: each chain alone makes the four-chain run's draws bit for bit
// (its streams are that chain's), the draws files write every value as the
// shortest decimal that reads back to the same float64, and the summary is
// computed by the same code from the same chains in the same order. For
// SGHMC, whose warm-up pools the chains (sampler auto's choice when a batch
// is given), and NUTS.
func TestMergeChainRuns(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "logistic", "model.ppl")
	// An array job's tasks never escalate (that needs every chain's
	// judgement): they match the C-chain run of escalate = never.
	for _, sampler := range [][]string{{"--batch", "100", "--escalate", "never"}, {"--sampler", "nuts", "--set", "warmup=100"}} {
		dir := t.TempDir()
		common := append([]string{"run", model, "--chains", "4", "--iters", "100", "--seed", "7", "--quiet"}, sampler...)
		all := filepath.Join(dir, "all")
		if code, _, errs := runCLI(t, context.Background(), append(common, "--out", all)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", sampler, code, errs)
		}
		var tasks []string
		for k := 1; k <= 4; k++ {
			task := filepath.Join(dir, fmt.Sprintf("task%d", k))
			if code, _, errs := runCLI(t, context.Background(), append(common, "--chain-id", fmt.Sprint(k), "--out", task)...); code != 0 {
				t.Fatalf("%v chain %d: exit %d: %s", sampler, k, code, errs)
			}
			if files := runfiles.ChainFiles(task); len(files) != 1 || filepath.Base(files[0]) != runfiles.ChainFile(k-1) {
				t.Errorf("%v chain %d: chain files %v", sampler, k, files)
			}
			tasks = append(tasks, task)
		}
		if got := rows(t, filepath.Join(tasks[2], runfiles.DrawsFile))[1]; !strings.HasPrefix(got, "3,1,") {
			t.Errorf("%v: chain 3's first row is %q, want its chain column 3", sampler, got)
		}
		merged := filepath.Join(dir, "merged")
		code, out, errs := runCLI(t, context.Background(), append([]string{"merge", merged}, tasks...)...)
		if code != 0 {
			t.Fatalf("%v merge: exit %d: %s", sampler, code, errs)
		}
		if !strings.Contains(out, "4 runs merged: chains 1, 2, 3, 4 × 100 draws") {
			t.Errorf("%v merge printed %q", sampler, out)
		}
		want, _ := os.ReadFile(filepath.Join(all, runfiles.SummaryFile))
		got, err := os.ReadFile(filepath.Join(merged, runfiles.SummaryFile))
		if err != nil || len(want) == 0 || string(got) != string(want) {
			t.Errorf("%v: the merged summary.csv is not the four-chain run's (%v):\n%s\nwant\n%s", sampler, err, got, want)
		}
		for _, name := range []string{runfiles.DrawsFile, runfiles.ChainFile(0), runfiles.ChainFile(3)} {
			if !slices.Equal(rows(t, filepath.Join(merged, name)), rows(t, filepath.Join(all, name))) {
				t.Errorf("%v: the merged %s does not hold the four-chain run's rows", sampler, name)
			}
		}
		var d, dAll struct {
			Rhat     float64  `json:"max_rhat"`
			Finished int      `json:"chains_finished"`
			IDs      []int    `json:"chain_ids"`
			Warnings []string `json:"warnings"`
			Exact    []struct {
				Chain int `json:"chain"`
			} `json:"exact"`
		}
		for path, v := range map[string]any{filepath.Join(merged, runfiles.DiagnosticsFile): &d, filepath.Join(all, runfiles.DiagnosticsFile): &dAll} {
			raw, _ := os.ReadFile(path)
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatal(err)
			}
		}
		if d.Rhat != dAll.Rhat || d.Finished != 4 || !slices.Equal(d.IDs, []int{1, 2, 3, 4}) || !slices.Equal(d.Warnings, dAll.Warnings) || len(d.Exact) != len(dAll.Exact) {
			t.Errorf("%v: merged diagnostics %+v, the four-chain run's %+v", sampler, d, dAll)
		}
		for i, x := range d.Exact {
			if x.Chain != i+1 {
				t.Errorf("%v: the merged exact report %d is of chain %d", sampler, i+1, x.Chain)
			}
		}
	}
}

// TestMergeRefused: runs that are not chains of one run are refused with
// what differs, and so are two runs of one chain, a chain that is not one
// of the run's, and an output folder that is one of the runs.
func TestMergeRefused(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "logistic", "model.ppl")
	dir := t.TempDir()
	task := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		args = append([]string{"run", model, "--iters", "20", "--batch", "100", "--set", "lr=1e-4", "--quiet", "--out", out}, args...)
		if code, _, errs := runCLI(t, context.Background(), args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		return out
	}
	one, two := task("one", "--chain-id", "1"), task("two", "--chain-id", "2")
	other := map[string]string{
		"seed":    task("seed", "--chain-id", "2", "--seed", "9"),
		"sampler": task("sampler", "--chain-id", "2", "--sampler", "sgld", "--set", "lr=1e-4"),
		"setting": task("setting", "--chain-id", "2", "--set", "friction=0.2"),
		"thin":    task("thin", "--chain-id", "2", "--thin", "2"),
		"again":   task("again", "--chain-id", "1", "--threads", "1"),
	}
	data := write(t, dir, "half.csv", halfGermanCredit(t))
	other["data"] = task("data", "--chain-id", "2", "--data", data)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{one, other["seed"]}, "seed is 1, seed is 9"},
		{[]string{one, other["sampler"]}, "the sampler is sghmc("},
		{[]string{one, other["setting"]}, "friction=0.1"},
		{[]string{one, other["thin"]}, "thin is 1, thin is 2"},
		{[]string{one, other["data"]}, "the model and data differ"},
		{[]string{one, two, other["again"]}, "chain 1 is in both"},
		{[]string{one, filepath.Join(dir, "missing")}, "no such file"},
	} {
		code, _, errs := runCLI(t, context.Background(), append([]string{"merge", filepath.Join(dir, "merged")}, c.args...)...)
		if code != exitBadInput || !strings.Contains(errs, c.want) {
			t.Errorf("merge %v: exit %d, %q; want exit 2 saying %q", c.args, code, errs, c.want)
		}
	}
	if code, _, errs := runCLI(t, context.Background(), "merge", one, one, two); code != exitBadInput || !strings.Contains(errs, "both the output and a run") {
		t.Errorf("merge into a run's folder: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI(t, context.Background(), "run", model, "--chain-id", "5", "--quiet", "--out", filepath.Join(dir, "five")); code != exitBadInput || !strings.Contains(errs, "chain_id = 5 is more than chains = 4") {
		t.Errorf("--chain-id 5 of 4: exit %d, %q", code, errs)
	}
	// Threads do not change the draws: chains run with different threads merge.
	if code, _, errs := runCLI(t, context.Background(), "merge", filepath.Join(dir, "merged"), other["again"], two); code != 0 {
		t.Errorf("merge of runs with different threads: exit %d, %q", code, errs)
	}
}

// halfGermanCredit is the first half of the logistic example's data.
func halfGermanCredit(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "data", "german_credit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	return strings.Join(lines[:len(lines)/2], "")
}
