package temper

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/sysmem"
)

// Result is a run's draws, kept in memory, with what the summaries and the
// output files need to know of the run. The embedded infer.Result holds
// the draws: Columns, Draws[chain][i][column] of the target level, Cycle
// under a cyclical schedule, All and AllLevels with KeepAll, the
// Iterations run, and the replica-exchange reports.
type Result struct {
	*infer.Result
	// Iters[i] is the iteration of every chain's i-th draw, counted from 0
	// at the end of burn-in.
	Iters []int
	// Elapsed is the wall time of the run; Warmup the part of it before
	// the first kept draw (the warm-up and burn-in).
	Elapsed, Warmup time.Duration
	// Stopped is why the run ended early (the context's error, a
	// divergence, an error from OnDraw); nil when it ran to the end.
	Stopped error
	// Options are the run's, defaults filled in.
	Options Options

	model    *Model
	sampler  infer.Sampler
	settings map[string]string
	// stats caches Summary, and grouped the regions of the finished chains
	// (nil: not yet grouped); prepend clears both.
	stats   []summary.Stats
	grouped *groupedRegions
	// judged counts the warnings at the end of Warnings that are Judge's,
	// which prepend replaces when the draws change.
	judged int
	// chainIDs number a merged run's chains (from 1); nil for a run's own.
	chainIDs []int

	// Plan is what sampler = auto chose, and why; nil for a named
	// sampler. Attempts are the runs before this one that the escalation
	// table replaced, oldest first, each with its Result.
	Plan     *Plan
	Attempts []Attempt
	// attempt is this run's own attempt; mayEscalate says the escalation
	// table could replace it (sampleAuto), so that the judgement need not
	// advise it (escalationAdvice).
	attempt     Attempt
	mayEscalate bool
	// Search is what the mode search before sampling found (sampler =
	// auto before NUTS), and searchNote why it did not run.
	Search     *ModeSearch
	searchNote string
	// searchCost is pt's predicted time when the search found modes but
	// the run did not start on pt for its cost.
	searchCost time.Duration
	// modes are the draws' modes (Modes), found once.
	modesOnce sync.Once
	modes     []Mode
	modesErr  error
}

// ChainNumber is the number (from 1) in the whole run of the chain whose
// draws are Draws[c]: c+1, or with Options.ChainID that chain's number,
// or for merged runs (mergeRuns) each chain's own.
func (r *Result) ChainNumber(c int) int {
	if r.chainIDs != nil {
		return r.chainIDs[c]
	}
	return r.FirstChain + c + 1
}

// Sample runs the sampler that opts choose on m. It returns when the run
// ends, or soon after ctx is cancelled, every chain has diverged or
// opts.OnDraw fails; the Result then holds the draws made so far, and the
// error says why (ctx's error for a cancellation). A chain that diverges
// while others go on is named in Result.Failures and Warnings, and is no
// error. Warnings also hold the run's judgement (Judge): convergence,
// stuck chains, ladder pairs that never swap. With opts.Checkpoint the run's state is saved to that file (at
// the end, when stopped, and every CheckpointEvery); opts.Resume continues
// a saved run for Iters more iterations, with the draws it would have made
// had it not stopped, and saves to the same file unless Checkpoint names
// another. Options that cannot run (an unknown sampler, a bad setting,
// zero chains, a batch larger than the data, a checkpoint of another
// model or sampler) give a nil Result.
//
// With sampler auto (the default) the run is planned first (Plan) and
// escalated while its judgement calls for a better kernel that is
// affordable (escalate.go): the Result is the last attempt's, with the
// Plan and the earlier attempts in Result.Attempts, and OnAttempt hears
// of each attempt before it starts.
func (m *Model) Sample(ctx context.Context, opts Options) (*Result, error) {
	if opts.Prior {
		if opts.LogLik {
			return nil, fmt.Errorf("--prior samples no likelihood, so it has no pointwise log-likelihood: leave --log-lik out")
		}
		pm, err := m.priorModel()
		if err != nil {
			return nil, err
		}
		m = pm
	}
	opts.defaultIters = opts.Iters == 0
	opts = opts.withDefaults()
	if opts.auto() {
		return m.sampleAuto(ctx, opts)
	}
	return m.sampleOnce(ctx, opts)
}

