package infer

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// The exact samplers are full-batch kernels with a Metropolis correction,
// the references the stochastic-gradient dynamics approximate: NUTS (the
// multinomial No-U-Turn sampler with the generalised U-turn criterion:
// Hoffman & Gelman 2014, JMLR 15, Algorithms 3 and 6; Betancourt 2017,
// arXiv:1701.02434, Sections 4.2-4.3 and Appendix A), HMC with a fixed
// number of leapfrog steps (Neal 2011, "MCMC using Hamiltonian dynamics",
// Figure 2) and MALA, which is HMC with one step (Neal 2011, Section
// 5.2; Roberts & Tweedie 1996). They run on the same compiled program as
// the other samplers, one evaluator a chain, the chains on goroutines of
// their own, and adapt as Stan's warm-up does (stanadapt.go).

// ExactKind is an exact kernel's family.
type ExactKind int

const (
	NUTS ExactKind = iota
	HMC
	MALA
)

func (k ExactKind) String() string {
	switch k {
	case NUTS:
		return "nuts"
	case HMC:
		return "hmc"
	case MALA:
		return "mala"
	}
	return "ExactKind(" + strconv.Itoa(int(k)) + ")"
}

// MetricKind is the form of an exact kernel's metric, the inverse mass
// matrix M⁻¹ of its kinetic energy ½ pᵀM⁻¹p.
type MetricKind int

const (
	DiagMetric  MetricKind = iota // diagonal, learnt in the warm-up windows
	DenseMetric                   // dense, learnt in the warm-up windows
	UnitMetric                    // the identity, not adapted
	// AutoMetric learns a dense estimate in each window and keeps it
	// where the posterior's correlations matter, the diagonal elsewhere
	// (chooseDense).
	AutoMetric
)

func (m MetricKind) String() string {
	return [...]string{"diag", "dense", "unit", "auto"}[m]
}

// Exact configures an exact kernel (the sampler settings nuts, hmc and
// mala read).
type Exact struct {
	Kind   ExactKind
	Metric MetricKind
	// StepSize is the leapfrog step ε; 0 has the warm-up choose it by dual
	// averaging toward the acceptance statistic Delta.
	StepSize float64
	Delta    float64
	// MaxDepth bounds a NUTS tree (2^MaxDepth leapfrog steps); Steps is
	// the HMC trajectory's length (1 for MALA).
	MaxDepth, Steps int
	// Jitter draws each HMC transition's step uniform in ε(1 ± Jitter).
	Jitter float64
	// Warmup is the number of adapting iterations, and InitBuffer, Window
	// and TermBuffer split it as Stan's windowed adaptation does.
	Warmup, InitBuffer, Window, TermBuffer int
	// Levels, above 1, runs each chain as a ladder of that many levels at
	// temperatures from 1 to TMax, the kernel on every level and exact
	// swaps between them: parallel tempering (exactpt.go). TuneLadder
	// moves the levels during the warm-up so that every adjacent pair is
	// rejected equally often, and AutoLevels adds levels then, up to
	// about 2Λ + 1 for the communication barrier Λ it measures.
	Levels     int
	TMax       float64
	TuneLadder bool
	AutoLevels bool
	// Path is what the levels temper: PathTemperature the whole energy,
	// e^{-βU} from β = 1 to 1/TMax; PathPower the likelihood alone,
	// p(θ) p(y | θ)^β from the posterior (β = 1) to the prior (β = 0),
	// whose draws give log Z (package exchange). The target must be a
	// PowerTarget.
	Path LadderPath
}

// LadderPath is what an exact ladder's levels temper.
type LadderPath string

// The paths of exact ladders.
const (
	PathTemperature LadderPath = "temperature"
	PathPower       LadderPath = "power"
)

// levels is the number of levels of each chain's ladder (1: none).
func (x *Exact) levels() int { return max(1, x.Levels) }

// maxTreeDepth bounds the setting max_depth: a tree of 2^24 leapfrog steps
// is already days of work for any model worth a tree.
const maxTreeDepth = 24

// maxEnergyError is the rise of the Hamiltonian above its starting value
// at which a trajectory counts as divergent (Stan's max_deltaH).
const maxEnergyError = 1000

