package infer

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/temper-ppl/temper/infer/exchange"
)

// Parallel tempering with the exact kernels: each chain is a ladder of P
// levels, level l sampling e^{-β_l U} with β_0 = 1 (the posterior) > β_1 >
// ... > β_{P-1} = 1/T_max, every level moved by the chain's kernel (NUTS,
// HMC or MALA, each level with its own step size and metric from Stan's
// warm-up), and after every transition the states of adjacent levels
// swapped with the exact Metropolis probability
//
//	α_p = 1 ∧ exp((β_p - β_{p+1}) (U(x_p) - U(x_{p+1}))),
//
// which keeps the product of the levels' laws invariant. Energies are
// exact, so no variance correction enters (contrast seed 000's Eq. 15).
// The pairs tried alternate, even pairs after even iterations and odd after
// odd: the deterministic even-odd scheme (DEO) of seed 000 (Section 3;
// Syed, Bouchard-Côté, Deligiannidis & Doucet 2021, "Non-reversible
// parallel tempering", JRSS-B 84), whose round-trip rate tends to
// 1/(2 + 2Λ) as the ladder fills, where Λ = Σ_p r_p, r_p = E[1 - α_p], is
// the global communication barrier; a reversible scheme's falls like 1/P.
//
// TuneLadder moves the levels during the first half of the warm-up, in
// rounds of doubling length (16, 32, 64, ... iterations), as Syed et al.'s
// Algorithm 4 does: after each round the cumulative barrier Λ(β) is
// interpolated (linearly in log β) through the pooled rejection rates
// r_p at the current levels, and the new levels are placed at
// Λ^{-1}(jΛ/(P-1)), so that every pair is rejected equally often. Each
// level's step size then goes on adapting at its new temperature through
// the rest of the warm-up. With AutoLevels (replicas = auto) a round that
// measures a barrier Λ with 2Λ + 1 > P grows the ladder to that many
// levels (at most maxAutoLevels), placed the same way, each new level
// starting from the state, step size and metric of the old level nearest
// it: with fewer, every swap is rejected more than half the time and the
// round trips slow (Syed et al.'s τ ≈ 1/(2 + 2Λ) needs P well above Λ).

// ladderTuneFirst is the length of the first tuning round; each next one
// is twice as long, and the last ends by the middle of the warm-up.
const ladderTuneFirst = 16

// maxAutoLevels bounds the levels replicas = auto grows a ladder to.
const maxAutoLevels = 32

// ExactLadder is the state of the exact samplers' temperature ladders:
// the levels, which the chains share, and what the swaps did.
type ExactLadder struct {
	// Betas are the levels' inverse temperatures, Betas[0] = 1 the target.
	Betas []float64
	// Trips follow each chain's replica index process (after the warm-up).
	Trips []exchange.RoundTrips
	// Rounds counts the exchange rounds after the warm-up; Attempts and
	// Accepts count each chain's swaps per pair then, and AcceptSum sums
	// each pair's swap probability α_p over those rounds, tried or not.
	Rounds            int
	Attempts, Accepts [][]int
	AcceptSum         [][]float64
	// Tuning moves the levels to equal rejection in the warm-up's first
	// half, and keeps each round's Λ.
	Tuning exchange.Tuning
	// Power says the levels temper the likelihood alone (PathPower), from
	// Betas[0] = 1 to the prior at 0; Evidence then sums what log Z needs
	// from the draws after the warm-up.
	Power    bool
	Evidence *exchange.Sums
	// Index is each chain's replica index process after the warm-up,
	// sampled every IndexEvery rounds (at most maxIndexSamples of them):
	// Index[c][i][l] is the replica (numbered by its level at the warm-up's
	// end) at level l.
	Index      [][][]int
	IndexEvery int
}

// newExactLadder is a ladder of levels for chains chains: on the
// temperature path geometric from temperature 1 to tmax, on the power path
// β_l = (1 - l/(P-1))^5 from the posterior to the prior, levels crowded
// near the prior, where the likelihood's first powers move the law most
// (Friel & Pettitt 2008, Section 2.2).
func newExactLadder(levels, chains int, tmax float64, path LadderPath) *ExactLadder {
	lad := &ExactLadder{Betas: make([]float64, levels), Trips: make([]exchange.RoundTrips, chains),
		Attempts: make([][]int, chains), Accepts: make([][]int, chains), AcceptSum: make([][]float64, chains),
		Tuning: exchange.NewTuning()}
	lad.Power = path == PathPower
	for l := range lad.Betas {
		lad.Betas[l] = math.Pow(tmax, -float64(l)/float64(levels-1))
		if lad.Power {
			lad.Betas[l] = math.Pow(1-float64(l)/float64(levels-1), exchange.PowerSpacing)
		}
	}
	for c := range chains {
		lad.Trips[c] = exchange.NewRoundTrips(levels)
		lad.Attempts[c], lad.Accepts[c], lad.AcceptSum[c] = make([]int, levels-1), make([]int, levels-1), make([]float64, levels-1)
	}
	return lad
}

