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
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/plots"
	"github.com/temper-ppl/temper/internal/runfiles"
)

const plotUsage = "usage: temper plot RUN_DIR|DRAWS.csv|CHAIN.csv... [--kind trace|density|rank|acf|pair] [--params a,b,...] [--out FILE] [--replica N]\n" +
	"       temper plot RUN_DIR --kind index|ladder|swaps [--chain N] [--rounds N] [--out FILE]   (replica exchange)\n" +
	"       temper plot RUN_DIR --kind schedule [--out FILE]   (cyclical SG-MCMC)\n" +
	"       temper plot RUN_DIR --kind khat [--out FILE]   (a run made with --log-lik: PSIS-LOO's Pareto k̂)\n" +
	"       temper plot RUN_DIR --kind ppc|ppc-stat|loo-pit --model MODEL.ppl --y y --yrep y_rep [--stat mean] [--log1p] [--out FILE]   (predictive checks)\n" +
	"       temper plot RUN_DIR --kind reference --reference REF.json [--params a,b,...] [--out FILE]   (the posterior against a reference's)\n" +
	"       temper plot RUN_DIR --kind modes --model MODEL.ppl [--modes MODES.csv [--radius r] [--min-draws n]] [--out FILE]   (a 2-D model)\n" +
	"       temper plot RUN_DIR --kind modes [--out FILE]   (a ladder run of any model: the draws on their first two principal components, by mode)"

// plotCommand is temper plot: a plot of a run's draws, read as temper
// summary reads them, drawn by package plots.
func plotCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, plotUsage); fs.PrintDefaults() }
	kind := fs.String("kind", "trace", strings.Join(plots.Kinds, ", ")+"; reference (each parameter's density against a reference posterior's, --reference); index, ladder or swaps (replica exchange); schedule (cyclical runs); or modes (a 2-D target's density under the draws; with more parameters, or without --model, the draws on their first two principal components, coloured by the run's modes)")
	model := fs.String("model", "", "with --kind modes: the model, of two unconstrained parameters, whose density the draws are drawn over")
	modes := fs.String("modes", "", "with --kind modes: a CSV of mode centres (two columns named as the parameters): mark them and count those covered")
	radius := fs.Float64("radius", 0.25, "with --modes: a draw within this distance of a centre counts for its mode")
	minDraws := fs.Int("min-draws", 100, "with --modes: a mode is covered by more than this many draws")
	params := fs.String("params", "", "comma-separated parameters, each a column (beta.2) or all of a parameter's (beta); default the first four (three for pair)")
	out := fs.String("out", "", "the image to write, .svg, .png, .pdf, ... (default KIND.svg in RUN_DIR, or in the current folder)")
	replica := fs.Int("replica", 1, "the ladder level to plot in a file written with --keep all (1: the target)")
	chain := fs.Int("chain", 1, "with --kind index or ladder: the chain whose ladder to draw")
	rounds := fs.Int("rounds", 0, "with --kind index or ladder: draw the first N exchange rounds only, where a long run's paths would fill the plot (0: all)")
	yName := fs.String("y", "", "with --kind ppc, ppc-stat or loo-pit: the data field the model observes (y)")
	yrepName := fs.String("yrep", "", "with --kind ppc, ppc-stat or loo-pit: the generated quantity that replicates it (y_rep)")
	log1p := fs.Bool("log1p", false, "with --kind ppc: draw log(1 + y) and its replications' log(1 + y_rep), for counts with a long tail")
	refPath := fs.String("reference", "", "with --kind reference: a JSON file of the reference posterior, "+referenceFormat)
	statistic := fs.String("stat", "mean", "with --kind ppc-stat: mean, sd, median, min, max or zeros (the share of zeros)")
	flags, pos := reorderFlags(args, "log1p")
	if err := fs.Parse(flags); err != nil {
		return badf("temper plot: %v", err)
	}
	if len(pos) == 0 {
		return badf("%s", plotUsage)
	}
	if slices.Contains(plots.ExchangeKinds, *kind) {
		return plotExchange(pos[0], *kind, *chain, *rounds, *out, stdout)
	}
	if *kind == "schedule" {
		return plotSchedule(pos[0], *out, stdout)
	}
	if slices.Contains(checkKinds, *kind) {
		return plotCheck(pos[0], *kind, checkSpec{model: *model, y: *yName, yrep: *yrepName, stat: *statistic, log1p: *log1p}, *out, stdout)
	}
	t, err := readDraws(pos)
	if err != nil {
		return badf("temper plot: %v", err)
	}
	if t, err = selectReplica(t, pos[0], *replica); err != nil {
		return badf("temper plot: %v", err)
	}
	cols, err := plotColumns(t, *params, *kind)
	if err != nil {
		return badf("temper plot: %v", err)
	}
	path := *out
	if path == "" {
		path = *kind + ".svg"
		if info, err := os.Stat(pos[0]); err == nil && info.IsDir() {
			path = filepath.Join(pos[0], path)
		}
	}
	switch *kind {
	case "modes":
		cols, err = plotModes(path, pos[0], t, *model, *modes, *radius, *minDraws)
	case "reference":
		err = plotReference(t, cols, *refPath, path)
	default:
		err = plots.Write(path, *kind, t, cols, nil)
	}
	if err != nil {
		return badf("temper plot: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "%s plot of %s in %s\n", *kind, strings.Join(cols, ", "), path)
	return err
}

// plotColumns are the columns the --params list names, or by default the
// first parameters (four, or three for a pair plot).
func plotColumns(t *draws.Table, list, kind string) ([]string, error) {
	if list == "" {
		n := 4
		if kind == "pair" {
			n = 3
		}
		params := t.Params()
		return params[:min(n, len(params))], nil
	}
	var cols []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, c := range t.Columns {
			if c == name || strings.HasPrefix(c, name+".") {
				cols, found = append(cols, c), true
			}
		}
		if !found {
			return nil, fmt.Errorf("no column %q in the draws (they have %s)", name, strings.Join(t.Params()[:min(8, len(t.Params()))], ", "))
		}
	}
	if len(cols) > 6 {
		return nil, fmt.Errorf("--params %s names %d columns; a plot takes at most 6", list, len(cols))
	}
	return cols, nil
}