// ExactState is the part of a State that an exact kernel adds: every
// chain's step size, metric and adaptation, and what its transitions did.
type ExactState struct {
	// StepSize is each chain's current ε; InvMetric its M⁻¹ (D values when
	// diagonal, D×D row-major when Dense) and Chol, when Dense, the lower
	// Cholesky factor L of M⁻¹ = LLᵀ, which draws the momenta.
	StepSize  []float64
	Dense     bool
	InvMetric [][]float64
	Chol      [][]float64
	// Dual is each chain's step-size adaptation, Windows its estimate of
	// the posterior's (co)variance over the current metric window.
	Dual    []DualAverage
	Windows []WindowEstimate
	// Last is each chain's last transition; Totals sum the transitions
	// after warm-up and burn-in.
	Last   []Transition
	Totals []TransitionTotals
	// Ladder is the state of the chains' temperature ladders (exactpt.go);
	// nil without one. With a ladder every slice above has one entry a
	// row, chain c's level l at row c·Levels + l, level 0 the target.
	Ladder *ExactLadder
}

// Transition is what one exact transition of one chain did: Stan's
// sampler diagnostics.
type Transition struct {
	Accept, StepSize float64
	// Depth is the NUTS tree's depth; Leapfrogs the steps integrated.
	Depth, Leapfrogs int
	Divergent        bool
	// Energy is the Hamiltonian H = U + ½pᵀM⁻¹p at the state chosen.
	Energy float64
}

// TransitionTotals sum a chain's transitions after warm-up: counts, and
// the sums the energy's Bayesian fraction of missing information needs
// (Betancourt 2016, arXiv:1604.00695, Eq. 10, estimated as Stan does).
type TransitionTotals struct {
	N, Divergent, MaxDepth, Leapfrogs, Depth int
	Accept                                   float64
	// PrevEnergy is the last transition's H; SumSqDiff is Σ(E_n − E_{n−1})²
	// and EnergyMean, EnergyM2 Welford's running mean and sum of squares.
	PrevEnergy, SumSqDiff, EnergyMean, EnergyM2 float64
}

// ExactReport is a chain's account of an exact sampler's run, in
// Result.Exact.
type ExactReport struct {
	// StepSize and InvMetric are what the warm-up chose (InvMetric D×D
	// row-major when Dense).
	StepSize  float64
	Dense     bool
	InvMetric []float64
	// Transitions after warm-up and burn-in, of which Divergent ended in a
	// divergence and MaxDepthHits reached MaxDepth (NUTS).
	Transitions, Divergent, MaxDepthHits, MaxDepth int
	// MeanLeapfrogs, MeanTreeDepth (NUTS) and MeanAccept are per
	// transition.
	MeanLeapfrogs, MeanTreeDepth, MeanAccept float64
	// EBFMI is the energy's Bayesian fraction of missing information:
	// below 0.3 the momentum resampling explores the energy's marginal
	// slowly (Betancourt 2016).
	EBFMI float64
}

// exactKernel steps the chains of an exact sampler. Its fields are
// rebuilt from the sampler and the target; everything that changes lives
// in st (st.Exact), so that a checkpoint resumes it exactly.
type exactKernel struct {
	target  Target
	s       Sampler
	x       *Exact
	o       Options
	st      *State
	es      *ExactState
	total   int
	rngs    []*Rand // one a row
	chains  []*chainIntegrator
	workers int
	// levels is the ladder's size (1: none); swapRngs are each chain's
	// stream for its swaps.
	levels   int
	swapRngs []*Rand
	windows  windowSchedule
	err      []error // per chain, of the last step
	// notes are settings the run did not use, for its warnings.
	notes []string
	// adaptError is the first failure of the warm-up's adaptation, which
	// the warnings report.
	adaptError error
	// power holds the prior's and the likelihood's targets on the power
	// path (nil on the temperature path), and pw the exchange's scratch.
	power *powerParts
	pw    powerScratch
	// perChain is Progress.PerChain's buffer, reused between iterations.
	perChain []ChainProgress
}

