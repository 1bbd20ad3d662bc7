package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/internal/runfiles"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/lang"
)

// loadModel parses and checks a model file; a diagnostic is bad input.
func loadModel(path string) (*lang.File, []byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, badf("temper: %v", err)
	}
	f, err := lang.Parse(path, src)
	if err == nil {
		_, err = lang.Check(f, compile.Env())
	}
	if err != nil {
		return nil, nil, badInput{lang.Format(err, src)}
	}
	return f, src, nil
}

// compileModel binds the data files and compiles.
func compileModel(f *lang.File, src []byte, dataPaths []string) (*compile.Model, error) {
	data, err := compile.ReadAll(dataPaths, compile.DataDecls(f))
	if err != nil {
		return nil, badf("temper: %v", err)
	}
	m, err := compile.Compile(f, data)
	if err != nil {
		var list lang.ErrorList
		if errors.As(err, &list) {
			return nil, badInput{lang.Format(err, src)}
		}
		return nil, badf("temper: %v", err)
	}
	return m, nil
}

func checkCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var data repeated
	fs.Var(&data, "data", "a data file (.json, .csv, .parquet, .npy or .npz); repeatable")
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil {
		return badf("temper check: %v", err)
	}
	if len(pos) != 1 {
		return badf("usage: temper check MODEL.ppl [--data FILE]...")
	}
	f, src, err := loadModel(pos[0])
	if err != nil {
		return err
	}
	if len(data) > 0 || f.Data == nil || len(f.Data.Decls) == 0 {
		m, err := compileModel(f, src, data)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: ok (%s, %s)\n", pos[0], plural(m.Dim(), "unconstrained parameter"), plural(m.NumData(), "observation"))
		return nil
	}
	fmt.Fprintf(stdout, "%s: ok\n", pos[0])
	return nil
}

func runCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := defineRunFlags(fs, nil)
	pos, err := flags.parse(fs, "run", args)
	if err != nil || pos == nil { // an error, or -h
		return err
	}
	if len(pos) != 1 {
		return badf("usage: temper run MODEL.ppl [flags]; temper run -h lists the flags")
	}
	path := pos[0]
	f, src, cfg, err := readRunConfig("run", path, defaultConfig(), flags, nil)
	if err != nil {
		return err
	}
	if cfg.out == "" {
		cfg.out = defaultOut(path)
	}
	m, err := compileModel(f, src, cfg.data)
	if err != nil {
		return err
	}
	if err := hook.CheckData(cfg.opts, m.NumData()); err != nil {
		return badf("temper run: %v", err)
	}
	return sample(ctx, path, m, cfg, stdout, stderr, flags.quiet)
}

