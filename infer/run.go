package infer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/temper-ppl/temper/infer/exchange"
	"github.com/temper-ppl/temper/internal/sysmem"
)

// Options configure a run. The zero value of each field means its default.
type Options struct {
	Chains int // independent runs, each a ladder of the sampler's replicas (default 4)
	Iters  int // iterations kept after burn-in, before thinning (default 2000)
	Burn   int // iterations discarded first (default 0)
	Thin   int // keep every Thin-th iteration (default 1)
	Batch  int // minibatch rows per replica; 0 or ≥ NumData: every row
	Seed   uint64

	// BatchBlocks, if positive, makes each minibatch BatchBlocks runs of
	// consecutive rows from uniform random starts (wrapping at the end)
	// instead of rows drawn at random: still unbiased, and local in the
	// file, for memory-mapped data larger than memory; see minibatcher
	// for when its variance is larger.
	BatchBlocks int

	// Chain, if positive, runs chain Chain (from 1) of the Chains alone,
	// as one task of an array job: its random streams, starting point and
	// draws are those the chain has in the run of all Chains, bit for bit,
	// and its draws and failures are numbered as that chain's. The
	// warm-up of an automatic step size, which pools the chains (the
	// metric at the median chain's end point, the step from every chain's
	// curvature), runs on all Chains first.
	Chain int

	// EnergyNoise and GradNoise add independent N(0, s²) noise to every
	// energy and every gradient coordinate: the papers' synthetic
	// experiments on targets without data. The energy noise is part of the
	// estimator, so its variance s² is added to the variance estimate that
	// variance-corrected swaps use.
	EnergyNoise, GradNoise float64

	// Threads is how many goroutines move the replicas (their noise and
	// update); 0 means GOMAXPROCS. Each replica has its own random stream,
	// so the draws do not depend on it.
	Threads int

	// Init gives each chain's unconstrained starting point (Chains × Dim),
	// shared by the chain's replicas; nil draws each coordinate of each
	// replica uniformly from [-InitRadius, InitRadius] (Stan's default,
	// radius 2).
	Init       [][]float64
	InitRadius float64

	// KeepAll keeps the draws of every level of a ladder, not only the
	// target level's.
	KeepAll bool

	// Resume, if set, continues the run that made this State (a
	// checkpoint) for Iters more iterations: the draws are those the run
	// would have made had it never stopped. Burn and Init must be left
	// zero (the State has them); Chains, Batch and Seed must match.
	Resume *State
	// Fingerprint names the model, its data and the sampler; it is kept in
	// the State, and a Resume with another fingerprint is refused.
	Fingerprint string
	// Checkpoint, if set, receives the run's State every CheckpointEvery
	// (of wall time; 0: never on a clock), when the run stops early and at
	// its end; it must not keep st, which the run goes on changing. An
	// error stops the run.
	Checkpoint      func(st *State) error
	CheckpointEvery time.Duration

	// Transport, if set with more than one process, splits the run's
	// replicas across the processes it connects (distributed.go); every
	// process makes the same draws, those of the one-process run.
	Transport Transport

	// OnDraw, if set, receives every kept draw as it is made. Its Values
	// are reused; copy what you keep. An error stops the run.
	OnDraw func(Draw) error
	// Progress, if set, is called after every iteration with what the run
	// has done so far.
	Progress func(Progress)
}

// Progress is what a run reports after each iteration, for a progress
// display: the count, and what the step's Info says of the run's health.
type Progress struct {
	Done, Total int // iterations, burn-in included
	// Cycles is the number of cycles of a cyclical schedule (0 for other
	// schedules); Cycle is the current one, from 0, and Exploring whether
	// it is in its exploration stage.
	Cycles, Cycle int
	Exploring     bool
	// Replicas is the ladder size (1 without exchange); SwapRate is the
	// accepted fraction of the swaps tried so far, over every pair and
	// chain, RoundTrips the round trips of every chain's ladder, and
	// Barrier the ladders' communication barrier Λ (their mean; 0 before
	// any swap).
	Replicas   int
	SwapRate   float64
	RoundTrips int
	Barrier    float64
	// Chains is the number of chains, Failed how many have stopped.
	Chains, Failed int
	// Warmup says an exact sampler is in its warm-up; Divergent counts
	// its divergent transitions after it.
	Warmup    bool
	Divergent int
	// NoiseRatio is the SG warm-up's minibatch noise ratio η·max σ²/(2T)
	// (0 on full data or for an exact sampler).
	NoiseRatio float64
	// PerChain is each chain's own state, for a display that shows the
	// chains apart (nil where a kernel reports none). It is reused
	// between calls: copy what you keep.
	PerChain []ChainProgress
	// Stage, when not empty, names a long step after the sampling (the
	// summaries and the judgement of many draws), which a progress display
	// shows as a line of its own; the other fields are then zero.
	Stage string
}

