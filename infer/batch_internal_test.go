package infer

import (
	"math"
	"testing"
)

// TestBlockMinibatches checks the block dealer (batch_blocks): a batch of
// 7 rows in 2 blocks is a run of 4 and a run of 3 consecutive rows,
// wrapping from the last row to the first, and over 20,000 batches every
// one of the 10 rows is dealt 7/10 of the time, so that the N/B-scaled
// energy is unbiased. A row's count per batch has variance at most
// 0.4·0.6 + 0.3·0.7 = 0.45, so its mean over 20,000 batches has an sd of
// 0.0047: the tolerance of 0.03 is six of them.
func TestBlockMinibatches(t *testing.T) {
	const n, batch, draws = 10, 7, 20_000
	rngs := []*Rand{NewRand(3, 1), NewRand(3, 2)}
	m := newMinibatcher(newBatchState(n, len(rngs), 2), n, batch, rngs, nil)
	if m.st.Perms[0] != nil {
		t.Fatalf("a block dealer holds a permutation of %d rows", len(m.st.Perms[0]))
	}
	count := make([]float64, n)
	for range draws {
		rows := m.next()
		for c := range rngs {
			b := rows[c*batch : (c+1)*batch]
			for i, r := range b {
				if i != 0 && i != 4 && r != (b[i-1]+1)%n {
					t.Fatalf("batch %v: row %d does not follow row %d", b, r, b[i-1])
				}
				if c == 0 {
					count[r]++
				}
			}
		}
	}
	for r, k := range count {
		if f := k / draws; math.Abs(f-0.7) > 0.03 {
			t.Errorf("row %d is in %.3f of the batches, want 0.7", r, f)
		}
	}
}