// readDraws reads a run's draws: one draws file (temper's draws.csv,
// chains in a column), the files of CmdStan's layout (a chain each, such
// as draws_1.csv draws_2.csv, or CmdStan's own), or a run's folder, whose
// per-chain files it prefers to its draws.csv.
func readDraws(paths []string) (*draws.Table, error) {
	if info, err := os.Stat(paths[0]); len(paths) == 1 && err == nil && info.IsDir() {
		dir := paths[0]
		if paths = runfiles.ChainFiles(dir); len(paths) == 0 {
			paths = []string{filepath.Join(dir, runfiles.DrawsFile)}
		}
	}
	var tables []*draws.Table
	for _, p := range paths {
		t, err := draws.ReadFileLenient(p)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	if len(tables) == 1 {
		return tables[0], nil
	}
	return draws.Concat(tables...)
}

// defaultOut is out/NAME for NAME.ppl, or out/DIR for DIR/model.ppl.
func defaultOut(path string) string { return filepath.Join("out", runfiles.ModelName(path)) }

// sample runs the sampler, streaming draws to DIR/draws.csv, then writes the
// summary and diagnostics. An interrupted or failed run still gets its files
// for the draws it made. The output is the embedding API's (package temper),
// so that temper run, the REPL's :save and Go programs write the same files.
func sample(ctx context.Context, path string, m *compile.Model, cfg config, stdout, stderr io.Writer, quiet bool) error {
	if startWorld != nil { // a build with -tags mpi: the processes of mpirun share the run
		world, finish, err := startWorld()
		if err != nil {
			return err
		}
		defer finish()
		if world.Size() > 1 {
			cfg.opts.Transport = world
			if world.Rank() != 0 { // every process makes every draw; the first writes them
				out, err := os.MkdirTemp("", "temper-rank-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(out)
				cfg.out, quiet, stdout, stderr = out, true, io.Discard, io.Discard
			}
		}
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	unlock, err := lockOut(cfg.out)
	if err != nil {
		return err
	}
	defer unlock()
	progress := newProgress(stderr, quiet)
	opts := cfg.opts
	opts.Progress = progress.update
	model := hook.NewModel(m).(*temper.Model)
	var w *runfiles.Writer
	var earlier *draws.Table
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	opts.OnAttempt = func(a temper.Attempt, prev *temper.Result) error {
		// Each attempt's draws stream to the folder's draws.csv; an
		// escalation moves the attempt before it under attempts/.
		if prev != nil {
			progress.finish()
			if err := w.Close(); err != nil {
				return err
			}
			w = nil
			dir, err := saveAttempt(cfg.out, a.Number-1, prev)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(stderr, "escalating to %s, because %s; attempt %d is kept in %s\n", a.Describe(), a.Why, a.Number-1, dir)
			}
			progress = newProgress(stderr, quiet)
		} else {
			if err := os.RemoveAll(filepath.Join(cfg.out, attemptsDir)); err != nil && opts.Resume == "" {
				return err
			}
			if !quiet && cfg.opts.Sampler != a.Sampler {
				fmt.Fprintf(stderr, "sampler auto chose %s: %s\n", a.Sampler, a.Why)
			}
		}
		var err error
		w, earlier, err = openDraws(model, filepath.Join(cfg.out, runfiles.DrawsFile), a.Options, "temper run "+path)
		return err
	}
	opts.OnDraw = func(d temper.Draw) error {
		return w.Write(hook.InferDraw(d))
	}
	if w := hook.MemoryWarning(model, opts); w != "" && !quiet {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if !settings.IsAuto(opts.Sampler) { // a named sampler is its own first attempt
		if err := opts.OnAttempt(temper.Attempt{Number: 1, Sampler: opts.Sampler, Options: opts}, nil); err != nil {
			return err
		}
		opts.OnAttempt = nil
	}
	res, runErr := model.Sample(ctx, opts)
	progress.finish()
	if w != nil {
		if err := w.Flush(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if res == nil { // the options were refused before any sampling
		var bad badInput
		if errors.As(runErr, &bad) {
			return runErr
		}
		return badf("temper run: %v", runErr)
	}
	opts = res.Options
	if earlier != nil {
		hook.Prepend(res, earlier)
	}
	res.Stopped = runErr
	if err := res.SaveSummaries(cfg.out); err != nil && runErr == nil {
		runErr = err
	}
	if !quiet {
		elapsed := res.Elapsed
		fmt.Fprintf(stdout, "%s: %s, %d chains × %d draws in %.1fs (%.0f iterations/s, all chains at once)\n\n",
			path, res.Result.Sampler, len(res.Draws), res.DrawsPerChain(), elapsed.Seconds(), float64(res.Iterations)/elapsed.Seconds())
		res.WriteTable(stdout)
		fmt.Fprintf(stdout, "\ndraws, summary and diagnostics in %s\n", cfg.out)
	}
	res.WriteWarnings(stderr)
	if errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded) {
		return fmt.Errorf("interrupted after %d iterations; the %d draws per chain made so far are in %s%s", res.Iterations, res.DrawsPerChain(), cfg.out, checkpointNote(opts))
	}
	if runErr == nil && opts.Strict && len(res.Warnings) > 0 {
		return strictFailure{fmt.Sprintf("the run has %d warnings (above); the draws and summaries are written", len(res.Warnings))}
	}
	return runErr
}

// attemptsDir is the folder of a run's output folder that keeps the
// attempts an escalation replaced.
const attemptsDir = "attempts"

// saveAttempt moves the draws of attempt n, res, from the output folder
// out into out/attempts/N-SAMPLER, and writes its summaries there.
func saveAttempt(out string, n int, res *temper.Result) (string, error) {
	dir := filepath.Join(out, attemptsDir, fmt.Sprintf("%d-%s", n, res.Result.Sampler))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(out, runfiles.DrawsFile), filepath.Join(dir, runfiles.DrawsFile)); err != nil {
		return "", err
	}
	return dir, res.SaveSummaries(dir)
}

// strictFailure is a command that --strict fails for what it found (a
// run's warnings, a calibration's rejections): exit 3.
type strictFailure struct{ reason string }

func (s strictFailure) Error() string { return "--strict: " + s.reason }

// openDraws opens the draws file of a run: a new one, or for a resumed
// run the one it continues, with the draws already there.
func openDraws(model *temper.Model, path string, opts temper.Options, comment string) (*runfiles.Writer, *draws.Table, error) {
	if opts.Resume != "" {
		w, earlier, err := hook.ResumeDrawsFile(model, path, opts, comment)
		if err != nil {
			return nil, nil, badf("temper run: %v", err)
		}
		return w, earlier, nil
	}
	w, err := hook.CreateDrawsFile(model, path, opts, comment)
	return w, nil, err
}

// checkpointNote says where an interrupted run's checkpoint is.
func checkpointNote(opts temper.Options) string {
	if p := cmp.Or(opts.Checkpoint, opts.Resume); p != "" {
		return fmt.Sprintf("; temper run --resume %s --iters K continues it", p)
	}
	return ""
}

func formatOptions(o map[string]string) string { return settings.Format(o) }

func summaryCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	fs.SetOutput(stderr)
	replica := fs.Int("replica", 1, "the ladder level to summarise in a file written with --keep all (1: the target)")
	weightCycles := fs.Bool("weight-cycles", false, "weight the cycles of a cyclical run by their harmonic-mean mass (seed 002, appendix F)")
	modes := fs.String("modes", "", "a CSV of mode centres whose header names two columns of the draws: report how many are covered (seed 002, Table 4)")
	radius := fs.Float64("radius", 0.25, "with --modes: a draw within this distance of a centre counts for its mode")
	minDraws := fs.Int("min-draws", 100, "with --modes: a mode is covered by more than this many draws")
	flags, pos := reorderFlags(args, "weight-cycles")
	if err := fs.Parse(flags); err != nil {
		return badf("temper summary: %v", err)
	}
	if len(pos) == 0 {
		return badf("usage: temper summary DRAWS.csv|RUN_DIR|CHAIN.csv... [--replica N] [--weight-cycles] [--modes MODES.csv [--radius r] [--min-draws n]]")
	}
	t, err := readDraws(pos)
	if err != nil {
		return badf("temper summary: %v", err)
	}
	if t, err = selectReplica(t, pos[0], *replica); err != nil {
		return badf("temper summary: %v", err)
	}
	if len(t.Chain) == 0 {
		if *replica == 1 {
			return badf("temper summary: %s has no draws: its run stopped before the first draw it keeps (in its warm-up or burn-in)", pos[0])
		}
		return badf("temper summary: %s has no draws of replica %d", pos[0], *replica)
	}
	var weights [][]float64
	if *weightCycles {
		if weights, err = cycleWeights(t, pos[0]); err != nil {
			return badf("temper summary: %v", err)
		}
		fmt.Fprintln(stdout, describeWeights(weights))
	}
	var stats []summary.Stats
	for _, col := range t.Columns {
		if col == "lp__" || !draws.IsDiagnostic(col) {
			if weights != nil {
				stats = append(stats, summary.SummarizeWeighted(col, t.ByChain(col), weights))
			} else {
				stats = append(stats, summary.Summarize(col, t.ByChain(col)))
			}
		}
	}
	if err := summary.Table(stdout, stats); err != nil || *modes == "" {
		return err
	}
	// Mode coverage: the centres file's two columns name the coordinates.
	m, err := draws.ReadFile(*modes)
	if err != nil {
		return badf("temper summary: %v", err)
	}
	if len(m.Columns) != 2 || t.Index(m.Columns[0]) < 0 || t.Index(m.Columns[1]) < 0 {
		return badf("temper summary: %s must have two columns named after columns of %s (such as x.1,x.2), got %s", *modes, pos[0], strings.Join(m.Columns, ","))
	}
	centres := make([][2]float64, len(m.Chain))
	for i := range centres {
		centres[i] = [2]float64{m.Values[0][i], m.Values[1][i]}
	}
	cov := summary.ModeCoverage(t.Values[t.Index(m.Columns[0])], t.Values[t.Index(m.Columns[1])], centres, *radius, *minDraws)
	_, err = fmt.Fprintf(stdout, "\nmode coverage: %d of %d modes have more than %d draws within %g of their centre (all chains)\n", cov.Covered, len(centres), *minDraws, *radius)
	return err
}

// selectReplica keeps the draws of ladder level n (from 1) of a draws
// file written with --keep all; a file without the replica column holds
// the target level only, level 1.
func selectReplica(t *draws.Table, path string, n int) (*draws.Table, error) {
	const column = "replica__"
	k := t.Index(column)
	if k < 0 && n != 1 {
		// A run folder's per-chain files hold the target level; its draws
		// file, every level of a --keep all run.
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			if all, err := draws.ReadFileLenient(filepath.Join(path, runfiles.DrawsFile)); err == nil && all.Index(column) >= 0 {
				t, k = all, all.Index(column)
			}
		}
	}
	if k < 0 {
		if n != 1 {
			return nil, fmt.Errorf("%s has no %s column (it was written without --keep all): it holds the target level only, --replica 1", path, column)
		}
		return t, nil
	}
	levels := 0
	for _, v := range t.Values[k] {
		levels = max(levels, int(v))
	}
	if n < 1 || n > levels {
		return nil, fmt.Errorf("%s holds replicas 1 to %d; there is no --replica %d", path, levels, n)
	}
	return t.Where(column, float64(n)), nil
}

func samplersCommand(stdout io.Writer) error {
	fmt.Fprintf(stdout, "%-9s %s\n          (escalate=auto)\n", settings.Auto, settings.SamplerDoc(settings.Auto))
	for _, name := range infer.SamplerNames() {
		o, _ := infer.SamplerOptions(name, nil)
		fmt.Fprintf(stdout, "%-9s %s\n          %s\n", name, infer.SamplerDoc(name), formatOptions(o))
	}
	fmt.Fprintln(stdout, "\nAny setting can be overridden with --set key=value or in the infer block, the parts included:")
	for _, k := range []string{"dynamics", "exchange", "scheme", "ladder"} {
		fmt.Fprintf(stdout, "  %-9s %s\n", k, infer.SettingDoc(k))
	}
	return nil
}

// mergeCommand joins the output folders of runs of one run's chains, such
// as the tasks of an array job run with --chain-id, into one run folder
// (hook.MergeRuns), and prints its summary and warnings.
func mergeCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quiet := fs.Bool("quiet", false, "no table")
	flags, pos := reorderFlags(args, "quiet")
	if err := fs.Parse(flags); err != nil {
		return badf("temper merge: %v", err)
	}
	if len(pos) < 2 {
		return badf("usage: temper merge OUT_DIR RUN_DIR...: joins the folders of runs of one run's chains (temper run --chain-id K) into OUT_DIR")
	}
	out, dirs := pos[0], pos[1:]
	if slices.Contains(dirs, out) {
		return badf("temper merge: %s is both the output and a run to merge; name a new folder", out)
	}
	merged, err := hook.MergeRuns(out, dirs...)
	if err != nil {
		return badf("temper merge: %v", err)
	}
	res := merged.(*temper.Result)
	if !*quiet {
		ids := make([]string, len(res.Draws))
		for c := range res.Draws {
			ids[c] = strconv.Itoa(res.ChainNumber(c))
		}
		fmt.Fprintf(stdout, "%d runs merged: chains %s × %d draws\n\n", len(dirs), strings.Join(ids, ", "), res.DrawsPerChain())
		res.WriteTable(stdout)
		fmt.Fprintf(stdout, "\ndraws, summary and diagnostics in %s\n", out)
	}
	return res.WriteWarnings(stderr)
}
