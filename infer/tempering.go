package infer

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/temper-ppl/temper/infer/exchange"
)

// validate reports a composition that cannot run.
func (s Sampler) validate() error {
	if s.Dynamics == nil {
		return fmt.Errorf("sampler %q has no dynamics", s.Name)
	}
	if s.AutoStep && s.Replicas > 1 && s.Ladder == nil {
		return fmt.Errorf("sampler %q has %d replicas but no ladder", s.Name, s.Replicas)
	}
	if s.Replicas < 2 {
		if s.Schedule == nil {
			return fmt.Errorf("sampler %q has no step-size schedule", s.Name)
		}
		return nil
	}
	switch {
	case s.Ladder == nil || s.Exchange == nil:
		return fmt.Errorf("sampler %q has %d replicas but no ladder or exchange test", s.Name, s.Replicas)
	case s.Ladder.Kind == TemperatureLadder && s.Schedule == nil:
		return fmt.Errorf("sampler %q: a temperature ladder needs a step-size schedule", s.Name)
	case !(s.Ladder.Min > 0 && s.Ladder.Min < s.Ladder.Max):
		return fmt.Errorf("sampler %q: the ladder's ends must satisfy 0 < min < max, got %g and %g", s.Name, s.Ladder.Min, s.Ladder.Max)
	case s.Ladder.Adaptive && !(s.Ladder.SwapRate > 0 && s.Ladder.SwapRate < 1):
		return fmt.Errorf("sampler %q: an adaptive ladder needs a target swap rate in (0, 1), got %g", s.Name, s.Ladder.SwapRate)
	case s.Every < 0:
		return fmt.Errorf("sampler %q: every must be ≥ 1, got %d", s.Name, s.Every)
	case s.Ladder.Levels != nil && len(s.Ladder.Levels) != s.Replicas:
		return fmt.Errorf("sampler %q: %d ladder levels for %d replicas", s.Name, len(s.Ladder.Levels), s.Replicas)
	case s.Ladder.Levels != nil && !handLadderOK(s.Ladder):
		return fmt.Errorf("sampler %q: the ladder levels %v must increase strictly from Min to Max (%g, %g)", s.Name, s.Ladder.Levels, s.Ladder.Min, s.Ladder.Max)
	}
	return nil
}

// handLadderOK reports whether levels given by hand increase strictly from
// the ladder's Min to its Max.
func handLadderOK(l *Ladder) bool {
	v := l.Levels
	for i := 1; i < len(v); i++ {
		if !(v[i] > v[i-1]) {
			return false
		}
	}
	return v[0] == l.Min && v[len(v)-1] == l.Max
}

// ExchangeReport is what one chain's ladder did: the swap attempts and
// acceptances per adjacent pair, the round trips of the replica index
// process, and where the adaptive parts ended.
type ExchangeReport struct {
	Scheme   string
	Window   int
	Rounds   int   // exchange rounds
	Attempts []int // per pair (p, p+1)
	Accepts  []int
	// Acceptance is each pair's mean swap probability over every round,
	// tried or not; only adaptive runs compute it (nil otherwise). It is
	// the A_p that the adaptive ladder and buffer steer toward S.
	Acceptance []float64
	// RoundTrips counts passages target → top → target of any replica;
	// MeanRoundTripTime is in exchange rounds (NaN before any replica made
	// two).
	RoundTrips        int
	MeanRoundTripTime float64
	// Ladder is the final step size and temperature of each level.
	Ladder []Level
	// ExchangeEvaluations counts the chunks of the Barker test's exchange
	// minibatch over every round (Rounds of them at the least).
	ExchangeEvaluations int
	// Buffer is the final correction buffer C of a deterministic test.
	Buffer    float64
	HasBuffer bool
	// Index is the replica index process, sampled every IndexEvery rounds:
	// Index[i][l] is the replica (numbered by its starting level) at level
	// l. LadderTrace[i] is the ladder's values (temperatures or step
	// sizes) at the same rounds, before that round's adaptation.
	IndexEvery  int
	Index       [][]int
	LadderTrace [][]float64
}

