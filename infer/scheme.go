package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SchemeKind names a swap scheme: which adjacent pairs are tried in an
// exchange round (seed 000, Table 1).
type SchemeKind int

const (
	// ADJ tries every pair, one after another, each seeing the swaps
	// before it (Nadler & Hansmann 2007).
	ADJ SchemeKind = iota
	// SEO tries the even or the odd pairs, chosen at random each round.
	SEO
	// DEO tries the even pairs in even windows and the odd pairs in odd
	// windows; with Window W > 1 it is the generalized DEO_W of seed 000
	// (Algorithm 1), which allows at most one swap per pair per window.
	DEO
)

// Scheme is a swap scheme with its window (DEO only; 1 is plain DEO).
type Scheme struct {
	Kind   SchemeKind
	Window int
}

func (s Scheme) String() string {
	switch s.Kind {
	case ADJ:
		return "adj"
	case SEO:
		return "seo"
	}
	if s.Window > 1 {
		return fmt.Sprintf("deo(window=%d)", s.Window)
	}
	return "deo"
}

// OptimalWindow is the window W* of Theorem 1 of seed 000 for P levels with
// equal rejection rate r per pair:
//
//	W* = ⌈(log P + log log P) / (-log r)⌉,
//
// and 1 for P < 4, where the theorem finds W = 1 optimal. Algorithm 1 takes
// r = 1 - S for a target swap rate S.
func OptimalWindow(levels int, rejection float64) int {
	if levels < 4 || rejection <= 0 {
		return 1
	}
	if rejection >= 1 {
		return math.MaxInt32
	}
	p := float64(levels)
	return max(1, int(math.Ceil((math.Log(p)+math.Log(math.Log(p)))/-math.Log(rejection))))
}

// RoundTripTime is the expected round-trip time of Lemma 1 of seed 000
// (Eq. 3) for P levels, window W and per-pair rejection rates r_p:
//
//	E[T] = 2WP + 2WP Σ_p r_p^W / (1 - r_p^W).
func RoundTripTime(window int, rejections []float64) float64 {
	p, w := float64(len(rejections)+1), float64(window)
	sum := 0.0
	for _, r := range rejections {
		rw := math.Pow(r, w)
		sum += rw / (1 - rw)
	}
	return 2*w*p + 2*w*p*sum
}

// schemeState is a scheme's state for one ladder: the gates of DEO_W,
// which live in the run's State.
type schemeState struct {
	s     Scheme
	open  []bool
	pairs []int
}

func (s Scheme) start(open []bool) *schemeState {
	return &schemeState{s: s, open: open, pairs: make([]int, 0, len(open))}
}

// attempt lists the pairs tried in exchange round k, in order.
func (st *schemeState) attempt(k int, rng *rand.Rand) []int {
	st.pairs = st.pairs[:0]
	n := len(st.open)
	switch st.s.Kind {
	case ADJ:
		for p := range n {
			st.pairs = append(st.pairs, p)
		}
	case SEO:
		for p := rng.IntN(2); p < n; p += 2 {
			st.pairs = append(st.pairs, p)
		}
	case DEO:
		w := max(1, st.s.Window)
		if k%w == 0 {
			for p := range st.open {
				st.open[p] = true
			}
		}
		for p := (k / w) % 2; p < n; p += 2 {
			if st.open[p] {
				st.pairs = append(st.pairs, p)
			}
		}
	}
	return st.pairs
}

// swapped closes pair p's gate until the next window (DEO_W's "at most one
// swap per window").
func (st *schemeState) swapped(p int) {
	if st.s.Kind == DEO && st.s.Window > 1 {
		st.open[p] = false
	}
}
