package temper

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Mode masses. A ladder's target level visits every mode in proportion,
// but its draws do not say which mode each belongs to. A mode is a local
// maximum of the log density on the unconstrained scale and its basin the
// points from which the density's gradient ascent ends there; so a draw's
// mode is found by ascending from it (L-BFGS, gonum's optimize), and a
// mode's mass is its basin's share of the draws. This is exact for any
// shape of basin, where clustering the draws by distance assumes round
// ones, and it finds each mode's location and density at once. It costs a
// few hundred optimisations on the full data, so it is made for ladder
// runs, where modes are the point, and on request (Result.Modes).

// Mode is one mode of a run's draws, as Result.Modes finds them: how much
// of the posterior each basin holds tells a multimodal run from a stuck one.
type Mode struct {
	// Mass is the share of the draws in the mode's basin, MassSE its
	// standard error from the spread of the chains' shares.
	Mass, MassSE float64
	// LogDensity is the log density at the mode, on the unconstrained
	// scale (as lp__, the log-Jacobians included).
	LogDensity float64
	// At is the mode's location: the parameters' columns, constrained.
	At []float64
	// Draws counts the draws ascended that ended in the mode.
	Draws int
}

// minModeDraws and maxModeDraws bound how many draws, spread evenly over
// the chains, are ascended: as many as modeBudget/2 allows at a typical
// ascent's cost, so that a mass's binomial error (at most 0.025 at 400,
// 0.008 at 4,000) stays below the chains' Monte Carlo error where it can.
const minModeDraws, maxModeDraws = 400, 4000

// shownModes is how many modes the summary and diagnostics.json list.
const shownModes = 10

// modeAscentSteps is a typical ascent's gradients, and modeBudget the
// time the search may take by that count.
const (
	modeAscentSteps = 100
	modeBudget      = 10 * time.Second
)

// ascentTimeLimit bounds one ascent's time.
const ascentTimeLimit = 2 * time.Second

// errModesCostly says the modes were not looked for, for their cost.
var errModesCostly = errors.New("the modes were not looked for: the full-data gradient is too slow for hundreds of ascents")

// Modes finds the modes of the run's draws by gradient ascent from 400 to
// 4,000 of them, largest mass first. It is computed once.
func (r *Result) Modes() ([]Mode, error) {
	r.modesOnce.Do(func() { r.modes, r.modesErr = r.findModes() })
	return r.modes, r.modesErr
}

