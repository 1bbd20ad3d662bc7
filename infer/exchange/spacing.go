package exchange

import "math"

// Coordinate is the scale on which the cumulative barrier is
// interpolated between levels: log β on the temperature path (geometric
// ladders are even there), β^{1/5} on the power path (even for its
// starting ladder, and finite at the prior's β = 0).
type Coordinate struct{ To, From func(float64) float64 }

// PowerSpacing is the exponent of the power path's starting ladder.
const PowerSpacing = 5

var (
	// LogCoordinate is the temperature path's.
	LogCoordinate = Coordinate{math.Log, math.Exp}
	// PowerCoordinate is the power path's.
	PowerCoordinate = Coordinate{
		func(b float64) float64 { return math.Pow(b, 1.0/PowerSpacing) },
		func(s float64) float64 { return math.Pow(s, PowerSpacing) }}
)

// EqualRejection places m levels between betas' ends (any monotone
// sequence: inverse temperatures falling from the target, or temperatures
// or step sizes rising from it) so that each
// adjacent pair carries an equal share of the communication barrier, given
// the rejection rates of the pairs of betas (pair p joins betas[p] and
// betas[p+1]): the cumulative barrier is interpolated linearly in the
// coordinate between the current levels and inverted (Syed et al. 2021,
// Section 5.1). Without any rejection the levels are spaced evenly in the
// coordinate.
func EqualRejection(betas, rejection []float64, m int, coord Coordinate) []float64 {
	n := len(betas)
	total := Lambda(rejection)
	// cum[l] is the barrier from the target level 0 to level l; with none,
	// the coordinate's distance stands in for it.
	cum := make([]float64, n)
	for p, r := range rejection {
		cum[p+1] = cum[p] + r
		if !(total > 0) {
			cum[p+1] = math.Abs(coord.To(betas[0]) - coord.To(betas[p+1]))
		}
	}
	if !(total > 0) {
		total = cum[n-1]
	}
	out := make([]float64, m)
	out[0], out[m-1] = betas[0], betas[n-1]
	i := 0
	for j := 1; j < m-1; j++ {
		t := float64(j) * total / float64(m-1)
		for i < n-2 && cum[i+1] < t {
			i++
		}
		f := 0.0
		if span := cum[i+1] - cum[i]; span > 0 {
			f = (t - cum[i]) / span
		}
		lo, hi := coord.To(betas[i]), coord.To(betas[i+1])
		out[j] = coord.From(lo + f*(hi-lo))
	}
	return out
}

// PowerBetas are the power path's starting levels for P levels,
// β_l = (1 - l/(P-1))^5 from the posterior to the prior, crowded near the
// prior, where the likelihood's first powers move the law most (Friel &
// Pettitt 2008, Section 2.2).
func PowerBetas(levels int) []float64 {
	b := make([]float64, levels)
	for l := range b {
		b[l] = math.Pow(1-float64(l)/float64(levels-1), PowerSpacing)
	}
	return b
}
