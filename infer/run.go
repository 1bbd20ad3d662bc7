package infer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Options configure a run. The zero value of each field means its default.
type Options struct {
	Chains int // independent runs, each a ladder of the sampler's replicas (default 4)
	Iters  int // iterations kept after burn-in, before thinning (default 2000)
	Burn   int // iterations discarded first (default 0)
	Thin   int // keep every Thin-th iteration (default 1)
	Batch  int // minibatch rows per replica; 0 or ≥ NumData: every row
	Seed   uint64

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
	// chain, and RoundTrips the round trips of every chain's ladder.
	Replicas   int
	SwapRate   float64
	RoundTrips int
	// Chains is the number of chains, Failed how many have stopped.
	Chains, Failed int
}

// Draw is one kept state of one replica.
type Draw struct {
	Chain int // counted from 0
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
}

// WithDefaults fills the zero fields that have defaults (4 chains, 2,000
// iterations, thin 1, init radius 2).
func (o Options) WithDefaults() Options {
	if o.Chains == 0 {
		o.Chains = 4
	}
	if o.Iters == 0 {
		o.Iters = 2000
	}
	if o.Thin == 0 {
		o.Thin = 1
	}
	if o.InitRadius == 0 {
		o.InitRadius = 2
	}
	return o
}

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
	case o.EnergyNoise < 0 || o.GradNoise < 0:
		return fmt.Errorf("noise scales must be ≥ 0")
	case o.InitRadius < 0:
		return fmt.Errorf("init radius must be ≥ 0, got %g", o.InitRadius)
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

// Result holds the draws of a run, kept in memory.
type Result struct {
	// Columns are lp__ then the target's OutputNames.
	Columns []string
	// Draws[c][i] is chain c's i-th kept draw of the target level, one
	// value per column.
	Draws [][][]float64
	// Cycle[c][i], under a Staged schedule, is the cycle of Draws[c][i]
	// (counted from 0); nil under other schedules.
	Cycle [][]int
	// All[c][l][i], with Options.KeepAll, is chain c's i-th kept draw at
	// level l (All[c][0] is Draws[c]), and AllLevels[c][l][i] the level it
	// moved with.
	All       [][][][]float64
	AllLevels [][][]Level
	// Iterations run, burn-in included (less than planned when stopped).
	Iterations int
	Sampler    string
	Replicas   int
	// Exchange reports each chain's ladder; nil without replica exchange.
	Exchange []*ExchangeReport
}

// Chains returns column col's draws per chain, the layout summaries take.
func (r *Result) Chains(col int) [][]float64 {
	out := make([][]float64, len(r.Draws))
	for c, draws := range r.Draws {
		out[c] = make([]float64, len(draws))
		for i, d := range draws {
			out[c][i] = d[col]
		}
	}
	return out
}

// ErrDiverged reports a chain whose energy or position stopped being finite.
var ErrDiverged = errors.New("diverged")

