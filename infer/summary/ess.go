package summary

import (
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// ESSBulk is the bulk effective sample size (Vehtari et al. 2021, Section
// 4.3): the ESS of the rank-normalized split chains. It measures how well
// the centre of the distribution is explored and, unlike the plain ESS, is
// defined for distributions without a finite mean or variance. It is NaN for
// degenerate draws or chains of fewer than 12 draws.
func ESSBulk(chains [][]float64) float64 {
	x := equalize(chains)
	if degenerate(x) {
		return math.NaN()
	}
	return ess(rankNormalize(splitChains(x)))
}

// ESSTail is the tail effective sample size (Vehtari et al. 2021, Section
// 4.3): the smaller of the ESS of the split chains of the indicators
// I(x ≤ q₀.₀₅) and I(x ≤ q₀.₉₅), with the quantiles of all draws.
// It measures how well the 5% and 95% quantiles are estimated. It is NaN
// for degenerate draws or chains of fewer than 12 draws.
func ESSTail(chains [][]float64) float64 {
	x := equalize(chains)
	if degenerate(x) {
		return math.NaN()
	}
	pool := sortedPool(x)
	lo := ess(splitChains(indicator(x, quantile7(pool, 0.05))))
	hi := ess(splitChains(indicator(x, quantile7(pool, 0.95))))
	return math.Min(lo, hi)
}

// ESS is the effective sample size of the chains as they are: neither
// split nor rank-normalised (Stan's classic ESS, which loo's relative_eff
// takes of exp(log_lik)); NaN as ess.
func ESS(chains [][]float64) float64 {
	x := equalize(chains)
	if degenerate(x) {
		return math.NaN()
	}
	return ess(x)
}

// essMean is the ESS of the untransformed split chains, the one that
// governs the Monte Carlo error of the mean (posterior's ess_mean).
func essMean(chains [][]float64) float64 {
	x := equalize(chains)
	if degenerate(x) {
		return math.NaN()
	}
	return ess(splitChains(x))
}

// ess is the effective sample size of M chains of n draws each, as in
// Stan and Vehtari et al. (2021), Section 3.2. The multi-chain lag-t
// autocorrelation (Eq. 10, with Stan's normalization of the
// autocovariance) is
//
//	ρ̂_t = 1 − (W − (1/M) Σ_m γ̂_{t,m}) / var⁺,
//
// where γ̂_{t,m} is chain m's lag-t autocovariance with divisor n, W the mean
// unbiased within-chain variance and var⁺ = (n−1)/n W + B/n as in R̂. The
// sum is truncated and smoothed by Geyer's (1992) initial monotone sequence
// (see geyerTau), and ESS = Mn/τ̂. It is NaN for constant draws and for
// fewer than minESSDraws draws per chain.
func ess(chains [][]float64) float64 {
	n := len(chains[0])
	if n < minESSDraws || degenerate(chains) {
		return math.NaN()
	}
	rho := multiChainAutocorrelation(chains)
	total := float64(len(chains) * n)
	return total / geyerTau(rho, total)
}

// multiChainAutocorrelation returns ρ̂_t for t = 0..n−1 (see ess).
func multiChainAutocorrelation(chains [][]float64) []float64 {
	n := len(chains[0])
	m := float64(len(chains))
	meanAcov := make([]float64, n)
	means := make([]float64, len(chains))
	for c, x := range chains {
		var acov []float64
		means[c], acov = autocovariance(x)
		for t, g := range acov {
			meanAcov[t] += g / m
		}
	}
	nf := float64(n)
	w := meanAcov[0] * nf / (nf - 1)
	varPlus := w * (nf - 1) / nf
	if len(chains) > 1 {
		_, varMeans := meanVar(means)
		varPlus += varMeans // B/n
	}
	rho := make([]float64, n)
	for t, g := range meanAcov {
		rho[t] = 1 - (w-g)/varPlus
	}
	return rho
}

// geyerTau is the integrated autocorrelation time τ̂ from ρ̂_t as Stan
// computes it (Vehtari et al. 2021, Section 3.2; Geyer 1992):
//
//   - initial positive sequence: the pair sums P̂_k = ρ̂_{2k} + ρ̂_{2k+1}
//     are summed while they are positive (ρ̂_0 = 1 by definition);
//   - initial monotone sequence: each P̂_k is capped at the one before, as
//     the pair sums of a reversible chain decrease;
//   - τ̂ = −1 + 2 Σ_{k<K} P̂_k + ρ̂_{2K}, where ρ̂_{2K} is the first lag left
//     out, kept if positive: Stan's correction that reduces the variance
//     of the estimate for antithetic chains;
//   - τ̂ ≥ 1/log₁₀(MN), so that ESS ≤ MN log₁₀(MN) however antithetic the
//     chains look.
func geyerTau(rho []float64, total float64) float64 {
	n := len(rho)
	kept := make([]float64, n)
	kept[0], kept[1] = 1, rho[1]
	even, odd := 1.0, rho[1]
	t := 0
	// The last lags rest on a handful of products each; stop 5 short.
	for t < n-5 && even+odd > 0 {
		t += 2
		even, odd = rho[t], rho[t+1]
		if even+odd >= 0 {
			kept[t], kept[t+1] = even, odd
		}
	}
	maxT := t
	if even > 0 {
		kept[maxT] = even
	}
	for t := 2; t <= maxT-2; t += 2 {
		if prev := kept[t-2] + kept[t-1]; kept[t]+kept[t+1] > prev {
			kept[t], kept[t+1] = prev/2, prev/2
		}
	}
	tau := -1.0 + kept[maxT]
	for _, r := range kept[:maxT] {
		tau += 2 * r
	}
	return math.Max(tau, 1/math.Log10(total))
}

// minESSDraws is the shortest (split) chain ess accepts: 6 draws, so that
// Geyer's sequence has at least the pairs at lags 0-1 and 2-3 to work on.
// posterior accepts 3, but below 6 its estimate is τ̂ = 2 whatever the
// draws, an accident of R's 1:0 indexing rather than an estimate.
const minESSDraws = 6

// directAcovMax is the chain length up to which autocovariance sums the
// products directly; beyond it the O(n log n) FFT is faster.
const directAcovMax = 128

// autocovariance returns the mean of x and its autocovariance
//
//	γ̂_t = (1/n) Σ_{i=0}^{n−1−t} (x_i − x̄)(x_{i+t} − x̄),   t = 0..n−1,
//
// with divisor n at every lag (Stan's convention, which keeps the sequence
// positive semi-definite).
func autocovariance(x []float64) (mean float64, acov []float64) {
	n := len(x)
	for _, v := range x {
		mean += v
	}
	mean /= float64(n)
	centred := make([]float64, n)
	for i, v := range x {
		centred[i] = v - mean
	}
	if n <= directAcovMax {
		return mean, directAutocovariance(centred)
	}
	return mean, fftAutocovariance(centred)
}

// directAutocovariance sums the lagged products of centred draws.
func directAutocovariance(y []float64) []float64 {
	n := len(y)
	acov := make([]float64, n)
	for t := range n {
		var s float64
		for i := 0; i+t < n; i++ {
			s += y[i] * y[i+t]
		}
		acov[t] = s / float64(n)
	}
	return acov
}

// fftAutocovariance computes the lagged products of centred draws by the
// Wiener-Khinchin theorem: the inverse transform of the power spectrum is
// the circular autocorrelation, which equals the linear one when the
// sequence is zero-padded to at least 2n.
func fftAutocovariance(y []float64) []float64 {
	n := len(y)
	size := 1
	for size < 2*n {
		size *= 2
	}
	padded := make([]float64, size)
	copy(padded, y)
	fft := fourier.NewFFT(size)
	coef := fft.Coefficients(nil, padded)
	for k, c := range coef {
		coef[k] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	// Sequence is unnormalized: it returns size times the inverse.
	circ := fft.Sequence(nil, coef)
	acov := make([]float64, n)
	for t := range acov {
		acov[t] = circ[t] / float64(size*n)
	}
	return acov
}
