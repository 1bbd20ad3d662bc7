package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
)

// compareCommand ranks runs of competing models by their log marginal
// likelihood, each from its folder's diagnostics.json (a run of pt with
// path = power writes log_z and log_z_se), and prints the log Bayes
// factors against the best with their standard errors. The runs are
// independent, so the errors of a difference add in quadrature.
func compareCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil {
		return badf("temper compare: %v", err)
	}
	if len(pos) < 2 {
		return badf("usage: temper compare RUN_DIR RUN_DIR... (runs of pt with --set path=power, whose log Z they compare)")
	}
	type run struct {
		dir      string
		logZ, se float64
	}
	var runs []run
	for _, dir := range pos {
		path := filepath.Join(dir, "diagnostics.json")
		raw, err := os.ReadFile(path)
		if err != nil {
			return badf("temper compare: %s is not a run folder: %v", dir, err)
		}
		var d struct {
			LogZ   *float64 `json:"log_z"`
			LogZSE *float64 `json:"log_z_se"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return badf("temper compare: %s: %v", path, err)
		}
		if d.LogZ == nil {
			return badf("temper compare: %s has no log Z: only a ladder on the power path estimates it; run the model with --sampler pt --set path=power", dir)
		}
		r := run{dir: dir, logZ: *d.LogZ, se: math.NaN()}
		if d.LogZSE != nil {
			r.se = *d.LogZSE
		}
		runs = append(runs, r)
	}
	slices.SortStableFunc(runs, func(a, b run) int {
		switch {
		case a.logZ > b.logZ:
			return -1
		case a.logZ < b.logZ:
			return 1
		}
		return 0
	})
	best := runs[0]
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\tlog Z\tse\tlog BF vs best\tse\t")
	for i, r := range runs {
		se := 0.0 // the best against itself
		if i > 0 {
			se = math.Hypot(r.se, best.se)
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t\n", r.dir, r.logZ, r.se, r.logZ-best.logZ, se)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(runs) == 2 {
		second := runs[1]
		diff, se := best.logZ-second.logZ, math.Hypot(best.se, second.se)
		_, err := fmt.Fprintf(stdout, "log Bayes factor of %s over %s: %.3f ± %.3f (Bayes factor %.3g)\n", best.dir, second.dir, diff, se, math.Exp(diff))
		return err
	}
	return nil
}
