package repl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/lang"
)

// command is one of the REPL's : commands.
type command struct {
	name, usage, doc string
	help             string // what :help NAME adds to the usage and doc
	run              func(s *Session, ctx context.Context, args []string) (quit bool)
}

var commands []command

func init() {
	commands = []command{
		{"load", ":load FILE.ppl", "replace the program by a model file (and read its infer block's data)",
			"The blocks of the file replace every block typed or loaded before, and the data and draws are dropped.\nData files named by the file's infer block (data = \"d.csv\") are read relative to it.",
			func(s *Session, _ context.Context, a []string) bool {
				if len(a) != 1 {
					s.errorf("usage: :load FILE.ppl\n")
					return false
				}
				s.load(a[0])
				return false
			}},
		{"data", ":data FILE...", "read data files (.json, .csv, .parquet, .npy or .npz) for the data block",
			"Stan-style JSON ({\"N\": 3, \"x\": [1, 2, 3]}) or CSV with a header, bound as temper run binds them\n(a CSV needs the data block first). A field read again replaces the earlier value.",
			func(s *Session, _ context.Context, a []string) bool {
				if len(a) == 0 {
					s.errorf("usage: :data FILE...\n")
					return false
				}
				for _, p := range a {
					if !s.readData(p) {
						return false
					}
				}
				s.compile(false)
				return false
			}},
		{"run", ":run [SAMPLER] [key=value ...]", "sample the model (Ctrl-C stops the run and keeps its draws)",
			"Settings start from the infer block and the defaults of temper run (4 chains, 2000 iterations, seed 1).\nThe run keys are temper run's flags: " + strings.Join(settings.Names(settings.InREPL), ", ") +
				";\nany other key is a sampler setting (lr=1e-3, scheme=deo, window=auto).\n:help keys describes the run keys, :help samplers lists the samplers, :help SAMPLER its settings.",
			(*Session).run},
		{"summary", ":summary [PARAM...]", "the posterior summary of the last run (of some parameters)",
			"Mean, sd, Monte Carlo standard error, 5/50/95% quantiles, bulk and tail ESS and split R-hat.\nA parameter name selects all its elements (beta: beta.1, beta.2, ...).",
			(*Session).summary},
		{"diag", ":diag", "convergence and replica-exchange diagnostics of the last run",
			"R-hat and effective sample sizes per parameter with the worst of each; for replica exchange the swap\nattempts, acceptances and rates per adjacent pair, round trips, and the final ladder.",
			func(s *Session, _ context.Context, a []string) bool { s.diag(); return false }},
		{"plot", ":plot [KIND] PARAM... [FILE]", "plots of the draws: trace (the default), density, rank, acf or pair; index, ladder or swaps of a ladder; SVG, or .png, .pdf, ... by the file's extension",
			"trace: each chain's draws against the iteration beside the histogram; density: a histogram per chain;\nrank: per chain, the histogram of its draws' ranks among all (flat when the chains agree);\nacf: each chain's autocorrelation; pair: two to six parameters against each other.\nindex, ladder, swaps (no PARAM): a replica-exchange run's replica index process, ladder over time, swap rates.\nWrites PARAM.svg (KIND-PARAM.svg) in the current folder unless a file is named.",
			func(s *Session, _ context.Context, a []string) bool {
				if len(a) < 1 {
					s.errorf("usage: :plot [KIND] PARAM... [FILE]\n")
					return false
				}
				s.plot(a)
				return false
			}},
		{"save", ":save DIR", "write draws.csv, summary.csv and diagnostics.json of the last run",
			"The same files as temper run --out DIR.",
			func(s *Session, _ context.Context, a []string) bool {
				if len(a) != 1 {
					s.errorf("usage: :save DIR\n")
					return false
				}
				s.save(a[0])
				return false
			}},
		{"reset", ":reset", "forget the program, the data and the draws", "",
			func(s *Session, _ context.Context, a []string) bool {
				s.reset()
				s.printf("the session is empty\n")
				return false
			}},
		{"help", ":help [TOPIC]", "this list, or help on a command, sampler, setting, function or distribution", "",
			func(s *Session, _ context.Context, a []string) bool { s.help(a); return false }},
		{"quit", ":quit", "end the session (Ctrl-D does too)", "",
			func(*Session, context.Context, []string) bool { return true }},
	}
}

// findCommand finds a command by its name or a prefix of one name only.
func findCommand(name string) (*command, error) {
	var found []*command
	for i := range commands {
		c := &commands[i]
		if c.name == name {
			return c, nil
		}
		if strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var names []string
		for _, c := range commands {
			names = append(names, c.name)
		}
		msg := fmt.Sprintf("unknown command :%s", name)
		if near := lang.Suggest(name, names); near != "" {
			msg += fmt.Sprintf("; did you mean :%s?", near)
		}
		return nil, errors.New(msg + " (:help lists the commands)")
	}
	var names []string
	for _, c := range found {
		names = append(names, ":"+c.name)
	}
	return nil, fmt.Errorf(":%s is ambiguous: %s", name, strings.Join(names, ", "))
}

