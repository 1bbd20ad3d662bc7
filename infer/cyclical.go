package infer

import (
	"fmt"
	"math"
)

// Staged is a Schedule that divides a run into cycles, each an exploration
// stage followed by a sampling stage, as cyclical SG-MCMC does (seed 002,
// Algorithm 1). Run consults it: iterations in an exploration stage move at
// temperature 0 (the dynamics become an optimiser: SGD for Langevin,
// momentum SGD for Hamiltonian) and keep no draws; those in a sampling stage
// move at the sampler's temperature, and the ones Collect picks are kept,
// each tagged with its cycle (Draw.Cycle, Result.Cycle).
type Staged interface {
	Schedule
	// Stage is iteration k's cycle, counted from 0, and whether k lies in
	// that cycle's exploration stage.
	Stage(k int) (cycle int, exploring bool)
	// Collect reports whether iteration k, in a sampling stage, is one of
	// its cycle's draws.
	Collect(k int) bool
}

// Cyclical is the cosine cyclical step size of seed 002, Eq. 1,
//
//	η_k = η0/2 · [cos(π · mod(k−1, ⌈K/M⌉) / ⌈K/M⌉) + 1],   k = 1, ..., K,
//
// with its two stages (Sections 3.1 and 3.2): iteration k explores while the
// completed proportion of its cycle, r(k) = mod(k−1, ⌈K/M⌉)/⌈K/M⌉, is below
// β, and samples from there to the cycle's end. Each cycle starts at η0 and
// decays to nearly 0; the large steps of the exploration stage (an optimiser
// at temperature 0) carry the chain to a new mode and the small steps of the
// sampling stage characterise it. Run's iterations count from 0, so its k
// is the paper's k − 1. A draw is the state at which its iteration's
// gradient is taken, so a cycle's first draw is where its exploration stage
// left the chain, and its last is one (tiny) step before the cycle's end.
//
// The cycle length is L = ⌈K/M⌉ as Eq. 1 has it; when M does not divide K
// the last cycle is cut short, and the run has ⌈K/L⌉ cycles, which can be
// fewer than M (K = 10, M = 6 gives L = 2 and 5 cycles). Past K the cycles
// go on with the same period.
type Cyclical struct {
	// Initial is η0 > 0, the step size at the start of every cycle.
	Initial float64
	// Cycles is M ≥ 1.
	Cycles int
	// Iterations is K ≥ M, the iterations the M cycles share; 0 means the
	// run's, Burn + Iters, which Run fills in.
	Iterations int
	// Explore is β ∈ [0, 1), the proportion of each cycle in the
	// exploration stage (the paper's τ in Section 3.1 and Algorithm 1, α in
	// Section 5).
	Explore float64
	// Samples is the number of draws kept per cycle: evenly spaced over the
	// sampling stage and ending at its last iteration (1: the cycle's end,
	// Snapshot ensembles). 0 keeps every iteration of every sampling stage,
	// thinned by Options.Thin.
	Samples int
}

// Length is the cycle length ⌈K/M⌉ of Eq. 1 (at least 1).
func (c Cyclical) Length() int {
	if c.Cycles < 1 {
		return max(1, c.Iterations)
	}
	return max(1, (c.Iterations+c.Cycles-1)/c.Cycles)
}

// StepSize is Eq. 1 at the paper's iteration k + 1.
func (c Cyclical) StepSize(k int) float64 {
	l := c.Length()
	return c.Initial / 2 * (math.Cos(math.Pi*float64(k%l)/float64(l)) + 1)
}

// Stage implements Staged: the cycle is ⌊k/L⌋ and the exploration stage is
// r(k) < β (Algorithm 1).
func (c Cyclical) Stage(k int) (cycle int, exploring bool) {
	l := c.Length()
	return k / l, float64(k%l)/float64(l) < c.Explore
}

