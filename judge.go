package temper

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/words"
	"github.com/temper-ppl/temper/stdlib"
)

// The thresholds of the judgement (WARMUP.md section 5).
const (
	// maxRhat is Stan's and ArviZ's: split R-hat above it says the chains
	// have not mixed.
	maxRhat = 1.01
	// minESSPerChain: bulk and tail ESS below 100 per chain make the
	// summary's quantiles and R-hat unreliable (Vehtari et al. 2021).
	minESSPerChain = 100
	// saturatedU is where a bound's transform saturates: beyond it e^u
	// (or the logistic's tail) is below 2e-9, and the gradient of the
	// log-Jacobian no longer pulls the chain back.
	saturatedU = 20
	// lowDensitySDs and lowDensityUnits: a chain whose median lp__ is this
	// many pooled within-chain sds, and units, below the others' is stuck.
	lowDensitySDs, lowDensityUnits = 10, 5
	// minCyclicalDraws and minCycles: a cyclical run needs draws from
	// several cycles, and enough of them, to summarise its modes.
	minCyclicalDraws, minCycles = 100, 2
	// namedAtMost is how many parameters a warning names before "and N
	// more".
	namedAtMost = 3
)

// Judge says what is wrong with the run, each as a sentence that names
// the parameters, chains or ladder pairs and what to change: Stan's
// convergence checks (split R-hat, bulk and tail ESS) and the failures
// particular to stochastic-gradient runs (chains pinned where a bound's
// transform saturates or not moving, a chain stuck at low density, ladder pairs that never swap, a
// cyclical run with few draws). Sample adds them to Warnings; Judge
// recomputes them from the draws there are now.
func (r *Result) Judge() []string {
	var w []string
	finished := r.Finished()
	if len(finished) == 0 || r.DrawsPerChain() == 0 {
		return w
	}
	w = append(w, r.judgeModes(finished)...)
	w = append(w, judgeConvergence(r.Summary(), len(finished), r.remedy())...)
	w = append(w, r.judgeChains(finished)...)
	w = append(w, r.judgeDrift(finished)...)
	w = append(w, r.judgeLowDensity(finished)...)
	w = append(w, r.judgeExchange(finished)...)
	w = append(w, r.judgeCyclical(finished)...)
	w = append(w, r.judgeGenerated(finished)...)
	if a := r.escalationAdvice(); a != "" {
		w = append(w, a)
	}
	return w
}

// Geweke's (1992) diagnostic, as the judge uses it: a chain's first tenth
// of draws against its last half, the difference of their means in the
// Monte Carlo standard errors the last half implies for both.
const (
	driftFirst, driftLast = 0.1, 0.5
	// driftZ and driftShift: a drift is said when the means differ by more
	// than driftZ standard errors and by more than driftShift of the last
	// half's sd, so that a long run's tiny, significant wobble is not, nor
	// a short run's noise. A transient the draws keep (a chain started far
	// out with burn = 0 and a hand-given step) is many sds and standard
	// errors out.
	driftZ, driftShift = 5, 0.5
	// minDriftDraws is the draws per chain below which it is not judged.
	minDriftDraws = 200
)

// judgeDrift names the parameters whose draws drift within a chain: a
// transient from the starting point that no burn-in removed (Geweke
// 1992), which split R-hat cannot see when every chain drifts alike.
func (r *Result) judgeDrift(finished []int) []string {
	params := r.paramColumns()
	var drifting []string
	worst := ""
	for col := 1; col < 1+params; col++ {
		for _, c := range finished {
			draws := r.Draws[c]
			n := len(draws)
			if n < minDriftDraws {
				continue
			}
			first, last := make([]float64, int(driftFirst*float64(n))), make([]float64, int(driftLast*float64(n)))
			for i := range first {
				first[i] = draws[i][col]
			}
			for i := range last {
				last[i] = draws[n-len(last)+i][col]
			}
			// Under equilibrium the first tenth's mean varies as the last
			// half's draws do, scaled to its length: the last half's
			// variance and autocorrelation time τ = n/ESS are the reference
			// (a transient inflates the first tenth's own variance and
			// hides itself from a test that uses it).
			m1 := stat.Mean(first, nil)
			m2, v2 := stat.MeanVariance(last, nil)
			e2 := summary.ESS([][]float64{last})
			if !(e2 > 0 && v2 > 0) {
				continue
			}
			tau := float64(len(last)) / e2
			z := (m1 - m2) / math.Sqrt(v2*tau*(1/float64(len(first))+1/float64(len(last))))
			if math.Abs(z) > driftZ && math.Abs(m1-m2) > driftShift*math.Sqrt(v2) {
				drifting = append(drifting, r.Columns[col])
				if worst == "" {
					worst = fmt.Sprintf("chain %d's first tenth of %s has mean %.4g, its last half %.4g (%.0f standard errors apart)", r.ChainNumber(c), r.Columns[col], m1, m2, math.Abs(z))
				}
				break
			}
		}
	}
	if len(drifting) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the draws of %s drift within a chain: %s. The draws keep a transient from the starting points: set burn to drop the first iterations, or let the warm-up choose the step (lr = auto), which starts the chains in equilibrium",
		listWords(drifting[:min(len(drifting), namedAtMost)])+more(len(drifting)), worst)}
}

