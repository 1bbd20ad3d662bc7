package exchange

// Tuning moves a ladder's levels to equal rejection in rounds of
// doubling length (FirstRound iterations, twice that, ...), Syed,
// Bouchard-Côté, Deligiannidis & Doucet's (2021) Algorithm 4: a round
// pools every chain's swap probabilities α_p of every pair p, and at its
// end the pairs' rejection rates r_p = mean(1 - α_p) place the levels anew
// (EqualRejection) and their sum is the round's estimate of the global
// communication barrier Λ. It is part of a run's State, so a resumed run
// tunes as the uninterrupted one.
type Tuning struct {
	// Sum is each pair's Σ(1 - α_p) over the round's N observations (a
	// chain's swap round each).
	Sum []float64
	N   int
	// End is the iteration the round ends after (it + 1 == End), Length
	// the round's length.
	End, Length int
	// Barriers is Λ as each round estimated it.
	Barriers []float64
}

// FirstRound is the length of the first tuning round.
const FirstRound = 16

// NewTuning starts the tuning's first round.
func NewTuning() Tuning {
	return Tuning{End: FirstRound, Length: FirstRound}
}

// Observe adds one chain's swap probabilities of every pair.
func (t *Tuning) Observe(alpha []float64) {
	if len(t.Sum) != len(alpha) {
		t.Sum = make([]float64, len(alpha))
	}
	for p, a := range alpha {
		t.Sum[p] += 1 - a
	}
	t.N++
}

// Due reports whether a round ends after iteration it, where rounds must
// end by limit.
func (t *Tuning) Due(it, limit int) bool {
	return it+1 == t.End && t.End <= limit && t.N > 0
}

// Next ends the round: it returns the pairs' rejection rates, records Λ
// and starts the next round, twice as long.
func (t *Tuning) Next() []float64 {
	rejection := make([]float64, len(t.Sum))
	for p, s := range t.Sum {
		rejection[p] = s / float64(t.N)
	}
	t.Barriers = append(t.Barriers, Lambda(rejection))
	t.Sum, t.N = nil, 0
	t.Length *= 2
	t.End += t.Length
	return rejection
}

// Barrier is Λ of the round under way, or else of the last round; false
// before any observation.
func (t *Tuning) Barrier() (float64, bool) {
	switch {
	case t.N > 0:
		return Lambda(t.Sum) / float64(t.N), true
	case len(t.Barriers) > 0:
		return t.Barriers[len(t.Barriers)-1], true
	}
	return 0, false
}

// Lambda is the global communication barrier Λ = Σ_p r_p of a ladder
// whose pairs reject r_p of their swaps (Syed et al. 2021, Section 3).
func Lambda(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}
