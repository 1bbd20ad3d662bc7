package infer

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"

	"github.com/temper-ppl/temper/autodiff/kernel"
	"github.com/temper-ppl/temper/infer/exchange"
)

// Info is what one step did (DESIGN.md section 6): the iteration it
// reached, the chains that diverged or replicas that were restarted at
// it, and its exchange round's decisions. Its slices belong to the run and
// change with the next step; copy what you keep.
type Info struct {
	Iteration int // counted from 0, burn-in included
	// Energy is each row's minibatch energy at the new state (rows
	// chain-major, as State's).
	Energy []float64
	// Diverged are the chains that stopped at this step; Restarted the
	// hottest levels restarted from their neighbour's state.
	Diverged, Restarted []Failure
	// Rounds are the running chains' exchange rounds, when the step ended
	// with one.
	Rounds []RoundInfo
	// Transitions are each chain's transition under an exact sampler.
	Transitions []Transition
}

// RoundInfo is one chain's exchange round.
type RoundInfo struct {
	Chain, Round int
	// Attempted[p] says whether pair (p, p+1) was tried; Probs[p] is its
	// swap probability (for every pair when an adaptive part needs it, the
	// tried ones otherwise); Swaps are the pairs swapped, in order.
	Attempted []bool
	Probs     []float64
	Swaps     []int
	// At[l] is the replica (numbered by its starting level) now at level l.
	At []int
}

// AdaptMode says when the adaptive parts of a sampler (the ladder and the
// correction buffer) learn.
type AdaptMode int

const (
	// AdaptWarmup adapts during burn-in and freezes the parts after it; a
	// run without burn-in adapts throughout, and says so in a warning.
	AdaptWarmup AdaptMode = iota
	// AdaptAlways adapts throughout the run (seed 000, Algorithm 1, as
	// written).
	AdaptAlways
	// AdaptNever keeps the starting ladder and buffer.
	AdaptNever
)

func (m AdaptMode) String() string {
	switch m {
	case AdaptWarmup:
		return "warmup"
	case AdaptAlways:
		return "always"
	case AdaptNever:
		return "never"
	}
	return "AdaptMode(" + strconv.Itoa(int(m)) + ")"
}

// sgKernel, the stochastic-gradient kernel, steps a run's State: it moves every running replica with the
// sampler's dynamics, evaluates the target at the new positions, checks
// them, and decides the exchange round. Its own fields are rebuilt from
// the sampler and the target; everything that changes lives in st.
type sgKernel struct {
	// target is the model as the run sees it: in the coordinates of the
	// warm-up's metric when the step size is automatic; baseTarget is the
	// model's own, and full its full-data evaluator (control-variate
	// refreshes).
	target     Target
	baseTarget Target
	full       Evaluator
	s          Sampler
	o          Options
	st         *State
	total      int // the iteration the run ends at
	eval       Evaluator
	strata     *strata // the rows' groups, which stratify the minibatches; nil without
	rngs       []*Rand
	batches    *minibatcher
	ex         *exchanger
	stages     *stages
	workers    int
	// dev moves the replicas on the model's device (DeviceStepper), where
	// the run allows it; stale is set while the device's positions are
	// ahead of st.Theta and st.Grad.
	dev         DeviceStepper
	stale       bool
	momentaSent bool      // SGHMC's momenta are on the device
	resumed     bool      // the State's positions are not on the device yet
	lrs, temps  []float64 // per replica, for dev
	// dp is this process's share of a run split across processes; nil in
	// a run of one.
	dp *distributed
	// power is the ladder's evaluator on the power path (sgpower.go).
	power *powerEvaluator
	// perChain is Progress.PerChain's buffer, reused between iterations.
	perChain []ChainProgress
}

// newKernel checks the sampler and options and makes the kernel of a
// fresh run, or of the one o.Resume continues.
func newKernel(target Target, s Sampler, o Options) (*sgKernel, error) {
	d := target.Dim()
	if err := o.validate(d); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	levels := max(1, s.Replicas)
	n := target.NumData()
	batch := o.Batch
	if batch == 0 && s.AutoStep && n > largeData {
		batch = max(largeDataBatch, n/100)
	}
	if n == 0 || batch >= n {
		batch = 0
	}
	if batch == 1 && s.needsEnergyVariance() {
		return nil, fmt.Errorf("a minibatch of one row cannot estimate the variance of its energy, which the %s swap's correction needs: use batch = 2 or more", s.Exchange.Name())
	}
	st := o.Resume
	chains, first := o.chainRange()
	switch {
	case st == nil && o.Chain > 0 && s.AutoStep && o.Chains > 1:
		return newChainKernel(target, s, o)
	case st == nil:
		st = &State{Fingerprint: o.Fingerprint, Seed: o.Seed, Burn: o.Burn, ScheduleIterations: o.Burn + o.Iters,
			Chains: chains, FirstChain: first, Levels: levels, Dim: d}
	default:
		if err := checkResume(st, target, s, o, levels, batch); err != nil {
			return nil, err
		}
	}
	stages, err := s.startStages(o, st.ScheduleIterations) // cyclical schedules (cyclical.go); nil for others
	if err != nil {
		return nil, err
	}
	rows := st.Chains * levels
	var dp *distributed
	localRows := rows
	if o.Transport != nil && o.Transport.Size() > 1 {
		if dp, err = newDistributed(o.Transport, s, o, rows, d); err != nil {
			return nil, err
		}
		localRows = dp.hi - dp.lo
	}
	groups := strataOf(target) // of the model's rows, before a ladder wraps it
	var power *powerLadderTarget
	if s.Path == PathPower {
		if power, err = newPowerLadder(target, s, o, st, rows, levels); err != nil {
			return nil, err
		}
		target = power
	}
	eval, err := target.Evaluator(localRows, batch)
	if err != nil {
		return nil, err
	}
	k := &sgKernel{target: target, baseTarget: target, s: s, o: o, st: st, total: st.Burn + o.Iters, eval: eval, stages: stages,
		workers: min(localRows, cmp.Or(o.Threads, runtime.GOMAXPROCS(0))), dp: dp}
	if o.Resume != nil {
		k.total = st.Done + o.Iters
	}
	if power != nil {
		k.power = power.eval
	}

	// One random stream per replica, (seed, r+1) of package noise for row
	// r of the whole run: initial point, minibatches, synthetic noise and
	// the dynamics' noise. Each replica reads only its own, so the draws do
	// not depend on the order or the goroutines the replicas run on, nor on
	// whether the other chains run in this process.
	k.rngs = make([]*Rand, rows)
	for r := range k.rngs {
		k.rngs[r] = NewRand(st.Seed, uint64(st.FirstChain*levels+r)+1)
		if o.Resume != nil {
			k.rngs[r].Seek(st.Streams[r])
		}
	}
	if o.Resume == nil {
		st.Theta, st.Grad = make([]float64, rows*d), make([]float64, rows*d)
		st.Energy, st.Variance = make([]float64, rows), make([]float64, rows)
		st.AuxLen = s.Dynamics.AuxLen(d)
		st.Aux = make([]float64, rows*st.AuxLen)
		st.Streams = make([]uint64, rows)
		for r := range rows {
			x := row(st.Theta, r, d)
			if o.Init != nil {
				copy(x, o.Init[st.FirstChain+r/levels])
				continue
			}
			randomStart(x, o.InitRadius, k.rngs[r])
		}
		if batch > 0 {
			st.Batches = newBatchState(n, rows, o.BatchBlocks)
		}
	}
	k.strata = groups
	if batch > 0 {
		k.batches = newMinibatcher(st.Batches, n, batch, k.rngs, k.strata)
	}
	if s.AutoStep {
		// The warm-up tunes the step and metric on the posterior, every
		// row at β = 1; the first step evaluates the rows at their levels.
		if k.power != nil {
			k.power.posterior = true
		}
		if err := k.warmUp(target, rows, batch); err != nil {
			return nil, err
		}
		if k.power != nil {
			k.power.posterior = false
		}
	}
	if levels > 1 {
		totalRounds := (st.Burn + o.Iters) / max(1, s.Every)
		if k.ex, err = newExchanger(k.target, k.s, o, st, batch, totalRounds); err != nil {
			return nil, err
		}
		k.ex.power = k.power
	}
	if dp == nil {
		k.dev = k.deviceStepper()
		k.resumed = o.Resume != nil
	}
	return k, nil
}