func (s *Session) command(ctx context.Context, text string) bool {
	fields := strings.Fields(strings.TrimPrefix(text, ":"))
	// A word that starts with # begins a comment to the end of the line,
	// as after a shell command: ":run iters=4000   # the defaults".
	if i := slices.IndexFunc(fields, func(f string) bool { return strings.HasPrefix(f, "#") }); i >= 0 {
		fields = fields[:i]
	}
	if len(fields) == 0 {
		s.errorf("a command follows the colon (:help lists them)\n")
		return false
	}
	c, err := findCommand(fields[0])
	if err != nil {
		s.errorf("%v\n", err)
		return false
	}
	return c.run(s, ctx, fields[1:])
}

// runOptions are the options of :run: temper run's defaults, the infer
// block, then the arguments: run keys (settings.Keys()) and sampler
// settings.
func (s *Session) runOptions(args []string) (temper.Options, error) {
	opts := temper.Options{Seed: 1} // temper run's default seed
	if err := hook.ReadInferBlock(&opts, s.file); err != nil {
		return opts, err
	}
	for i, a := range args {
		key, val, ok := strings.Cut(a, "=")
		if !ok {
			if i > 0 {
				return opts, fmt.Errorf("%q: the sampler comes first; settings are key=value", a)
			}
			if a != opts.Sampler {
				// The settings written as sampler = name(...) were that sampler's.
				for _, k := range samplerSpecKeys(s.file) {
					delete(opts.Settings, k)
				}
			}
			opts.Sampler = a
			continue
		}
		key = strings.ReplaceAll(key, "-", "_")
		if key == "" || val == "" {
			return opts, fmt.Errorf("%q: want key=value", a)
		}
		if k, ok := settings.Lookup(key); ok {
			if err := k.Allowed(settings.InREPL); err != nil {
				return opts, err
			}
			if err := settings.Set(&opts, key, val); err != nil {
				return opts, err
			}
			continue
		}
		if !slices.Contains(infer.SettingNames(), key) {
			runKeys := settings.Names(settings.InREPL)
			msg := fmt.Sprintf("%q is neither a run key (%s) nor a sampler setting", key, strings.Join(runKeys, ", "))
			if near := lang.Suggest(key, append(runKeys, infer.SettingNames()...)); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			return opts, errors.New(msg)
		}
		if opts.Settings == nil {
			opts.Settings = map[string]any{}
		}
		opts.Settings[key] = val
	}
	return opts, nil
}

// samplerSpecKeys are the settings written in the infer block's
// sampler = name(key = value, ...).
func samplerSpecKeys(f *lang.File) []string {
	var keys []string
	if f == nil || f.Infer == nil {
		return nil
	}
	for _, st := range f.Infer.Settings {
		if spec, ok := st.Value.(*lang.SamplerSpec); ok && st.Key == "sampler" {
			for _, o := range spec.Options {
				keys = append(keys, o.Key)
			}
		}
	}
	return keys
}

func (s *Session) run(ctx context.Context, args []string) bool {
	opts, err := s.runOptions(args)
	if err != nil {
		s.printError(err)
		return false
	}
	m := s.compile(true)
	if m == nil {
		return false
	}
	if err := hook.CheckData(opts, m.NumData()); err != nil {
		s.printError(err)
		return false
	}
	if opts.Checkpoint != "" && !filepath.IsAbs(opts.Checkpoint) && s.loaded != "" {
		// As the data files: relative to the file whose infer block names it.
		opts.Checkpoint = filepath.Join(filepath.Dir(s.loaded), opts.Checkpoint)
	}
	opts.Progress = s.Progress
	shown := opts
	if shown.Sampler == "" {
		shown.Sampler = settings.Auto
	}
	if shown.Chains == 0 {
		shown.Chains = 4
	}
	if shown.Iters == 0 {
		shown.Iters = infer.DefaultIters
	}
	s.printf("sampling with %s: %d chains × %d iterations (Ctrl-C stops and keeps the draws)\n", shown.Sampler, shown.Chains, shown.Burn+shown.Iters)
	opts.OnAttempt = func(a temper.Attempt, earlier *temper.Result) error {
		if earlier == nil {
			s.printf("sampler auto chose %s: %s\n", a.Sampler, a.Why)
		} else {
			s.printf("escalating to %s, because %s\n", a.Describe(), a.Why)
		}
		return nil
	}
	res, err := m.Sample(ctx, opts)
	if s.Progress != nil {
		s.Progress(temper.Progress{})
	}
	if res == nil {
		s.errorf("error: %v\n", err)
		return false
	}
	s.result, s.runFile, s.runData = res, s.file, s.data
	switch {
	case errors.Is(err, context.Canceled):
		s.printf("interrupted after %d iterations; the %d draws per chain made so far are kept\n", res.Iterations, res.DrawsPerChain())
	case err != nil:
		s.printf("stopped: %v; the %d draws per chain made so far are kept\n", err, res.DrawsPerChain())
	}
	s.printf("%s, %d chains × %d draws in %.1fs (%.0f iterations/s)\n\n", res.Result.Sampler, len(res.Draws), res.DrawsPerChain(),
		res.Elapsed.Seconds(), float64(res.Iterations)/res.Elapsed.Seconds())
	if res.DrawsPerChain() == 0 {
		s.printf("no draws to summarise\n")
		return false
	}
	res.WriteTable(s.out)
	if len(res.Warnings) > 0 {
		s.printf("\n")
		res.WriteWarnings(s.out)
	}
	return false
}

