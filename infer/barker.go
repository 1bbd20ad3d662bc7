package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Barker is the noise-aware logistic exchange test of RENHD (seed 001,
// Algorithm 1 and Eq. 17). Levels j = p and k = p+1 swap when
//
//	z_C + z_N + ΔẼ > 0,   ΔẼ = [Ũ(θ_j) - Ũ(θ_k)] [1/T_j - 1/T_k]   (Eq. 7),
//
// with z_C drawn from the compensation distribution q̂_C (compensation.go)
// and z_N ~ N(0, σ*² - var[ΔẼ]), which in expectation over the minibatch
// noise is Barker's test: swap with probability 1/(1 + e^{-ΔE}).
//
// The energies are not the dynamics' minibatch energies: each exchange
// round the driver evaluates every replica on an exchange minibatch of
// Batch rows, and adds further chunks of Batch fresh rows (sampled
// without replacement, so the estimate becomes exact once all rows are
// used) until every pair it will test has var[ΔẼ] = δ²(var Ũ_j + var Ũ_k)
// < σ*² (Algorithm 1, lines 2-4). The variances are the target's own
// minibatch estimates with the finite-population correction of the grown
// batch, plus the variance of any injected energy noise averaged over the
// chunks. Each replica gets its own rows, so the two estimates of a pair are
// independent and var[ΔẼ] is the sum above; sharing the rows would lower
// the variance of the difference but needs per-row energies that a Target
// does not report.
type Barker struct {
	Compensation *Compensation
	// Batch is |S|_ex, the rows of one chunk of the exchange minibatch
	// (0: the run's minibatch; ignored without data).
	Batch int
}

// maxExchangeChunks bounds the growth of the exchange minibatch of a target
// without data, where each chunk is one more evaluation of the exact energy
// with fresh injected noise: past it the round fails with a clear error.
const maxExchangeChunks = 4096

func (b *Barker) Name() string { return "barker" }

func (b *Barker) Start(int, *TestState) ExchangeTest { return barkerTest{b.Compensation} }

type barkerTest struct{ comp *Compensation }

// pairDelta is δ = 1/T_p - 1/T_{p+1}, the inverse-temperature gap of a pair.
func pairDelta(x *Pair) float64 { return 1/x.Levels[0].Temperature - 1/x.Levels[1].Temperature }

// decide reports Barker's probability g(ΔẼ) as the pair's probability, the
// acceptance the test has in expectation, or the compensation's error for
// a pair it cannot judge: var[ΔẼ] ≥ σ*² (the driver grows the exchange
// minibatch until it is below for the rows the test reads) or a NaN ΔẼ
// (an energy that is not finite on the exchange minibatch's rows).
func (t barkerTest) decide(x *Pair, rng *rand.Rand) (bool, float64, error) {
	delta := pairDelta(x)
	dE := delta * (x.Energy[0] - x.Energy[1])
	v := delta * delta * (x.Variance[0] + x.Variance[1])
	swap, err := t.comp.Accept(dE, v, rng)
	return swap, 1 / (1 + math.Exp(-dE)), err
}

// Decide is decide for a caller that takes no error: a pair the test cannot
// judge does not swap, with probability NaN. The driver calls decide and
// stops the run at its error.
func (t barkerTest) Decide(x *Pair, rng *rand.Rand) (bool, float64) {
	swap, prob, err := t.decide(x, rng)
	if err != nil {
		return false, math.NaN()
	}
	return swap, prob
}

func (barkerTest) Adapt([]float64, float64) {}

// sideEstimator evaluates every replica's energy on minibatches of its own,
// apart from the dynamics' ones: the second estimator of m-reSGLD (one
// chunk an iteration, whose gradients move the hot levels) and the growing
// exchange minibatch of the Barker test.
type sideEstimator struct {
	target    Target
	eval      Evaluator
	full      Evaluator // every row, made when a round first needs it (see grow)
	n, batch  int       // data rows N, rows per chunk (0: the exact energy)
	noise     float64   // sd of the injected energy noise
	gradNoise float64   // sd of the injected gradient noise, where the gradients are used
	rngs      []*rand.Rand
	perms     [][]int // per replica: a partial shuffle restarted each round (in the State)
	rows      []int
	e, v, g   []float64 // one chunk's evaluation
	sumE      []float64
	sumV      []float64
	sumNoise  []float64 // the injected noise in sumE
	chunks    int
	// Energy and Variance are the current estimates: the mean over the
	// round's chunks and its variance.
	Energy, Variance []float64
}

// newSideEstimator prepares a side estimator whose dealer's state is
// *state, made afresh (streams (o.Seed, stream + replica) of PCG) if nil.
func newSideEstimator(target Target, o Options, replicas, batch int, stream uint64, state **SideState) (*sideEstimator, error) {
	n := target.NumData()
	if n == 0 || batch <= 0 || batch >= n {
		batch = 0
	}
	eval, err := target.Evaluator(replicas, batch)
	if err != nil {
		return nil, err
	}
	se := &sideEstimator{target: target, eval: eval, n: n, batch: batch, noise: o.EnergyNoise,
		e: make([]float64, replicas), v: make([]float64, replicas), g: make([]float64, replicas*target.Dim()),
		sumE: make([]float64, replicas), sumV: make([]float64, replicas), sumNoise: make([]float64, replicas),
		Energy: make([]float64, replicas), Variance: make([]float64, replicas)}
	if *state == nil {
		ss := &SideState{Rngs: make([]*rand.PCG, replicas)}
		for r := range ss.Rngs {
			ss.Rngs[r] = rand.NewPCG(o.Seed, stream+uint64(r))
		}
		if batch > 0 {
			ss.Perms = make([][]int, replicas)
			for r := range ss.Perms {
				ss.Perms[r] = identity(n)
			}
		}
		*state = ss
	}
	ss := *state
	if len(ss.Rngs) != replicas || batch > 0 && len(ss.Perms) != replicas {
		return nil, fmt.Errorf("%w: its side estimator has %d streams for %d replicas", ErrBadCheckpoint, len(ss.Rngs), replicas)
	}
	se.rngs = make([]*rand.Rand, replicas)
	for r, pcg := range ss.Rngs {
		se.rngs[r] = rand.New(pcg)
	}
	if batch > 0 {
		se.rows = make([]int, replicas*batch)
		se.perms = ss.Perms
	}
	return se, nil
}

// maxChunks is how many chunks a round may use: every row once (the last
// a pass over every row where B does not divide N, see grow), or
// maxExchangeChunks evaluations of an exact energy.
func (se *sideEstimator) maxChunks() int {
	if se.batch > 0 {
		return (se.n + se.batch - 1) / se.batch
	}
	if se.noise == 0 {
		return 1
	}
	return maxExchangeChunks
}

// start begins a round: the next chunks are drawn afresh.
func (se *sideEstimator) start() {
	clear(se.sumE)
	clear(se.sumV)
	clear(se.sumNoise)
	se.chunks = 0
}

// grow evaluates one more chunk at theta and updates Energy and Variance. A
// round's chunks are disjoint, drawn by continuing a partial Fisher-Yates
// shuffle, so m chunks are a uniform sample of mB rows without replacement;
// its scaled energy has variance N²(1 - mB/N)S²/(mB), which is the mean of
// the chunks' own estimates divided by m and rescaled by (1 - mB/N)/(1 -
// B/N). Injected energy noise adds σ_e²/m.
//
// Where B does not divide N, the round's last chunk would be short: after
// ⌊N/B⌋ chunks it evaluates the exact energy on every row instead, whose
// variance is 0, as the last chunk's is where B divides N. (The rows left
// out of every whole chunk made such a round fail: a training set of
// 10,000 rows with chunks of 256 never reached its target variance.)
func (se *sideEstimator) grow(theta []float64) error {
	m := se.chunks
	if se.batch > 0 && m == se.n/se.batch {
		return se.growExact(theta)
	}
	if se.batch > 0 {
		for r, perm := range se.perms {
			rng := se.rngs[r]
			for i := m * se.batch; i < (m+1)*se.batch; i++ {
				j := i + rng.IntN(se.n-i)
				perm[i], perm[j] = perm[j], perm[i]
			}
			copy(se.rows[r*se.batch:(r+1)*se.batch], perm[m*se.batch:(m+1)*se.batch])
		}
	}
	if err := se.eval.Evaluate(theta, se.rows, se.e, se.g, se.v); err != nil {
		return err
	}
	m++
	se.chunks = m
	fpc := 1.0
	if se.batch > 0 {
		b, n := float64(se.batch), float64(se.n)
		fpc = (1 - float64(m)*b/n) / (1 - b/n)
	}
	d := len(se.g) / len(se.e)
	for r := range se.e {
		e := se.e[r]
		if se.noise > 0 {
			z := se.noise * se.rngs[r].NormFloat64()
			e += z
			se.sumNoise[r] += z
		}
		if se.gradNoise > 0 {
			g := se.g[r*d : (r+1)*d]
			for i := range g {
				g[i] += se.gradNoise * se.rngs[r].NormFloat64()
			}
		}
		se.sumE[r] += e
		se.sumV[r] += se.v[r]
		fm := float64(m)
		se.Energy[r] = se.sumE[r] / fm
		se.Variance[r] = max(0, se.sumV[r]/fm/fm*fpc) + se.noise*se.noise/fm
	}
	return nil
}

// growExact ends a round with the energy on every row. Its injected noise
// is the mean of the round's m evaluations' draws, this one's included, as
// the mean of m chunks carries where B divides N: the estimate is the exact
// energy plus N(0, σ_e²/m), whose variance Variance reports, as Eq. 17 of
// seed 001 needs (z_N ~ N(0, σ*² - var[ΔẼ]) tops the noise up to σ*² only
// if var[ΔẼ] is the estimate's). One draw of σ_e² reported as σ_e²/m
// left var[ΔẼ] m times too small (TestExactChunkNoiseVariance), and
// reporting σ_e² instead would make the round's last evaluation noisier
// than the chunks before it.
func (se *sideEstimator) growExact(theta []float64) error {
	if se.full == nil {
		full, err := se.target.Evaluator(len(se.e), 0)
		if err != nil {
			return err
		}
		se.full = full
	}
	if err := se.full.Evaluate(theta, nil, se.e, se.g, se.v); err != nil {
		return err
	}
	se.chunks++
	fm := float64(se.chunks)
	for r, e := range se.e {
		if se.noise > 0 {
			se.sumNoise[r] += se.noise * se.rngs[r].NormFloat64()
		}
		se.Energy[r] = e + se.sumNoise[r]/fm
		se.Variance[r] = se.noise * se.noise / fm
	}
	return nil
}

// growError explains an exchange minibatch that could not be grown enough.
func growError(se *sideEstimator, sigmaStar2 float64) error {
	what := fmt.Sprintf("%d evaluations of the energy", se.chunks)
	if se.batch > 0 {
		what = fmt.Sprintf("%d chunks of %d rows", se.chunks, se.batch)
	}
	return fmt.Errorf("the Barker exchange test needs var[ΔẼ] < sigma_star2 = %g, still above it after %s; raise sigma_star2, add replicas to narrow the temperature gaps, or lower the energy noise", sigmaStar2, what)
}