// plotModes draws a two-parameter model's draws over its density, with the
// mode centres of the modes file if one is named.
func plotModes(path, dir string, t *draws.Table, modelPath, modesPath string, radius float64, minDraws int) ([]string, error) {
	var m *temper.Model
	if modelPath != "" {
		var err error
		if m, err = temper.CompileFile(modelPath, nil); err != nil {
			return nil, err
		}
	}
	if m == nil || m.Dim() != 2 {
		if modesPath != "" {
			return nil, fmt.Errorf("--modes marks centres over a 2-D model's density (--model, of two unconstrained parameters); without one the draws are drawn on their principal components, with the run's own modes")
		}
		return plotModesProjected(path, dir, t)
	}
	cols := m.ParamColumns()
	for _, c := range cols {
		if t.Index(c) < 0 {
			return nil, fmt.Errorf("the draws have no column %s of %s", c, modelPath)
		}
	}
	spec := plots.Modes{Radius: radius, MinDraws: minDraws, LogDensity: func(x, y float64) float64 {
		lp, err := m.LogDensity([]float64{x, y}, nil)
		if err != nil {
			return math.NaN()
		}
		return lp
	}}
	if modesPath != "" {
		c, err := draws.ReadFile(modesPath)
		if err != nil {
			return nil, err
		}
		if len(c.Columns) != 2 {
			return nil, fmt.Errorf("%s must have two columns, the centres' coordinates, got %s", modesPath, strings.Join(c.Columns, ","))
		}
		for i := range c.Chain {
			spec.Centres = append(spec.Centres, [2]float64{c.Values[0][i], c.Values[1][i]})
		}
	}
	return cols, plots.WriteModes(path, t, cols[0], cols[1], spec)
}

// plotModesProjected draws the draws of the parameters on their first two
// principal components, with the modes the run's diagnostics.json lists
// (a ladder run's mode masses, temper.Result.Modes).
func plotModesProjected(path, dir string, t *draws.Table) ([]string, error) {
	var diag struct {
		Modes *struct {
			Modes []struct {
				Mass float64            `json:"mass"`
				At   map[string]float64 `json:"at"`
			} `json:"modes"`
		} `json:"modes"`
	}
	if raw, err := os.ReadFile(filepath.Join(dir, runfiles.DiagnosticsFile)); err == nil {
		if err := json.Unmarshal(raw, &diag); err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, runfiles.DiagnosticsFile), err)
		}
	}
	if diag.Modes == nil || len(diag.Modes.Modes) == 0 {
		return nil, fmt.Errorf("--kind modes draws a 2-D model's density under the draws (--model MODEL.ppl, of two unconstrained parameters), or a ladder run's modes on the draws' principal components; %s is neither: its %s lists no modes", dir, runfiles.DiagnosticsFile)
	}
	var spec plots.ProjectedModes
	for _, c := range t.Params() { // the parameters the modes are located by, in the draws' order
		if _, ok := diag.Modes.Modes[0].At[c]; ok {
			spec.Columns = append(spec.Columns, c)
		}
	}
	for _, md := range diag.Modes.Modes {
		centre := make([]float64, len(spec.Columns))
		for j, c := range spec.Columns {
			centre[j] = md.At[c]
		}
		spec.Centres, spec.Masses = append(spec.Centres, centre), append(spec.Masses, md.Mass)
	}
	return spec.Columns, plots.WriteModesProjected(path, t, spec)
}