// Collect implements Staged: with Samples = n > 0, of the S iterations of a
// cycle's sampling stage it picks the last and every ⌊S/n⌋-th before it,
// n in all (all S when S ≤ n); with Samples = 0, every one.
func (c Cyclical) Collect(k int) bool {
	if c.Samples <= 0 {
		return true
	}
	l := c.Length()
	first := c.samplingStart()
	start := k / l * l
	last := l - 1 // the cycle's last iteration, relative to its start
	if c.Iterations > start && c.Iterations-start < l {
		last = c.Iterations - start - 1 // the last cycle, cut short at K
	}
	i, s := k-start, last-first+1
	if i < first || i > last {
		return false
	}
	gap := max(1, s/c.Samples)
	return (last-i)%gap == 0 && (last-i)/gap < c.Samples
}

// samplingStart is the first iteration of a cycle, counted from its start,
// in the sampling stage: the least i with i/L ≥ β (L when there is none).
func (c Cyclical) samplingStart() int {
	l := c.Length()
	i := min(l, max(0, int(math.Ceil(c.Explore*float64(l)))))
	for i > 0 && float64(i-1)/float64(l) >= c.Explore {
		i--
	}
	for i < l && float64(i)/float64(l) < c.Explore {
		i++
	}
	return i
}

func (c Cyclical) String() string {
	return fmt.Sprintf("cyclical(lr0=%g, cycles=%d, iterations=%d, explore=%g, samples=%d)", c.Initial, c.Cycles, c.Iterations, c.Explore, c.Samples)
}

// check reports a schedule that Eq. 1 does not define, naming the setting
// (sampler) to blame.
func (c Cyclical) check(sampler string) error {
	switch {
	case !(c.Initial > 0) || math.IsInf(c.Initial, 1):
		return &SettingError{sampler, "lr", fmt.Sprintf("the initial step size η0 must be positive, got %g", c.Initial)}
	case c.Cycles < 1:
		return &SettingError{sampler, "cycles", fmt.Sprintf("the number of cycles M must be at least 1, got %d", c.Cycles)}
	case c.Iterations > 0 && c.Cycles > c.Iterations:
		return &SettingError{sampler, "cycles", fmt.Sprintf("M = %d cycles do not fit in the K = %d iterations they share (burn + iters, or schedule_iterations)", c.Cycles, c.Iterations)}
	case !(c.Explore >= 0 && c.Explore < 1):
		return &SettingError{sampler, "explore_fraction", fmt.Sprintf("the exploration proportion β must lie in [0, 1), got %g", c.Explore)}
	case c.Samples < 0:
		return &SettingError{sampler, "samples_per_cycle", fmt.Sprintf("must be ≥ 0, got %d", c.Samples)}
	}
	return nil
}

// stages is the stage bookkeeping of a run whose schedule is Staged; its
// methods on a nil *stages describe a run without stages.
type stages struct{ staged Staged }

// startStages prepares s's schedule for a run of o: a Cyclical schedule
// without K gets k, the iterations of the run that started the State, and
// is checked. It returns nil for a schedule without stages.
func (s *Sampler) startStages(o Options, k int) (*stages, error) {
	if c, ok := s.Schedule.(Cyclical); ok {
		if c.Iterations == 0 {
			c.Iterations = k
		}
		if err := c.check(s.Name); err != nil {
			return nil, err
		}
		if c.Samples > 0 && o.Thin > 1 {
			return nil, &SettingError{s.Name, "samples_per_cycle", fmt.Sprintf("samples_per_cycle = %d and thin = %d both choose the draws kept; set one", c.Samples, o.Thin)}
		}
		s.Schedule = c
	}
	st, ok := s.Schedule.(Staged)
	if !ok {
		return nil, nil
	}
	if s.Replicas > 1 {
		return nil, &SettingError{s.Name, "schedule", fmt.Sprintf("a cyclical schedule moves one replica per chain; it cannot drive a ladder of %d", s.Replicas)}
	}
	return &stages{st}, nil
}

// Keeps reports whether a run of this schedule with burn-in burn and
// thinning thin keeps the state at iteration k as a draw (stages.keep):
// what `temper plot --kind schedule` marks.
func (c Cyclical) Keeps(k, burn, thin int) bool { return (&stages{c}).keep(k, burn, max(1, thin)) }