// deviceStepper is the evaluator as a DeviceStepper when the run's moves
// can be made on the device: Langevin or SGHMC dynamics, in θ or in a
// diagonal metric's coordinates, that need the positions on the host only
// for their draws. A ladder's swaps and restarts then move rows on the
// device, unless its exchange evaluates the states again (a second
// estimator, an exchange minibatch) or restarts every trajectory. A
// control variate (its gradient needs a second evaluation) or synthetic
// noise keeps the moves on the host.
func (k *sgKernel) deviceStepper() DeviceStepper {
	if k.power != nil { // its swaps re-level the rows from parts kept on the host
		return nil
	}
	switch k.s.Dynamics.(type) {
	case Langevin, *Hamiltonian:
	default:
		return nil
	}
	if ex := k.ex; ex != nil && (ex.second != nil || ex.exchangeBatch != nil || ex.restart != nil) {
		return nil
	}
	if k.st.ControlVariate != nil || k.o.EnergyNoise != 0 || k.o.GradNoise != 0 {
		return nil
	}
	return asDeviceStepper(k.eval)
}

// warmUp runs the warm-up of an automatic step size (useMetric). A run
// split across processes runs it whole in every process, each on an
// evaluator of every row, so that every process starts sampling from the
// one-process run's state, and then evaluates its own rows in the
// metric's coordinates.
func (k *sgKernel) warmUp(target Target, rows, batch int) error {
	dp := k.dp
	if dp == nil {
		return k.useMetric(target)
	}
	local := k.eval
	full, err := target.Evaluator(rows, batch)
	if err != nil {
		return err
	}
	k.eval, k.dp = full, nil
	if err := k.useMetric(target); err != nil {
		return err
	}
	if k.st.ControlVariate != nil {
		return fmt.Errorf("%w: the warm-up chose the control-variate gradient, which is not split across processes; set gradient = plain, or run the chains as an array job (--chain-id)", errDistributed)
	}
	k.dp = dp
	k.eval = &metricEvaluator{Evaluator: local, m: k.st.Metric, theta: make([]float64, (dp.hi-dp.lo)*k.st.Dim), g: make([]float64, k.st.Dim)}
	return nil
}

// useMetric runs the warm-up of an automatic step size on a fresh run (a
// resumed one has its result), and moves the run into the metric's
// coordinates with the tuned step.
func (k *sgKernel) useMetric(target Target) error {
	st := k.st
	if st.Metric != nil && st.ControlVariate != nil { // resumed
		if err := k.useControlVariateEvaluator(target); err != nil {
			return err
		}
	}
	if st.Metric == nil {
		m, tun, err := k.tune(target)
		if err != nil {
			return warmupError{err}
		}
		st.Metric, st.Tuning = m, &tun
	}
	mt := &metricTarget{Target: target, m: st.Metric}
	k.target = mt
	if _, ok := target.(SeededTarget); ok {
		k.target = seededMetricTarget{mt}
	}
	k.eval = &metricEvaluator{Evaluator: k.eval, m: st.Metric, theta: make([]float64, len(st.Theta)), g: make([]float64, st.Dim)}
	if st.Done == 0 && st.Tuning.Settled == 0 {
		if err := k.settle(); err != nil {
			return warmupError{err}
		}
		if err := k.recentre(target); err != nil {
			return warmupError{err}
		}
	}
	k.s.Schedule = scaleStep(k.s.Schedule, st.Tuning.StepSize)
	if l := k.s.Ladder; l != nil && l.Kind == StepSizeLadder && l.Levels == nil {
		tuned := *l // from the unit ladder (1, autoLadderSpan) of lr_min = lr_max = auto
		tuned.Min, tuned.Max = l.Min*st.Tuning.StepSize, l.Max*st.Tuning.StepSize
		k.s.Ladder = &tuned
	}
	return nil
}

