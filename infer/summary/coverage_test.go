package summary_test

import (
	"testing"

	"github.com/temper-ppl/temper/infer/summary"
)

// TestModeCoverage counts by hand: a mode is covered with more than n draws
// within r (seed 002, appendix A.1), so exactly n is not enough; a draw at
// distance r counts; one within r of two centres counts for both.
func TestModeCoverage(t *testing.T) {
	centres := [][2]float64{{0, 0}, {1, 0}, {5, 5}}
	var x, y []float64
	add := func(px, py float64, n int) {
		for range n {
			x, y = append(x, px), append(y, py)
		}
	}
	add(0.1, 0.1, 3)  // near (0, 0) only
	add(0.5, 0, 2)    // 0.5 from (0, 0) and from (1, 0)
	add(1, 0.5, 1)    // exactly r from (1, 0)
	add(5.4, 5.4, 10) // 0.57 from (5, 5): outside
	c := summary.ModeCoverage(x, y, centres, 0.5, 3)
	if want := []int{5, 3, 0}; c.Counts[0] != want[0] || c.Counts[1] != want[1] || c.Counts[2] != want[2] {
		t.Errorf("counts %v, want %v", c.Counts, want)
	}
	if c.Covered != 1 {
		t.Errorf("covered %d, want 1: (0, 0) has 5 > 3 draws, (1, 0) exactly 3", c.Covered)
	}
	if c := summary.ModeCoverage(nil, nil, centres, 0.5, 0); c.Covered != 0 {
		t.Errorf("no draws cover %d modes", c.Covered)
	}
}

func TestGrid(t *testing.T) {
	g := summary.Grid(-4, -2, 0, 2, 4)
	if len(g) != 25 || g[0] != [2]float64{-4, -4} || g[1] != [2]float64{-4, -2} || g[24] != [2]float64{4, 4} {
		t.Errorf("grid %v", g)
	}
}