// ChainProgress is one chain's part of a Progress.
type ChainProgress struct {
	// Divergent counts an exact sampler's divergent transitions after its
	// warm-up; SwapRate and RoundTrips are the chain's ladder's (SwapRate
	// NaN before its first swap).
	Divergent  int
	SwapRate   float64
	RoundTrips int
	// Stopped says the chain has stopped (its energy or a parameter went
	// bad) while the others run on.
	Stopped bool
}

// Draw is one kept state of one replica.
type Draw struct {
	Chain int // counted from 0 in the whole run (Options.Chain)
	Iter  int // counted from the end of burn-in
	// Level is the replica's rung of the ladder (0: the target), with the
	// step size and temperature it moved with.
	Level           int
	LR, Temperature float64
	// Cycle is the draw's cycle under a Staged schedule (cyclical SG-MCMC),
	// counted from 0; 0 under other schedules.
	Cycle int
	// Values are lp__ then the target's OutputNames.
	Values []float64
	// Stats are the sampler's own values of the draw, named by
	// Result.StatColumns (accept_stat__, stepsize__, ... of the exact
	// samplers); nil for samplers that have none.
	Stats []float64
}

// WithDefaults fills the zero fields that have defaults (4 chains, 2,000
// iterations, thin 1, init radius 2).
func (o Options) WithDefaults() Options {
	if o.Chains == 0 {
		o.Chains = 4
	}
	if o.Iters == 0 {
		o.Iters = DefaultIters
	}
	if o.Thin == 0 {
		o.Thin = 1
	}
	if o.InitRadius == 0 {
		o.InitRadius = 2
	}
	return o
}

// Validate reports options that no run of a target of dim parameters can
// take (no chains, a negative batch, inits of the wrong length).
func (o Options) Validate(dim int) error { return o.WithDefaults().validate(dim) }

func (o Options) validate(dim int) error {
	switch {
	case o.Chains < 1:
		return fmt.Errorf("chains must be at least 1, got %d", o.Chains)
	case o.Iters < 1:
		return fmt.Errorf("iters must be at least 1, got %d", o.Iters)
	case o.Burn < 0:
		return fmt.Errorf("burn must be ≥ 0, got %d", o.Burn)
	case o.Thin < 1:
		return fmt.Errorf("thin must be at least 1, got %d", o.Thin)
	case o.Batch < 0:
		return fmt.Errorf("batch must be ≥ 0, got %d", o.Batch)
	case o.BatchBlocks < 0:
		return fmt.Errorf("batch_blocks must be ≥ 0, got %d", o.BatchBlocks)
	case o.EnergyNoise < 0 || o.GradNoise < 0:
		return fmt.Errorf("noise scales must be ≥ 0")
	case o.InitRadius < 0:
		return fmt.Errorf("init radius must be ≥ 0, got %g", o.InitRadius)
	case o.Chain < 0 || o.Chain > o.Chains:
		return fmt.Errorf("chain %d is not one of the run's chains 1 to %d", o.Chain, o.Chains)
	}
	if o.Init != nil {
		if len(o.Init) != o.Chains {
			return fmt.Errorf("init has %d points for %d chains", len(o.Init), o.Chains)
		}
		for c, x := range o.Init {
			if len(x) != dim {
				return fmt.Errorf("init point of chain %d has %d values, the model has %d unconstrained parameters", c+1, len(x), dim)
			}
		}
	}
	return nil
}

// chainRange is the chains this process runs: all of them from 0, or
// chain o.Chain alone.
func (o Options) chainRange() (chains, first int) {
	if o.Chain > 0 {
		return 1, o.Chain - 1
	}
	return o.Chains, 0
}