// SwapRate is pair p's accepted fraction of attempts.
func (r *ExchangeReport) SwapRate(p int) float64 {
	if r.Attempts[p] == 0 {
		return 0
	}
	return float64(r.Accepts[p]) / float64(r.Attempts[p])
}

// Barrier is the ladder's global communication barrier Λ = Σ_p r_p
// (Syed et al. 2021, Section 3), r_p pair p's rejection rate: 1 minus its
// mean swap probability where the run kept it (Acceptance), else minus its
// accepted fraction of attempts. A DEO ladder's round trips take about
// 2 + 2Λ rounds once it has enough levels, and about 2Λ levels suffice.
func (r *ExchangeReport) Barrier() float64 {
	b := 0.0
	for p := range r.Attempts {
		if r.Acceptance != nil {
			b += 1 - r.Acceptance[p]
		} else {
			b += 1 - r.SwapRate(p)
		}
	}
	return b
}

// maxIndexSamples bounds the index process and ladder trace kept for
// plotting.
const maxIndexSamples = 1000

// exchanger runs the exchange rounds of every chain's ladder. Its ladders'
// state lives in the run's State; it keeps only what is rebuilt from the
// sampler.
type exchanger struct {
	s        Sampler
	levels   int
	every    int
	chains   []*ladderRun
	adaptive bool // every pair's probability is needed each round

	// second is the second energy estimator of m-reSGLD; exchangeBatch the
	// growing exchange minibatch of the Barker test (barker.go).
	second        *sideEstimator
	exchangeBatch *sideEstimator
	sigmaStar2    float64
	restart       restarter // the dynamics, when each trajectory starts afresh
	// power is the ladder's evaluator on the power path: the swaps read
	// the likelihood's energies there, and its β for 1/T (sgpower.go).
	power *powerEvaluator
}

// ladderRun is one chain's ladder: its state, and the parts that act on it.
type ladderRun struct {
	st        *LadderState
	ladder    *ladderState
	test      ExchangeTest
	scheme    *schemeState
	rng       *rand.Rand
	attempted []bool
	probs     []float64 // the round's swap probabilities, reused
	// at[l] is the row offset within the chain of the state at level l
	// once the round's swaps are made: swaps decided in a round move the
	// states only at the start of the next Step, after the round's draws
	// are recorded.
	at []int
}

