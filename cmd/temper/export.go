package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/runfiles"
)

const exportUsage = "usage: temper export RUN_DIR|DRAWS.csv|CHAIN.csv... [--out DIR.zarr] [--predictive y_rep,...] [--prior PRIOR_RUN_DIR] [--observed y,... --model MODEL.ppl]"

// exportCommand is temper export: a run's draws as ArviZ's InferenceData,
// a Zarr store (az.from_zarr, xarray.open_zarr), with the groups and names
// az.from_cmdstan gives a CmdStan run (draws.WriteInferenceData).
func exportCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, exportUsage); fs.PrintDefaults() }
	out := fs.String("out", "", "the Zarr store to write (default RUN_DIR/inference_data.zarr, or inference_data.zarr here)")
	predictive := fs.String("predictive", "", "comma-separated generated quantities (y_rep) for the group posterior_predictive (and prior_predictive)")
	prior := fs.String("prior", "", "a run of the same model made with --prior, for the groups prior and prior_predictive")
	observed := fs.String("observed", "", "comma-separated data fields (y) for the group observed_data, read from --model's data")
	model := fs.String("model", "", "with --observed: the model whose data it reads")
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil || len(pos) == 0 {
		return badf("%s", exportUsage)
	}
	t, err := readRun(pos)
	if err != nil {
		return err
	}
	var groups draws.Groups
	for _, name := range strings.Split(*predictive, ",") {
		if name = strings.TrimSpace(name); name != "" {
			if !slices.ContainsFunc(t.Columns, func(c string) bool { return c == name || strings.HasPrefix(c, name+".") }) {
				return badf("temper export: --predictive %s: the draws have no such variable", name)
			}
			groups.Predictive = append(groups.Predictive, name)
		}
	}
	if *observed != "" {
		if *model == "" {
			return badf("temper export: --observed reads the data of the model: give --model MODEL.ppl")
		}
		m, err := temper.CompileFile(*model, nil)
		if err != nil {
			return err
		}
		groups.Observed = map[string]draws.Observed{}
		for _, name := range strings.Split(*observed, ",") {
			name = strings.TrimSpace(name)
			values, isInt, err := m.Compiled().DataValues(name)
			if err != nil {
				return badf("temper export: --observed %s: %v", name, err)
			}
			shape, _ := m.Compiled().DataShape(name)
			groups.Observed[name] = draws.Observed{Values: values, Shape: shape, Int: isInt}
		}
	}
	if *prior != "" {
		p, err := readRun([]string{*prior})
		if err != nil {
			return err
		}
		if !madeWithPrior(*prior) {
			return badf("temper export: --prior %s is not a run made with --prior", *prior)
		}
		groups.Prior = &draws.Run{Columns: p.Columns, Chains: chainRows(p)}
	}
	path := *out
	if path == "" {
		path = "inference_data.zarr"
		if info, err := os.Stat(pos[0]); err == nil && info.IsDir() {
			path = filepath.Join(pos[0], path)
		}
	}
	chains := chainRows(t)
	if err := draws.WriteInferenceData(path, t.Columns, chains, groups); err != nil {
		return badf("temper export: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "InferenceData of %d chains in %s: az.from_zarr reads it\n", len(chains), path)
	return err
}

// madeWithPrior reports whether the run folder or draws file at path was
// made with --prior, as its draws file's header says.
func madeWithPrior(path string) bool {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, runfiles.DrawsFile)
	}
	t, err := draws.ReadFileLenient(path)
	return err == nil && slices.ContainsFunc(t.Comments, func(c string) bool { return strings.HasPrefix(c, "the prior (--prior)") })
}

// readRun reads a run's draws for the export: the target level's, where
// the file has every level's.
func readRun(pos []string) (*draws.Table, error) {
	t, err := readDraws(pos)
	if err != nil {
		return nil, badf("temper export: %v", err)
	}
	if t.Index("replica__") >= 0 {
		if t, err = selectReplica(t, pos[0], 1); err != nil {
			return nil, badf("temper export: %v", err)
		}
	}
	return t, nil
}

// chainRows are a table's draws chain by chain: [chain][draw][column].
func chainRows(t *draws.Table) [][][]float64 {
	byCol := make([][][]float64, len(t.Columns)) // [column][chain][draw]
	for k, c := range t.Columns {
		byCol[k] = t.ByChain(c)
	}
	chains := make([][][]float64, len(byCol[0]))
	for c := range chains {
		chains[c] = make([][]float64, len(byCol[0][c]))
		for i := range chains[c] {
			row := make([]float64, len(t.Columns))
			for k := range row {
				row[k] = byCol[k][c][i]
			}
			chains[c][i] = row
		}
	}
	return chains
}