// ErrWarmup is what errors.Is finds in the error of a run whose warm-up of
// an automatic step size failed (the chains diverged at every step it
// tried, no finite region, no curvature): the model's geometry defeats a
// fixed metric, where an exact sampler may still succeed.
var ErrWarmup = errors.New("the warm-up failed")

// warmupError is a failure of the warm-up, its message unchanged.
type warmupError struct{ err error }

func (e warmupError) Error() string   { return e.err.Error() }
func (e warmupError) Unwrap() []error { return []error{e.err, ErrWarmup} }

// settle is the warm-up's last stage: the sampler's own dynamics, at the
// tuned step and the sampler's temperature, for about ten relaxation times
// of the preconditioned target (1/η steps each, its curvatures being about
// 1), so that the chains start sampling in equilibrium rather than where
// the optimiser left them; between 100 and maxSettleSteps steps.
//
// A step that leaves a chain where the energy is not finite means the
// curvature somewhere is higher than the warm-up saw: every chain goes
// back to where the stage began with the step halved, up to
// maxSettleHalvings times.
func (k *sgKernel) settle() error {
	st := k.st
	theta, aux := slices.Clone(st.Theta), slices.Clone(st.Aux)
	for halvings := 0; ; halvings++ {
		n := min(max(100, int(math.Ceil(10/st.Tuning.StepSize))), maxSettleSteps)
		diverged, err := k.settleSteps(n)
		if err != nil {
			return err
		}
		if !diverged {
			st.Tuning.Settled += n
			break
		}
		if halvings == maxSettleHalvings {
			return fmt.Errorf("warm-up: the chains diverge even at step size %.3g: the posterior's curvature varies too much for a fixed step; check the model (a scale near 0, a funnel) or give lr", st.Tuning.StepSize)
		}
		st.Tuning.StepSize /= 2
		st.Tuning.Halved++
		copy(st.Theta, theta)
		copy(st.Aux, aux)
	}
	return nil
}

// recentre checks the control variate's centre once the chains have
// settled, and measures the gradient noise again where the chains are.
// The warm-up measured it around its own centre, the optimiser's end
// point, and at large N that point can lie many posterior sds from the
// bulk (the sds shrink as 1/√N, the optimiser's error does not); the
// control variate's noise, of order ‖θ - θ̂‖²N²/B, is then far larger
// where the chains sample than where it was measured (a logistic
// regression on 1,000,000 rows at B = 100 gave sds 20-50% too wide, and
// no warning). So where the chains' mean is further from the centre than
// a mean of that many draws from the posterior would be, the centre moves
// to the mean. In φ the posterior's covariance is about I, so the squared
// distance of n chains' mean from a centre at the mode is about χ²_D/n:
// mean D/n, sd √(2D)/n; recentreSds of those sds above the mean is far.
// If the noise measured then caps the step further, the step is cut and
// the chains settle again. target is in θ; the run's evaluator is then
// the control variate's in the metric's coordinates.
func (k *sgKernel) recentre(target Target) error {
	st := k.st
	cv := st.ControlVariate
	me, ok := k.eval.(*metricEvaluator)
	if cv == nil || !ok || k.s.CVRefresh > 0 {
		return nil
	}
	d := st.Dim
	mean := make([]float64, d)
	n := 0
	for r := 0; r < len(k.rngs); r += st.Levels { // the chains at the target's temperature
		for i, v := range row(st.Theta, r, d) {
			mean[i] += v
		}
		n++
	}
	for i := range mean {
		mean[i] /= float64(n)
	}
	centre := make([]float64, d) // the current centre in φ (every row's is the warm-up's)
	st.Metric.phi(centre, row(cv.Centers, 0, d))
	dist2 := 0.0
	for i, c := range centre {
		dist2 += (mean[i] - c) * (mean[i] - c)
	}
	if fd, fn := float64(d), float64(n); dist2 > (fd+recentreSds*math.Sqrt(2*fd))/fn {
		st.Metric.theta(centre, mean)
		if err := cv.centreAll(target, centre); err != nil {
			return err
		}
		st.Tuning.Recentred = math.Sqrt(dist2)
	}
	t := &tuner{target: target, o: k.o, st: st, eval: me.Evaluator, batches: k.batches, strata: k.strata, rngs: k.rngs, temp: k.s.startTemperatures(st.Levels)[0]}
	sigma2, err := t.noiseAt(st.Metric, func(r int, dst []float64) { st.Metric.theta(dst, row(st.Theta, r, d)) })
	if err != nil {
		return err
	}
	step := st.Tuning.StepSize
	st.Tuning.capStep(max(st.Tuning.NoiseRatio, noiseGain(k.s.Dynamics)*discretisationTolerance/st.Tuning.LambdaMax*sigma2/(2*t.temp)))
	if st.Tuning.StepSize < step {
		return k.settle()
	}
	return nil
}

// recentreSds is how many sds of its distribution under a centre at the
// mode the chains' mean must lie beyond for recentre to move the centre.
const recentreSds = 4

// settleSteps makes n steps of the sampler's dynamics at the tuned step,
// and reports whether a chain left the region where the energy is finite.
func (k *sgKernel) settleSteps(n int) (bool, error) {
	st := k.st
	temperatures := k.s.startTemperatures(st.Levels)
	for range n {
		if err := k.estimate(0); err != nil {
			return false, fmt.Errorf("warm-up: %w", err)
		}
		for r := range k.rngs {
			if !finiteRow(st.Energy, st.Grad, st.Theta, r, st.Dim) {
				return true, nil
			}
			k.s.Dynamics.Step(row(st.Aux, r, st.AuxLen), row(st.Theta, r, st.Dim), row(st.Grad, r, st.Dim), st.Tuning.StepSize, temperatures[r%st.Levels], k.rngs[r])
		}
	}
	return false, nil
}

// maxSettleHalvings bounds how often settle halves the step (1/1024).
const maxSettleHalvings = 10

// maxSettleSteps bounds the settling of a run whose step size is small.
const maxSettleSteps = 1000

