package summary

import (
	"cmp"
	"math"
	"slices"
)

// quantile7 is the p-quantile of sorted draws by Hyndman and Fan's (1996)
// definition 7, R's default and NumPy's "linear": the draw at 0-based
// position h = (n − 1)p, interpolated linearly between its neighbours. It is
// NaN for no draws.
//
// The interpolation is written (1 − f)a + fb, as R writes it, and skipped
// when a = b: the median of an even number of draws is then exactly the
// rounded (a + b)/2. That matters beyond the last digit, because folding
// (|x − median|) makes the two middle draws exact ties or not depending on
// it, and ties change the ranks.
func quantile7(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	a, b := sorted[lo], sorted[lo+1]
	if a == b {
		return a
	}
	f := h - float64(lo)
	return (1-f)*a + f*b
}

// weighted is one draw and its weight.
type weighted struct{ x, w float64 }

// weightedQuantile generalizes definition 7 to weighted draws, sorted by x,
// with positive weights. Draw k gets the centre of its share of the total
// weight W,
//
//	c_k = (S_k − w_k/2) / W,   S_k = w_1 + … + w_k,
//
// and the centres are stretched affinely so that the first draw sits at 0
// and the last at 1, p_k = (c_k − c_1)/(c_n − c_1); the p-quantile is then
// interpolated linearly between the draws whose p_k bracket p. With equal
// weights c_k = (k − ½)/n and p_k = (k − 1)/(n − 1), which is definition 7
// exactly, so weighted and unweighted summaries agree when they should.
func weightedQuantile(sorted []weighted, p float64) float64 {
	n := len(sorted)
	switch n {
	case 0:
		return math.NaN()
	case 1:
		return sorted[0].x
	}
	pos := weightedPositions(sorted)
	k, _ := slices.BinarySearchFunc(pos, p, cmp.Compare[float64])
	// pos[k-1] < p ≤ pos[k]: interpolate between draws k-1 and k.
	if k == 0 {
		return sorted[0].x
	}
	if k >= n {
		return sorted[n-1].x
	}
	t := (p - pos[k-1]) / (pos[k] - pos[k-1])
	return sorted[k-1].x + t*(sorted[k].x-sorted[k-1].x)
}

// weightedPositions are the p_k of weightedQuantile, increasing from 0 to 1.
func weightedPositions(sorted []weighted) []float64 {
	n := len(sorted)
	var total float64
	for _, d := range sorted {
		total += d.w
	}
	centre := make([]float64, n)
	var cum float64
	for k, d := range sorted {
		cum += d.w
		centre[k] = (cum - d.w/2) / total
	}
	lo, hi := centre[0], centre[n-1]
	for k := range centre {
		centre[k] = (centre[k] - lo) / (hi - lo)
	}
	centre[n-1] = 1 // exact, whatever the rounding above
	return centre
}