// addWarning adds a warning of the run's own, before the judgement's
// (which judge replaces when the draws change).
func (r *Result) addWarning(w string) {
	at := len(r.Warnings) - r.judged
	r.Warnings = slices.Insert(r.Warnings, at, w)
}

// sampleOnce runs the sampler opts name (not auto).
func (m *Model) sampleOnce(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.nonCentre) > 0 {
		nc, _, err := m.nonCentredModel()
		if err != nil {
			return nil, err
		}
		m = nc
	}
	s, settings, err := opts.sampler()
	if err != nil {
		return nil, err
	}
	if err := opts.checkRun(); err != nil {
		return nil, err
	}
	if err := opts.checkData(m.NumData()); err != nil {
		return nil, err
	}
	r := &Result{Options: opts, model: m, sampler: s, settings: settings}
	run := opts.runOptions()
	if run.Init, err = m.startingPoints(opts); err != nil {
		return nil, err
	}
	if err := m.checkpointing(&run, opts, s, settings); err != nil {
		return nil, err
	}
	start := time.Now()
	run.OnDraw = func(d infer.Draw) error {
		if len(r.Iters) == 0 {
			r.Warmup = time.Since(start)
		}
		if d.Level == 0 && (len(r.Iters) == 0 || d.Iter > r.Iters[len(r.Iters)-1]) {
			r.Iters = append(r.Iters, d.Iter)
		}
		if opts.OnDraw == nil {
			return nil
		}
		return opts.OnDraw(Draw{Chain: d.Chain, Iter: d.Iter, Level: d.Level, LR: d.LR, Temperature: d.Temperature, Attempt: opts.attempt,
			Cycle: d.Cycle, Values: slices.Clone(d.Values), Stats: slices.Clone(d.Stats)})
	}
	var t infer.Target = target{m, opts.evalOptions()}
	if opts.LogLik {
		lt, err := target{m, opts.evalOptions()}.withLogLik()
		if err != nil {
			return nil, fmt.Errorf("log_lik: %w", err)
		}
		t = lt
	}
	res, err := infer.Run(ctx, t, s, run)
	r.Elapsed = time.Since(start)
	if res == nil {
		return nil, err
	}
	r.Result, r.Stopped = res, err
	if w := m.memoryWarning(opts); w != "" {
		r.Warnings = append([]string{w}, r.Warnings...)
	}
	r.announce(opts.Progress, "judging the draws: R-hat, ESS and drift of every column")
	r.judge()
	return r, err
}

// stageValues is the number of kept values (draws × columns) from which a
// step after sampling is announced: the summaries of 2,000,000 values take
// about a second on a 2-core machine (4 × 60,000 draws of 35 columns
// took 4.5 s), so smaller runs stay quiet.
const stageValues = 2_000_000

// announce reports a long step after the sampling through progress, when
// the run kept stageValues values or more.
func (r *Result) announce(progress func(Progress), step string) {
	if progress == nil || r.Result == nil || len(r.Draws) == 0 {
		return
	}
	if draws := r.DrawsPerChain() * len(r.Draws); draws*len(r.Columns) >= stageValues {
		progress(Progress{Stage: fmt.Sprintf("%s (%d draws × %d columns)", step, draws, len(r.Columns))})
	}
}

// memoryWarning says, when the model's memory-mapped data (large .npy
// arrays) is larger than the memory the process may fill and its
// minibatches draw rows at random, that batch_blocks would read the file
// in stretches rather than a page per row; "" otherwise. temper run
// prints it before sampling; Sample adds it to the Result's warnings.
func (m *Model) memoryWarning(opts Options) string {
	mapped, avail := m.cm.MappedBytes(), sysmem.Available()
	minibatched := opts.Batch > 0 || opts.Batch == 0 && m.NumData() > 10_000 // a tuned run's own minibatches (infer's largeData)
	if mapped == 0 || avail == 0 || mapped <= avail || !minibatched || opts.BatchBlocks > 0 || opts.Batch >= m.NumData() {
		return ""
	}
	return fmt.Sprintf("the memory-mapped data (%.1f GB) is larger than the memory available (%.1f GB): minibatch rows drawn at random read a page from disk each, "+
		"which can make each step take seconds; batch_blocks = 8 (--batch-blocks 8) deals each minibatch as 8 runs of consecutive rows instead, "+
		"unbiased and read in stretches (shuffle the file's rows once if it is sorted)", float64(mapped)/1e9, float64(avail)/1e9)
}