// GradientKind says which minibatch gradient a run uses.
type GradientKind int

const (
	// AutoGradient uses the control variate where the plain gradient's
	// noise would cap the tuned step by more than a factor of ten, and the
	// plain gradient elsewhere.
	AutoGradient GradientKind = iota
	// PlainGradient is the scaled minibatch gradient.
	PlainGradient
	// ControlVariateGradient is SGLD-CV's (controlvariate.go).
	ControlVariateGradient
)

// useControlVariate decides the gradient of a tuned run whose plain
// gradient has the noise ratio given. A ladder keeps the plain one: its
// exchange tests correct for the minibatch energy's variance, which the
// evaluator reports for the plain estimator only.
func (k *sgKernel) useControlVariate(noiseRatio float64) bool {
	if k.st.Levels > 1 {
		return false
	}
	switch k.s.Gradient {
	case ControlVariateGradient:
		return k.batches != nil
	case AutoGradient:
		return k.batches != nil && noiseRatio > 10*noiseTolerance
	}
	return false
}

// startControlVariate centres the control variate at center and switches
// the run's evaluator to it.
func (k *sgKernel) startControlVariate(target Target, center []float64) error {
	cv, err := newControlVariate(target, center, len(k.rngs))
	if err != nil {
		return err
	}
	k.st.ControlVariate = cv
	return k.useControlVariateEvaluator(target)
}

func (k *sgKernel) useControlVariateEvaluator(target Target) error {
	ev, err := newCVEvaluator(target, k.st.ControlVariate, len(k.rngs), k.eval.BatchSize())
	if err != nil {
		return err
	}
	k.eval = ev
	return nil
}

// scaleStep multiplies a schedule built for a unit step by lr. A cyclical
// schedule's η0 is twice lr: its sampling stages then move at about lr on
// average (η_k = η0(cos + 1)/2 falls from η0 to 0 over each cycle), and at
// most at 2·lr·λ_max = 0.2, a variance bias of 11% at the stage's start
// falling to none at its end.
func scaleStep(s Schedule, lr float64) Schedule {
	switch s := s.(type) {
	case Constant:
		return Constant(float64(s) * lr)
	case Polynomial:
		s.A *= lr
		return s
	case Cyclical:
		s.Initial *= 2 * lr
		return s
	}
	return s
}

// A tuned run on more than largeData rows takes minibatches of
// max(largeDataBatch, N/100) rows unless told otherwise: a pass over every
// row each step would cost more than the noise of a minibatch (which the
// control variate makes O(1)) costs in mixing. Measured on a logistic
// regression of a million rows and 50 features (TestLargeN): with the
// control variate, SGHMC's sds came out 13% wide on average at B = 1,000,
// more than its noise ratio predicts, and 1.7% wide at B = 10,000.
const (
	largeData      = 10_000
	largeDataBatch = 1_000
)

// checkResume refuses a State that this target, sampler and options cannot
// continue.
func checkResume(st *State, target Target, s Sampler, o Options, levels, batch int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadCheckpoint}, args...)...)
	}
	rows := st.Chains * st.Levels
	switch {
	case st.Fingerprint != o.Fingerprint:
		return bad("it was written by a run of another model, data or sampler")
	case st.Dim != target.Dim() || st.Levels != levels:
		return bad("it has %d parameters and %d levels, this run %d and %d", st.Dim, st.Levels, target.Dim(), levels)
	case checkChains(st, o) != nil:
		return checkChains(st, o)
	case st.Seed != o.Seed:
		return seedMismatch(st.Seed, o.Seed)
	case o.Burn != 0 && o.Burn != st.Burn:
		return fmt.Errorf("burn is fixed by the run being resumed (%d); leave it out", st.Burn)
	case o.Init != nil:
		return fmt.Errorf("a resumed run continues from its checkpoint; it takes no starting points")
	case (st.Batches != nil) != (batch > 0):
		return bad("its minibatches do not match this run's batch %d", batch)
	case st.Batches != nil && st.Batches.Blocks != o.BatchBlocks:
		return bad("its minibatches are of %d blocks, this run's of %d (batch_blocks)", st.Batches.Blocks, o.BatchBlocks)
	case len(st.Theta) != rows*st.Dim || len(st.Grad) != rows*st.Dim || len(st.Energy) != rows || len(st.Variance) != rows ||
		len(st.Streams) != rows || st.AuxLen != s.Dynamics.AuxLen(st.Dim) || len(st.Aux) != rows*st.AuxLen:
		return bad("its arrays do not have the sizes of %d chains × %d levels × %d parameters", st.Chains, st.Levels, st.Dim)
	case levels > 1 && len(st.Ladders) != st.Chains:
		return bad("it has %d ladders for %d chains", len(st.Ladders), st.Chains)
	}
	return nil
}

// checkChains refuses a State of other chains than o asks for: all of a
// run's, or one of them (Options.Chain).
func checkChains(st *State, o Options) error {
	chains, first := o.chainRange()
	switch {
	case st.FirstChain != first && o.Chain > 0 && st.Chains == 1:
		return fmt.Errorf("%w: it is the state of chain %d of its run, this run asks for chain %d", ErrBadCheckpoint, st.FirstChain+1, o.Chain)
	case st.Chains != chains || st.FirstChain != first:
		return fmt.Errorf("%w: it has %s, this run asks for %s", ErrBadCheckpoint, describeChains(st.Chains, st.FirstChain), describeChains(chains, first))
	}
	return nil
}

// describeChains says which chains a State holds.
func describeChains(chains, first int) string {
	if first > 0 || chains == 1 && first == 0 {
		return fmt.Sprintf("chain %d alone", first+1)
	}
	return fmt.Sprintf("%d chains", chains)
}

