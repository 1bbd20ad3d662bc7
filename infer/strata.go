package infer

// StratifiedTarget is a Target whose rows fall into groups: the levels of
// an index by data such as g in a[g[n]], where each group's rows inform
// its own parameter. Strata returns each row's group, 0 ≤ g < groups, or
// nil when the rows have none.
//
// A uniform minibatch of B rows holds a Poisson-like count of each
// group's rows (about B·n_g/N, with sd its square root), and that count
// multiplies the group's whole likelihood term in the scaled gradient: on
// a varying-intercept model of 1,000 groups and 1,000,000 rows at
// B = 10,000, each intercept's gradient carries a relative noise of about
// 0.3 that the control variate cannot remove, since it scales the
// difference of the gradient from the centre's as well. A stratified
// minibatch, each group's rows in proportion to its size, removes that
// term: see stratifiedShuffle.
type StratifiedTarget interface {
	Strata() (strata []int32, groups int)
}

// strata is a target's grouping as the minibatchers use it (read only).
type strata struct {
	of    []int32 // each row's group
	sizes []int   // n_g
}

// strataScratch is one minibatcher's working memory for its reshuffles.
type strataScratch struct {
	rank, keys, count []int32
	offset            []float64
	sorted            []int
}

// strataOf reads the grouping of a target that has one.
func strataOf(t Target) *strata {
	st, ok := t.(StratifiedTarget)
	if !ok {
		return nil
	}
	of, groups := st.Strata()
	if len(of) == 0 || len(of) != t.NumData() || groups < 2 {
		return nil
	}
	s := &strata{of: of, sizes: make([]int, groups)}
	for _, g := range of {
		s.sizes[g]++
	}
	return s
}

// stratifiedShuffle makes perm a new permutation of the rows whose every
// run of B consecutive rows is a stratified sample: group g's rows spread
// evenly over the permutation, so that a run of B holds ⌊B·n_g/N⌋ or
// ⌈B·n_g/N⌉ of them (within one or two, where runs and groups' spacings
// meet) instead of a binomial count. How: the rows in a uniform random
// order; the k-th row of group g in that order gets the key
// ⌊(k + u_g)·N/n_g⌋ with u_g uniform on [0, 1), and the rows are sorted
// by key (a stable counting sort, so rows of equal keys stay in random
// order). Each group's keys are a systematic sample of [0, N) with a
// random start; every row is still dealt once an epoch, each group's in a
// uniformly random order, and a row's key is uniform on [0, N) whatever
// its group (k uniform over the group's positions, u_g independent), so
// its place in the epoch is as likely anywhere as under a plain shuffle.
func (s *strata) shuffle(perm []int, rng *Rand, w *strataScratch) {
	n := len(perm)
	if len(w.keys) != n {
		*w = strataScratch{rank: make([]int32, len(s.sizes)), keys: make([]int32, n), count: make([]int32, n+1),
			offset: make([]float64, len(s.sizes)), sorted: make([]int, n)}
	}
	rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	for g := range w.offset {
		w.offset[g] = rng.Float64()
	}
	clear(w.rank)
	clear(w.count)
	for i, r := range perm {
		g := s.of[r]
		k := w.rank[g]
		w.rank[g]++
		key := min(int32((float64(k)+w.offset[g])*float64(n)/float64(s.sizes[g])), int32(n-1))
		w.keys[i] = key
		w.count[key+1]++
	}
	for i := 1; i <= n; i++ {
		w.count[i] += w.count[i-1]
	}
	for i, r := range perm {
		k := w.keys[i]
		w.sorted[w.count[k]] = r
		w.count[k]++
	}
	copy(perm, w.sorted)
}
