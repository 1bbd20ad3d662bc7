package temper

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
)

// The mode search before sampling (TEMPERING.md, section 1): independent
// chains can all fall into one mode, and then agree, so sampler = auto
// first climbs the log density from searchStarts points dispersed over the
// unconstrained scale (uniform in ±searchRadius, wider than a chain's
// starts) with L-BFGS, and groups the ends into modes, each with its log
// density and Laplace mass exp(log p) (2π)^{D/2} |Σ|^{1/2}, Σ the inverse
// Hessian there (a poor estimate of a mode's mass where the mode is not
// Gaussian, but a good alarm). Modes that are the same solution with
// exchangeable components relabelled (a mixture without an ordering) are
// told apart from distinct ones: tempering across them would only mix the
// labels, so the run says so instead.

// searchStarts, searchRadius: the search's starting points.
const (
	searchStarts = 32
	searchRadius = 5
)

// maxSearchDim bounds the parameters of a model searched: each mode's
// Laplace mass takes 2D gradients and a D×D Cholesky factor.
const maxSearchDim = 500

// searchAscentLimit bounds one ascent of the search: its starts over the
// cores share about searchBudget. An ascent stopped by it (or by its
// iterations) found no mode and is left out, so that what the search
// finds does not depend on the machine's load: under load, ascents of a
// centred hierarchy (whose density grows without bound toward its
// funnel's neck) stopped at scattered points that were taken for modes,
// and a unimodal model was tempered.
const searchAscentLimit = 300 * time.Millisecond

// sameModeSDs is how far apart, in the sds of a mode's Laplace
// approximation (the Mahalanobis distance under its Hessian), two ascents
// may end and be one mode: on a ridge of a collinear regression the
// ascents stop at different points along the ridge's flat direction, all
// within the posterior's spread there.
const sameModeSDs = 2

// searchBudget is the time the search may take, by a typical ascent's
// gradients; a model whose gradient is slower is not searched.
const searchBudget = 5 * time.Second

// minSearchShare is the Laplace share below which a mode found is not
// counted: a local maximum that holds under 1% of the mass does not
// change the summary.
const minSearchShare = 0.01

// SearchedMode is a mode the search found (ModeSearch.Modes).
type SearchedMode struct {
	// At is its location, the parameters' columns constrained; Theta the
	// same point on the unconstrained scale.
	At, Theta []float64
	// LogDensity is the log density there (as lp__), LogLaplace the log
	// of its Laplace mass (NaN where the Hessian is not negative
	// definite), and Share that mass's share of all the modes'.
	LogDensity, LogLaplace, Share float64
	// Starts counts the starting points whose ascent ended there.
	Starts int
}

// ModeSearch is what the search before sampling found (Result.Search):
// several modes are why sampler auto runs parallel tempering.
type ModeSearch struct {
	Modes []SearchedMode
	// Relabelled says the modes beyond the first are the first with the
	// components of its arrays permuted (label switching), naming the
	// parameters.
	Relabelled []string
	Starts     int
	Elapsed    time.Duration
}

// distinct reports whether the search found modes that sampling should
// weigh: more than one, not only relabellings of one.
func (s *ModeSearch) distinct() bool {
	return s != nil && len(s.Modes) > 1 && len(s.Relabelled) == 0
}

// searchModes runs the search, or says why it did not (its cost).
func (m *Model) searchModes(seed uint64) (*ModeSearch, error) {
	d := m.Dim()
	if d == 0 || d > maxSearchDim {
		return nil, nil
	}
	start := time.Now()
	fastest, err := m.gradientTime()
	if err != nil {
		return nil, err
	}
	if cost := fastest * modeAscentSteps * searchStarts; cost > searchBudget {
		return nil, fmt.Errorf("the mode search was not run: its %d ascents would take about %s", searchStarts, roundDuration(cost))
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d6f646573)) // "modes"
	starts := make([][]float64, searchStarts)
	for i := range starts {
		starts[i] = make([]float64, d)
		for j := range starts[i] {
			starts[i][j] = searchRadius * (2*rng.Float64() - 1)
		}
	}
	var modes []SearchedMode
	for _, g := range m.groupAscents(m.ascendAll(starts, searchAscentLimit, true)) {
		at, err := m.ConstrainParams(g.at)
		if err != nil {
			return nil, err
		}
		modes = append(modes, SearchedMode{At: at, Theta: g.at, LogDensity: g.lp, LogLaplace: logLaplace(g.h, g.lp), Starts: len(g.members)})
	}
	// Shares of the Laplace masses; a mode whose Hessian is not negative
	// definite (a saddle or a ridge the ascent stopped on) takes none.
	top := math.Inf(-1)
	for _, md := range modes {
		if !math.IsNaN(md.LogLaplace) {
			top = max(top, md.LogLaplace)
		}
	}
	total := 0.0
	for _, md := range modes {
		if !math.IsNaN(md.LogLaplace) {
			total += math.Exp(md.LogLaplace - top)
		}
	}
	kept := modes[:0]
	for _, md := range modes {
		if !math.IsNaN(md.LogLaplace) {
			md.Share = math.Exp(md.LogLaplace-top) / total
		}
		if md.Share >= minSearchShare {
			kept = append(kept, md)
		}
	}
	slices.SortStableFunc(kept, func(a, b SearchedMode) int { return cmp.Compare(b.Share, a.Share) })
	s := &ModeSearch{Modes: kept, Starts: len(starts), Elapsed: time.Since(start)}
	if len(kept) > 1 {
		s.Relabelled = m.relabelled(kept)
	}
	return s, nil
}