// newChainKernel makes the kernel of chain o.Chain alone of a run whose
// warm-up pools the chains (lr = auto): the warm-up runs on every chain,
// as in the run of all of them, and the chain then continues from its own
// part of that State, as a resumed run would. The other chains' rows are
// dropped before any draw, so only the warm-up costs more.
func newChainKernel(target Target, s Sampler, o Options) (*sgKernel, error) {
	whole := o
	whole.Chain = 0
	k, err := newKernel(target, s, whole)
	if err != nil {
		return nil, err
	}
	if err := k.sync(); err != nil {
		return nil, err
	}
	one := o
	one.Resume, one.Init = k.st.chain(o.Chain-1), nil
	ck, err := newKernel(target, s, one)
	if err != nil {
		return nil, err
	}
	ck.o.Resume, ck.o.Init = nil, o.Init // a fresh run's: a starting point given is reported, not redrawn
	ck.total = ck.st.Burn + o.Iters
	return ck, nil
}

// level is the step size and temperature of chain c's level l at
// iteration k.
func (k *sgKernel) level(c, l, it int) Level {
	if k.ex == nil {
		return Level{LR: k.s.Schedule.StepSize(it), Temperature: k.s.Temperature}
	}
	return k.ex.level(c, l, it)
}

// step makes the next iteration: the starting point is evaluated (the
// init of iteration 0); later, the last round's swaps reach the rows, every
// running replica moves, and the target is evaluated and checked at the
// new positions, followed by the iteration's exchange round if due.
func (k *sgKernel) step(info *Info) error {
	if k.st.Done == 0 {
		return k.evaluate(0, info)
	}
	if k.ex != nil {
		swap := func(a, b int) error { k.st.swapRows(a, b); return nil }
		switch {
		case k.power != nil:
			swap = func(a, b int) error {
				k.st.swapRows(a, b)
				k.power.swapRows(a, b)
				k.power.relevel(k.st, a, b)
				return nil
			}
		case k.dp != nil:
			swap = func(a, b int) error { return k.dp.swap(k.st, a, b) }
		case k.dev != nil: // the energies swap on the host, the points on the device
			swap = func(a, b int) error { k.st.swapRows(a, b); return k.dev.SwapRows(a, b) }
		}
		if err := k.ex.applyPending(k.st, swap); err != nil {
			return err
		}
	}
	if k.dev != nil {
		return k.evaluate(k.st.Done, info) // estimate moves the replicas on the device
	}
	kernel.ParallelFor(k.workers, k.workers, &mover{k: k, it: k.st.Done - 1})
	if err := k.refreshControlVariate(); err != nil {
		return err
	}
	return k.evaluate(k.st.Done, info)
}

// refreshControlVariate moves every running row's control-variate centre
// to where the row is, every CVRefresh iterations (ControlVariate).
func (k *sgKernel) refreshControlVariate() error {
	st := k.st
	if st.ControlVariate == nil || k.s.CVRefresh <= 0 || st.Done%k.s.CVRefresh != 0 {
		return nil
	}
	if k.full == nil {
		var err error
		if k.full, err = k.baseTarget.Evaluator(1, 0); err != nil {
			return err
		}
	}
	theta := make([]float64, st.Dim)
	for r := range k.rngs {
		if st.failed(r / st.Levels) {
			continue
		}
		st.Metric.theta(theta, row(st.Theta, r, st.Dim))
		if err := st.ControlVariate.recentre(k.full, r, theta); err != nil {
			return err
		}
	}
	return nil
}

// evaluate is the evaluation, check and exchange round of iteration it.
func (k *sgKernel) evaluate(it int, info *Info) error {
	st := k.st
	*info = Info{Iteration: it, Energy: st.Energy, Rounds: info.Rounds[:0]}
	if it == 0 {
		if err := k.start(); err != nil {
			return err
		}
	} else if err := k.estimate(it); err != nil {
		return err
	}
	if err := k.check(it, info); err != nil {
		return err
	}
	k.addEvidence(it)
	st.Done = it + 1
	if st.Running() == 0 || k.ex == nil {
		return nil
	}
	if err := k.ex.exchange(st, it, info); err != nil {
		return fmt.Errorf("iteration %d: %w", it+1, err)
	}
	return nil
}

// estimate evaluates the minibatch energy, its variance and gradient at
// every row's position, with any synthetic noise.
func (k *sgKernel) estimate(it int) error {
	st := k.st
	var rows []int
	if k.batches != nil {
		rows = k.batches.next()
	}
	if k.dev != nil && it > 0 {
		return k.deviceMove(it, rows)
	}
	if k.dp != nil {
		return k.estimateShare(it, rows)
	}
	if err := k.eval.Evaluate(st.Theta, rows, st.Energy, st.Grad, st.Variance); err != nil {
		return fmt.Errorf("iteration %d: %w", it+1, err)
	}
	addNoise(st.Energy, st.Grad, st.Variance, k.o.EnergyNoise, k.o.GradNoise, k.rngs, st.Dim)
	return nil
}

// estimateShare is estimate in a run split across processes: this
// process evaluates its rows, and every process then holds every row's
// energy and variance (at iteration 0 a row whose gradient is not finite
// shares a NaN energy, as start redraws it).
func (k *sgKernel) estimateShare(it int, rows []int) error {
	st, lo, hi, d := k.st, k.dp.lo, k.dp.hi, k.st.Dim
	if rows != nil {
		b := len(rows) / len(k.rngs)
		rows = rows[lo*b : hi*b]
	}
	if err := k.eval.Evaluate(st.Theta[lo*d:hi*d], rows, st.Energy[lo:hi], st.Grad[lo*d:hi*d], st.Variance[lo:hi]); err != nil {
		return fmt.Errorf("iteration %d: %w", it+1, err)
	}
	addNoise(st.Energy[lo:hi], st.Grad[lo*d:hi*d], st.Variance[lo:hi], k.o.EnergyNoise, k.o.GradNoise, k.rngs[lo:hi], d)
	if err := k.dp.share(st, it == 0); err != nil {
		return fmt.Errorf("iteration %d: %w", it+1, err)
	}
	return nil
}

