package exchange

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// The log marginal likelihood log Z = log ∫ p(θ) p(y | θ) dθ from a ladder
// on the power-posterior path p_β(θ) ∝ p(θ) p(y | θ)^β, β from 0 (the
// prior, normalised: Z_0 = 1) to 1 (the posterior, Z_1 = Z). Two
// estimators read the same draws of the likelihood energy U₁ = -log p(y | θ)
// at every level:
//
//   - Stepping stones (Xie, Lewis, Fan, Kuo & Chen 2011, Syst. Biol. 60,
//     Eq. 11): Z_{β_p}/Z_{β_{p+1}} = E_{β_{p+1}}[e^{-(β_p - β_{p+1}) U₁}],
//     so log Z = Σ_p log mean_{θ ~ p_{β_{p+1}}} e^{-(β_p - β_{p+1}) U₁(θ)},
//     each ratio's mean unbiased; this is log_z.
//   - Thermodynamic integration (Friel & Pettitt 2008, JRSS-B 70, Eq. 5):
//     d log Z_β / dβ = -E_β[U₁], so log Z = -∫_0^1 E_β[U₁] dβ, here by the
//     trapezoid rule over the levels. Its discretisation error is bounded:
//     the integrand -E_β[U₁] rises with β (its derivative is Var_β[U₁]),
//     so each span's integral lies between the span's left and right
//     Riemann sums, and the trapezoid is within half their difference,
//     LogZTIBound. A tuned ladder's few levels leave that bound wide where
//     the likelihood switches on (near β = 0): thermodynamic integration is
//     a check, and the stepping stones, which have no discretisation error,
//     are log Z. (The variance correction of Friel, Hurn & Wyse 2014 was
//     tried and overcorrects on such ladders: the integrand's curvature
//     near the prior is not resolved by its levels.)
//
// On stochastic-gradient ladders U₁ is a minibatch estimate Ũ₁ with
// variance σ² (the evaluator's estimate); for Gaussian noise
// E[e^{-Δβ Ũ₁}] = e^{-Δβ U₁ + Δβ²σ²/2}, so each ratio of the stepping
// stones is corrected by -Δβ²σ̄²/2: the correction seed 000 makes to its
// swap (Eq. 15, the same energy variance), with σ̄² the level's mean of
// the minibatches' estimates. Each draw's own σ̂² (from the B rows of its
// minibatch) would not do: e^{-Δβ²σ̂²/2} is convex in σ̂², so a noisy σ̂²
// raises the mean of the corrected terms (Jensen), and σ̂² grows with the
// minibatch's Ũ₁: on the normal mean of examples/evidence (20 rows,
// batches of 5, 16 levels) the draws' own σ̂² put log Z 1.3 nats high.
//
// Standard errors are batch means: each chain's draws after the warm-up
// are cut into blocks of BlockLength iterations, each block (of each
// chain) gives its own estimate, and the error of the pooled estimate is
// their standard deviation over √(blocks) (Flegal & Jones 2010 for
// batch means; the blocks must be long against the level's
// autocorrelation, which the ladders' round trips keep short).

// blocks is the number of blocks each chain's draws are cut into.
const blocks = 10

// Evidence is what a power-path ladder's draws say of log Z.
type Evidence struct {
	// LogZ is the stepping-stone estimate and LogZSE its standard error;
	// LogZTI and LogZTISE thermodynamic integration's, and LogZTIBound
	// the bound on its discretisation error.
	LogZ, LogZSE, LogZTI, LogZTISE, LogZTIBound float64
	// Noise is the largest correction Δβ²σ̄²/2 a stepping stone took for
	// its minibatch energies (0 on full data): the Gaussian correction is
	// exact for Gaussian noise, and the minibatch sums of skewed per-row
	// terms are close to Gaussian only while it is small.
	Noise float64
	// Levels is the ladder's size, Draws the draws a level contributed.
	Levels, Draws int
}

// String is the summary's line.
func (e Evidence) String() string {
	return fmt.Sprintf("log Z = %.3f ± %.3f (stepping stones over the %d levels of the power path from the prior; thermodynamic integration %.3f ± %.3f, its discretisation within ± %.3g)", e.LogZ, e.LogZSE, e.Levels, e.LogZTI, e.LogZTISE, e.LogZTIBound)
}

// Sums accumulates, for every chain and block, what the two
// estimators need at each level l: the stepping stone's Σ e^{w} with
// w = -(β_{l-1} - β_l) Ũ₁, kept as a log-sum-exp (Max, Sum), Σ Ũ₁ and
// Σ σ̂². It is part of a run's State, so a resumed run's log Z is the
// uninterrupted run's.
type Sums struct {
	Betas       []float64
	BlockLength int
	// Blocks[chain][block] holds the block's sums.
	Blocks [][]Block
}

// Block is one block's sums.
type Block struct {
	N        int
	Max, Sum []float64 // per level: log Σ e^w = Max + log Sum (level 0 unused)
	Lik      []float64 // per level: Σ Ũ₁
	Var      []float64 // per level: Σ σ̂², the minibatch energies' variances
}

// NewSums starts the sums of a ladder at betas (decreasing from 1
// to 0) for chains chains whose sampling lasts iters iterations.
func NewSums(betas []float64, chains, iters int) *Sums {
	return &Sums{Betas: append([]float64(nil), betas...), BlockLength: max(1, iters/blocks), Blocks: make([][]Block, chains)}
}