// newExchanger prepares the exchange rounds of st's chains, starting their
// ladders when st is fresh (st.Ladders nil).
func newExchanger(target Target, s Sampler, o Options, st *State, batch, totalRounds int) (*exchanger, error) {
	levels := st.Levels
	ex := &exchanger{s: s, levels: levels, every: max(1, s.Every)}
	ex.adaptive = s.Ladder.Adaptive
	if d, ok := s.Exchange.(*Deterministic); ok && d.Adaptive {
		ex.adaptive = true
	}
	if st.Ladders == nil {
		indexEvery := max(1, (totalRounds+maxIndexSamples-1)/maxIndexSamples)
		for c := range st.Chains {
			lst := &LadderState{
				Values: s.Ladder.initial(levels),
				Open:   make([]bool, levels-1),
				Trips:  exchange.NewRoundTrips(levels),
				Rng:    rand.NewPCG(st.Seed, 1<<40+uint64(st.FirstChain+c)),
				Report: ExchangeReport{Scheme: s.Scheme.String(), Window: max(1, s.Scheme.Window),
					Attempts: make([]int, levels-1), Accepts: make([]int, levels-1), IndexEvery: indexEvery},
			}
			if s.Scheme.Kind != DEO {
				lst.Report.Window = 1
			}
			st.Ladders = append(st.Ladders, lst)
		}
	}
	for _, lst := range st.Ladders {
		at := make([]int, levels)
		identityOrder(at)
		ex.chains = append(ex.chains, &ladderRun{
			st:        lst,
			ladder:    s.Ladder.start(lst.Values),
			test:      s.Exchange.Start(levels, &lst.Test),
			scheme:    s.Scheme.start(lst.Open),
			rng:       rand.New(lst.Rng),
			attempted: make([]bool, levels-1),
			probs:     make([]float64, levels-1),
			at:        at,
		})
	}
	rows := st.Chains * levels
	shift := uint64(st.FirstChain * levels) // the side streams of row r of the whole run
	var err error
	if two, b2 := twoEstimators(s.Exchange); two {
		if b2 == 0 {
			b2 = batch
		}
		if ex.second, err = newSideEstimator(target, o, rows, b2, 1<<41+shift, &st.Second); err != nil {
			return nil, err
		}
		ex.second.gradNoise = o.GradNoise // its gradients move the hot levels (moveOnSecond)
	}
	if b, ok := s.Exchange.(*Barker); ok {
		if b.Compensation == nil {
			return nil, fmt.Errorf("sampler %q: the Barker exchange test has no compensation distribution", s.Name)
		}
		eb := b.Batch
		if eb == 0 {
			eb = batch
		}
		if ex.exchangeBatch, err = newSideEstimator(target, o, rows, eb, 1<<42+shift, &st.ExchangeBatch); err != nil {
			return nil, err
		}
		ex.sigmaStar2 = b.Compensation.SigmaStar2()
	}
	if s.Restart {
		r, ok := s.Dynamics.(restarter)
		if !ok {
			return nil, fmt.Errorf("sampler %q: dynamics %s has no trajectories to restart", s.Name, s.Dynamics.Name())
		}
		ex.restart = r
	}
	return ex, nil
}

// level is level l of chain c's ladder at iteration k. On the power path
// every level moves at the posterior's temperature 1, β tempering its
// energy.
func (ex *exchanger) level(c, l, k int) Level {
	lv := ex.chains[c].ladder.level(l, k, ex.s.Schedule)
	if ex.power != nil {
		lv.Temperature = 1
	}
	return lv
}

// testLevel is level l as the exchange test and the reports see it: on the
// power path, temperature 1/β of the likelihood (+Inf at the prior).
func (ex *exchanger) testLevel(c, l, k int) Level {
	lv := ex.level(c, l, k)
	if ex.power != nil {
		lv.Temperature = 1 / ex.power.betas[l]
	}
	return lv
}

// due reports whether iteration k ends with an exchange round.
func (ex *exchanger) due(k int) bool { return (k+1)%ex.every == 0 }

// applyPending moves the states that the last round swapped, in the order
// it swapped them, and clears the ladders' pending swaps.
func (ex *exchanger) applyPending(st *State, swap func(a, b int) error) error {
	for c, run := range ex.chains {
		base := c * ex.levels
		for _, p := range run.st.Pending {
			if err := swap(base+p, base+p+1); err != nil {
				return err
			}
		}
		run.st.Pending = run.st.Pending[:0]
		identityOrder(run.at)
	}
	return nil
}

// identityOrder sets at[l] = l: every state at its own level.
func identityOrder(at []int) {
	for l := range at {
		at[l] = l
	}
}

var errNoSecond = errors.New("the second energy estimator failed")

// exchange is what the ladders do after iteration k's evaluation: the
// second estimator of m-reSGLD, the exchange round when one is due, and
// the gradients that the next moves of m-reSGLD's hot levels take from
// the second estimator.
func (ex *exchanger) exchange(st *State, k int, info *Info) error {
	if ex.second != nil {
		ex.second.start()
		if err := ex.second.grow(st.Theta); err != nil {
			return fmt.Errorf("%w: %w", errNoSecond, err)
		}
	}
	if ex.due(k) {
		if err := ex.round(st, k, info); err != nil {
			return err
		}
	}
	if ex.second != nil {
		ex.moveOnSecond(st)
	}
	return nil
}