// exchange is iteration it's swap round on every chain's ladder. On the
// power path the pair's Metropolis probability is the same expression with
// the likelihood's energy U₁ for U (the prior cancels), and the rows'
// energies and gradients are set afresh from the parts after the swaps.
func (k *exactKernel) exchange(it int) error {
	lad, st, levels, d := k.es.Ladder, k.st, k.levels, k.st.Dim
	warm := it < k.x.Warmup
	if it == k.x.Warmup { // the round trips and swaps counted are the sampling's
		for c := range lad.Trips {
			lad.Trips[c] = exchange.NewRoundTrips(levels)
		}
		lad.Index, lad.IndexEvery = make([][][]int, st.Chains), max(1, (k.total-k.x.Warmup+maxIndexSamples-1)/maxIndexSamples)
	}
	tempered := make([]float64, len(st.Energy)) // what β multiplies: U, or U₁
	if lad.Power {
		if err := k.evaluateParts(); err != nil {
			return err
		}
		copy(tempered, k.pw.u1)
	} else {
		for r, u := range st.Energy {
			tempered[r] = u / lad.Betas[r%levels]
		}
	}
	alpha := make([]float64, levels-1)
	for c := range st.Chains {
		base := c * levels
		for p := range alpha {
			lo, hi := base+p, base+p+1
			alpha[p] = math.Exp(min(0, exchange.LogRatio(lad.Betas[p]-lad.Betas[p+1], tempered[lo]-tempered[hi], 0)))
			if math.IsNaN(alpha[p]) {
				alpha[p] = 0
			}
			if !warm {
				lad.AcceptSum[c][p] += alpha[p]
			}
		}
		if warm {
			lad.Tuning.Observe(alpha)
		}
		for p := it % 2; p < levels-1; p += 2 { // DEO: the pairs of the round's parity
			swap := k.swapRngs[c].Float64() < alpha[p]
			if !warm {
				lad.Attempts[c][p]++
				if swap {
					lad.Accepts[c][p]++
				}
			}
			if swap {
				k.swapRows(base+p, base+p+1, lad.Betas[p], lad.Betas[p+1], d)
				lad.Trips[c].Swap(p)
			}
		}
		lad.Trips[c].Observe(it + 1)
		if !warm && (it-k.x.Warmup)%lad.IndexEvery == 0 && lad.Index != nil {
			lad.Index[c] = append(lad.Index[c], slices.Clone(lad.Trips[c].At))
		}
	}
	if lad.Power {
		k.pw.setLevels(st, lad.Betas, levels)
		if it >= st.Burn {
			k.addEvidence(it - st.Burn)
		}
	}
	if !warm {
		lad.Rounds++
	}
	return nil
}

// swapRows exchanges the states of rows a and b, at inverse temperatures
// ba and bb: positions, and the energies and gradients rescaled from the
// level they were evaluated at to the level they move to.
func (k *exactKernel) swapRows(a, b int, ba, bb float64, d int) {
	st := k.st
	if k.power != nil {
		k.pw.swap(a, b, d)
	}
	ta, tb := row(st.Theta, a, d), row(st.Theta, b, d)
	ga, gb := row(st.Grad, a, d), row(st.Grad, b, d)
	for i := range ta {
		ta[i], tb[i] = tb[i], ta[i]
		ga[i], gb[i] = gb[i]*ba/bb, ga[i]*bb/ba
	}
	st.Energy[a], st.Energy[b] = st.Energy[b]*ba/bb, st.Energy[a]*bb/ba
}