// deviceMove is the mover and the evaluation of iteration it on the
// device: each running replica's step size and temperature, as the mover
// would use them; a stopped chain's replicas get zeros and stay put.
func (k *sgKernel) deviceMove(it int, rows []int) error {
	st := k.st
	if k.lrs == nil {
		k.lrs, k.temps = make([]float64, len(k.rngs)), make([]float64, len(k.rngs))
	}
	for r := range k.rngs {
		c, l := r/st.Levels, r%st.Levels
		k.lrs[r], k.temps[r] = 0, 0
		if st.failed(c) {
			continue
		}
		lv := k.level(c, l, it-1)
		if k.stages.exploring(it - 1) {
			lv.Temperature = 0
		}
		k.lrs[r], k.temps[r] = lv.LR, lv.Temperature
	}
	m := DeviceMove{LR: k.lrs, Temperature: k.temps, Seed: st.Seed, Step: it}
	if st.FirstChain > 0 { // the device numbers its streams by the replicas it holds: a chain run alone gets its own seed
		m.Seed = DrawSeed(st.Seed, st.FirstChain, -1, -1)
	}
	if k.resumed { // the device has evaluated nothing: the resumed State's points and gradients go first
		if err := k.dev.SetPositions(st.Theta, st.Grad); err != nil {
			return fmt.Errorf("iteration %d: %w", it+1, err)
		}
		k.resumed = false
	}
	if h, ok := k.s.Dynamics.(*Hamiltonian); ok {
		m.Friction = h.Friction
		if !k.momentaSent { // the host's momenta (zeros, or a resumed run's) go first
			if err := k.dev.SetMomentum(st.Aux); err != nil {
				return fmt.Errorf("iteration %d: %w", it+1, err)
			}
			k.momentaSent = true
		}
	}
	k.stale = true
	if err := k.dev.DeviceStep(&m, rows, st.Energy, st.Variance); err != nil {
		return fmt.Errorf("iteration %d: %w", it+1, err)
	}
	return nil
}

// pull brings the device's positions and gradients into the State.
func (k *sgKernel) pull() error {
	if !k.stale {
		return nil
	}
	var momentum []float64
	if _, ok := k.s.Dynamics.(*Hamiltonian); ok {
		momentum = k.st.Aux
	}
	if err := k.dev.Positions(k.st.Theta, k.st.Grad, momentum); err != nil {
		return err
	}
	k.stale = false
	return nil
}

// randomStart draws a starting point uniform in (-radius, radius) on the
// unconstrained scale, Stan's default, from the replica's own stream.
func randomStart(x []float64, radius float64, rng *Rand) {
	for i := range x {
		x[i] = radius * (2*rng.Float64() - 1)
	}
}

// maxStartAttempts is how many random starting points a replica tries
// before the run gives up, as Stan tries 100.
const maxStartAttempts = 100

// start evaluates the starting points (iteration 0). A replica whose
// energy or gradient is not finite there draws another random start, up
// to maxStartAttempts in all, as Stan does; a starting point the user
// gave is not replaced, and is reported instead. A run whose starts were
// all finite at once makes the same draws as before this rule: only the
// replicas that retry, and the minibatches dealt for the retries, differ.
func (k *sgKernel) start() error {
	st := k.st
	for attempt := 1; ; attempt++ {
		if err := k.estimate(0); err != nil {
			return err
		}
		var bad []int
		for r := range st.Energy {
			e := st.Energy[r]
			if math.IsNaN(e) || math.IsInf(e, 0) || !kernel.AllFinite(row(st.Grad, r, st.Dim)) || !kernel.AllFinite(row(st.Theta, r, st.Dim)) {
				bad = append(bad, r)
			}
		}
		switch {
		case len(bad) == 0:
			return nil
		case k.o.Init != nil:
			c := bad[0] / st.Levels
			return fmt.Errorf("the log density or its gradient is not finite at the starting point given for chain %d (energy %v): start it elsewhere, or check the model", c+1, st.Energy[bad[0]])
		case attempt == maxStartAttempts:
			return fmt.Errorf("no starting point where the log density and its gradient are finite in %d random draws uniform in (-%g, %g) on the unconstrained scale (energy %v at the last): check the model (a scale that can be ≤ 0, the log of a negative number), give inits, or change init_radius",
				maxStartAttempts, k.o.InitRadius, k.o.InitRadius, st.Energy[bad[0]])
		}
		for _, r := range bad {
			x := row(st.Theta, r, st.Dim)
			randomStart(x, k.o.InitRadius, k.rngs[r])
		}
	}
}

// Adapter tunes a run's State from each step's Info while the run adapts
// (DESIGN.md section 6): the ladder and correction buffer of replica
// exchange; the warm-up's step size and preconditioner.
type Adapter interface {
	Adapt(st *State, info *Info)
}

// adapting reports whether the iteration info reports adapts under mode.
func (k *sgKernel) adapting(mode AdaptMode, info *Info) bool {
	switch mode {
	case AdaptNever:
		return false
	case AdaptWarmup:
		return k.st.Burn == 0 || info.Iteration < k.st.Burn
	}
	return true
}

// adapt runs the adapters on the step info reports, while the run adapts.
func (k *sgKernel) adapt(info *Info) {
	if k.ex != nil && k.adapting(k.s.Adapt, info) {
		k.ex.Adapt(k.st, info)
	}
}

// The sgKernel's side of runKernel.
func (k *sgKernel) state() *State        { return k.st }
func (k *sgKernel) output() Target       { return k.target }
func (k *sgKernel) end() int             { return k.total }
func (k *sgKernel) keep(it int) bool     { return k.stages.keep(it, k.st.Burn, k.o.Thin) }
func (k *sgKernel) cycle(it int) int     { return k.stages.cycle(it) }
func (k *sgKernel) cyclical() bool       { return k.stages != nil }
func (k *sgKernel) statNames() []string  { return nil }
func (k *sgKernel) stats(int, []float64) {}
func (k *sgKernel) name() string         { return k.s.Name }
func (k *sgKernel) finish(res *Result) {
	if k.ex != nil {
		k.ex.finish(k.st.Done)
	}
	if ev := k.st.Evidence; ev != nil {
		if e, ok := ev.Estimate(); ok && !math.IsNaN(e.LogZ) {
			res.Evidence = &e
		}
	}
	res.MovedOnDevice = k.dev != nil
}

