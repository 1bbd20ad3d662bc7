package summary

import "fmt"

// Coverage is how well two-dimensional draws cover a set of known modes.
type Coverage struct {
	// Covered is the number of modes with more than the threshold of draws
	// within the radius of their centre.
	Covered int
	// Counts[i] is the number of draws within the radius of centre i.
	Counts []int
}

// ModeCoverage is the mode-coverage metric of seed 002 (appendix A.1,
// Table 4): a mode is covered when more than threshold of the draws (x[i],
// y[i]) lie within radius of its centre (Euclidean distance; the paper
// takes r = 0.25 and n = 100 on its mixture of 25 Gaussians). A draw within
// the radius of two centres counts for both. It panics if x and y differ in
// length.
func ModeCoverage(x, y []float64, centres [][2]float64, radius float64, threshold int) Coverage {
	if len(x) != len(y) {
		panic(fmt.Sprintf("summary: %d x values and %d y values", len(x), len(y)))
	}
	c := Coverage{Counts: make([]int, len(centres))}
	r2 := radius * radius
	for i := range x {
		for m, centre := range centres {
			dx, dy := x[i]-centre[0], y[i]-centre[1]
			if dx*dx+dy*dy <= r2 {
				c.Counts[m]++
			}
		}
	}
	for _, n := range c.Counts {
		if n > threshold {
			c.Covered++
		}
	}
	return c
}

// Grid is the centres of a square grid of modes, every pair of values
// (first coordinate varying slowest): Grid(-4, -2, 0, 2, 4) is the 25
// means of seed 002's mixture.
func Grid(values ...float64) [][2]float64 {
	var centres [][2]float64
	for _, a := range values {
		for _, b := range values {
			centres = append(centres, [2]float64{a, b})
		}
	}
	return centres
}
