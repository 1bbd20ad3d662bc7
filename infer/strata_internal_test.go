package infer

import (
	"math"
	"slices"
	"testing"
)

// TestStratifiedShuffle: each epoch of the stratified dealer is a
// permutation of the rows whose every batch of B holds each group's rows
// within two of B·n_g/N (a uniform shuffle's counts are binomial, here of
// sds up to 2.1 rows), and
// which batch of the epoch a row falls in is uniform: over 4,000 epochs
// each row's share of each of the 19 batches is 1/19, the cells' squared
// binomial z averaging 1.
func TestStratifiedShuffle(t *testing.T) {
	const groups, batch, epochs = 40, 100, 4000
	var of []int32
	for g := range groups { // sizes 10 to 89, 1,980 rows
		for range 10 + (g*37)%80 {
			of = append(of, int32(g))
		}
	}
	n := len(of)
	rng := NewRand(5, 1)
	rng.Shuffle(n, func(i, j int) { of[i], of[j] = of[j], of[i] }) // the groups' rows interleaved in the file
	s := &strata{of: of, sizes: make([]int, groups)}
	for _, g := range of {
		s.sizes[g]++
	}
	nb := n / batch
	seen := make([]int, n*nb) // seen[row*nb + batch]
	worst := 0.0
	var work strataScratch
	perm := identity(n)
	for range epochs {
		s.shuffle(perm, rng, &work)
		sorted := slices.Clone(perm)
		slices.Sort(sorted)
		for i, r := range sorted {
			if r != i {
				t.Fatalf("not a permutation: %v", sorted[:10])
			}
		}
		for b := range nb {
			counts := make([]int, groups)
			for _, r := range perm[b*batch : (b+1)*batch] {
				counts[of[r]]++
				seen[r*nb+b]++
			}
			for g, c := range counts {
				worst = max(worst, math.Abs(float64(c)-float64(batch*s.sizes[g])/float64(n)))
			}
		}
	}
	if worst > 2 {
		t.Errorf("a batch holds a group's rows %.2f from its share", worst)
	}
	p := 1 / float64(nb)
	sd := math.Sqrt(epochs * p * (1 - p))
	far, z2 := 0.0, 0.0
	for _, c := range seen {
		z := (float64(c) - epochs*p) / sd
		far, z2 = max(far, math.Abs(z)), z2+z*z/float64(len(seen))
	}
	// Under uniformity the mean square of the 39,600 cells' z is 1 within
	// about 0.007·3 (the cells are nearly independent), and the largest
	// |z| about 4.4.
	if far > 5.5 || math.Abs(z2-1) > 0.03 {
		t.Errorf("the rows' batch frequencies: largest departure %.1f sds, mean square z %.3f", far, z2)
	}
	t.Logf("largest departure of a group's count from its share %.2f rows; of a row's batch frequency %.2f sds, mean square z %.4f", worst, far, z2)
}