// check finds the rows of running chains whose energy or position is not
// finite. The hottest level of a ladder restarts from its neighbour's
// state; any other row stops its chain.
func (k *sgKernel) check(it int, info *Info) error {
	st := k.st
	d, levels := st.Dim, st.Levels
	for r := range st.Energy {
		c, l := r/levels, r%levels
		if st.failed(c) {
			continue
		}
		what, value := "", 0.0
		if e := st.Energy[r]; math.IsNaN(e) || math.IsInf(e, 0) {
			what, value = "energy", e
		} else if theta := row(st.Theta, r, d); !k.stale && k.dp.owns(r) && !kernel.AllFinite(theta) { // on the device, a non-finite θ shows in its energy
			i := slices.IndexFunc(theta, func(x float64) bool { return x-x != 0 }) // NaN or ±Inf
			what, value = "parameter "+strconv.Itoa(i+1), theta[i]
		}
		if what == "" {
			continue
		}
		f := Failure{Chain: st.FirstChain + c, Replica: l, Iteration: it + 1, What: what, Value: value}
		if levels > 1 && l == levels-1 {
			// The hottest level leaves no gap behind: it takes its
			// neighbour's state (the evaluation there is valid) with its
			// auxiliary variables reset.
			if k.dp != nil {
				if err := k.dp.move(st, r-1, r); err != nil {
					return err
				}
			} else {
				copy(row(st.Theta, r, d), row(st.Theta, r-1, d))
				copy(row(st.Grad, r, d), row(st.Grad, r-1, d))
				st.Energy[r], st.Variance[r] = st.Energy[r-1], st.Variance[r-1]
				if k.power != nil { // the neighbour's parts, at this level's β
					k.power.copyRow(r, r-1)
					k.power.relevel(st, r, r)
				}
				if k.dev != nil {
					if err := k.dev.CopyRow(r, r-1); err != nil {
						return err
					}
				}
			}
			clear(row(st.Aux, r, st.AuxLen))
			st.Restarts = append(st.Restarts, f)
			info.Restarted = append(info.Restarted, f)
			continue
		}
		st.Failures = append(st.Failures, f)
		info.Diverged = append(info.Diverged, f)
	}
	return nil
}

// sync writes into the State what lives outside it between steps: the
// random streams' positions, and the positions on a device.
func (k *sgKernel) sync() error {
	for r, rng := range k.rngs {
		k.st.Streams[r] = rng.Pos()
	}
	return k.pull()
}

// progress is what the run reports after an iteration.
func (k *sgKernel) progress() Progress {
	st := k.st
	p := Progress{Done: st.Done, Total: k.total, Replicas: st.Levels, Chains: st.Chains, Failed: len(st.Failures)}
	k.perChain = chainProgress(k.perChain, st.Chains, st.FirstChain, st.Failures)
	p.PerChain = k.perChain
	if st.Tuning != nil {
		p.NoiseRatio = st.Tuning.NoiseRatio
	}
	if k.stages != nil {
		c, ok := k.s.Schedule.(Cyclical)
		if ok {
			p.Cycles = (c.Iterations + c.Length() - 1) / c.Length()
		}
		p.Cycle = k.stages.cycle(st.Done - 1)
		p.Exploring = k.stages.exploring(st.Done - 1)
	}
	if k.ex != nil {
		attempts, accepts := 0, 0
		for c, l := range st.Ladders {
			tried, took := 0, 0
			for i := range l.Report.Attempts {
				tried += l.Report.Attempts[i]
				took += l.Report.Accepts[i]
			}
			attempts, accepts = attempts+tried, accepts+took
			p.RoundTrips += l.Trips.Count
			if c < len(p.PerChain) {
				p.PerChain[c].SwapRate, p.PerChain[c].RoundTrips = float64(took)/float64(tried), l.Trips.Count
			}
		}
		if attempts > 0 {
			p.SwapRate = float64(accepts) / float64(attempts)
			for _, l := range st.Ladders {
				p.Barrier += l.Report.Barrier() / float64(len(st.Ladders))
			}
		}
	}
	return p
}

// warnings are what the run should tell its user about its kernel.
func (k *sgKernel) warnings() []string {
	var w []string
	st := k.st
	if st.Tuning != nil && st.Tuning.Warning != "" {
		w = append(w, st.Tuning.Warning)
	}
	if k.ex != nil && k.s.Ladder.Tuned && st.Burn/max(1, k.s.Every) < 2*exchange.FirstRound {
		w = append(w, fmt.Sprintf("the tuned ladder moves its levels in the first half of burn-in, in rounds of %d exchange rounds and more; burn = %d left it %s: set burn to a few hundred exchange rounds or more", exchange.FirstRound, st.Burn, map[bool]string{true: "where it started", false: "barely tuned"}[st.LadderTuning == nil || len(st.LadderTuning.Barriers) == 0]))
	}
	if k.ex != nil && k.ex.adaptive && k.s.Adapt == AdaptWarmup && st.Burn == 0 {
		w = append(w, "the ladder and correction buffer adapted throughout sampling, since the run has no burn-in: set burn to adapt during warm-up only, or adapt = always to keep adapting and silence this warning")
	}
	switch {
	case st.Running() == 0:
		w = append(w, fmt.Sprintf("every chain diverged (%s)", failureList(st.Failures)))
	case len(st.Failures) > 0:
		w = append(w, fmt.Sprintf("%d of %d chains diverged and stopped (%s); the summary is of the %d that finished", len(st.Failures), st.Chains, failureList(st.Failures), st.Running()))
	}
	if k.dp == nil { // a hand-given step is judged at every chain's point, which a process of a split run does not hold
		check, err := k.stepWarnings()
		if err != nil {
			w = append(w, fmt.Sprintf("the step size could not be judged: %v", err))
		}
		w = append(w, check...)
	}
	if len(st.Restarts) > 0 {
		w = append(w, fmt.Sprintf("the hottest level diverged %d times and was restarted from its neighbour's state (first: %s); narrow the ladder (t_max, lr_max) or lower lr", len(st.Restarts), st.Restarts[0]))
	}
	if ev := st.Evidence; ev != nil {
		if e, ok := ev.Estimate(); ok {
			w = append(w, exchange.Warnings(&e)...)
		}
		if st.Burn == 0 {
			w = append(w, "log Z counts the ladder's draws from the first iteration (burn = 0), before its levels reach their laws: set burn (a tenth of iters or more) so that it counts only draws in equilibrium")
		}
	}
	return w
}

