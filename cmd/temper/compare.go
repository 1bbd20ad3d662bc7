package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/temper-ppl/temper/infer/loo"
)

// compareCommand ranks runs of competing models fit to the same data: by
// elpd_loo where every run has its pointwise log-likelihood (--log-lik),
// with the standard error of each difference from the pointwise
// differences, as R's loo_compare; and by log Z where every run has one
// (pt --set path=power), with the log Bayes factors, whose errors add in
// quadrature since the runs are independent.
func compareCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil {
		return badf("temper compare: %v", err)
	}
	if len(pos) < 2 {
		return badf("usage: temper compare RUN_DIR RUN_DIR... (runs written with --log-lik, compared by elpd_loo, or runs of pt --set path=power, by log Z)")
	}
	var evidence, loos []string
	for _, dir := range pos {
		if hasLogZ(dir) {
			evidence = append(evidence, dir)
		}
		if hasLogLik(dir) {
			loos = append(loos, dir)
		}
	}
	switch {
	case len(loos) == len(pos):
		if err := compareLoo(pos, stdout); err != nil {
			return err
		}
		if len(evidence) == len(pos) {
			fmt.Fprintln(stdout)
			return compareEvidence(pos, stdout)
		}
		return nil
	case len(evidence) == len(pos):
		return compareEvidence(pos, stdout)
	}
	var missing []string
	for _, dir := range pos {
		if !slices.Contains(loos, dir) && !slices.Contains(evidence, dir) {
			missing = append(missing, dir)
		}
	}
	if len(missing) == 0 {
		return badf("temper compare: the runs have neither all a pointwise log-likelihood (%s do) nor all a log Z (%s do): compare runs made alike", strings.Join(loos, ", "), strings.Join(evidence, ", "))
	}
	return badf("temper compare: %s has no log Z and no pointwise log-likelihood: run each model with --log-lik to compare them by elpd_loo, or with --sampler pt --set path=power to compare them by log Z", strings.Join(missing, ", "))
}

// hasLogZ reports whether a run folder's diagnostics.json has log_z.
func hasLogZ(dir string) bool {
	var d struct {
		LogZ *float64 `json:"log_z"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "diagnostics.json"))
	return err == nil && json.Unmarshal(raw, &d) == nil && d.LogZ != nil
}

// hasLogLik reports whether a run's draws have log_lik columns.
func hasLogLik(dir string) bool {
	t, err := readDraws([]string{dir})
	return err == nil && slices.ContainsFunc(t.Columns, func(c string) bool { return strings.HasPrefix(c, "log_lik.") })
}

// compareLoo prints the runs ranked by elpd_loo, each difference from
// the best with its standard error √(N var(elpd_i - elpd_i,best)).
func compareLoo(dirs []string, stdout io.Writer) error { return compareLooNamed(dirs, dirs, stdout) }

// compareLooNamed is compareLoo with each run printed under its name (the
// gallery's labels for its scratch folders).
func compareLooNamed(dirs, names []string, stdout io.Writer) error {
	type run struct {
		dir string
		r   *loo.Result
	}
	var runs []run
	for i, dir := range dirs {
		r, err := runLoo(dir)
		if err != nil {
			return err
		}
		if len(runs) > 0 && r.N != runs[0].r.N {
			return badf("temper compare: %s has %d observations and %s %d: elpd_loo compares models of the same data", names[i], r.N, runs[0].dir, runs[0].r.N)
		}
		runs = append(runs, run{names[i], r})
	}
	slices.SortStableFunc(runs, func(a, b run) int { return cmp.Compare(b.r.ELPD, a.r.ELPD) })
	best := runs[0].r
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "run\telpd_diff\tse_diff\telpd_loo\tse\tp_loo\tlooic\t")
	for _, x := range runs {
		diff := make([]float64, x.r.N)
		for i := range diff {
			diff[i] = x.r.Pointwise[i].ELPD - best.Pointwise[i].ELPD
		}
		d, se := loo.Total(diff)
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", x.dir, d, se, x.r.ELPD, x.r.ELPDSE, x.r.PLoo, x.r.LooIC)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range runs {
		if high := x.r.HighK(); len(high) > 0 {
			fmt.Fprintf(stdout, "warning: %s: %d observations have Pareto k above %.2f (temper loo %s lists them): its elpd_loo is too optimistic\n", x.dir, len(high), x.r.KThreshold, x.dir)
		}
	}
	return nil
}

// compareEvidence prints the runs ranked by log Z, each log Bayes factor
// against the best with its error.
func compareEvidence(pos []string, stdout io.Writer) error {
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
	slices.SortStableFunc(runs, func(a, b run) int { return cmp.Compare(b.logZ, a.logZ) })
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