// Result holds the draws of a run, kept in memory.
type Result struct {
	// FirstChain is the number (from 0) in the whole run of the chain
	// whose draws are Draws[0]: Options.Chain - 1, or 0.
	FirstChain int
	// Columns are lp__ then the target's OutputNames.
	Columns []string
	// StatColumns name the sampler's own values of each draw, Stan's
	// accept_stat__, stepsize__, treedepth__, n_leapfrog__, divergent__
	// and energy__ for the exact samplers (nil for the others), and
	// Stats[c][i] are those of Draws[c][i].
	StatColumns []string
	Stats       [][][]float64
	// Exact reports each chain's adaptation and transitions under an
	// exact sampler (nuts, hmc, mala); nil for the others.
	Exact []ExactReport
	// Draws[c][i] is chain c's i-th kept draw of the target level, one
	// value per column. A chain that stopped keeps the draws it made.
	Draws [][][]float64
	// Cycle[c][i], under a Staged schedule, is the cycle of Draws[c][i]
	// (counted from 0); nil under other schedules.
	Cycle [][]int
	// All[c][l][i], with Options.KeepAll, is chain c's i-th kept draw at
	// level l (All[c][0] is Draws[c]), and AllLevels[c][l][i] the level it
	// moved with.
	All       [][][][]float64
	AllLevels [][][]Level
	// Iterations run, burn-in included (less than planned when stopped;
	// for a resumed run, counted from the start of the first).
	Iterations int
	Sampler    string
	Replicas   int
	// Exchange reports each chain's ladder; nil without replica exchange.
	Exchange []*ExchangeReport
	// Evidence is log Z from a ladder on the power path (package exchange);
	// nil for every other run.
	Evidence *exchange.Evidence
	// Failures are the chains that stopped because they diverged, and
	// Restarts the hottest levels of ladders restarted from their
	// neighbour's state.
	Failures, Restarts []Failure
	// Warnings say, in words, what about the run a user should know and
	// what to change.
	Warnings []string
	// State is where the run ended: a Resume continues it.
	State *State
	// Tuning is what the warm-up of an automatic step size found; nil
	// when the step size was given.
	Tuning *Tuning
	// MovedOnDevice says the replicas moved on the model's device
	// (DeviceStepper): positions crossed to the host only for kept draws.
	MovedOnDevice bool
}

// Finished lists the chains that ran to the end (or to where the run was
// stopped) without diverging.
func (r *Result) Finished() []int {
	var out []int
	for c := range r.Draws {
		if !slices.ContainsFunc(r.Failures, func(f Failure) bool { return f.Chain == r.FirstChain+c }) {
			out = append(out, c)
		}
	}
	return out
}

// Chains returns column col's draws per finished chain (Finished), the
// layout summaries take.
func (r *Result) Chains(col int) [][]float64 {
	var out [][]float64
	for _, c := range r.Finished() {
		draws := r.Draws[c]
		x := make([]float64, len(draws))
		for i, d := range draws {
			x[i] = d[col]
		}
		out = append(out, x)
	}
	return out
}

// ErrDiverged reports chains whose energy or position stopped being
// finite; Run returns it when no chain is left.
var ErrDiverged = errors.New("diverged")

// DefaultIters is the iterations a run keeps after burn-in, before
// thinning, when Options.Iters is 0.
const DefaultIters = 2000

// Run samples target with s for every chain at once: the C chains' P
// replicas are the C·P rows of one batched evaluation. It is the loop of
// DESIGN.md section 6: the kernel steps the State, the adapters tune it
// from the step's Info while the run adapts, and the recorder keeps the
// draws. A chain that diverges stops and the others go on (Result.Failures
// names it); Run fails with ErrDiverged only when none is left. It stops
// early, keeping the draws made so far, when ctx is cancelled (returning
// ctx's error) or when OnDraw or Checkpoint fails; the Result is valid in
// every case.
func Run(ctx context.Context, target Target, s Sampler, o Options) (*Result, error) {
	o = o.WithDefaults()
	k, err := newRunKernel(target, s, o)
	if err != nil {
		return nil, err
	}
	st := k.state()
	rec, saver := newRecorder(k, o), newCheckpointer(k, o)
	if err := rec.fits(sysmem.Available()); err != nil {
		return nil, err
	}
	defer rec.finish()
	var info Info
	step := func() error { // one iteration: step (or init), record, adapt
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := k.step(&info); err != nil {
			return err
		}
		if err := rec.record(&info); err != nil {
			return err
		}
		k.adapt(&info)
		return nil
	}
	for err == nil && st.Done < k.end() && st.Running() > 0 {
		if err = step(); err == nil {
			if o.Progress != nil {
				o.Progress(k.progress())
			}
			err = saver.onClock()
		}
	}
	if err == nil && st.Running() == 0 {
		err = fmt.Errorf("every chain %w: %s", ErrDiverged, failureList(st.Failures))
	}
	err = errors.Join(err, k.sync()) // the State a Result holds is the run's last
	return rec.res, saver.atStop(err)
}