// mover moves the running replicas from iteration it, the rows w, w + W,
// w + 2W, ... on part w of W goroutines (kernel.ParallelFor): each
// replica's auxiliary state is its own and each replica has its own random
// stream, so the moves do not depend on the goroutines.
type mover struct {
	k  *sgKernel
	it int
}

func (m *mover) RunPart(w int) {
	k, st := m.k, m.k.st
	d, levels := st.Dim, st.Levels
	for r := w; r < len(k.rngs); r += k.workers {
		c, l := r/levels, r%levels
		if st.failed(c) || !k.dp.owns(r) {
			continue
		}
		lv := k.level(c, l, m.it)
		if k.stages.exploring(m.it) { // seed 002, Section 3.1: explore at T = 0
			lv.Temperature = 0
		}
		k.s.Dynamics.Step(row(st.Aux, r, st.AuxLen), row(st.Theta, r, d), row(st.Grad, r, d), lv.LR, lv.Temperature, k.rngs[r])
	}
}

// swapRows exchanges two replicas' positions and what was evaluated there;
// the dynamics' auxiliary variables stay with their level.
func (st *State) swapRows(a, b int) {
	d := st.Dim
	ta, tb := row(st.Theta, a, d), row(st.Theta, b, d)
	ga, gb := row(st.Grad, a, d), row(st.Grad, b, d)
	for i := range ta {
		ta[i], tb[i] = tb[i], ta[i]
		ga[i], gb[i] = gb[i], ga[i]
	}
	st.Energy[a], st.Energy[b] = st.Energy[b], st.Energy[a]
	st.Variance[a], st.Variance[b] = st.Variance[b], st.Variance[a]
}

// addNoise adds the synthetic noise of Options.EnergyNoise and GradNoise
// to each replica's energy and gradient, from the replica's own stream; the
// gradient's comes in chunks from the bulk normal fill, added while the
// chunk is in L1.
func addNoise(energy, grad, variance []float64, es, gs float64, rngs []*Rand, d int) {
	if es == 0 && gs == 0 {
		return
	}
	for c, rng := range rngs {
		if es > 0 {
			energy[c] += es * rng.NormFloat64()
			variance[c] += es * es
		}
		if gs > 0 {
			g := grad[c*d : (c+1)*d]
			for len(g) > 0 {
				z := rng.Normals(len(g))
				gz := g[:len(z)]
				for i, zi := range z {
					gz[i] += gs * zi
				}
				g = g[len(z):]
			}
		}
	}
}

// minibatcher deals each replica its minibatches: the rows of a random
// permutation, B at a time, reshuffled each epoch. Every batch is a uniform
// draw of B distinct rows, which makes the scaled minibatch energy an
// unbiased estimate of the full one. The permutations live in the State.
//
// With blocks K > 0 (Options.BatchBlocks) a batch is instead K runs of
// consecutive rows (B/K each, the first B mod K one longer), each from a
// start drawn uniformly from the N rows and wrapping past the last row to
// the first. Every row then lies in a run of b rows with probability b/N,
// so the batch holds each row B/N times in expectation and the N/B-scaled
// energy stays unbiased; but rows next to each other in the file come
// together, so where the file is sorted (by the outcome, a covariate, a
// group) a batch is a sample of a few neighbourhoods, not of the data,
// and the estimator's variance grows with the correlation of neighbours.
// What it buys is locality: a batch reads K stretches of the file, a few
// pages each, rather than B pages scattered over it, which is what a
// memory-mapped file larger than memory needs. No permutation is kept.
type minibatcher struct {
	st     *BatchState
	batch  int
	blocks int
	n      int // the data's rows
	rows   []int
	rngs   []*Rand
	strata *strata // set: each epoch's permutation is stratified by group
	work   strataScratch
}

func identity(n int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	return perm
}

// newBatchState is the dealers' starting state: an unshuffled permutation
// per replica, or with blocks none (a block dealer draws only its starts).
func newBatchState(n, replicas, blocks int) *BatchState {
	b := &BatchState{Perms: make([][]int, replicas), Pos: make([]int, replicas), Blocks: blocks}
	if blocks > 0 {
		return b
	}
	for r := range b.Perms {
		b.Perms[r] = identity(n)
		b.Pos[r] = n // shuffle before first use
	}
	return b
}

func newMinibatcher(st *BatchState, n, batch int, rngs []*Rand, groups *strata) *minibatcher {
	return &minibatcher{st: st, batch: batch, blocks: st.Blocks, n: n, rows: make([]int, len(rngs)*batch), rngs: rngs, strata: groups}
}

func (m *minibatcher) next() []int {
	if m.blocks > 0 {
		return m.nextBlocks()
	}
	for c, perm := range m.st.Perms {
		if m.st.Pos[c]+m.batch > len(perm) {
			if m.strata != nil {
				m.strata.shuffle(perm, m.rngs[c], &m.work)
			} else {
				m.rngs[c].Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			}
			m.st.Pos[c] = 0
		}
		copy(m.rows[c*m.batch:(c+1)*m.batch], perm[m.st.Pos[c]:m.st.Pos[c]+m.batch])
		m.st.Pos[c] += m.batch
	}
	return m.rows
}

// nextBlocks deals each replica K runs of consecutive rows from uniform
// starts, wrapping at the end of the data.
func (m *minibatcher) nextBlocks() []int {
	k := min(m.blocks, m.batch)
	for c, rng := range m.rngs {
		out := m.rows[c*m.batch : (c+1)*m.batch]
		for j := range k {
			size := m.batch / k
			if j < m.batch%k {
				size++
			}
			r := rng.IntN(m.n)
			for i := range out[:size] {
				out[i] = r
				if r++; r == m.n {
					r = 0
				}
			}
			out = out[size:]
		}
	}
	return m.rows
}