// errStopIteration ends a run whose draws' consumer stopped ranging.
var errStopIteration = errors.New("temper: the consumer of the draws stopped")

// Draws runs the sampler like Sample and yields every kept draw as it is
// made, with a nil error. If the run fails or is cancelled, the draws made
// are followed by one pair with a zero Draw and the error. Breaking out of
// the loop stops the run.
//
//	for d, err := range m.Draws(ctx, opts) {
//		if err != nil {
//			return err
//		}
//		use(d)
//	}
func (m *Model) Draws(ctx context.Context, opts Options) iter.Seq2[Draw, error] {
	return func(yield func(Draw, error) bool) {
		next := opts.OnDraw
		stopped := false
		opts.OnDraw = func(d Draw) error {
			if next != nil {
				if err := next(d); err != nil {
					return err
				}
			}
			if !yield(d, nil) {
				stopped = true
				return errStopIteration
			}
			return nil
		}
		_, err := m.Sample(ctx, opts)
		if err != nil && !stopped {
			yield(Draw{}, err)
		}
	}
}

// Column returns the draws of the named column (lp__, a scalar, or one
// element of an array such as beta.2) per chain. A name with no column is
// an error; for an array's name (beta) the error lists its elements'
// columns, so that a vector parameter is never mistaken for an absent one.
func (r *Result) Column(name string) ([][]float64, error) {
	if i := slices.Index(r.Columns, name); i >= 0 {
		return r.Chains(i), nil
	}
	var elements []string
	for _, c := range r.Columns {
		if strings.HasPrefix(c, name+".") {
			elements = append(elements, c)
		}
	}
	switch {
	case len(elements) > 4:
		return nil, fmt.Errorf("no column %q: %s is an array; its columns are %s, %s, …, %s (%d in all)", name, name, elements[0], elements[1], elements[len(elements)-1], len(elements))
	case len(elements) > 0:
		return nil, fmt.Errorf("no column %q: %s is an array; its columns are %s", name, name, strings.Join(elements, ", "))
	}
	return nil, fmt.Errorf("no column %q among the run's %d columns (lp__ and the parameters, flattened as beta.2)", name, len(r.Columns))
}

// SamplerDescription is the sampler with every setting that applies to
// it, as the draws file records it: sgld(dynamics=langevin, lr=1e-4, ...).
func (r *Result) SamplerDescription() string { return describeSampler(r.sampler, r.settings) }

// drawSequence calls f with the kept draws in the order a run makes them:
// by iteration, then chain, then level (every level with KeepAll).
func (r *Result) drawSequence(f func(infer.Draw) error) error {
	n := 0
	for _, c := range r.Draws {
		n = max(n, len(c))
	}
	for i := range n {
		for c := range r.Draws {
			if i >= len(r.Draws[c]) {
				continue
			}
			levels := 1
			if r.All != nil {
				levels = len(r.All[c])
			}
			for l := range levels {
				d := infer.Draw{Chain: r.ChainNumber(c) - 1, Level: l}
				if i < len(r.Iters) {
					d.Iter = r.Iters[i]
				}
				if r.Cycle != nil {
					d.Cycle = r.Cycle[c][i]
				}
				d.Values = r.Draws[c][i]
				if r.Stats != nil {
					d.Stats = r.Stats[c][i]
				}
				if r.All != nil {
					if i >= len(r.All[c][l]) {
						continue
					}
					d.Values = r.All[c][l][i]
					lv := r.AllLevels[c][l][i]
					d.LR, d.Temperature = lv.LR, lv.Temperature
				}
				if err := f(d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// startingPoints are the chains' unconstrained starting points that opts
// give, one per chain; nil for random starts.
func (m *Model) startingPoints(opts Options) ([][]float64, error) {
	switch {
	case opts.InitFile != "" && opts.Init != nil:
		return nil, fmt.Errorf("give starting points as Init or as InitFile (init), not both")
	case opts.InitFile != "":
		return m.readInits(opts.InitFile, opts.Chains)
	case len(opts.Init) == 1 && opts.Chains > 1: // one point for every chain
		return slices.Repeat(opts.Init, opts.Chains), nil
	}
	return opts.Init, nil
}
