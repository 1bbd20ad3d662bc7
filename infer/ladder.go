package infer

import (
	"fmt"
	"math"
	"slices"
)

// Level is one rung of a ladder: the step size and temperature its replica
// moves with.
type Level struct{ LR, Temperature float64 }

// LadderKind says what a ladder spaces.
type LadderKind int

const (
	// TemperatureLadder spaces temperatures τ^(1) < ... < τ^(P); every
	// level takes the sampler's step-size schedule (reSGLD, seed 000
	// Eq. 13 with one η).
	TemperatureLadder LadderKind = iota
	// StepSizeLadder spaces step sizes η^(1) < ... < η^(P) (DEO*-SGD, seed
	// 000 Eq. 6): the target level moves at temperature Exploit (SGLD
	// exploitation, or SGD at 0) and the others at Explore (0: SGD, whose
	// own gradient noise makes its temperature grow with η).
	StepSizeLadder
)

// Ladder spaces the P levels of a replica-exchange run geometrically
// between fixed ends, Min·(Max/Min)^(p/(P-1)). With Adaptive, the interior
// levels follow the stochastic approximation of seed 000, Eq. 9-11, toward
// equal swap rates S on every pair: with x_p the level (its logarithm
// here, see below), each gap
// v_p = x_{p+1} - x_p moves as log v_p ← log v_p + γ_k (A_p - S) (Eq. 9),
// and level p takes the mean of its forward (x_{p-1} + v_{p-1}) and
// backward (x_{p+1} - v_p) estimates (Eq. 11). A_p is pair p's swap
// probability in the round (the indicator of Eq. 9 for the deterministic
// test, its expectation for Metropolis).
//
// The paper's "logarithmic scale" (Eq. 8) is that of the gap v, and its
// Eq. 10-11 write the levels themselves, η^(p) = η^(p-1) + v^(p). We run
// the same recursion on x_p = log(level p) instead, a deliberate departure:
// on the cosine2d example (DEO and DEO* with the example's settings, four
// ladders, seed 1) the log levels equalise the pairs' swap rates to
// 0.31-0.47, where the paper's linear levels leave 0.14-0.57 (the lowest
// pairs far below S after 20,000 iterations: linear midpoints of levels
// spanning two decades crowd the top of the ladder), and make 15.1 and
// 20.1 round trips per 1,000 iterations where the linear ones make 13.9
// and 17.5 (target-level TV to the exact cell masses 0.15 and 0.13 for
// DEO*).
//
// Levels, when set, are the P levels given by hand (temperatures or step
// sizes, increasing from the target level): the ladder starts there instead
// of on the geometric spacing, and Min and Max are its ends.
type Ladder struct {
	Kind             LadderKind
	Min, Max         float64
	Levels           []float64
	Exploit, Explore float64 // temperatures of a StepSizeLadder
	Adaptive         bool
	SwapRate         float64
	Adapt            Schedule // γ_k
	// Tuned moves the interior levels to equal rejection in rounds of
	// doubling length during the first half of burn-in (Syed et al.'s
	// Algorithm 4, package exchange's Tuning), pooled over the chains,
	// as the exact ladders do; an alternative to Adaptive.
	Tuned bool
}

func (l *Ladder) String() string {
	what, ends := "temperature", fmt.Sprintf("t_min=%g, t_max=%g", l.Min, l.Max)
	if l.Kind == StepSizeLadder {
		what, ends = "lr", fmt.Sprintf("lr_min=%g, lr_max=%g", l.Min, l.Max)
	}
	switch {
	case l.Adaptive:
		what = "adaptive_" + what
	case l.Tuned:
		what = "tuned_" + what
	}
	if l.Levels != nil {
		ends = fmt.Sprintf("levels=%v", l.Levels)
	}
	return fmt.Sprintf("%s(%s)", what, ends)
}

// ladderState is the spacing of one run's ladder: its values live in the
// run's State.
type ladderState struct {
	l      *Ladder
	values []float64 // x_p: temperatures or step sizes
	gaps   []float64
}

// initial is the ladder's starting values: the levels given by hand, or
// the geometric spacing between its ends.
func (l *Ladder) initial(levels int) []float64 {
	if l.Levels != nil {
		return slices.Clone(l.Levels)
	}
	values := make([]float64, levels)
	for p := range values {
		values[p] = l.Min * math.Pow(l.Max/l.Min, float64(p)/float64(levels-1))
	}
	values[levels-1] = l.Max
	return values
}

func (l *Ladder) start(values []float64) *ladderState {
	return &ladderState{l: l, values: values, gaps: make([]float64, len(values)-1)}
}

// startTemperatures are the temperatures the levels of s start at (the
// target's first): the sampler's own without a ladder.
func (s Sampler) startTemperatures(levels int) []float64 {
	t := make([]float64, levels)
	if levels == 1 || s.Ladder == nil {
		t[0] = s.Temperature
		return t
	}
	ls := s.Ladder.start(s.Ladder.initial(levels))
	for l := range t {
		t[l] = ls.level(l, 0, s.Schedule).Temperature
	}
	return t
}

// level is level p at iteration k; schedule gives a temperature ladder's
// step size.
func (st *ladderState) level(p, k int, schedule Schedule) Level {
	if st.l.Kind == StepSizeLadder {
		t := st.l.Explore
		if p == 0 {
			t = st.l.Exploit
		}
		return Level{LR: st.values[p], Temperature: t}
	}
	return Level{LR: schedule.StepSize(k), Temperature: st.values[p]}
}

// adapt applies Eq. 11 with step gamma to the log-levels of the interior,
// given every pair's swap probability, and keeps the levels increasing.
func (st *ladderState) adapt(probs []float64, gamma float64) {
	if !st.l.Adaptive || len(st.values) < 3 {
		return
	}
	x := st.values
	for p := range x {
		x[p] = math.Log(x[p])
	}
	defer func() {
		for p := range x {
			x[p] = math.Exp(x[p])
		}
		x[0], x[len(x)-1] = st.l.Min, st.l.Max
	}()
	for p := range st.gaps {
		st.gaps[p] = max(0, x[p+1]-x[p]) * math.Exp(gamma*(probs[p]-st.l.SwapRate))
	}
	// Every interior level moves from the old values (prev keeps the old
	// x[p-1] once x[p-1] is overwritten).
	prev := x[0]
	for p := 1; p < len(x)-1; p++ {
		forward := prev + st.gaps[p-1]
		backward := x[p+1] - st.gaps[p]
		prev = x[p]
		x[p] = (forward + backward) / 2
	}
	// Keep the ladder strictly increasing between its fixed ends.
	for p := 1; p < len(x)-1; p++ {
		lo := x[p-1]
		hi := x[len(x)-1]
		if x[p] <= lo || x[p] >= hi {
			x[p] = lo + (hi-lo)/float64(len(x)-p)
		}
	}
}