// moveOnSecond gives each state that moves next at a hot level (every
// level but the target's) the gradient of m-reSGLD's second estimator at
// its position, ∇Û₂, in place of the run's ∇Û₁: the m-reSGLD slide of
// seed 004 moves chain 1 (τ₁) on ∇Û₁ and chain 2 (τ₂) on ∇Û₂,
//
//	θ¹ ← θ¹ - η∇Û₁(θ¹) + √(2ητ₁)ξ¹,   θ² ← θ² - η∇Û₂(θ²) + √(2ητ₂)ξ²,
//
// and on a longer ladder the target level keeps Û₁ and every hotter one
// takes Û₂. The levels are those after the round's pending swaps, which
// carry the gradients with the states.
func (ex *exchanger) moveOnSecond(st *State) {
	d := st.Dim
	for c, run := range ex.chains {
		if st.failed(c) {
			continue
		}
		base := c * ex.levels
		for l := 1; l < ex.levels; l++ {
			r := base + run.at[l]
			copy(row(st.Grad, r, d), row(ex.second.g, r, d))
		}
	}
}

// round is the exchange round after iteration k, for every running chain:
// it decides the swaps, records them as pending in the ladders' state and
// reports them in info.
func (ex *exchanger) round(st *State, k int, info *Info) error {
	r := k / ex.every
	for c, run := range ex.chains {
		clear(run.attempted)
		if st.failed(c) {
			continue
		}
		for _, p := range run.scheme.attempt(r, run.rng) {
			run.attempted[p] = true
		}
	}
	energy, variance := st.Energy, st.Variance
	if ex.power != nil { // the prior cancels from the swap
		energy, variance = ex.power.e1, ex.power.v1
	}
	if ex.exchangeBatch != nil {
		if err := ex.growExchangeBatch(st, k); err != nil {
			return err
		}
		energy, variance = ex.exchangeBatch.Energy, ex.exchangeBatch.Variance
	}
	// The pairs are judged in order, each after the swaps before it, as in
	// the loop of Algorithm 1 of seed 000, and every pair's probability is
	// taken each round for the adaptive ladder and buffer (A^(p) for all p,
	// Eq. 9 and 12). Each replica carries one minibatch energy per
	// iteration, shared by its two pairs, where the paper's simulation
	// draws a fresh Ũ at every comparison: a pair judged right after its
	// neighbour swapped then reuses the energy estimate that made the swap.
	// Judging the untried pairs on the states before any swap (Eq. 12's
	// β_{k+1} read as the sampling phase's output) was measured instead on
	// cosine2d (four ladders, seed 1): DEO went from 15.1 to 21.7 round
	// trips per 1,000 iterations, its tried pairs accepting 0.47 on average
	// instead of S = 0.4, and DEO* from 20.1 to 21.7, so it was not kept.
	var x Pair
	x.Round = r
	info.Rounds = info.Rounds[:0]
	for c, run := range ex.chains {
		clear(run.probs)
		ri := RoundInfo{Chain: c, Round: r, Attempted: run.attempted, Probs: run.probs}
		if st.failed(c) {
			continue
		}
		base := c * ex.levels
		identityOrder(run.at)
		for p := range ex.levels - 1 {
			if !run.attempted[p] && !ex.adaptive && !ex.s.Ladder.Tuned {
				continue
			}
			a, b := base+run.at[p], base+run.at[p+1]
			x.Index = p
			x.Levels = [2]Level{ex.testLevel(c, p, k), ex.testLevel(c, p+1, k)}
			if ex.exchangeBatch != nil {
				if err := ex.growForPair(st, x.Levels, a, b); err != nil {
					return err
				}
			}
			x.Energy = [2]float64{energy[a], energy[b]}
			x.Variance = [2]float64{variance[a], variance[b]}
			if ex.second != nil {
				x.Energy2 = [2]float64{ex.second.Energy[a], ex.second.Energy[b]}
				x.Variance2 = [2]float64{ex.second.Variance[a], ex.second.Variance[b]}
			}
			swap, prob, err := decide(run.test, &x, run.rng)
			if err != nil {
				return fmt.Errorf("chain %d, levels %d and %d: %w", st.FirstChain+c+1, p+1, p+2, err)
			}
			ri.Probs[p] = prob
			if !run.attempted[p] {
				continue
			}
			rep := &run.st.Report
			rep.Attempts[p]++
			if swap {
				rep.Accepts[p]++
				run.at[p], run.at[p+1] = run.at[p+1], run.at[p]
				run.st.Pending = append(run.st.Pending, p)
				run.scheme.swapped(p)
				run.st.Trips.Swap(p)
			}
		}
		rep := &run.st.Report
		if ex.adaptive {
			if rep.Acceptance == nil {
				rep.Acceptance = make([]float64, len(ri.Probs))
			}
			for p, a := range ri.Probs {
				rep.Acceptance[p] += (a - rep.Acceptance[p]) / float64(r+1)
			}
		}
		run.st.Trips.Observe(r + 1)
		rep.Rounds = r + 1
		if r%rep.IndexEvery == 0 {
			rep.Index = append(rep.Index, slices.Clone(run.st.Trips.At))
			rep.LadderTrace = append(rep.LadderTrace, slices.Clone(run.st.Values))
		}
		ri.Swaps = run.st.Pending
		ri.At = run.st.Trips.At
		info.Rounds = append(info.Rounds, ri)
	}
	if ex.s.Ladder.Tuned {
		ex.tune(st, r, info.Rounds)
	}
	if se := ex.exchangeBatch; se != nil {
		for c, run := range ex.chains {
			if !st.failed(c) {
				run.st.Report.ExchangeEvaluations += se.chunks
			}
		}
	}
	if ex.restart != nil { // Algorithm 2 of seed 001, line 3: every trajectory starts afresh
		for r := range st.Energy {
			ex.restart.Restart(row(st.Aux, r, st.AuxLen))
		}
	}
	return nil
}