// Minimum batch for exact kernels is the whole data: they are exact.
func newExactKernel(target Target, s Sampler, o Options) (*exactKernel, error) {
	x, d := s.Exact, target.Dim()
	err := o.validate(d)
	if err != nil {
		return nil, err
	}
	var notes []string
	if n := target.NumData(); o.Batch > 0 && o.Batch < n {
		// A batch set for the model's stochastic-gradient default (in its
		// infer block) does not stop a run of an exact sampler; it is said.
		notes = append(notes, fmt.Sprintf("%s is exact: it evaluated every row of the data at each step, not minibatches of batch = %d", s.Name, o.Batch))
	}
	if o.EnergyNoise != 0 || o.GradNoise != 0 {
		notes = append(notes, fmt.Sprintf("%s is exact: it sampled the target without the synthetic noise energy_noise = %g, grad_noise = %g, which is for the stochastic-gradient samplers", s.Name, o.EnergyNoise, o.GradNoise))
		o.EnergyNoise, o.GradNoise = 0, 0
	}
	switch {
	case o.KeepAll && x.levels() == 1:
		return nil, fmt.Errorf("%s has one replica a chain: keep = all applies to replica exchange", s.Name)
	case o.KeepAll:
		return nil, fmt.Errorf("keep = all is not yet written for the exact samplers' ladders: the draws file keeps the target level's draws")
	}
	levels := x.levels()
	st := o.Resume
	if st == nil {
		chains, first := o.chainRange()
		st = &State{Fingerprint: o.Fingerprint, Seed: o.Seed, Burn: x.Warmup + o.Burn, ScheduleIterations: x.Warmup + o.Burn + o.Iters,
			Chains: chains, FirstChain: first, Levels: levels, Dim: d}
	} else {
		if x.AutoLevels && st.Levels > 1 { // the warm-up may have added levels
			levels = st.Levels
		}
		if err := checkExactResume(st, target, o, x.Warmup, levels); err != nil {
			return nil, err
		}
	}
	var power *powerParts
	if x.Path == PathPower {
		if power, err = newPowerParts(target, levels); err != nil {
			return nil, err
		}
	}
	rows := st.Chains * levels
	k := &exactKernel{power: power, target: target, s: s, x: x, o: o, st: st, total: st.Burn + o.Iters, notes: notes, levels: levels,
		workers: min(rows, max(1, cmp.Or(o.Threads, runtime.GOMAXPROCS(0)))), windows: newWindowSchedule(x)}
	if o.Resume != nil {
		k.total = st.Done + o.Iters
	}
	// Row r's stream: its chain's in the whole run, for the target level
	// (so that a run without a ladder draws as it always did), and streams
	// numbered apart for the other levels and for each chain's swaps.
	k.rngs = make([]*Rand, rows)
	for r := range k.rngs {
		k.rngs[r] = k.rowRand(r/levels, r%levels)
	}
	if levels > 1 {
		k.swapRngs = make([]*Rand, st.Chains)
		for c := range k.swapRngs {
			k.swapRngs[c] = NewRand(st.Seed, uint64(st.FirstChain+c)+1+1<<48)
		}
	}
	if o.Resume != nil {
		for i, rng := range append(slices.Clone(k.rngs), k.swapRngs...) {
			rng.Seek(st.Streams[i])
		}
	}
	if power != nil {
		target = power.likelihood // the rows' evaluators are the parts'
	}
	if _, ok := target.(ThreadedTarget); !ok {
		k.workers = 1 // evaluators that split their work must not run side by side
	}
	k.chains = make([]*chainIntegrator, rows)
	for r := range k.chains {
		var err error
		if k.chains[r], err = k.newIntegrator(k.rngs[r]); err != nil {
			return nil, err
		}
	}
	if o.Resume == nil {
		k.fresh()
	}
	k.es = st.Exact
	if lad := k.es.Ladder; lad != nil {
		for r, ch := range k.chains {
			ch.beta = lad.Betas[r%levels]
		}
	}
	k.err = make([]error, rows)
	return k, nil
}

