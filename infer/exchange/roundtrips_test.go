package exchange

import "testing"

// TestRoundTripCount follows a scripted index process on a ladder of three
// levels, one swap a round, and counts round trips by hand: a particle
// completes one when it has gone from the bottom level to the top and back
// (Syed et al. 2021; seed 000, appendix B.1). Particle 2 starts at the top
// and comes down (rounds 1-2: no trip, since it had not left the bottom),
// goes up and down again (rounds 3-6: the first trip, at round 6), and
// once more (rounds 7-10: the second, 4 rounds after the first).
func TestRoundTripCount(t *testing.T) {
	r := NewRoundTrips(3)
	script := []int{1, 0, 0, 1, 1, 0, 0, 1, 1, 0} // the pair that swaps in rounds 1-10
	want := []int{0, 0, 0, 0, 0, 1, 1, 1, 1, 2}   // round trips after each round
	for k, p := range script {
		r.Swap(p)
		r.Observe(k + 1)
		if r.Count != want[k] {
			t.Fatalf("after round %d (index process %v): %d round trips, want %d", k+1, r.At, r.Count, want[k])
		}
	}
	if got := r.MeanTime(); got != 4 {
		t.Errorf("mean time between round trips %g rounds, want 4", got)
	}
}
