package plots

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
)

// NiceTicks mark a linear axis at multiples of a step of 1, 2 or 5 ×
// 10^k, so that an axis whose range holds 0 is marked at 0 and the labels
// are the round numbers a reader counts by (0, 5, 10, 15, not 5, 20, 35).
// The step is the largest that leaves four major ticks or more; where that
// would be more than eight (a step of 2 just short of the width for 5),
// the next step up leaves three. Minor ticks divide a step of 1 or 5 in
// five, one of 2 in two.
type NiceTicks struct {
	// Whole keeps the step at 1 or more, for an axis of counts
	// (iterations, draws, levels): a run of 23 draws is not marked at 2.5.
	Whole bool
}

// tickStep is a step m × 10^e of NiceTicks, m one of 1, 2, 5.
type tickStep struct{ m, e int }

// value is i steps, i·m·10^e, rounded once: 3 steps of 0.1 are 0.3, not
// 0.30000000000000004.
func (s tickStep) value(i int) float64 {
	v := float64(i * s.m)
	if s.e < 0 {
		v /= math.Pow10(-s.e)
	} else {
		v *= math.Pow10(s.e)
	}
	if v == 0 {
		return 0 // not -0
	}
	return v
}

func (s tickStep) size() float64 { return s.value(1) }

// next is the step after s: 1, 2, 5, 10, 20, 50, ...
func (s tickStep) next() tickStep {
	switch s.m {
	case 1:
		return tickStep{2, s.e}
	case 2:
		return tickStep{5, s.e}
	}
	return tickStep{1, s.e + 1}
}

// span is the first and last multiple of s in [lo, hi].
func (s tickStep) span(lo, hi float64) (first, last int) {
	size := s.size()
	const slack = 1e-9 // an end a rounding error past a multiple still holds it
	return int(math.Ceil(lo/size - slack)), int(math.Floor(hi/size + slack))
}

func (s tickStep) count(lo, hi float64) int {
	first, last := s.span(lo, hi)
	return last - first + 1
}

// minor is the step of the minor ticks between the major ones of s.
func (s tickStep) minor() tickStep {
	switch s.m {
	case 1:
		return tickStep{2, s.e - 1}
	case 2:
		return tickStep{1, s.e}
	}
	return tickStep{1, s.e}
}

// label writes a multiple of s with the decimals the step needs, the
// same on every label of an axis (0.0, 0.2, ..., 1.0).
func (s tickStep) label(v float64) string {
	if a := math.Abs(v); a >= 1e7 || s.e < -6 {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, -s.e), 64)
}

// Ticks implements plot.Ticker.
func (n NiceTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo > hi {
		lo, hi = hi, lo
	}
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	s := n.step(lo, hi)
	first, last := s.span(lo, hi)
	ticks := make([]plot.Tick, 0, 2*(last-first+1))
	for i := first; i <= last; i++ {
		v := s.value(i)
		ticks = append(ticks, plot.Tick{Value: v, Label: s.label(v)})
	}
	if m := s.minor(); !n.Whole || m.size() >= 1 {
		per := int(math.Round(s.size() / m.size()))
		mFirst, mLast := m.span(lo, hi)
		for i := mFirst; i <= mLast; i++ {
			if i%per != 0 {
				ticks = append(ticks, plot.Tick{Value: m.value(i)})
			}
		}
	}
	return ticks
}

// step is the largest step that leaves 4 major ticks in [lo, hi], or 3
// where that one would leave more than 8.
func (n NiceTicks) step(lo, hi float64) tickStep {
	s := tickStep{1, int(math.Floor(math.Log10(hi-lo))) - 2}
	if n.Whole && s.e < 0 {
		s = tickStep{1, 0}
	}
	for s.next().count(lo, hi) >= 4 {
		s = s.next()
	}
	if s.count(lo, hi) > 8 {
		s = s.next()
	}
	return s
}

// snapRange extends a range to 0 where it stops short of it by less than
// a twentieth of its width: a scale parameter's draws from 0.03 to 28 are
// drawn from 0, which the axis marks.
func snapRange(lo, hi float64) (float64, float64) {
	switch near := (hi - lo) / 20; {
	case lo > 0 && lo < near:
		lo = 0
	case hi < 0 && -hi < near:
		hi = 0
	}
	return lo, hi
}

// snapToZero is snapRange on a linear axis.
func snapToZero(a *plot.Axis) {
	if _, linear := a.Scale.(plot.LinearScale); linear {
		a.Min, a.Max = snapRange(a.Min, a.Max)
	}
}

// finish readies a plot for drawing: each linear axis snapped to 0 where
// it stops just short of it.
func finish(p *plot.Plot) *plot.Plot {
	snapToZero(&p.X)
	snapToZero(&p.Y)
	return p
}

// NiceLogTicks mark a log axis: at 1, 2 and 5 × 10^k where the range
// spans one to three decades (a step-size ladder from 0.003 to 0.6 is
// marked at 0.005, 0.01, 0.02, ..., 0.5, not at 0.01 and 0.1 alone), at
// the powers of 10 where it spans more, and as NiceTicks where it spans
// less than one.
type NiceLogTicks struct{}

// Ticks implements plot.Ticker.
func (NiceLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo > hi {
		lo, hi = hi, lo
	}
	if !(lo > 0) || math.IsInf(hi, 0) || hi/lo < 10 {
		return NiceTicks{}.Ticks(lo, hi)
	}
	majors := []int{1, 2, 5}
	if hi/lo > 1000 {
		majors = []int{1}
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		for m := 1; m <= 9; m++ {
			s := tickStep{m, e}
			v := s.value(1)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if slices.Contains(majors, m) {
				t.Label = s.label(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