// rowRand is the random stream of chain c's level l: the chain's in the
// whole run for the target level (so that a run without a ladder draws as
// it always did), streams numbered apart for the other levels.
func (k *exactKernel) rowRand(c, l int) *Rand {
	return NewRand(k.st.Seed, uint64(k.st.FirstChain+c)+1+uint64(l)<<32)
}

// newIntegrator is a row's integrator, on an evaluator of its own (of one
// goroutine where the rows run side by side), drawing from rng.
func (k *exactKernel) newIntegrator(rng *Rand) (*chainIntegrator, error) {
	if k.power != nil {
		prior, err := k.rowEvaluator(k.power.prior)
		if err != nil {
			return nil, err
		}
		lik, err := k.rowEvaluator(k.power.likelihood)
		if err != nil {
			return nil, err
		}
		c := newChainIntegrator(nil, k.st.Dim, k.x, rng)
		c.split = newSplitEvaluator(prior, lik, k.st.Dim)
		return c, nil
	}
	eval, err := k.rowEvaluator(k.target)
	if err != nil {
		return nil, err
	}
	return newChainIntegrator(eval, k.st.Dim, k.x, rng), nil
}

// rowEvaluator is an evaluator of target for one row: of one goroutine
// where the rows run side by side.
func (k *exactKernel) rowEvaluator(target Target) (Evaluator, error) {
	if threaded, ok := target.(ThreadedTarget); ok && k.workers > 1 {
		return threaded.EvaluatorThreads(1, 0, 1)
	}
	return target.Evaluator(1, 0)
}

// ThreadedTarget is a Target whose evaluators can be told how many
// goroutines to split their work over: the exact kernels run their chains
// side by side, each on an evaluator of one goroutine.
type ThreadedTarget interface {
	EvaluatorThreads(replicas, batch, threads int) (Evaluator, error)
}

// fresh sets up the State of a new run: starting points drawn as the
// stochastic-gradient kernel draws them, a unit metric, and Stan's first
// step size of 1.
func (k *exactKernel) fresh() {
	st, x, d := k.st, k.x, k.st.Dim
	rows := st.Chains * k.levels
	st.Theta, st.Grad = make([]float64, rows*d), make([]float64, rows*d)
	st.Energy, st.Variance = make([]float64, rows), make([]float64, rows)
	st.Streams = make([]uint64, rows+len(k.swapRngs))
	for r := range rows {
		theta := row(st.Theta, r, d)
		if k.o.Init != nil {
			copy(theta, k.o.Init[st.FirstChain+r/k.levels])
			continue
		}
		randomStart(theta, k.o.InitRadius, k.rngs[r])
	}
	es := &ExactState{Dense: x.Metric == DenseMetric, StepSize: make([]float64, rows), InvMetric: make([][]float64, rows),
		Dual: make([]DualAverage, rows), Windows: make([]WindowEstimate, rows), Last: make([]Transition, rows), Totals: make([]TransitionTotals, rows)}
	denseWindows := es.Dense || x.Metric == AutoMetric && d <= autoDenseMax
	for c := range rows {
		es.StepSize[c] = cmp.Or(x.StepSize, 1)
		es.InvMetric[c] = identityMetric(d, es.Dense)
		es.Windows[c] = newWindowEstimate(d, denseWindows)
	}
	if es.Dense {
		es.Chol = make([][]float64, rows)
		for c := range rows {
			es.Chol[c] = identityMetric(d, true)
		}
	}
	if k.levels > 1 {
		es.Ladder = newExactLadder(k.levels, st.Chains, x.TMax, x.Path)
	}
	st.Exact = es
}

// identityMetric is M⁻¹ = I, diagonal (D ones) or dense (D×D).
func identityMetric(d int, dense bool) []float64 {
	if !dense {
		m := make([]float64, d)
		for i := range m {
			m[i] = 1
		}
		return m
	}
	m := make([]float64, d*d)
	for i := range d {
		m[i*d+i] = 1
	}
	return m
}