// remedy says what to change for a low ESS, for the sampler that ran.
func (r *Result) remedy() string {
	switch {
	case r.Exact != nil: // Stan's warm-up chose the step: only a longer run or a better parameterisation helps
		return "run more iterations, or reparameterise the model if its scales differ widely"
	case r.Exchange != nil:
		return "run more iterations; if pairs of levels rarely swap, more replicas or a ladder whose hottest level flattens the barrier (t_max) carry the modes to the target level"
	case r.Cycle != nil:
		return "run more iterations or more cycles (cycles), each of which can visit another mode"
	case r.Tuning != nil && r.Result.Sampler == "sghmc":
		// The warm-up chose the step: a longer run helps, and where the
		// posterior's scales change from place to place (a hierarchy, a
		// funnel) no fixed metric fits, which NUTS's adapted trajectories
		// survive.
		return "run more iterations (the warm-up chose the step size); on a hierarchy or a funnel, nuts (sampler = nuts) follows scales that change across the posterior, which one fixed metric cannot"
	case r.Tuning != nil:
		return "run more iterations (the warm-up chose the step size; sghmc mixes faster than Langevin dynamics at it, and nuts is exact where the data are small)"
	}
	return "run more iterations, or a larger step size (lr) if the chains move slowly"
}

// paramColumns is the number of the parameters' columns, which come
// first after lp__; the transformed parameters and generated quantities
// follow them, and may well be constant (a count that is always 0).
func (r *Result) paramColumns() int {
	if r.model == nil {
		return len(r.Columns) - 1
	}
	return len(r.model.cm.ParamNames())
}

// judgeGenerated names the derived columns that are NaN in some draws,
// and the _rng calls that got arguments outside their domain.
func (r *Result) judgeGenerated(finished []int) []string {
	var nan []string
	for col := 1 + r.paramColumns(); col < len(r.Columns); col++ {
		n := 0
		for _, c := range finished {
			for _, d := range r.Draws[c] {
				if math.IsNaN(d[col]) {
					n++
				}
			}
		}
		if n > 0 {
			nan = append(nan, fmt.Sprintf("%s in %d draws", r.Columns[col], n))
		}
	}
	if len(nan) == 0 {
		return nil
	}
	why := "a NaN computed, such as log of a negative number"
	if r.model != nil {
		var calls []string
		for _, e := range r.model.cm.DomainErrors() {
			calls = append(calls, fmt.Sprintf("%s at %s", e.Func, e.Pos))
		}
		if len(calls) > 0 {
			why = listWords(calls) + " got arguments outside the distribution's domain (a scale ≤ 0, a probability outside [0, 1])"
		}
	}
	return []string{fmt.Sprintf("derived quantities are NaN in some draws: %s; %s",
		listWords(nan[:min(len(nan), namedAtMost)])+more(len(nan)), why)}
}

// judge replaces the judgement in Warnings by a fresh one, after the run
// or after prepend changed the draws; the run's own warnings stay first.
func (r *Result) judge() {
	fresh := r.Judge()
	r.Warnings = append(r.Warnings[:len(r.Warnings)-r.judged:len(r.Warnings)-r.judged], fresh...)
	r.judged = len(fresh)
}