// Run samples target with s for every chain at once: the C chains' P
// replicas are the C·P rows of one batched evaluation. It stops early,
// keeping the draws made so far, when ctx is cancelled (returning ctx's
// error), when a chain diverges (an error wrapping ErrDiverged) or when
// OnDraw fails; the Result is valid in every case.
func Run(ctx context.Context, target Target, s Sampler, o Options) (*Result, error) {
	o = o.WithDefaults()
	d := target.Dim()
	if err := o.validate(d); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	cycles, err := s.startStages(o) // cyclical schedules (cyclical.go); nil for others
	if err != nil {
		return nil, err
	}
	levels := max(1, s.Replicas)
	n := target.NumData()
	batch := o.Batch
	if n == 0 || batch >= n {
		batch = 0
	}
	rows := o.Chains * levels
	eval, err := target.Evaluator(rows, batch)
	if err != nil {
		return nil, err
	}
	res := &Result{Columns: append([]string{"lp__"}, target.OutputNames()...), Draws: make([][][]float64, o.Chains), Sampler: s.Name, Replicas: levels}
	if cycles != nil {
		res.Cycle = make([][]int, o.Chains)
	}

	// One random stream per replica, (seed, r+1) of package noise: initial
	// point, minibatches, synthetic noise and the dynamics' noise. Each
	// replica reads only its own, so the draws do not depend on the order
	// or the goroutines the replicas run on.
	rngs := make([]*Rand, rows)
	for r := range rngs {
		rngs[r] = NewRand(o.Seed, uint64(r)+1)
	}
	theta := make([]float64, rows*d)
	for r := range rows {
		x := theta[r*d : (r+1)*d]
		if o.Init != nil {
			copy(x, o.Init[r/levels])
			continue
		}
		for i := range x {
			x[i] = o.InitRadius * (2*rngs[r].Float64() - 1)
		}
	}
	var batches *minibatcher
	if batch > 0 {
		batches = newMinibatcher(n, batch, rngs)
	}
	st := &state{theta: theta, d: d, energy: make([]float64, rows), variance: make([]float64, rows), grad: make([]float64, rows*d)}
	var ex *exchanger
	if levels > 1 {
		if ex, err = newExchanger(target, s, o, levels, batch, res); err != nil {
			return nil, err
		}
		defer ex.report()
	}
	if o.KeepAll {
		res.All, res.AllLevels = make([][][][]float64, o.Chains), make([][][]Level, o.Chains)
		for c := range res.All {
			res.All[c], res.AllLevels[c] = make([][][]float64, levels), make([][]Level, levels)
		}
	}
	draw := Draw{Values: make([]float64, len(res.Columns))}
	s.Dynamics.Init(rows, d)

	mover := &mover{s: &s, ex: ex, cycles: cycles, st: st, rngs: rngs, levels: levels,
		workers: min(rows, cmp.Or(o.Threads, runtime.GOMAXPROCS(0)))}
	total := o.Burn + o.Iters
	for k := 0; k < total; k++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var rowIdx []int
		if batches != nil {
			rowIdx = batches.next()
		}
		if err := eval.Evaluate(theta, rowIdx, st.energy, st.grad, st.variance); err != nil {
			return res, fmt.Errorf("iteration %d: %w", k+1, err)
		}
		addNoise(st.energy, st.grad, st.variance, o.EnergyNoise, o.GradNoise, rngs, d)
		if err := checkFinite(theta, st.energy, d, levels, k); err != nil {
			return res, err
		}
		// Record the state the gradient was taken at, then exchange and move.
		if cycles.keep(k, o) {
			for r := range rows {
				c, l := r/levels, r%levels
				if l > 0 && !o.KeepAll {
					continue
				}
				lv := s.level(ex, c, l, k)
				draw.Chain, draw.Iter, draw.Level, draw.LR, draw.Temperature = c, k-o.Burn, l, lv.LR, lv.Temperature
				draw.Cycle = cycles.cycle(k)
				draw.Values[0] = -st.energy[r]
				target.Constrain(draw.Values[1:], theta[r*d:(r+1)*d])
				if l == 0 {
					res.Draws[c] = append(res.Draws[c], slices.Clone(draw.Values))
					if cycles != nil {
						res.Cycle[c] = append(res.Cycle[c], draw.Cycle)
					}
				}
				if o.KeepAll {
					if l == 0 {
						res.All[c][0] = res.Draws[c]
					} else {
						res.All[c][l] = append(res.All[c][l], slices.Clone(draw.Values))
					}
					res.AllLevels[c][l] = append(res.AllLevels[c][l], lv)
				}
				if o.OnDraw != nil {
					if err := o.OnDraw(draw); err != nil {
						return res, err
					}
				}
			}
		}
		if ex != nil && (k+1)%ex.every == 0 {
			if err := ex.round(st, k); err != nil {
				return res, fmt.Errorf("iteration %d: %w", k+1, err)
			}
		}
		mover.k = k
		kernel.ParallelFor(mover.workers, mover.workers, mover)
		res.Iterations = k + 1
		if o.Progress != nil {
			o.Progress(Progress{Done: k + 1, Total: total, Replicas: levels, Chains: o.Chains})
		}
	}
	return res, nil
}

