package temper

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer/summary"
)

// Chains that never meet: independent chains started apart can each stay
// in the mode they fall into, and chains that agree prove nothing, but
// chains whose draws do not overlap prove a posterior with separate
// regions, which split R-hat flags without saying why (TEMPERING.md,
// section 1). The judgement groups the finished chains into regions: two
// chains meet when the central 98% of their draws overlap along the
// direction that separates them best (chainsMeet); a chain that moves
// between two regions overlaps both and joins them. Regions of more than one are named in words, with
// their centres and lp__ levels, and the sampler that samples them in
// proportion.

// regionQuantile is the tail left out of each side of a chain's interval:
// its central 98%, so that a chain's rare excursion neither joins nor
// splits regions.
const regionQuantile = 0.01

// discriminantCoordinates is how many coordinates the direction that
// separates two chains takes (chainsMeet).
const discriminantCoordinates = 10

// minChainESS is the split-ESS of its own a chain needs, in lp__ and its
// leading parameters, to be placed: one that mixes within its mode has
// hundreds, one creeping from its start a few.
const minChainESS = 20

// minRegionDraws is the fewest draws a chain needs to be placed.
const minRegionDraws = 20

// region is a group of chains whose draws overlap.
type region struct {
	chains []int     // indices into Draws
	centre []float64 // the mean of every column, lp__ first
	draws  int
}

// groupedRegions is regions' answer for one set of finished chains, kept
// because the judgement and the escalation both ask (each pass over a
// 4 × 60,000-draw run took 3 s).
type groupedRegions struct {
	finished []int
	regions  []region
}

// regions groups the finished chains (indices into r.Draws) into regions;
// fewer than two chains make none.
func (r *Result) regions(finished []int) []region {
	if g := r.grouped; g != nil && slices.Equal(g.finished, finished) {
		return g.regions
	}
	regions := r.groupRegions(finished)
	r.grouped = &groupedRegions{slices.Clone(finished), regions}
	return regions
}

func (r *Result) groupRegions(finished []int) []region {
	var placed []int
	for _, c := range finished {
		if len(r.Draws[c]) >= minRegionDraws {
			placed = append(placed, c)
		}
	}
	if len(placed) < 2 {
		return nil
	}
	params := r.paramColumns()
	// Chains still drifting (their halves apart, or a split-ESS of their
	// own below minChainESS: a chain creeping at too small a step) are not
	// yet in any mode: R-hat says so, and regions would be misread as
	// modes.
	for _, c := range placed {
		d := r.Draws[c]
		if !drawsMeet(d[:len(d)/2], d[len(d)/2:], params) {
			return nil
		}
		for j := range min(params, discriminantCoordinates) + 1 { // lp__ and the leading parameters
			col := make([]float64, len(d))
			for k, v := range d {
				col[k] = v[j]
			}
			if summary.ESSBulk([][]float64{col}) < minChainESS {
				return nil
			}
		}
	}
	parent := make([]int, len(placed))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for a := range placed {
		for b := a + 1; b < len(placed); b++ {
			if drawsMeet(r.Draws[placed[a]], r.Draws[placed[b]], params) {
				parent[find(b)] = find(a)
			}
		}
	}
	byRoot := map[int]*region{}
	var out []*region
	for i, c := range placed {
		root := find(i)
		g := byRoot[root]
		if g == nil {
			g = &region{centre: make([]float64, len(r.Columns))}
			byRoot[root] = g
			out = append(out, g)
		}
		g.chains = append(g.chains, c)
		for _, d := range r.Draws[c] {
			for j, v := range d {
				g.centre[j] += v
			}
		}
		g.draws += len(r.Draws[c])
	}
	regions := make([]region, len(out))
	for i, g := range out {
		for j := range g.centre {
			g.centre[j] /= float64(g.draws)
		}
		regions[i] = *g
	}
	// Highest density first.
	slices.SortStableFunc(regions, func(a, b region) int {
		switch {
		case a.centre[0] > b.centre[0]:
			return -1
		case a.centre[0] < b.centre[0]:
			return 1
		}
		return 0
	})
	return regions
}