// judgeConvergence applies Stan's thresholds to split R-hat and to bulk
// and tail ESS, per parameter (lp__ is left out, as Stan's warnings do);
// remedy says what to change for low ESS.
func judgeConvergence(stats []summary.Stats, chains int, remedy string) []string {
	var w []string
	params := slices.DeleteFunc(slices.Clone(stats), func(s summary.Stats) bool { return s.Name == "lp__" })
	if s := worstOf(params, func(s summary.Stats) float64 { return s.Rhat }, func(v float64) bool { return v > maxRhat }, true, "%.3g"); s != "" {
		w = append(w, fmt.Sprintf("split R-hat above %g: run longer, or check that the chains agree: R-hat of %s", maxRhat, s))
	}
	minESS := float64(minESSPerChain * chains)
	for _, e := range []struct {
		kind string
		f    func(summary.Stats) float64
	}{{"bulk", func(s summary.Stats) float64 { return s.ESSBulk }}, {"tail", func(s summary.Stats) float64 { return s.ESSTail }}} {
		low := func(v float64) bool { return v < minESS }
		if s := worstOf(params, e.f, low, false, "%.0f"); s != "" {
			w = append(w, fmt.Sprintf("%s ESS below %d per chain (%.0f for %s): %s: %s ESS of %s",
				e.kind, minESSPerChain, minESS, words.Plural(chains, "chain", "chains"), remedy, e.kind, s))
		}
	}
	return w
}

// worstOf names the parameters whose statistic f is bad, worst first
// (the largest f if largestWorst, else the smallest): "sigma is 1.08, mu
// 1.03 (and 2 more)"; "" if none is. NaN statistics (too few draws) are
// not judged.
func worstOf(stats []summary.Stats, f func(summary.Stats) float64, bad func(float64) bool, largestWorst bool, format string) string {
	var hits []summary.Stats
	for _, s := range stats {
		if v := f(s); !math.IsNaN(v) && bad(v) {
			hits = append(hits, s)
		}
	}
	if len(hits) == 0 {
		return ""
	}
	slices.SortStableFunc(hits, func(a, b summary.Stats) int {
		if largestWorst {
			return cmp.Compare(f(b), f(a))
		}
		return cmp.Compare(f(a), f(b))
	})
	var parts []string
	for i, s := range hits[:min(len(hits), namedAtMost)] {
		v := fmt.Sprintf(format, f(s))
		if i == 0 {
			parts = append(parts, s.Name+" is "+v)
		} else {
			parts = append(parts, s.Name+" "+v)
		}
	}
	return listWords(parts) + more(len(hits))
}

// judgeChains finds, per finished chain, the parameters pinned where a
// bound's transform saturates (on most draws), and the parameters whose
// draws never change.
func (r *Result) judgeChains(finished []int) []string {
	var w []string
	bounds := r.columnBounds()
	fixed := r.fixedColumns()
	for _, c := range finished {
		draws := r.Draws[c]
		if len(draws) < 2 {
			continue
		}
		var pinned, still []string
		params := r.paramColumns() // a copy of the names: once, not per column
		for col := 1; col < 1+params; col++ {
			if b, ok := bounds[col]; ok {
				if side := b.saturated(draws, col); side != "" {
					pinned = append(pinned, r.Columns[col]+" at its "+side)
					continue
				}
			}
			if constant(draws, col) && !fixed[col] {
				still = append(still, r.Columns[col])
			}
		}
		if len(pinned) > 0 {
			w = append(w, fmt.Sprintf("chain %d is stuck at a bound on most draws, where the constraint's transform saturates: %s; a prior that keeps the parameter off its bound, a smaller step size (lr) or inits away from it may help",
				r.ChainNumber(c), listWords(pinned[:min(len(pinned), namedAtMost)])+more(len(pinned))))
		}
		if len(still) > 0 {
			w = append(w, fmt.Sprintf("chain %d does not move in %s (every draw is the same): the step size (lr) may be far too small, or the chain stuck where it started",
				r.ChainNumber(c), listWords(still[:min(len(still), namedAtMost)])+more(len(still))))
		}
	}
	return w
}

// fixedColumns are the columns that a parameter's type holds constant
// (the unit diagonal of a corr_matrix), by column index.
func (r *Result) fixedColumns() map[int]bool {
	out := map[int]bool{}
	if r.model == nil {
		return out
	}
	col := 1 // after lp__
	for _, p := range r.model.cm.Params() {
		n := 1
		for _, d := range p.Shape {
			n *= d
		}
		if kind, ok := stdlib.Constrained(p.Kind); ok {
			k := p.Shape[len(p.Shape)-1]
			per := k // entries of one item
			if kind.Matrix {
				per *= k
			}
			for i := range n {
				out[col+i] = kind.Fixed(k, i%per)
			}
		}
		col += n
	}
	return out
}

