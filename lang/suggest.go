package lang

// Suggest returns the candidate closest to name by edit distance, if it is
// close enough to be a likely typo: at most 2 edits (a swap of neighbours
// counts as one), and fewer than half of name's letters, so that a one-letter
// name is never "corrected" into another. Ties go to the alphabetically
// first candidate.
func Suggest(name string, candidates []string) string {
	best, bestDist := "", 3
	limit := min(2, len([]rune(name))/2)
	for _, cand := range candidates {
		if cand == name {
			continue
		}
		d := editDistance(name, cand, bestDist)
		if d > limit {
			continue
		}
		if d < bestDist || d == bestDist && cand < best {
			best, bestDist = cand, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and transpositions of adjacent
// runes), or some value > bound when it exceeds bound.
func editDistance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > bound || -d > bound {
		return bound + 1
	}
	// Three rows of the dynamic programme: i-2, i-1 and i.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