// runKernel is what Run drives (DESIGN.md section 6): a kernel that steps
// the State and reports each step's Info, its adapters, and what the
// recorder needs to keep and label the draws. The stochastic-gradient
// samplers are one (sgKernel), the exact full-batch ones another
// (exactKernel).
type runKernel interface {
	state() *State
	// output constrains the rows of the State into draws: the target in
	// the kernel's coordinates.
	output() Target
	// end is the iteration the run ends at.
	end() int
	step(info *Info) error
	adapt(info *Info)
	// keep reports whether iteration it's draws are kept; cycle is its
	// cycle under a staged schedule, and cyclical whether there is one.
	keep(it int) bool
	cycle(it int) int
	cyclical() bool
	// level is the step size and temperature of chain c's level l at
	// iteration it.
	level(c, l, it int) Level
	// statNames are the sampler's own columns of a draw (accept_stat__,
	// stepsize__, ...), and stats writes chain c's for the last step.
	statNames() []string
	stats(c int, dst []float64)
	// pull brings positions kept elsewhere (a device) into the State;
	// sync also records the random streams' positions.
	pull() error
	sync() error
	progress() Progress
	warnings() []string
	// finish completes the run's reports in res.
	finish(res *Result)
	name() string
}

// gatherDraws gives the columns of every row of a kept draw when k's rows
// are split across processes, each computing its own rows' with
// constrain; nil otherwise (the recorder computes them).
func gatherDraws(k runKernel, rows, cols int, constrain func(r int, dst []float64)) ([]float64, error) {
	sk, ok := k.(*sgKernel)
	if !ok || sk.dp == nil {
		return nil, nil
	}
	return sk.dp.gather(rows, cols, constrain)
}

// newRunKernel makes the kernel of s's family.
func newRunKernel(target Target, s Sampler, o Options) (runKernel, error) {
	if s.Exact != nil {
		if o.Transport != nil && o.Transport.Size() > 1 {
			return nil, fmt.Errorf("%w: the exact samplers' chains are independent; run them as an array job (--chain-id) instead", errDistributed)
		}
		return newExactKernel(target, s, o)
	}
	return newKernel(target, s, o)
}

// checkpointer hands the State to Options.Checkpoint on its clock and when
// the run stops.
type checkpointer struct {
	k    runKernel
	save func(*State) error
	// every is the interval on the clock (0: none); last when it last saved.
	every time.Duration
	last  time.Time
}

func newCheckpointer(k runKernel, o Options) *checkpointer {
	return &checkpointer{k: k, save: o.Checkpoint, every: o.CheckpointEvery, last: time.Now()}
}

func (c *checkpointer) write() error {
	if c.save == nil {
		return nil
	}
	if err := c.k.sync(); err != nil {
		return err
	}
	c.last = time.Now()
	if err := c.save(c.k.state()); err != nil {
		return fmt.Errorf("writing the checkpoint: %w", err)
	}
	return nil
}

// onClock saves when the interval has passed since the last save.
func (c *checkpointer) onClock() error {
	if c.every > 0 && time.Since(c.last) >= c.every {
		return c.write()
	}
	return nil
}

// atStop saves the State where the run stopped, for whatever reason, and
// returns the run's error joined with any of the save.
func (c *checkpointer) atStop(err error) error {
	return errors.Join(err, c.write())
}

// failureList names the failures for an error message.
func failureList(fs []Failure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ") + "; a smaller step size (lr) may help"
}