// tune is a tuned ladder's step after exchange round r: in the first half
// of burn-in, every running chain's swap probabilities of every pair go
// into the pooled tuning round, and at its end every chain's interior
// levels move to equal rejection, interpolated in the log of the levels'
// values (temperatures or step sizes), the ends fixed. The chains share
// the levels, as the exact ladders' do.
func (ex *exchanger) tune(st *State, r int, rounds []RoundInfo) {
	limit := st.Burn / ex.every / 2
	if r >= limit {
		return
	}
	if st.LadderTuning == nil {
		t := exchange.NewTuning()
		st.LadderTuning = &t
	}
	for _, ri := range rounds {
		st.LadderTuning.Observe(ri.Probs)
	}
	if !st.LadderTuning.Due(r, limit) || len(rounds) == 0 {
		return
	}
	values := exchange.EqualRejection(ex.chains[rounds[0].Chain].st.Values, st.LadderTuning.Next(), ex.levels, exchange.LogCoordinate)
	for _, run := range ex.chains {
		copy(run.st.Values, values)
	}
}

// Adapt is the Adapter of replica exchange: one step of the stochastic
// approximations of seed 000 (Eq. 9-12: the adaptive ladder and correction
// buffer) on the ladders of the round info reports.
func (ex *exchanger) Adapt(_ *State, info *Info) {
	if !ex.adaptive {
		return
	}
	for _, ri := range info.Rounds {
		gamma := 0.0
		if ex.s.Ladder.Adapt != nil {
			gamma = ex.s.Ladder.Adapt.StepSize(ri.Round)
		} else if d, ok := ex.s.Exchange.(*Deterministic); ok && d.Adapt != nil {
			gamma = d.Adapt.StepSize(ri.Round)
		}
		run := ex.chains[ri.Chain]
		run.test.Adapt(ri.Probs, gamma)
		run.ladder.adapt(ri.Probs, gamma)
	}
}