// checkExactResume refuses a State that this run cannot continue.
func checkExactResume(st *State, target Target, o Options, warmup, levels int) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadCheckpoint}, args...)...)
	}
	switch {
	case st.Fingerprint != o.Fingerprint:
		return bad("it was written by a run of another model, data or sampler")
	case st.Exact == nil || st.Levels != levels || st.Dim != target.Dim():
		return bad("it is not the state of an exact sampler of %d parameters on ladders of %d levels", target.Dim(), levels)
	case checkChains(st, o) != nil:
		return checkChains(st, o)
	case st.Seed != o.Seed:
		return seedMismatch(st.Seed, o.Seed)
	case o.Burn != 0 && o.Burn+warmup != st.Burn:
		return fmt.Errorf("burn is fixed by the run being resumed (%d after the warm-up); leave it out", st.Burn-warmup)
	case o.Init != nil:
		return fmt.Errorf("a resumed run continues from its checkpoint; it takes no starting points")
	}
	return nil
}

// step makes the next iteration: one transition of every chain (the first
// evaluates the starting points before it).
func (k *exactKernel) step(info *Info) error {
	st := k.st
	it := st.Done
	*info = Info{Iteration: it, Energy: st.Energy, Transitions: k.es.Last, Rounds: info.Rounds[:0]}
	if it == 0 {
		if err := k.start(); err != nil {
			return err
		}
	}
	k.parallel(func(c int) error { return k.transition(c, it) })
	for r, err := range k.err {
		if err != nil {
			return fmt.Errorf("iteration %d, %s: %w", it+1, k.rowName(r), err)
		}
	}
	if it >= st.Burn {
		for c, t := range k.es.Last {
			k.es.Totals[c].add(t, k.x.MaxDepth)
		}
	}
	if k.levels > 1 {
		if err := k.exchange(it); err != nil {
			return fmt.Errorf("iteration %d: %w", it+1, err)
		}
	}
	st.Done = it + 1
	return nil
}

// rowName names row r for a message: its chain, and its level on a
// ladder.
func (k *exactKernel) rowName(r int) string {
	if k.levels == 1 {
		return fmt.Sprintf("chain %d", r+1)
	}
	return fmt.Sprintf("chain %d level %d", r/k.levels+1, r%k.levels+1)
}

// parallel runs f for every row (chain, or level of a chain's ladder) on
// the kernel's workers, rows w, w + W, ... on worker w; each row has its
// own evaluator and random stream, so the draws do not depend on the
// goroutines. f's errors go to k.err.
func (k *exactKernel) parallel(f func(c int) error) {
	if k.workers <= 1 {
		for c := range k.chains {
			k.err[c] = f(c)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range k.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := w; c < len(k.chains); c += k.workers {
				k.err[c] = f(c)
			}
		}()
	}
	wg.Wait()
}

// start evaluates the starting points: a chain whose log density or
// gradient is not finite there draws another, up to maxStartAttempts, as
// the stochastic-gradient kernel does (kernel.go's start); a given start
// is reported instead.
func (k *exactKernel) start() error {
	st, d := k.st, k.st.Dim
	k.parallel(func(c int) error {
		theta := row(st.Theta, c, d)
		for attempt := 1; ; attempt++ {
			u, err := k.chains[c].evaluate(theta, row(st.Grad, c, d))
			if err != nil {
				return err
			}
			st.Energy[c] = u
			if !math.IsNaN(u) && !math.IsInf(u, 0) && kernel.AllFinite(row(st.Grad, c, d)) {
				return nil
			}
			switch {
			case k.o.Init != nil && c%k.levels == 0:
				return fmt.Errorf("the log density or its gradient is not finite at the starting point given (energy %v): start it elsewhere, or check the model", u)
			case attempt == maxStartAttempts:
				return fmt.Errorf("no starting point where the log density and its gradient are finite in %d random draws uniform in (-%g, %g) on the unconstrained scale (energy %v at the last): check the model (a scale that can be ≤ 0, the log of a negative number), give inits, or change init_radius",
					maxStartAttempts, k.o.InitRadius, k.o.InitRadius, u)
			}
			randomStart(theta, k.o.InitRadius, k.rngs[c])
		}
	})
	for r, err := range k.err {
		if err != nil {
			return fmt.Errorf("%s: %w", k.rowName(r), err)
		}
	}
	if k.x.StepSize != 0 {
		return nil
	}
	// Stan's first step size, found from ε = 1 by doubling or halving.
	k.parallel(func(c int) error {
		eps, err := k.chains[c].initialStepSize(k.chainPoint(c), k.es.StepSize[c])
		k.es.StepSize[c] = eps
		k.es.Dual[c].restart(eps)
		return err
	})
	return k.firstError()
}