// recorder keeps a run's draws: in the Result, and through OnDraw.
type recorder struct {
	k     runKernel
	o     Options
	res   *Result
	draw  Draw
	stats []float64
}

func newRecorder(k runKernel, o Options) *recorder {
	st := k.state()
	chains := st.Chains
	res := &Result{Columns: append([]string{"lp__"}, k.output().OutputNames()...), Draws: make([][][]float64, chains),
		Sampler: k.name(), Replicas: st.Levels, StatColumns: k.statNames(), FirstChain: st.FirstChain}
	if k.cyclical() {
		res.Cycle = make([][]int, chains)
	}
	if len(res.StatColumns) > 0 {
		res.Stats = make([][][]float64, chains)
	}
	if o.KeepAll {
		res.All, res.AllLevels = make([][][][]float64, chains), make([][][]Level, chains)
		for c := range res.All {
			res.All[c], res.AllLevels[c] = make([][][]float64, st.Levels), make([][]Level, st.Levels)
		}
	}
	for _, l := range st.Ladders {
		res.Exchange = append(res.Exchange, &l.Report)
	}
	res.State = st
	return &recorder{k: k, o: o, res: res, draw: Draw{Values: make([]float64, len(res.Columns))}, stats: make([]float64, len(res.StatColumns))}
}

// finish fills in what the Result reports of the run's end.
func (rc *recorder) finish() {
	st, res := rc.k.state(), rc.res
	res.Iterations = st.Done
	res.Tuning = st.Tuning
	res.Failures, res.Restarts = st.Failures, st.Restarts
	res.Warnings = append(res.Warnings, rc.k.warnings()...)
	rc.k.finish(res)
}

// record keeps the draws of the iteration info reports, if it is kept:
// the state at which its gradient was taken, before its exchange round's
// swaps, of every running chain.
func (rc *recorder) record(info *Info) error {
	st, k, res := rc.k.state(), info.Iteration, rc.res
	if !rc.k.keep(k) {
		return nil
	}
	if err := rc.k.pull(); err != nil {
		return err
	}
	target := rc.k.output()
	d, levels := st.Dim, st.Levels
	draw := &rc.draw
	constrain := func(r int, dst []float64) {
		c, l := r/levels, r%levels
		dst[0] = -st.Energy[r]
		if g, ok := target.(SeededTarget); ok {
			g.ConstrainSeeded(dst[1:], row(st.Theta, r, d), DrawSeed(rc.o.Seed, st.FirstChain+c, l, k))
		} else {
			target.Constrain(dst[1:], row(st.Theta, r, d))
		}
	}
	cols := len(draw.Values)
	gathered, err := gatherDraws(rc.k, st.Chains*levels, cols, constrain)
	if err != nil {
		return err
	}
	for r := range st.Chains * levels {
		c, l := r/levels, r%levels
		if l > 0 && !rc.o.KeepAll || st.failed(c) {
			continue
		}
		lv := rc.k.level(c, l, k)
		draw.Chain, draw.Iter, draw.Level, draw.LR, draw.Temperature = st.FirstChain+c, k-st.Burn, l, lv.LR, lv.Temperature
		draw.Cycle = rc.k.cycle(k)
		if gathered != nil {
			copy(draw.Values, gathered[r*cols:(r+1)*cols])
		} else {
			constrain(r, draw.Values)
		}
		draw.Stats = nil
		if l == 0 {
			res.Draws[c] = append(res.Draws[c], slices.Clone(draw.Values))
			if res.Cycle != nil {
				res.Cycle[c] = append(res.Cycle[c], draw.Cycle)
			}
			if res.Stats != nil {
				rc.k.stats(c, rc.stats)
				draw.Stats = rc.stats
				res.Stats[c] = append(res.Stats[c], slices.Clone(rc.stats))
			}
		}
		if rc.o.KeepAll {
			if l == 0 {
				res.All[c][0] = res.Draws[c]
			} else {
				res.All[c][l] = append(res.All[c][l], slices.Clone(draw.Values))
			}
			res.AllLevels[c][l] = append(res.AllLevels[c][l], lv)
		}
		if rc.o.OnDraw != nil {
			if err := rc.o.OnDraw(*draw); err != nil {
				return err
			}
		}
	}
	return nil
}