// growExchangeBatch starts the round's exchange minibatch of the Barker
// test, adding chunks until every pair the round decides has var[ΔẼ] < σ*²
// (Algorithm 1 of seed 001, lines 2-4) on its rows as placed before the
// round's swaps, which are the rows it reads unless a swap below it moved
// one (growForPair).
func (ex *exchanger) growExchangeBatch(st *State, k int) error {
	se := ex.exchangeBatch
	se.start()
	for {
		if err := ex.growOnce(st); err != nil {
			return err
		}
		if ex.exchangeVarianceBelow(st, k) {
			return nil
		}
	}
}

// growForPair grows the round's exchange minibatch until rows a and b, at
// levels lv, have var[ΔẼ] < σ*²: a pair judged after the swaps before it
// (every pair under ADJ, an adaptive ladder's untried pairs) can read a
// state that a swap below it moved there, for which the batch grown before
// the swaps was not checked. Checking only the rows as placed before the
// swaps let such a pair reach the compensation with var[ΔẼ] ≥ σ*², whose
// error then rejected the swap unseen (TestBarkerAdjacentSwapsSeeVariance).
func (ex *exchanger) growForPair(st *State, lv [2]Level, a, b int) error {
	v := ex.exchangeBatch.Variance
	for ex.varianceAbove(lv[0], lv[1], v[a], v[b]) {
		if err := ex.growOnce(st); err != nil {
			return err
		}
	}
	return nil
}

// growOnce adds a chunk to the round's exchange minibatch, or fails when
// the round has used them all.
func (ex *exchanger) growOnce(st *State) error {
	se := ex.exchangeBatch
	if se.chunks >= se.maxChunks() {
		return growError(se, ex.sigmaStar2)
	}
	if err := se.grow(st.Theta); err != nil {
		return fmt.Errorf("the exchange minibatch: %w", err)
	}
	return nil
}

// varianceAbove reports whether a pair at levels lo and hi whose energies
// have variances va and vb has var[ΔẼ] = δ²(va + vb) ≥ σ*². A NaN variance
// is not above: more rows would not mend it, and the test reports it.
func (ex *exchanger) varianceAbove(lo, hi Level, va, vb float64) bool {
	delta := 1/lo.Temperature - 1/hi.Temperature
	return delta*delta*(va+vb) >= ex.sigmaStar2
}

// exchangeVarianceBelow reports whether every pair the round decides has
// var[ΔẼ] below σ*² on its rows as placed before the round's swaps.
func (ex *exchanger) exchangeVarianceBelow(st *State, k int) bool {
	v := ex.exchangeBatch.Variance
	for c, run := range ex.chains {
		if st.failed(c) {
			continue
		}
		for p := range ex.levels - 1 {
			if !run.attempted[p] && !ex.adaptive {
				continue
			}
			a := c*ex.levels + p
			if ex.varianceAbove(ex.level(c, p, k), ex.level(c, p+1, k), v[a], v[a+1]) {
				return false
			}
		}
	}
	return true
}

// restarter is dynamics whose trajectories can start afresh (NoseHoover).
type restarter interface{ Restart(aux []float64) }

// finish fills in what the reports keep of the final state after k
// iterations.
func (ex *exchanger) finish(k int) {
	for c, run := range ex.chains {
		rep := &run.st.Report
		rep.RoundTrips, rep.MeanRoundTripTime = run.st.Trips.Count, run.st.Trips.MeanTime()
		rep.Ladder = make([]Level, ex.levels)
		for l := range rep.Ladder {
			rep.Ladder[l] = ex.testLevel(c, l, k)
		}
		if b, ok := run.test.(bufferer); ok {
			rep.Buffer, rep.HasBuffer = b.Buffer(), true
		}
	}
}