// tuneLadder ends a tuning round at warm-up iteration it, if one ends
// there: the levels move to equal rejection (see the top of this file).
func (k *exactKernel) tuneLadder(it int) {
	lad := k.es.Ladder
	if !lad.Tuning.Due(it, k.x.Warmup/2) {
		return
	}
	rejection := lad.Tuning.Next()
	barrier := sum(rejection)
	coord := exchange.LogCoordinate
	if lad.Power {
		coord = exchange.PowerCoordinate
	}
	if want := min(maxAutoLevels, int(math.Ceil(2*barrier))+1); k.x.AutoLevels && want > k.levels {
		k.grow(exchange.EqualRejection(lad.Betas, rejection, want, coord))
	} else {
		k.moveLevels(exchange.EqualRejection(lad.Betas, rejection, k.levels, coord))
	}
	lad = k.es.Ladder // grow made a new one
	if lad.Power {
		// moveLevels and grow rescale as the temperature path's levels
		// scale; the power path's are evaluated afresh.
		k.parallel(func(r int) error {
			u, err := k.chains[r].evaluate(row(k.st.Theta, r, k.st.Dim), row(k.st.Grad, r, k.st.Dim))
			k.st.Energy[r] = u
			return err
		})
		if err := k.firstError(); err != nil && k.adaptError == nil {
			k.adaptError = fmt.Errorf("re-evaluating the levels moved: %w", err)
		}
	}
}

// moveLevels sets the ladder's inverse temperatures to betas, rescaling
// every row's energy and gradient to its level's new temperature.
func (k *exactKernel) moveLevels(betas []float64) {
	lad := k.es.Ladder
	d := k.st.Dim
	for r, ch := range k.chains {
		old, now := lad.Betas[r%k.levels], betas[r%k.levels]
		k.st.Energy[r] *= now / old
		for i, g := range row(k.st.Grad, r, d) {
			row(k.st.Grad, r, d)[i] = g * now / old
		}
		ch.beta = now
	}
	lad.Betas = betas
}