// firstError is the first row's error of the last parallel call, named.
func (k *exactKernel) firstError() error {
	for r, err := range k.err {
		if err != nil {
			return fmt.Errorf("%s: %w", k.rowName(r), err)
		}
	}
	return nil
}

// chainPoint is chain c's current state as the integrator sees it, with
// the chain's metric.
func (k *exactKernel) chainPoint(c int) chainPoint {
	st, d := k.st, k.st.Dim
	p := chainPoint{q: row(st.Theta, c, d), g: row(st.Grad, c, d), u: &st.Energy[c], metric: metric{inv: k.es.InvMetric[c]}}
	if k.es.Dense {
		p.metric.chol = k.es.Chol[c]
	}
	return p
}

// transition moves chain c once, and records what it did in es.Last.
func (k *exactKernel) transition(c, it int) error {
	ch, eps := k.chains[c], k.es.StepSize[c]
	var t Transition
	var err error
	if k.x.Kind == NUTS {
		t, err = ch.nuts(k.chainPoint(c), eps, k.x.MaxDepth)
	} else {
		if k.x.Jitter > 0 {
			eps *= 1 + k.x.Jitter*(2*k.rngs[c].Float64()-1)
		}
		t, err = ch.hmc(k.chainPoint(c), eps, k.x.Steps)
	}
	t.StepSize = eps
	k.es.Last[c] = t
	return err
}

// adapt is Stan's warm-up, chain by chain: dual averaging of the step size
// at every warm-up iteration, the metric re-estimated at the end of each
// window (stanadapt.go); at the warm-up's end the step size is fixed at
// its average.
func (k *exactKernel) adapt(info *Info) {
	it, x, es := info.Iteration, k.x, k.es
	if it >= x.Warmup || x.StepSize != 0 && x.Metric == UnitMetric {
		return
	}
	d := k.st.Dim
	ends := x.Metric != UnitMetric && k.windows.inWindow(it) && k.windows.endsWindow(it)
	var estimates [][]float64 // each chain's window (co)variance, where the window ends
	if ends {
		estimates = make([][]float64, len(k.chains))
	}
	k.parallel(func(c int) error {
		if x.StepSize == 0 {
			es.StepSize[c] = es.Dual[c].learn(es.Last[c].Accept, x.Delta)
		}
		if x.Metric != UnitMetric && k.windows.inWindow(it) {
			es.Windows[c].add(row(k.st.Theta, c, d))
			if ends {
				estimates[c] = es.Windows[c].regularised(make([]float64, len(es.Windows[c].M2)))
			}
		}
		return nil
	})
	if ends {
		dense := es.Dense
		if x.Metric == AutoMetric {
			target := make([][]float64, 0, k.st.Chains)
			for r := 0; r < len(estimates); r += k.levels {
				target = append(target, estimates[r])
			}
			dense = chooseDense(target, es.Windows[0].N, d)
		}
		if dense != es.Dense && es.Dense { // back to the diagonal
			es.Chol = nil
		}
		if dense && es.Chol == nil {
			es.Chol = make([][]float64, len(k.chains))
			for c := range es.Chol {
				es.Chol[c] = make([]float64, d*d)
			}
		}
		es.Dense = dense
	}
	k.parallel(func(c int) error {
		if ends {
			es.Windows[c].reset()
			if es.Dense {
				es.InvMetric[c] = estimates[c]
				if err := choleskyLower(es.Chol[c], es.InvMetric[c], d); err != nil {
					return err
				}
			} else {
				es.InvMetric[c] = diagonalOf(estimates[c], d)
			}
			if x.StepSize == 0 {
				eps, err := k.chains[c].initialStepSize(k.chainPoint(c), es.StepSize[c])
				if err != nil {
					return err
				}
				es.StepSize[c] = eps
				es.Dual[c].restart(eps)
			}
		}
		if it == x.Warmup-1 && x.StepSize == 0 {
			es.StepSize[c] = es.Dual[c].final()
		}
		return nil
	})
	if err := k.firstError(); err != nil && k.adaptError == nil {
		// The chain goes on with the step size and metric it has; the
		// run's warnings say what went wrong.
		k.adaptError = fmt.Errorf("warm-up, iteration %d: %w", it+1, err)
	}
	clear(k.err)
	if lad := k.es.Ladder; lad != nil && x.TuneLadder {
		k.tuneLadder(it)
	}
}