// mover moves the replicas after iteration k's evaluation, the rows w,
// w + W, w + 2W, ... on part w of W goroutines (kernel.ParallelFor): the
// dynamics keep each replica's state apart and each replica has its own
// random stream, so the moves do not depend on the goroutines.
type mover struct {
	s       *Sampler
	ex      *exchanger
	cycles  *stages
	st      *state
	rngs    []*Rand
	levels  int
	workers int
	k       int
}

func (m *mover) RunPart(w int) {
	d := m.st.d
	for r := w; r < len(m.rngs); r += m.workers {
		lv := m.s.level(m.ex, r/m.levels, r%m.levels, m.k)
		if m.cycles.exploring(m.k) { // seed 002, Section 3.1: explore at T = 0
			lv.Temperature = 0
		}
		m.s.Dynamics.Step(r, m.st.theta[r*d:(r+1)*d], m.st.grad[r*d:(r+1)*d], lv.LR, lv.Temperature, m.rngs[r])
	}
}

// state is the replicas' positions with what the last evaluation found.
type state struct {
	theta, grad, energy, variance []float64
	d                             int
}

// swapRows exchanges two replicas' positions and what was evaluated there;
// the dynamics' auxiliary variables stay with their level.
func (st *state) swapRows(a, b int) {
	d := st.d
	ta, tb := st.theta[a*d:(a+1)*d], st.theta[b*d:(b+1)*d]
	ga, gb := st.grad[a*d:(a+1)*d], st.grad[b*d:(b+1)*d]
	for i := range ta {
		ta[i], tb[i] = tb[i], ta[i]
		ga[i], gb[i] = gb[i], ga[i]
	}
	st.energy[a], st.energy[b] = st.energy[b], st.energy[a]
	st.variance[a], st.variance[b] = st.variance[b], st.variance[a]
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

func checkFinite(theta, energy []float64, d, levels, k int) error {
	where := func(r int) string {
		if levels == 1 {
			return fmt.Sprintf("chain %d", r+1)
		}
		return fmt.Sprintf("chain %d replica %d", r/levels+1, r%levels+1)
	}
	for r, e := range energy {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%s %w at iteration %d: energy is %v; a smaller step size (lr) may help", where(r), ErrDiverged, k+1, e)
		}
		if kernel.AllFinite(theta[r*d : (r+1)*d]) {
			continue
		}
		for _, x := range theta[r*d : (r+1)*d] {
			if x-x != 0 { // NaN or ±Inf
				return fmt.Errorf("%s %w at iteration %d: a parameter is %v; a smaller step size (lr) may help", where(r), ErrDiverged, k+1, x)
			}
		}
	}
	return nil
}

// minibatcher deals each chain its minibatches: the rows of a random
// permutation, B at a time, reshuffled each epoch. Every batch is a uniform
// draw of B distinct rows, which makes the scaled minibatch energy an
// unbiased estimate of the full one.
type minibatcher struct {
	perms [][]int
	pos   []int
	batch int
	rows  []int
	rngs  []*Rand
}

func newMinibatcher(n, batch int, rngs []*Rand) *minibatcher {
	m := &minibatcher{batch: batch, rows: make([]int, len(rngs)*batch), rngs: rngs, pos: make([]int, len(rngs))}
	for c := range rngs {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		m.perms = append(m.perms, perm)
		m.pos[c] = n // shuffle before first use
	}
	return m
}

func (m *minibatcher) next() []int {
	for c, perm := range m.perms {
		if m.pos[c]+m.batch > len(perm) {
			m.rngs[c].Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			m.pos[c] = 0
		}
		copy(m.rows[c*m.batch:(c+1)*m.batch], perm[m.pos[c]:m.pos[c]+m.batch])
		m.pos[c] += m.batch
	}
	return m.rows
}