func (r *Result) findModes() ([]Mode, error) {
	if r.model == nil {
		return nil, errors.New("the run's model is not at hand: modes are found from a run sampled in this process")
	}
	m := r.model // the model sampled: its non-centred form, if the run was
	finished := r.Finished()
	type pick struct{ chain, draw int }
	var picks []pick
	total := 0
	for _, c := range finished {
		total += len(r.Draws[c])
	}
	if total == 0 {
		return nil, nil
	}
	params := m.cm.Params()
	// One gradient's time sets how many draws to ascend, and whether to.
	fastest, err := m.gradientTime()
	if err != nil {
		return nil, err
	}
	ascent := fastest * modeAscentSteps
	if cost := ascent * minModeDraws; cost > modeBudget {
		return nil, fmt.Errorf("%w: it would take about %s", errModesCostly, roundDuration(cost))
	}
	want := min(maxModeDraws, max(minModeDraws, int(modeBudget/2/max(ascent, time.Nanosecond))))
	step := max(1, total/want)
	k := 0
	for _, c := range finished {
		for i := range r.Draws[c] {
			if k%step == 0 {
				picks = append(picks, pick{c, i})
			}
			k++
		}
	}
	starts := make([][]float64, len(picks))
	for i, p := range picks {
		values := map[string][]float64{}
		col := 1
		for _, info := range params {
			n := 1
			for _, s := range info.Shape {
				n *= s
			}
			values[info.Name] = r.Draws[p.chain][p.draw][col : col+n]
			col += n
		}
		theta, err := m.cm.Unconstrain(values)
		if err != nil {
			return nil, fmt.Errorf("draw %d of chain %d: %w", p.draw+1, r.ChainNumber(p.chain), err)
		}
		starts[i] = theta
	}
	groups := m.groupAscents(m.ascendAll(starts, ascentTimeLimit, false))
	type cluster struct {
		at      []float64
		lp      float64
		byChain map[int]int
		draws   int
	}
	clusters := make([]*cluster, len(groups))
	for g, grp := range groups {
		c := &cluster{at: grp.at, lp: grp.lp, byChain: map[int]int{}, draws: len(grp.members)}
		for _, i := range grp.members {
			c.byChain[picks[i].chain]++
		}
		clusters[g] = c
	}
	perChain := map[int]int{}
	counted := 0
	for _, c := range clusters {
		for ch, n := range c.byChain {
			perChain[ch] += n
		}
		counted += c.draws
	}
	modes := make([]Mode, len(clusters))
	for i, c := range clusters {
		at, err := m.ConstrainParams(c.at)
		if err != nil {
			return nil, err
		}
		mode := Mode{Mass: float64(c.draws) / float64(counted), LogDensity: c.lp, At: at, Draws: c.draws}
		if chains := len(perChain); chains > 1 {
			var shares []float64
			for ch, n := range perChain {
				shares = append(shares, float64(c.byChain[ch])/float64(n))
			}
			mode.MassSE = math.Sqrt(variance(shares) / float64(chains))
		}
		modes[i] = mode
	}
	slices.SortStableFunc(modes, func(a, b Mode) int { return cmp.Compare(b.Mass, a.Mass) })
	return modes, nil
}

// gradientTime is the fastest of three full-data gradients (the first
// call makes the evaluator), which sizes the ascents' work.
func (m *Model) gradientTime() (time.Duration, error) {
	d := m.Dim()
	probe, fastest := make([]float64, d), time.Duration(math.MaxInt64)
	for range 3 {
		start := time.Now()
		if _, err := m.LogDensity(probe, make([]float64, d)); err != nil {
			return 0, err
		}
		fastest = min(fastest, time.Since(start))
	}
	return fastest, nil
}

// ascendAll climbs from every start on the cores, each ascent stopped at
// limit: the ends (nil where an ascent failed) and their log densities.
// With convergedOnly, an ascent stopped by its iteration or time limit
// counts as failed too: where it ended depends on how far it got (and
// so, by the time limit, on the machine's load), not on a mode.
func (m *Model) ascendAll(starts [][]float64, limit time.Duration, convergedOnly bool) ([][]float64, []float64) {
	ends, lps := make([][]float64, len(starts)), make([]float64, len(starts))
	parallelFor(len(starts), func(i int) {
		var converged bool
		ends[i], lps[i], converged = ascend(m, starts[i], limit)
		if convergedOnly && !converged {
			ends[i] = nil
		}
	})
	return ends, lps
}

// modeGroup is the ascents that ended at one mode: its best end, the log
// density there, the negative Hessian there (nil where it is not positive
// definite or the model too large), and the ascents' indices.
type modeGroup struct {
	at      []float64
	lp      float64
	h       *mat.SymDense
	members []int
}

// groupAscents groups ascents' ends by mode (sameMode), highest first, so
// that each group is represented by its best point; failed ascents (nil
// ends) are left out. The Hessian of each group's point is taken once, for
// models up to maxSearchDim parameters.
func (m *Model) groupAscents(ends [][]float64, lps []float64) []*modeGroup {
	order := make([]int, 0, len(ends))
	for i, x := range ends {
		if x != nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(lps[b], lps[a]) })
	var groups []*modeGroup
	for _, i := range order {
		var home *modeGroup
		for _, g := range groups {
			if sameMode(g.at, ends[i], g.h) {
				home = g
				break
			}
		}
		if home == nil {
			home = &modeGroup{at: ends[i], lp: lps[i]}
			if len(ends[i]) <= maxSearchDim {
				home.h = m.negHessian(ends[i])
			}
			groups = append(groups, home)
		}
		home.members = append(home.members, i)
	}
	return groups
}