// drawsMeet reports whether two sets of draws (rows of lp__ and then
// params parameters) overlap: along the direction that best separates
// them, w_j = (m_b,j - m_a,j)/s²_j with s²_j the mean of their variances
// (Fisher's discriminant with a diagonal covariance), the central 98%
// intervals of their projected draws must overlap. In one dimension this
// is the overlap of the intervals themselves; in many, two modes a few
// sds apart in every coordinate, whose marginals overlap, are told apart,
// as the chains' draws are.
//
// The direction is fitted to the two sets' means, which differ by their
// Monte Carlo error too: over D coordinates that noise alone separates the
// projected means by about √(2D/ESS) sds, enough for chains of one mode
// to look apart in a model of thousands of parameters. So the direction
// takes only the discriminantCoordinates coordinates whose means differ
// most (in units of s_j), where modes differ and noise cannot build up.
func drawsMeet(a, b [][]float64, params int) bool {
	ma, va := moments(a, params)
	mb, vb := moments(b, params)
	w := make([]float64, params)
	z := make([]float64, params)
	for j := range w {
		if s2 := (va[j] + vb[j]) / 2; s2 > 0 {
			w[j] = (mb[j] - ma[j]) / s2
			z[j] = math.Abs(mb[j]-ma[j]) / math.Sqrt(s2)
		}
	}
	if len(z) > discriminantCoordinates {
		cut := slices.Sorted(slices.Values(z))[len(z)-discriminantCoordinates]
		for j := range w {
			if z[j] < cut {
				w[j] = 0
			}
		}
	}
	project := func(draws [][]float64) (lo, hi float64) {
		p := make([]float64, len(draws))
		for k, d := range draws {
			for j, wj := range w {
				p[k] += wj * d[1+j]
			}
		}
		slices.Sort(p)
		return quantileSorted(p, regionQuantile), quantileSorted(p, 1-regionQuantile)
	}
	loA, hiA := project(a)
	loB, hiB := project(b)
	return loA <= hiB && loB <= hiA
}

// moments are the mean and variance of each of the params parameters
// (columns 1 to params) over draws.
func moments(draws [][]float64, params int) (mean, variance []float64) {
	mean, variance = make([]float64, params), make([]float64, params)
	n := float64(len(draws))
	for _, d := range draws {
		for j := range params {
			mean[j] += d[1+j] / n
		}
	}
	for _, d := range draws {
		for j := range params {
			dev := d[1+j] - mean[j]
			variance[j] += dev * dev / n
		}
	}
	return mean, variance
}