// bound is one column's constant bounds (±Inf where there is none).
type bound struct{ lower, upper float64 }

// columnBounds are the bounds of every column of a bounded parameter
// whose bounds are constants, by column index.
func (r *Result) columnBounds() map[int]bound {
	out := map[int]bound{}
	if r.model == nil {
		return out
	}
	for _, p := range r.model.cm.Params() {
		lo, hi := p.Lower, p.Upper
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, -1) && math.IsInf(hi, 1) {
			continue
		}
		for col, name := range r.Columns {
			if name == p.Name || strings.HasPrefix(name, p.Name+".") {
				out[col] = bound{lo, hi}
			}
		}
	}
	return out
}

// saturated names the bound ("lower bound 0") at which column col of a
// chain's draws sits on more than half of them, with the unconstrained
// value beyond ±saturatedU (or at the bound itself, where the inverse
// transform is undefined); "" if it does not.
func (b bound) saturated(draws [][]float64, col int) string {
	atLower, atUpper := 0, 0
	for _, d := range draws {
		x := d[col]
		var u float64
		var err error
		switch {
		case !math.IsInf(b.lower, -1) && !math.IsInf(b.upper, 1):
			u, err = stdlib.IntervalInverse(x, b.lower, b.upper)
			if err != nil { // at or past a bound: which one is the nearer
				u = math.Copysign(math.Inf(1), x-(b.lower+b.upper)/2)
			}
		case !math.IsInf(b.lower, -1):
			if u, err = stdlib.LowerBoundInverse(x, b.lower); err != nil {
				u = math.Inf(-1)
			}
		default:
			if u, err = stdlib.UpperBoundInverse(x, b.upper); err != nil {
				u = math.Inf(-1)
			}
			u = -u // toward the upper bound, as the interval's u
		}
		switch {
		case u < -saturatedU:
			atLower++
		case u > saturatedU:
			atUpper++
		}
	}
	switch half := len(draws) / 2; {
	case atLower > half:
		return fmt.Sprintf("lower bound %g", b.lower)
	case atUpper > half:
		return fmt.Sprintf("upper bound %g", b.upper)
	}
	return ""
}

// constant reports whether column col has the same value in every draw.
func constant(draws [][]float64, col int) bool {
	for _, d := range draws[1:] {
		if d[col] != draws[0][col] {
			return false
		}
	}
	return true
}

// judgeLowDensity finds a chain whose median lp__ sits far below the
// other chains': by more than lowDensitySDs of their pooled within-chain
// sd, and by more than lowDensityUnits.
func (r *Result) judgeLowDensity(finished []int) []string {
	if len(finished) < 2 || r.DrawsPerChain() < 4 {
		return nil
	}
	medians := make([]float64, len(finished))
	variances := make([]float64, len(finished))
	for i, c := range finished {
		lp := make([]float64, len(r.Draws[c]))
		for j, d := range r.Draws[c] {
			lp[j] = d[0]
		}
		medians[i], variances[i] = median(lp), variance(lp)
	}
	var w []string
	for i, c := range finished {
		others := slices.Delete(slices.Clone(medians), i, i+1)
		otherVars := slices.Delete(slices.Clone(variances), i, i+1)
		ref, sd := median(others), math.Sqrt(mean(otherVars))
		if gap := ref - medians[i]; gap > lowDensityUnits && gap > lowDensitySDs*sd {
			w = append(w, fmt.Sprintf("chain %d is stuck in a region of low density (median lp__ %.4g against %.4g for the other chains): it may have started badly; a longer burn-in or inits may help",
				r.ChainNumber(c), medians[i], ref))
		}
	}
	return w
}