// The exactKernel's side of runKernel.
func (k *exactKernel) state() *State    { return k.st }
func (k *exactKernel) output() Target   { return k.target }
func (k *exactKernel) end() int         { return k.total }
func (k *exactKernel) cycle(int) int    { return 0 }
func (k *exactKernel) cyclical() bool   { return false }
func (k *exactKernel) name() string     { return k.s.Name }
func (k *exactKernel) pull() error      { return nil }
func (k *exactKernel) keep(it int) bool { return it >= k.st.Burn && (it-k.st.Burn)%k.o.Thin == 0 }
func (k *exactKernel) level(c, l, _ int) Level {
	lv := Level{LR: k.es.StepSize[c*k.levels+l], Temperature: 1}
	if lad := k.es.Ladder; lad != nil {
		lv.Temperature = 1 / lad.Betas[l] // +Inf at the power path's prior
	}
	return lv
}

func (k *exactKernel) sync() error {
	for i, rng := range append(slices.Clone(k.rngs), k.swapRngs...) {
		k.st.Streams[i] = rng.Pos()
	}
	return nil
}

// StatNames are the sampler's own columns of a draw (Result.StatColumns):
// Stan's sampler diagnostics for the exact samplers, none for the others.
func (s Sampler) StatNames() []string {
	switch {
	case s.Exact == nil:
		return nil
	case s.Exact.Kind == NUTS:
		return []string{"accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__"}
	}
	return []string{"accept_stat__", "stepsize__", "n_leapfrog__", "divergent__", "energy__"}
}

func (k *exactKernel) statNames() []string { return k.s.StatNames() }

func (k *exactKernel) stats(c int, dst []float64) {
	t := k.es.Last[c*k.levels]
	div := 0.0
	if t.Divergent {
		div = 1
	}
	if k.x.Kind == NUTS {
		dst[0], dst[1], dst[2], dst[3], dst[4], dst[5] = t.Accept, t.StepSize, float64(t.Depth), float64(t.Leapfrogs), div, t.Energy
		return
	}
	dst[0], dst[1], dst[2], dst[3], dst[4] = t.Accept, t.StepSize, float64(t.Leapfrogs), div, t.Energy
}

func (k *exactKernel) progress() Progress {
	p := Progress{Done: k.st.Done, Total: k.total, Replicas: k.levels, Chains: k.st.Chains, Failed: len(k.st.Failures),
		Warmup: k.st.Done <= k.x.Warmup && k.x.Warmup > 0}
	k.perChain = chainProgress(k.perChain, k.st.Chains, k.st.FirstChain, k.st.Failures)
	p.PerChain = k.perChain
	for r := 0; r < len(k.es.Totals); r += k.levels {
		p.Divergent += k.es.Totals[r].Divergent
		if c := r / k.levels; c < len(p.PerChain) {
			p.PerChain[c].Divergent = k.es.Totals[r].Divergent
		}
	}
	if k.es.Ladder != nil {
		k.ladderProgress(&p)
	}
	return p
}

func (k *exactKernel) finish(res *Result) {
	res.Exact = make([]ExactReport, k.st.Chains)
	for c := range res.Exact {
		res.Exact[c] = k.report(c)
	}
	if k.es.Ladder != nil {
		res.Replicas = k.levels // replicas = auto may have added levels
		res.Exchange = make([]*ExchangeReport, k.st.Chains)
		for c := range res.Exchange {
			rep := k.ladderReport(c)
			res.Exchange[c] = &rep
		}
		res.Evidence = k.evidence()
	}
}