// quantileSorted is the q-quantile of sorted values, by linear
// interpolation between order statistics.
func quantileSorted(x []float64, q float64) float64 {
	h := q * float64(len(x)-1)
	i := int(math.Floor(h))
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// regionWords describes regions: "mode 1 (chains 1 and 3) around x.1 =
// 0.01, x.2 = 4.0, lp__ -1.2; mode 2 (chain 2) around ...", naming the
// leading parameters.
func (r *Result) regionWords(regions []region) string {
	params := r.paramColumns()
	var parts []string
	for i, g := range regions {
		var chains []string
		for _, c := range g.chains {
			chains = append(chains, fmt.Sprint(r.ChainNumber(c)))
		}
		var at []string
		for j := 1; j <= min(params, namedAtMost); j++ {
			at = append(at, fmt.Sprintf("%s = %.3g", r.Columns[j], g.centre[j]))
		}
		if params > namedAtMost {
			at = append(at, "...")
		}
		which := "chain "
		if len(chains) > 1 {
			which = "chains "
		}
		parts = append(parts, fmt.Sprintf("mode %d (%s%s) around %s, lp__ %.4g", i+1, which, listWords(chains), strings.Join(at, ", "), g.centre[0]))
	}
	return strings.Join(parts, "; ")
}

// judgeModes names the regions of chains that never met, and the
// relabelled modes the search before sampling found.
func (r *Result) judgeModes(finished []int) []string {
	var w []string
	if s := r.Search; s != nil && len(s.Relabelled) > 0 {
		w = append(w, fmt.Sprintf("label switching: the mode search found %d modes that are one solution with the components of %s relabelled (%s); the chains sample %s, and a summary of each component is of whichever labelling a chain took: declare an order (%s: ordered[K]) so that every chain samples one labelling",
			len(s.Modes), listWords(s.Relabelled), r.searchWords(s), map[bool]string{true: "one labelling", false: "several labellings"}[len(r.regions(finished)) <= 1], s.Relabelled[0]))
	}
	if s := r.Search; r.searchCost > 0 && s.distinct() && r.Exchange == nil {
		w = append(w, fmt.Sprintf("the mode search found %d modes (%s); only parallel tempering samples them in proportion, and sampler = auto did not start on it because it would take about %s: run it with sampler = pt (temper run --sampler pt)",
			len(s.Modes), r.searchWords(s), roundDuration(r.searchCost)))
	}
	regions := r.regions(finished)
	if len(regions) < 2 || r.Search != nil && len(r.Search.Relabelled) > 0 {
		return w
	}
	remedy := "parallel tempering samples the modes in proportion: sampler = pt (temper run --sampler pt)"
	if r.Exchange != nil {
		remedy = "the ladder did not carry its target level between them: raise t_max so that the hottest level crosses the barrier, or replicas, and run longer"
	}
	return append(w, fmt.Sprintf("the chains sit in %d separate modes and never crossed between them: %s. Independent chains cannot tell the modes' relative masses, and modes that no chain found may exist; %s",
		len(regions), r.regionWords(regions), remedy))
}

// valleyBins and valleyDepth shape the test of two humps in one column's
// pooled draws (hasValley).
const (
	valleyBins  = 24
	valleyDepth = 8
	// valleyMass and valleyDraws are the least share of the draws, and
	// the fewest draws, the fullest bin on each side of a valley holds.
	valleyMass, valleyDraws = 0.01, 20
)

// hasValley reports whether draws (one column, every chain pooled) have
// two humps with a valley between them: in a histogram of valleyBins bins
// over their central 99%, a bin that holds under 1/valleyDepth of the
// fullest bin on each side of it, each of those holding at least
// valleyMass of the draws. Chains that cross a barrier too seldom to
// agree leave such a valley at the barrier; a skewed or heavy-tailed law
// of one hump does not.
func hasValley(draws []float64) bool {
	if len(draws) < 200 {
		return false
	}
	x := slices.Sorted(slices.Values(draws))
	lo, hi := quantileSorted(x, 0.005), quantileSorted(x, 0.995)
	if !(hi > lo) {
		return false
	}
	counts := make([]float64, valleyBins)
	for _, v := range x {
		if v < lo || v > hi {
			continue
		}
		counts[min(valleyBins-1, int((v-lo)/(hi-lo)*valleyBins))]++
	}
	need := max(valleyDraws, valleyMass*float64(len(draws)))
	for b := 1; b < valleyBins-1; b++ {
		left, right := slices.Max(counts[:b]), slices.Max(counts[b+1:])
		if left >= need && right >= need && counts[b]*valleyDepth < min(left, right) {
			return true
		}
	}
	return false
}

// valleyColumns names the parameters whose R-hat fails and whose pooled
// draws have two humps (hasValley).
func (r *Result) valleyColumns(finished []int) []string {
	var names []string
	stats := r.Summary()
	for j := 1; j <= r.paramColumns(); j++ {
		if j >= len(stats) || !(stats[j].Rhat > maxRhat) {
			continue
		}
		var pooled []float64
		for _, c := range finished {
			for _, d := range r.Draws[c] {
				pooled = append(pooled, d[j])
			}
		}
		if hasValley(pooled) {
			names = append(names, r.Columns[j])
		}
	}
	return names
}