// keep reports whether the state at iteration k is a draw: after burn-in,
// thinned, and for a staged schedule in a sampling stage and collected.
func (st *stages) keep(k, burn, thin int) bool {
	if k < burn || (k-burn)%thin != 0 {
		return false
	}
	if st == nil {
		return true
	}
	if _, exploring := st.staged.Stage(k); exploring {
		return false
	}
	return st.staged.Collect(k)
}

// cycle is iteration k's cycle (0 without stages).
func (st *stages) cycle(k int) int {
	if st == nil {
		return 0
	}
	c, _ := st.staged.Stage(k)
	return c
}

// exploring reports whether iteration k moves at temperature 0.
func (st *stages) exploring(k int) bool {
	if st == nil {
		return false
	}
	_, e := st.staged.Stage(k)
	return e
}

// CycleWeights are the weights of the cycle-weighted estimator of seed 002,
// appendix F: the estimate of E f is
//
//	f̂ = Σ_m (K_m ŵ_m / Σ_m' K_m' ŵ_m') f̂_m,   f̂_m = (1/K_m) Σ_j f(θ_j^(m)),   (Eq. 33)
//
// where cycle m kept K_m draws and ŵ_m, the mass of the region cycle m
// explored, is the harmonic-mean estimate (Green 1995; Raftery et al. 2006)
//
//	ŵ_m = [ (1/K_m) Σ_j 1/p(θ_j^(m)) ]^−1.
//
// Each draw of cycle m thus weighs ŵ_m, and with equal ŵ_m Eq. 33 is the
// plain average. logDensity[c][i] is log p of chain c's i-th draw (lp__)
// and cycle[c][i] its cycle; every (chain, cycle) pair is a region of its
// own. The weights are scaled so that the largest is 1, and computed in
// log space, so densities far below exp(−700) are fine. A draw whose log
// density is not finite gives its cycle weight 0; if every cycle has one,
// every weight is 0.
//
// The harmonic mean is dominated by a cycle's lowest densities, so lp__
// from minibatch energies (noisy by about N√((1−B/N)s²/B)) makes noisy
// weights; the paper evaluates the likelihood on the full data.
//
// It panics if cycle does not have the shape of logDensity.
func CycleWeights(logDensity [][]float64, cycle [][]int) [][]float64 {
	if len(cycle) != len(logDensity) {
		panic(fmt.Sprintf("infer: %d chains of cycles for %d chains of log densities", len(cycle), len(logDensity)))
	}
	type key struct{ chain, cycle int }
	type acc struct {
		max, sum float64 // log Σ_j exp(−lp_j) = max + log(sum), streaming
		n        int
		dead     bool // a draw whose log density is not finite
	}
	accs := map[key]*acc{}
	for c, lps := range logDensity {
		if len(cycle[c]) != len(lps) {
			panic(fmt.Sprintf("infer: chain %d has %d cycles for %d log densities", c, len(cycle[c]), len(lps)))
		}
		for i, lp := range lps {
			k := key{c, cycle[c][i]}
			a := accs[k]
			if a == nil {
				a = &acc{max: math.Inf(-1)}
				accs[k] = a
			}
			a.n++
			switch {
			case math.IsNaN(lp) || math.IsInf(lp, 0):
				a.dead = true
			case -lp > a.max:
				a.sum = a.sum*math.Exp(a.max+lp) + 1
				a.max = -lp
			default:
				a.sum += math.Exp(-lp - a.max)
			}
		}
	}
	logW := map[key]float64{}
	top := math.Inf(-1)
	for k, a := range accs {
		w := math.Inf(-1)
		if !a.dead { // log ŵ = −log((1/K_m) Σ_j exp(−lp_j))
			w = -(a.max + math.Log(a.sum/float64(a.n)))
		}
		logW[k] = w
		top = max(top, w)
	}
	out := make([][]float64, len(logDensity))
	for c, lps := range logDensity {
		out[c] = make([]float64, len(lps))
		if math.IsInf(top, -1) {
			continue
		}
		for i := range lps {
			out[c][i] = math.Exp(logW[key{c, cycle[c][i]}] - top)
		}
	}
	return out
}
