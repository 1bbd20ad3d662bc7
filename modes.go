package temper

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Chains that never meet: independent chains started apart can each stay
// in the mode they fall into, and chains that agree prove nothing, but
// chains whose draws do not overlap prove a posterior with separate
// regions, which split R-hat flags without saying why (TEMPERING.md,
// section 1). The judgement groups the finished chains into regions: two
// chains meet when, for every parameter, the central 98% intervals of
// their draws overlap; a chain that moves between two regions overlaps
// both and joins them. Regions of more than one are named in words, with
// their centres and lp__ levels, and the sampler that samples them in
// proportion.

// regionQuantile is the tail left out of each side of a chain's interval:
// its central 98%, so that a chain's rare excursion neither joins nor
// splits regions.
const regionQuantile = 0.01

// minRegionDraws is the fewest draws a chain needs to be placed.
const minRegionDraws = 20

// region is a group of chains whose draws overlap.
type region struct {
	chains []int     // indices into Draws
	centre []float64 // the mean of every column, lp__ first
	draws  int
}

// regions groups the finished chains (indices into r.Draws) into regions;
// fewer than two chains make none.
func (r *Result) regions(finished []int) []region {
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
	lo, hi := make([][]float64, len(placed)), make([][]float64, len(placed))
	for i, c := range placed {
		lo[i], hi[i] = make([]float64, params), make([]float64, params)
		col := make([]float64, len(r.Draws[c]))
		for j := range params {
			for k, d := range r.Draws[c] {
				col[k] = d[1+j]
			}
			slices.Sort(col)
			lo[i][j], hi[i][j] = quantileSorted(col, regionQuantile), quantileSorted(col, 1-regionQuantile)
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
			meet := true
			for j := range params {
				if lo[a][j] > hi[b][j] || lo[b][j] > hi[a][j] {
					meet = false
					break
				}
			}
			if meet {
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

// judgeModes names the regions of chains that never met.
func (r *Result) judgeModes(finished []int) []string {
	regions := r.regions(finished)
	if len(regions) < 2 {
		return nil
	}
	remedy := "parallel tempering samples the modes in proportion: sampler = pt (temper run --sampler pt)"
	if r.Exchange != nil {
		remedy = "the ladder did not carry its target level between them: raise t_max so that the hottest level crosses the barrier, or replicas, and run longer"
	}
	return []string{fmt.Sprintf("the chains sit in %d separate modes and never crossed between them: %s. Independent chains cannot tell the modes' relative masses, and modes that no chain found may exist; %s",
		len(regions), r.regionWords(regions), remedy)}
}