// plotExchange draws a replica-exchange run's index process, ladder or
// swap rates from the diagnostics.json of its folder.
func plotExchange(dir, kind string, chain, rounds int, out string, stdout io.Writer) error {
	var diag struct {
		SwapAttempts []int `json:"swap_attempts"`
		SwapAccepts  []int `json:"swap_accepts"`
		Chains       []struct {
			Index struct {
				Every  int     `json:"every_rounds"`
				Levels [][]int `json:"levels"`
			} `json:"index_process"`
			Trace struct {
				Values [][]float64 `json:"values"`
			} `json:"ladder_trace"`
			Ladder []infer.Level `json:"ladder"` // {"lr": ..., "temperature": ...}
		} `json:"exchange_by_chain"`
	}
	if err := readDiagnostics(dir, kind, &diag); err != nil {
		return err
	}
	if len(diag.Chains) == 0 {
		return badf("temper plot: %s is not a replica-exchange run: its diagnostics have no ladder", dir)
	}
	if chain < 1 || chain > len(diag.Chains) {
		return badf("temper plot: --chain %d: the run has chains 1 to %d", chain, len(diag.Chains))
	}
	if rounds < 0 {
		return badf("temper plot: --rounds %d: want a number of rounds, or 0 for all", rounds)
	}
	c := diag.Chains[chain-1]
	if every := max(1, c.Index.Every); rounds > 0 {
		n := (rounds + every - 1) / every
		c.Index.Levels = c.Index.Levels[:min(n, len(c.Index.Levels))]
		c.Trace.Values = c.Trace.Values[:min(n, len(c.Trace.Values))]
	}
	ex := plots.NewExchange(c.Index.Every, c.Index.Levels, c.Trace.Values, c.Ladder, diag.SwapAttempts, diag.SwapAccepts)
	if out == "" {
		out = filepath.Join(dir, kind+".svg")
	}
	if err := plots.WriteExchange(out, kind, ex); err != nil {
		return badf("temper plot: %v", err)
	}
	_, err := fmt.Fprintf(stdout, "%s plot of chain %d's ladder in %s\n", kind, chain, out)
	return err
}

// readDiagnostics decodes the diagnostics.json of the run folder dir into v.
func readDiagnostics(dir, kind string, v any) error {
	path := filepath.Join(dir, runfiles.DiagnosticsFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return badf("temper plot: --kind %s reads a run folder's %s: %v", kind, runfiles.DiagnosticsFile, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return badf("temper plot: %s: %v", path, err)
	}
	return nil
}

// plotSchedule draws a cyclical run's step-size schedule, rebuilt from the
// sampler and settings its diagnostics record.
func plotSchedule(dir, out string, stdout io.Writer) error {
	var diag struct {
		Sampler           string            `json:"sampler"`
		Options           map[string]string `json:"options"`
		Iters, Burn, Thin int
	}
	if err := readDiagnostics(dir, "schedule", &diag); err != nil {
		return err
	}
	s, err := infer.NewSampler(diag.Sampler, diag.Options)
	if err != nil {
		return badf("temper plot: %s: %v", dir, err)
	}
	c, ok := s.Schedule.(infer.Cyclical)
	if !ok {
		return badf("temper plot: %s ran %s, which has no cyclical schedule for --kind schedule to draw", dir, diag.Sampler)
	}
	if c.Iterations == 0 {
		c.Iterations = diag.Burn + diag.Iters
	}
	if out == "" {
		out = filepath.Join(dir, "schedule.svg")
	}
	if err := plots.WriteSchedule(out, c, diag.Burn, diag.Thin); err != nil {
		return badf("temper plot: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "schedule plot of %s in %s\n", c, out)
	return err
}
