package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer/plots"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/sbc"
)

const sbcUsage = "usage: temper sbc MODEL.ppl --generator GEN.ppl [--data FILE]... [--sampler NAME] [--set key=value]... [--replications N] [--draws L] [--chains C] [--iters K] [--seed S] [--out DIR] [--strict]"

// sbcHeader is temper sbc -h's text above the flags.
const sbcHeader = sbcUsage + `

Simulation-based calibration (Talts et al. 2018): for each replication,
GEN.ppl's generated block draws the parameters from their prior and the
data given them, the sampler runs on those data, and each true value is
ranked among --draws posterior draws; the ranks of each parameter are
tested for uniformity (χ², Bonferroni across parameters). The generated
columns named after the model's parameters (or transformed parameters)
are the truth, those named after its data fields the data; the data files
bind GEN.ppl's data block and the model's fields that GEN.ppl does not
draw. The model's infer block gives the sampler, its settings and data
files, not its run lengths. Exit 0 whatever the verdict, 3 with --strict
when a parameter rejects.

Flags:`

// sbcFlagDocs are the run keys' flags as temper sbc reads them: those
// about one run's files and starting points are left out.
var sbcFlagDocs = map[string]string{
	"chains":           "independent chains of each replication's run (default 1)",
	"iters":            "iterations per chain, kept after burn-in, before thinning (default 10·L; doubled, up to 3 times, while some parameter's bulk ESS is below L)",
	"seed":             "random seed of the calibration: replication r draws from its stream r (default 1)",
	"out":              "a folder for ranks.csv, sbc.json and ranks.svg (default: none)",
	"strict":           "exit with status 3 when a parameter's ranks reject uniformity",
	"threads":          "goroutines that evaluate each run's model (default 1 while several replications run at once)",
	"checkpoint":       "",
	"checkpoint_every": "",
	"resume":           "",
	"init":             "",
	"keep":             "",
	"chain_id":         "",
}

// sbcCommand is temper sbc: simulation-based calibration of a sampler on
// a model, with a generator program.
func sbcCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sbc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := defineRunFlags(fs, sbcFlagDocs)
	generator := fs.String("generator", "", "the generator program `GEN.ppl`: a data block and a generated block that draws the parameters and the data with _rng calls")
	replications := fs.Int("replications", 100, "the number `N` of simulated data sets, each sampled once (default 100)")
	draws := fs.Int("draws", 99, "the number `L` of posterior draws each true value is ranked among, evenly spaced over a run (default 99)")
	bins := fs.Int("bins", 0, "the number `B` of bins of the χ² test (default: the most, at most 20, expecting 5 ranks or more each)")
	alpha := fs.Float64("alpha", sbc.DefaultAlpha, "the family-wise significance `level`, divided among the parameters (Bonferroni; default 0.001)")
	workers := fs.Int("workers", 0, "the number `W` of replications sampled at once (default: the cores)")
	fs.Lookup("quiet").Usage = "no progress or heading: the table alone"
	fs.Usage = func() { printFlags(fs, sbcHeader) }
	pos, err := flags.parse(fs, "sbc", args)
	if err != nil || pos == nil { // an error, or -h
		return err
	}
	if len(pos) != 1 || *generator == "" {
		return badf("%s; temper sbc -h lists the flags", sbcUsage)
	}
	path := pos[0]
	base := config{opts: temper.Options{Sampler: "sghmc", Seed: 1}, optionPos: map[string]lang.Pos{}}
	f, src, cfg, err := readRunConfig("sbc", path, base, flags, func(c *config) {
		// The infer block's run lengths and output folder are for a run
		// on the real data; a calibration has its own.
		c.opts.Chains, c.opts.Iters, c.opts.Burn, c.opts.Thin, c.out = 0, 0, 0, 0, ""
	})
	if err != nil {
		return err
	}
	gen, err := programGenerator(*generator, path, src, f, cfg.data)
	if err != nil {
		return err
	}
	progress := newCountProgress(stderr, flags.quiet, "replications")
	opts := sbc.Options{Run: cfg.opts, Replications: *replications, Draws: *draws, Bins: *bins, Alpha: *alpha, Workers: *workers,
		OnReplication: progress.count}
	res, err := sbc.Run(ctx, path, string(src), gen, opts)
	progress.finish()
	cancelled := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	if res == nil {
		if cancelled {
			return fmt.Errorf("interrupted before any replication was ranked")
		}
		return badf("temper sbc: %v", err)
	}
	o := res.Options
	if !flags.quiet {
		fmt.Fprintf(stdout, "%s: %s, %d replications of %s × %d iterations (data by %s), ranks among %d draws, in %.1fs\n\n",
			path, o.Run.Sampler, o.Replications, plural(o.Run.Chains, "chain"), o.Run.Iters, *generator, o.Draws, res.Elapsed.Seconds())
	}
	if err := res.WriteTable(stdout); err != nil {
		return err
	}
	if cfg.out != "" {
		if err := saveSBC(res, cfg.out); err != nil {
			return err
		}
		if !flags.quiet {
			fmt.Fprintf(stdout, "\nranks, tests and rank histograms in %s\n", cfg.out)
		}
	}
	switch {
	case cancelled:
		return fmt.Errorf("interrupted after %d of %d replications; the table is theirs", res.Completed(), o.Replications)
	case err != nil:
		return err
	case o.Run.Strict && len(res.Rejected()) > 0:
		return strictFailure{fmt.Sprintf("%s reject uniformity", strings.Join(res.Rejected(), ", "))}
	}
	return nil
}

// programGenerator compiles the generator program at genPath with the data
// files, for the model at modelPath: the files bind the program's data
// block, and the model's fields that the program does not generate.
func programGenerator(genPath, modelPath string, modelSrc []byte, model *lang.File, dataPaths []string) (sbc.Generator, error) {
	gf, gsrc, err := loadModel(genPath)
	if err != nil {
		return nil, err
	}
	genData, err := compile.ReadAll(dataPaths, compile.DataDecls(gf))
	if err != nil {
		return nil, badf("temper sbc: %v", err)
	}
	modelData, err := compile.ReadAll(dataPaths, compile.DataDecls(model))
	if err != nil {
		return nil, badf("temper sbc: %v", err)
	}
	prog, err := sbc.CompileGenerator(genPath, string(gsrc), goValues(genData))
	if err != nil {
		return nil, badf("%v", err)
	}
	gen, err := prog.For(modelPath, string(modelSrc), goValues(modelData))
	if err != nil {
		return nil, badf("temper sbc: %v", err)
	}
	return gen, nil
}

// goValues is data as the Go API takes it.
func goValues(d compile.Data) map[string]any {
	out := make(map[string]any, len(d))
	for k, v := range d {
		out[k] = v
	}
	return out
}

// saveSBC writes the calibration's files into dir and the rank
// histograms beside them.
func saveSBC(res *sbc.Result, dir string) error {
	if err := res.Save(dir); err != nil {
		return err
	}
	hists := make([]plots.RankHistogram, len(res.Tests))
	for i, t := range res.Tests {
		hists[i] = plots.RankHistogram{Name: t.Param, Edges: t.Edges, Counts: t.Counts, Expected: t.Expected}
	}
	return plots.WriteRankHistograms(filepath.Join(dir, "ranks.svg"), hists)
}