// ascend climbs the log density from theta to a local maximum with
// L-BFGS and returns it, the log density there and whether the ascent
// converged (its gradient or its function stopped changing) rather than
// ran into its iteration or time limit; nil if the ascent failed (a
// density that is not finite on the way).
func ascend(m *Model, theta []float64, limit time.Duration) ([]float64, float64, bool) {
	problem := optimize.Problem{
		Func: func(x []float64) float64 {
			lp, err := m.LogDensity(x, nil)
			if err != nil || math.IsNaN(lp) {
				return math.Inf(1)
			}
			return -lp
		},
		Grad: func(grad, x []float64) {
			if _, err := m.LogDensity(x, grad); err != nil {
				clear(grad)
			}
			for i := range grad {
				grad[i] = -grad[i]
			}
		},
	}
	// An ascent that runs away (a density unbounded toward a funnel's
	// neck) stops at its iteration or time limit; its end is then no mode
	// of use, but its cost stays bounded.
	settings := &optimize.Settings{GradientThreshold: 1e-6, MajorIterations: 1000, Runtime: limit}
	res, err := optimize.Minimize(problem, slices.Clone(theta), settings, &optimize.LBFGS{})
	if res == nil || math.IsInf(res.F, 0) || math.IsNaN(res.F) {
		return nil, 0, false
	}
	_ = err // an ascent stopped by its iteration limit still ends near its mode
	converged := res.Status == optimize.GradientThreshold || res.Status == optimize.FunctionConvergence
	return res.X, -res.F, converged
}

// writeModes writes a ladder run's modes under the summary: each one's
// mass with its error, log density and location.
func (r *Result) writeModes(w io.Writer) error {
	modes, err := r.Modes()
	if err != nil {
		_, err = fmt.Fprintf(w, "modes: %v\n", err)
		return err
	}
	if len(modes) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "modes of the target level (by gradient ascent from %d draws): %d\n", ascended(modes), len(modes))
	params := r.paramColumns()
	for i, md := range modes[:min(len(modes), shownModes)] {
		var at []string
		for j := range min(params, namedAtMost) {
			at = append(at, fmt.Sprintf("%s = %.3g", r.Columns[1+j], md.At[j]))
		}
		if params > namedAtMost {
			at = append(at, "...")
		}
		fmt.Fprintf(&b, "  %d: mass %.3f ± %.3f, log density %.4g at %s\n", i+1, md.Mass, md.MassSE, md.LogDensity, strings.Join(at, ", "))
	}
	if len(modes) > shownModes {
		rest := 0.0
		for _, md := range modes[shownModes:] {
			rest += md.Mass
		}
		fmt.Fprintf(&b, "  and %d more, of mass %.3f together\n", len(modes)-shownModes, rest)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// ascended counts the draws whose ascents found a mode.
func ascended(modes []Mode) int {
	n := 0
	for _, md := range modes {
		n += md.Draws
	}
	return n
}

// modesJSON is diagnostics.json's account of the modes.
func (r *Result) modesJSON() map[string]any {
	modes, err := r.Modes()
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	names := r.Columns[1 : 1+r.paramColumns()]
	var list []map[string]any
	for _, md := range modes[:min(len(modes), shownModes)] {
		at := map[string]float64{}
		for j, name := range names {
			at[name] = md.At[j]
		}
		list = append(list, map[string]any{"mass": md.Mass, "mass_se": md.MassSE, "log_density": md.LogDensity, "at": at, "draws": md.Draws})
	}
	return map[string]any{"found": len(modes), "ascended": ascended(modes), "modes": list}
}