// Add records chain c's draws at sampling iteration i (from 0): lik[l] is
// Ũ₁ at level l and variance[l] its minibatch variance (0 when exact).
func (s *Sums) Add(c, i int, lik, variance []float64) {
	b := i / s.BlockLength
	for len(s.Blocks[c]) <= b {
		n := len(s.Betas)
		blk := Block{Max: make([]float64, n), Sum: make([]float64, n), Lik: make([]float64, n), Var: make([]float64, n)}
		for l := range blk.Max {
			blk.Max[l] = math.Inf(-1)
		}
		s.Blocks[c] = append(s.Blocks[c], blk)
	}
	blk := &s.Blocks[c][b]
	blk.N++
	for l := range s.Betas {
		blk.Lik[l] += lik[l]
		blk.Var[l] += variance[l]
		if l == 0 {
			continue
		}
		d := s.Betas[l-1] - s.Betas[l]
		w := -d * lik[l]
		switch {
		case math.IsInf(w, -1): // a draw where the likelihood is 0 adds nothing
		case math.IsNaN(w):
			blk.Max[l] = math.NaN()
		case w > blk.Max[l]:
			blk.Sum[l] = blk.Sum[l]*math.Exp(blk.Max[l]-w) + 1
			blk.Max[l] = w
		default:
			blk.Sum[l] += math.Exp(w - blk.Max[l])
		}
	}
}

// estimate is the stepping-stone and trapezoid estimates from the blocks
// given.
func (s *Sums) estimate(blocks []*Block) (ss, ti, bound, noise float64) {
	n := len(s.Betas)
	count := 0
	for _, b := range blocks {
		count += b.N
	}
	mean, variance := make([]float64, n), make([]float64, n)
	for l := range n {
		for _, b := range blocks {
			mean[l] += b.Lik[l] / float64(count)
			variance[l] += b.Var[l] / float64(count)
		}
	}
	for l := 1; l < n; l++ {
		top := math.Inf(-1)
		for _, b := range blocks {
			top = max(top, b.Max[l])
			if math.IsNaN(b.Max[l]) {
				top = math.NaN()
			}
		}
		sum := 0.0
		for _, b := range blocks {
			if b.Sum[l] > 0 {
				sum += b.Sum[l] * math.Exp(b.Max[l]-top)
			}
		}
		d := s.Betas[l-1] - s.Betas[l]
		ss += top + math.Log(sum/float64(count)) - d*d*variance[l]/2
		noise = max(noise, d*d*variance[l]/2)
		ti -= d * (mean[l-1] + mean[l]) / 2
		bound += d * math.Abs(mean[l]-mean[l-1]) / 2
	}
	return ss, ti, bound, noise
}

// Estimate pools every chain's blocks for the estimates and takes their
// standard errors from the spread of the full blocks' own estimates. It
// reports false before any draw.
func (s *Sums) Estimate() (Evidence, bool) {
	var all, full []*Block
	for c := range s.Blocks {
		for b := range s.Blocks[c] {
			blk := &s.Blocks[c][b]
			all = append(all, blk)
			if blk.N == s.BlockLength {
				full = append(full, blk)
			}
		}
	}
	if len(all) == 0 {
		return Evidence{}, false
	}
	e := Evidence{Levels: len(s.Betas)}
	for _, b := range all {
		e.Draws += b.N
	}
	e.Draws /= len(s.Blocks)
	e.LogZ, e.LogZTI, e.LogZTIBound, e.Noise = s.estimate(all)
	e.LogZSE, e.LogZTISE = math.NaN(), math.NaN()
	if len(full) >= 2 {
		ss, ti := make([]float64, len(full)), make([]float64, len(full))
		for i, b := range full {
			ss[i], ti[i], _, _ = s.estimate([]*Block{b})
		}
		e.LogZSE = stat.StdDev(ss, nil) / math.Sqrt(float64(len(full)))
		e.LogZTISE = stat.StdDev(ti, nil) / math.Sqrt(float64(len(full)))
	}
	return e, true
}

// NoiseLimit is the largest stepping-stone correction Δβ²σ̄²/2
// trusted without a warning. On the normal mean of examples/evidence (20
// rows; resgld, seed 1), the largest correction and the error of log Z
// were: batches of 10 on 32 levels 0.10, +0.003; on 16 levels 0.40,
// +0.03; batches of 5 on 32 levels 0.32, -0.17; on 16 levels 1.3, -0.88
// (the per-row terms are χ²-like, and sums of a few of them skewed, so
// the Gaussian correction overshoots as it grows).
const NoiseLimit = 0.25

// Warnings say when a ladder's log Z should not be trusted.
func Warnings(e *Evidence) []string {
	if e == nil {
		return nil
	}
	var w []string
	switch {
	case !(e.LogZSE < 0.5):
		w = append(w, fmt.Sprintf("log Z = %.3f has a standard error of %.3g: run more iterations, or more replicas", e.LogZ, e.LogZSE))
	case e.Noise > NoiseLimit:
		w = append(w, fmt.Sprintf("log Z = %.3f rests on minibatch energies too noisy for the stepping stones' Gaussian correction (Δβ²σ²/2 up to %.2g, above %g): use a larger batch or more replicas; thermodynamic integration's %.3f ± %.3f (within ± %.2g of discretisation) is unbiased by the noise", e.LogZ, e.Noise, NoiseLimit, e.LogZTI, e.LogZTISE, e.LogZTIBound))
	case math.Abs(e.LogZ-e.LogZTI) > e.LogZTIBound+3*math.Hypot(e.LogZSE, e.LogZTISE):
		// Both estimate the same integral; thermodynamic integration can
		// only miss by its discretisation and its Monte Carlo error, so a
		// larger gap says the draws of some level are not its law's.
		w = append(w, fmt.Sprintf("the stepping stones' log Z %.3f and thermodynamic integration's %.3f differ by more than the latter's discretisation bound %.3g and their standard errors: some level's draws are not its law's; run more iterations", e.LogZ, e.LogZTI, e.LogZTIBound))
	}
	return w
}