// report is chain c's ExactReport: its target level's, on a ladder.
func (k *exactKernel) report(c int) ExactReport {
	c *= k.levels
	t := k.es.Totals[c]
	r := ExactReport{StepSize: k.es.StepSize[c], Dense: k.es.Dense, InvMetric: slices.Clone(k.es.InvMetric[c]),
		Transitions: t.N, Divergent: t.Divergent, MaxDepthHits: t.MaxDepth, MaxDepth: k.x.MaxDepth, EBFMI: math.NaN()}
	if t.N > 0 {
		r.MeanLeapfrogs, r.MeanTreeDepth, r.MeanAccept = float64(t.Leapfrogs)/float64(t.N), float64(t.Depth)/float64(t.N), t.Accept/float64(t.N)
	}
	if t.N > 1 && t.EnergyM2 > 0 {
		// Stan's estimate: Σ(E_n − E_{n−1})² / Σ(E_n − Ē)².
		r.EBFMI = t.SumSqDiff / t.EnergyM2
	}
	return r
}

// add counts transition t.
func (tt *TransitionTotals) add(t Transition, maxDepth int) {
	tt.N++
	tt.Leapfrogs += t.Leapfrogs
	tt.Depth += t.Depth
	tt.Accept += t.Accept
	if t.Divergent {
		tt.Divergent++
	}
	if maxDepth > 0 && t.Depth >= maxDepth {
		tt.MaxDepth++
	}
	if tt.N > 1 {
		d := t.Energy - tt.PrevEnergy
		tt.SumSqDiff += d * d
	}
	tt.PrevEnergy = t.Energy
	delta := t.Energy - tt.EnergyMean
	tt.EnergyMean += delta / float64(tt.N)
	tt.EnergyM2 += delta * (t.Energy - tt.EnergyMean)
}

// minEBFMI is Stan's threshold of the energy's fraction of missing
// information.
const minEBFMI = 0.3

// warnings are Stan's warnings after an exact sampler's run, each with
// what to change.
func (k *exactKernel) warnings() []string {
	w := slices.Clone(k.notes)
	if k.x.Warmup == 0 && (k.x.StepSize == 0 || k.x.Metric != UnitMetric) {
		w = append(w, "no warm-up (warmup = 0): the step size is the first guess and the metric the identity; leave warmup at its default (1000) unless you give lr and metric = unit")
	}
	if k.adaptError != nil {
		w = append(w, k.adaptError.Error())
	}
	var n, div, depth int
	var low []string
	for c := range k.st.Chains {
		r := k.report(c)
		n += r.Transitions
		div += r.Divergent
		depth += r.MaxDepthHits
		if r.Transitions >= 100 && r.EBFMI < minEBFMI {
			low = append(low, fmt.Sprintf("chain %d (%.2f)", c+1, r.EBFMI))
		}
	}
	if div > 0 {
		w = append(w, fmt.Sprintf("%d of %d transitions after warm-up ended with a divergence: the posterior has regions of high curvature the step size cannot follow, and the draws may be biased; raise adapt_delta (now %g) toward 1, or reparameterise the model (a non-centred hierarchy)",
			div, n, k.x.Delta))
	}
	if depth > 0 {
		w = append(w, fmt.Sprintf("%d of %d transitions after warm-up hit the maximum tree depth of %d: the trajectories were cut short, which makes the sampler slow rather than wrong; raise max_depth, or reparameterise the model to make its scales alike",
			depth, n, k.x.MaxDepth))
	}
	if len(low) > 0 {
		w = append(w, fmt.Sprintf("E-BFMI below %g in %s: the momentum resampling explores the energy's distribution slowly (heavy tails, a funnel); reparameterise the model", minEBFMI, listChains(low)))
	}
	if k.es.Ladder != nil {
		w = append(w, k.ladderWarnings()...)
	}
	return w
}

func listChains(items []string) string {
	s := items[0]
	for i, it := range items[1:] {
		if i == len(items)-2 {
			s += " and " + it
		} else {
			s += ", " + it
		}
	}
	return s
}