// judgeExchange names the ladder pairs that were tried and never swapped,
// and says why when the test is reSGLD's variance-corrected Metropolis:
// its correction δ²σ̂² can outweigh every energy gap δ·ΔŨ.
func (r *Result) judgeExchange(finished []int) []string {
	if r.Exchange == nil {
		return nil
	}
	x := r.diagnostics(nil).Exchange
	var w []string
	for p := range x.SwapAttempts {
		if x.SwapAttempts[p] == 0 || x.SwapAccepts[p] > 0 {
			continue
		}
		msg := fmt.Sprintf("levels %d and %d of the ladder never swapped (0 of %d attempts)", p+1, p+2, x.SwapAttempts[p])
		if penalty, gap, ok := r.correctionAndGap(p, finished); ok && penalty > gap {
			msg += fmt.Sprintf(": the variance correction δ²σ̂² ≈ %.3g exceeds the energy gap δ·|ΔŨ| ≈ %.3g; a larger batch (less energy noise) or more replicas (closer levels) lets them swap", penalty, gap)
		} else {
			msg += ": narrow the ladder (t_max or lr_max) or use more replicas"
		}
		w = append(w, msg)
	}
	rounds := 0
	for _, e := range r.Exchange {
		rounds = max(rounds, e.Rounds)
	}
	if x.RoundTrips == 0 && rounds >= minRoundsForTrips {
		msg := fmt.Sprintf("the ladders made no round trips between the target level and the top in %d exchange rounds: the target level's draws are of the modes its chains reached, whose masses they cannot tell; more replicas, a ladder reaching farther, or more iterations let the replicas travel", rounds)
		if l := r.sampler.Ladder; l != nil && l.Kind == infer.StepSizeLadder && l.Explore == 0 {
			msg += fmt.Sprintf(". %s's exploring levels run SGD (temperature 0) and move between modes only through their minibatch noise: on an exact energy, or every row a batch, they stay where they are; sampler = pt tempers such a target", r.sampler.Name)
		}
		w = append(w, msg)
	}
	return w
}

// minRoundsForTrips is the exchange rounds after which a ladder without a
// round trip is warned about: a well-mixing ladder of P levels makes one
// every 2P or so rounds (Syed et al. 2021), so 200 rounds are a generous
// wait for the ladders temper runs.
const minRoundsForTrips = 200

// correctionAndGap are the variance correction δ²σ̂² of pair p of a
// single-estimator Metropolis test with a correction, and the size of its
// energy gap δ·|Ũ_p - Ũ_{p+1}|, at the run's end, averaged over the
// finished chains; ok is false for other tests.
func (r *Result) correctionAndGap(p int, finished []int) (penalty, gap float64, ok bool) {
	m, isMetropolis := r.sampler.Exchange.(*infer.Metropolis)
	st := r.State
	if !isMetropolis || m.Correction == infer.NoCorrection || m.Weights != [2]float64{} || st == nil || len(finished) == 0 {
		return 0, 0, false
	}
	for _, c := range finished {
		ladder := r.Exchange[c].Ladder
		if p+1 >= len(ladder) {
			return 0, 0, false
		}
		delta := 1/ladder[p].Temperature - 1/ladder[p+1].Temperature
		row := c*st.Levels + p
		var v float64
		switch m.Correction {
		case infer.FixedVariance:
			v = m.Variance
		case infer.RunningVariance:
			v = st.Ladders[c].Test.Running[p][0]
		default:
			v = (st.Variance[row] + st.Variance[row+1]) / 2
		}
		penalty += delta * delta * v
		gap += math.Abs(delta * (st.Energy[row] - st.Energy[row+1]))
	}
	n := float64(len(finished))
	return penalty / n, gap / n, true
}

// judgeCyclical: a cyclical run summarises its modes only with enough
// draws, from at least two cycles.
func (r *Result) judgeCyclical(finished []int) []string {
	if r.Cycle == nil {
		return nil
	}
	var w []string
	if n := r.DrawsPerChain(); n < minCyclicalDraws {
		w = append(w, fmt.Sprintf("the cyclical run kept %d draws per chain, fewer than %d: run more iterations, keep more draws per cycle (samples_per_cycle) or explore less of each cycle (explore_fraction)", n, minCyclicalDraws))
	}
	cycles := map[int]bool{}
	for _, k := range r.Cycle[finished[0]] {
		cycles[k] = true
	}
	if len(cycles) < minCycles {
		w = append(w, fmt.Sprintf("the cyclical run's draws come from %s: a summary of one cycle sees one mode at most; raise cycles, or the iterations, so that at least %d cycles keep draws",
			words.Plural(len(cycles), "cycle", "cycles"), minCycles))
	}
	return w
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mean(x []float64) float64 {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	return sum / float64(len(x))
}

func variance(x []float64) float64 {
	m, ss := mean(x), 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return ss / float64(len(x)-1)
}

// listWords joins names as prose: "a", "a and b", "a, b and c".
func listWords(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// more is " and N more" for the names past namedAtMost.
func more(n int) string {
	if n <= namedAtMost {
		return ""
	}
	return fmt.Sprintf(" (and %d more)", n-namedAtMost)
}