// grow makes every chain's ladder len(betas) levels at betas (more than
// it has), each new level a copy of the old level nearest it in log β:
// its state, with the energy and gradient rescaled, its step size, metric
// and adaptation. The old levels' rows keep their streams and integrators
// in order; the added rows get streams of their own.
func (k *exactKernel) grow(betas []float64) {
	st, es, lad, d := k.st, k.es, k.es.Ladder, k.st.Dim
	old, levels := k.levels, len(betas)
	rows := st.Chains * levels
	source := make([]int, levels) // the old level each new one copies
	coord := exchange.LogCoordinate
	if lad.Power {
		coord = exchange.PowerCoordinate
	}
	for j, b := range betas {
		best := math.Inf(1)
		for i, a := range lad.Betas {
			if dist := math.Abs(coord.To(b) - coord.To(a)); dist < best {
				best, source[j] = dist, i
			}
		}
	}
	theta, grad, energy, variance := make([]float64, rows*d), make([]float64, rows*d), make([]float64, rows), make([]float64, rows)
	stepSize, inv, dual, windows := make([]float64, rows), make([][]float64, rows), make([]DualAverage, rows), make([]WindowEstimate, rows)
	last, totals := make([]Transition, rows), make([]TransitionTotals, rows)
	var chol [][]float64
	if es.Dense {
		chol = make([][]float64, rows)
	}
	rngs, chains := make([]*Rand, rows), make([]*chainIntegrator, rows)
	for c := range st.Chains {
		for j := range levels {
			r, from := c*levels+j, c*old+source[j]
			scale := betas[j] / lad.Betas[source[j]]
			copy(row(theta, r, d), row(st.Theta, from, d))
			for i, g := range row(st.Grad, from, d) {
				row(grad, r, d)[i] = g * scale
			}
			energy[r], variance[r] = st.Energy[from]*scale, st.Variance[from]
			stepSize[r], inv[r], dual[r], windows[r] = es.StepSize[from], slices.Clone(es.InvMetric[from]), es.Dual[from], es.Windows[from].clone()
			last[r], totals[r] = es.Last[from], es.Totals[from]
			if chol != nil {
				chol[r] = slices.Clone(es.Chol[from])
			}
			if j < old {
				rngs[r], chains[r] = k.rngs[c*old+j], k.chains[c*old+j]
			} else {
				rngs[r] = k.rowRand(c, j)
				ch, err := k.newIntegrator(rngs[r])
				if err != nil {
					k.adaptError = fmt.Errorf("adding levels to the ladder: %w", err)
					return
				}
				chains[r] = ch
			}
			chains[r].beta = betas[j]
		}
	}
	st.Theta, st.Grad, st.Energy, st.Variance, st.Levels = theta, grad, energy, variance, levels
	st.Streams = make([]uint64, rows+len(k.swapRngs))
	es.StepSize, es.InvMetric, es.Dual, es.Windows, es.Last, es.Totals, es.Chol = stepSize, inv, dual, windows, last, totals, chol
	k.rngs, k.chains, k.levels, k.err = rngs, chains, levels, make([]error, rows)
	if k.workers > 1 { // a target whose evaluators may run side by side
		k.workers = min(rows, max(1, cmp.Or(k.o.Threads, runtime.GOMAXPROCS(0))))
	}
	fresh := newExactLadder(levels, st.Chains, 2, k.x.Path)
	fresh.Betas, fresh.Tuning = betas, lad.Tuning
	es.Ladder = fresh
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// ladderReport is chain c's ladder in the form of the stochastic-gradient
// samplers' ExchangeReport.
func (k *exactKernel) ladderReport(c int) ExchangeReport {
	lad := k.es.Ladder
	r := ExchangeReport{Scheme: "deo", Window: 1, Rounds: lad.Rounds, Attempts: append([]int(nil), lad.Attempts[c]...),
		Accepts: append([]int(nil), lad.Accepts[c]...), Acceptance: make([]float64, len(lad.AcceptSum[c])),
		RoundTrips: lad.Trips[c].Count, MeanRoundTripTime: lad.Trips[c].MeanTime(), Ladder: make([]Level, k.levels), IndexEvery: max(1, lad.IndexEvery)}
	if lad.Index != nil {
		r.Index = lad.Index[c]
	}
	for p, s := range lad.AcceptSum[c] {
		if lad.Rounds > 0 {
			r.Acceptance[p] = s / float64(lad.Rounds)
		}
	}
	for l := range r.Ladder {
		r.Ladder[l] = k.level(c, l, 0)
	}
	return r
}

// ladderWarnings say when a ladder was too short for its barrier or its
// replicas did not travel it.
func (k *exactKernel) ladderWarnings() []string {
	var w []string
	var barrier float64
	trips := 0
	for c := range k.st.Chains {
		rep := k.ladderReport(c)
		barrier += rep.Barrier() / float64(k.st.Chains)
		trips += rep.RoundTrips
	}
	if need := int(math.Ceil(2*barrier)) + 1; need > k.levels {
		w = append(w, fmt.Sprintf("the ladder's communication barrier Λ is %.1f, which %d levels cross with every swap rejected more than half the time: about 2Λ + 1 = %d levels (replicas = %d) would carry the replicas between the target and the hottest level faster", barrier, k.levels, need, need))
	}
	switch {
	case trips < 2*k.st.Chains && k.power != nil:
		w = append(w, fmt.Sprintf("the ladders made %d round trips between the posterior and the prior after the warm-up, too few for log Z or the modes' masses to be read: run more iterations", trips))
	case trips < 2*k.st.Chains:
		w = append(w, fmt.Sprintf("the ladders made %d round trips between the target and the hottest level (T = %.3g) after the warm-up, too few for the modes' masses to be read: run more iterations, or raise t_max if the hottest level does not cross the posterior's barriers", trips, 1/k.es.Ladder.Betas[k.levels-1]))
	}
	w = append(w, exchange.Warnings(k.evidence())...)
	return w
}

// ladderProgress adds the ladders' swaps to a progress report: after the
// warm-up the swap rate, round trips and barrier of the sampling so far;
// in it, the barrier of the tuning round under way (or the last one's).
func (k *exactKernel) ladderProgress(p *Progress) {
	lad := k.es.Ladder
	if k.st.Done <= k.x.Warmup {
		p.Barrier, _ = lad.Tuning.Barrier()
		return
	}
	attempts, accepts := 0, 0
	for c := range k.st.Chains {
		rep := k.ladderReport(c)
		tried, took := 0, 0
		for i := range rep.Attempts {
			tried += rep.Attempts[i]
			took += rep.Accepts[i]
		}
		attempts, accepts = attempts+tried, accepts+took
		if c < len(p.PerChain) {
			p.PerChain[c].SwapRate, p.PerChain[c].RoundTrips = float64(took)/float64(tried), rep.RoundTrips
		}
		p.RoundTrips += rep.RoundTrips
		p.Barrier += rep.Barrier() / float64(k.st.Chains)
	}
	if attempts > 0 {
		p.SwapRate = float64(accepts) / float64(attempts)
	}
}