// needResult reports whether there are draws, saying what to do if not.
func (s *Session) needResult() bool {
	if s.result == nil {
		s.errorf("no draws yet: :run first\n")
		return false
	}
	return true
}

// selectColumns resolves parameter names to the result's columns: a name
// is a column (beta.2, lp__) or a parameter with all its elements (beta).
func selectColumns(columns, names []string) ([]string, error) {
	if len(names) == 0 {
		return columns, nil
	}
	var out []string
	for _, n := range names {
		var found []string
		for _, c := range columns {
			if c == n || strings.HasPrefix(c, n+".") {
				found = append(found, c)
			}
		}
		if len(found) == 0 {
			msg := fmt.Sprintf("no parameter %q in the draws", n)
			if near := lang.Suggest(n, columns); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			return nil, errors.New(msg)
		}
		out = append(out, found...)
	}
	return out, nil
}

func (s *Session) summary(_ context.Context, names []string) bool {
	if !s.needResult() {
		return false
	}
	cols, err := selectColumns(s.result.Columns, names)
	if err != nil {
		s.errorf("%v\n", err)
		return false
	}
	var stats []summary.Stats
	for _, c := range cols {
		stats = append(stats, summary.Summarize(c, s.column(c)))
	}
	summary.Table(s.out, stats)
	return false
}

func (s *Session) diag() {
	if !s.needResult() {
		return
	}
	res := s.result
	stats := res.Summary()
	d := res.Diagnostics()
	state := "completed"
	if !d.Completed {
		state = "stopped early: " + d.StoppedBy
	}
	s.printf("%s: %d iterations, %d chains × %d draws, %s\n", d.Sampler, d.IterationsRun, len(res.Draws), d.DrawsPerChain, state)
	s.printf("\n%-12s %9s %9s %7s\n", "", "ess_bulk", "ess_tail", "rhat")
	for _, st := range stats {
		s.printf("%-12s %9.0f %9.0f %7.3f\n", st.Name, st.ESSBulk, st.ESSTail, st.Rhat)
	}
	s.printf("\nworst over the parameters: R-hat %s, bulk ESS %s, tail ESS %s\n", formatStat(d.MaxRhat, "%.3f"), formatStat(d.MinESSBulk, "%.0f"), formatStat(d.MinESSTail, "%.0f"))
	hook.WriteExact(res, s.out)
	defer func() {
		if len(res.Warnings) > 0 {
			s.printf("\n")
			res.WriteWarnings(s.out)
		}
	}()
	x := d.Exchange
	if x == nil {
		return
	}
	s.printf("\nreplica exchange: %d replicas, scheme %s\n", d.Replicas, x.Scheme)
	s.printf("%-6s %9s %9s %6s\n", "pair", "attempts", "accepts", "rate")
	for p := range x.SwapRates {
		s.printf("%-6s %9d %9d %6s\n", fmt.Sprintf("%d-%d", p+1, p+2), x.SwapAttempts[p], x.SwapAccepts[p], formatStat(x.SwapRates[p], "%.2f"))
	}
	s.printf("round trips: %d (%.1f per 1,000 iterations per chain)\n", x.RoundTrips, x.RoundTripsPer1000)
	var ladder []string
	for _, lv := range x.Ladder {
		ladder = append(ladder, fmt.Sprintf("(%.3g, %.3g)", lv.LR, lv.Temperature))
	}
	s.printf("final ladder of chain 1 (lr, temperature): %s\n", strings.Join(ladder, " "))
	if x.HasBuffer {
		s.printf("correction buffer of chain 1: %.4g\n", x.CorrectionBuffer)
	}
}

func formatStat(v float64, format string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func (s *Session) save(dir string) {
	if !s.needResult() {
		return
	}
	comment := "temper repl"
	if s.loaded != "" {
		comment += " (:load " + s.loaded + ")"
	}
	if err := s.result.Save(dir, comment); err != nil {
		s.printError(err)
		return
	}
	s.printf("draws, summary and diagnostics in %s\n", dir)
}