// sameMode reports whether an ascent that ended at b found the mode at a,
// whose negative Hessian is h: b lies within sameModeSDs of a in the
// Mahalanobis distance of a's Laplace approximation. Where h is not at
// hand (not positive definite), the two must agree to 1e-3, far closer
// than distinct modes lie and as close as L-BFGS's stop at a gradient of
// 1e-6 leaves them.
func sameMode(a, b []float64, h *mat.SymDense) bool {
	if h == nil {
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-3*(1+math.Abs(a[j])) {
				return false
			}
		}
		return true
	}
	d := make([]float64, len(a))
	for j := range d {
		d[j] = b[j] - a[j]
	}
	v := mat.NewVecDense(len(d), d)
	return mat.Inner(v, h, v) < sameModeSDs*sameModeSDs
}

// negHessian is the negative Hessian of the log density at theta by
// central differences of its gradient (symmetrised); nil where it is not
// positive definite (a saddle, a ridge, a point the density is not finite
// near).
func (m *Model) negHessian(theta []float64) *mat.SymDense {
	d := len(theta)
	cols := make([][]float64, d) // column j: -∂g/∂θ_j
	x := slices.Clone(theta)
	gp, gm := make([]float64, d), make([]float64, d)
	for j := range d {
		step := 1e-5 * (1 + math.Abs(theta[j]))
		x[j] = theta[j] + step
		_, errP := m.LogDensity(x, gp)
		x[j] = theta[j] - step
		_, errM := m.LogDensity(x, gm)
		x[j] = theta[j]
		if errP != nil || errM != nil {
			return nil
		}
		cols[j] = make([]float64, d)
		for i := range d {
			cols[j][i] = -(gp[i] - gm[i]) / (2 * step)
		}
	}
	h := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			h.SetSym(i, j, (cols[j][i]+cols[i][j])/2)
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		return nil
	}
	return h
}

// logLaplace is the log Laplace mass at a mode of log density lp whose
// negative Hessian is h: lp + (D/2) log 2π - ½ log det h; NaN without h.
func logLaplace(h *mat.SymDense, lp float64) float64 {
	if h == nil {
		return math.NaN()
	}
	var chol mat.Cholesky
	if !chol.Factorize(h) {
		return math.NaN()
	}
	return lp + float64(h.SymmetricDim())/2*math.Log(2*math.Pi) - chol.LogDet()/2
}

// relabelled names the array parameters whose components the modes
// permute, when every mode after the first is the first with the entries
// of its arrays of one length permuted alike (and its other parameters
// and log density the same): label switching. It returns nil when any
// mode is a different solution.
func (m *Model) relabelled(modes []SearchedMode) []string {
	params := m.cm.Params()
	type block struct {
		name       string
		start, len int
	}
	var arrays, scalars []block
	col := 0
	for _, p := range params {
		n := 1
		for _, s := range p.Shape {
			n *= s
		}
		if len(p.Shape) == 1 && n > 1 {
			arrays = append(arrays, block{p.Name, col, n})
		} else {
			scalars = append(scalars, block{p.Name, col, n})
		}
		col += n
	}
	if len(arrays) == 0 {
		return nil
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-3*(1+math.Abs(a)) }
	first := modes[0]
	permuted := map[string]bool{}
	for _, md := range modes[1:] {
		if !close(first.LogDensity, md.LogDensity) {
			return nil
		}
		for _, s := range scalars {
			for j := s.start; j < s.start+s.len; j++ {
				if !close(first.At[j], md.At[j]) {
					return nil
				}
			}
		}
		// Arrays of one length K are the components' fields: component k
		// of the first mode must be some component of this one, the same
		// in every array.
		byLen := map[int][]block{}
		for _, a := range arrays {
			byLen[a.len] = append(byLen[a.len], a)
		}
		for k, group := range byLen {
			used := make([]bool, k)
			for i := range k {
				match := -1
				for j := range k {
					if used[j] {
						continue
					}
					same := true
					for _, a := range group {
						if !close(first.At[a.start+i], md.At[a.start+j]) {
							same = false
							break
						}
					}
					if same {
						match = j
						break
					}
				}
				if match < 0 {
					return nil
				}
				used[match] = true
				if match != i {
					for _, a := range group {
						permuted[a.name] = true
					}
				}
			}
		}
	}
	return slices.Sorted(func(yield func(string) bool) {
		for n := range permuted {
			if !yield(n) {
				return
			}
		}
	})
}

// searchWords describes the modes found: "3 modes (Laplace shares 0.52,
// 0.31, 0.17) at x.1 = ..., lp__ ...; ...".
func (r *Result) searchWords(s *ModeSearch) string {
	params := r.paramColumns()
	var parts []string
	for i, md := range s.Modes[:min(len(s.Modes), shownModes)] {
		var at []string
		for j := range min(params, namedAtMost) {
			at = append(at, fmt.Sprintf("%s = %.3g", r.Columns[1+j], md.At[j]))
		}
		if params > namedAtMost {
			at = append(at, "...")
		}
		parts = append(parts, fmt.Sprintf("mode %d at %s, log density %.4g, Laplace share %.2f", i+1, strings.Join(at, ", "), md.LogDensity, md.Share))
	}
	return strings.Join(parts, "; ")
}
