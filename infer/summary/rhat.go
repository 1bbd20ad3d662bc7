package summary

import "math"

// SplitRhat is the rank-normalized split-R̂ of Vehtari et al. (2021,
// Section 4.2): the larger of the split-R̂ of the rank-normalized draws
// (bulk R̂, sensitive to chains that disagree in location) and the split-R̂
// of the rank-normalized folded draws |x − median| (tail R̂, sensitive to
// chains that disagree in scale). Values above 1.01 suggest the chains have
// not mixed. It is NaN for degenerate draws or chains of fewer than 4 draws
// (see the package documentation).
func SplitRhat(chains [][]float64) float64 {
	x := equalize(chains)
	if degenerate(x) || len(x[0]) < 4 {
		return math.NaN()
	}
	bulk := classicRhat(rankNormalize(splitChains(x)))
	tail := classicRhat(rankNormalize(splitChains(fold(x, quantile7(sortedPool(x), 0.5)))))
	return math.Max(bulk, tail)
}

// classicRhat is the potential scale reduction factor of Gelman and Rubin
// (1992) as written in Vehtari et al. (2021), Eqs. 1-4, for M ≥ 2 chains of
// n ≥ 2 draws:
//
//	B = n/(M−1) Σ_m (x̄_m − x̄)²,   W = (1/M) Σ_m s²_m,
//	var⁺ = (n−1)/n W + B/n,        R̂ = sqrt(var⁺ / W),
//
// with s²_m the unbiased variance of chain m. Applied to split chains it is
// the classic split-R̂.
func classicRhat(chains [][]float64) float64 {
	n := float64(len(chains[0]))
	means := make([]float64, len(chains))
	var w float64
	for m, c := range chains {
		var v float64
		means[m], v = meanVar(c)
		w += v
	}
	w /= float64(len(chains))
	_, varMeans := meanVar(means)
	b := n * varMeans
	return math.Sqrt(((n-1)/n*w + b/n) / w)
}

// meanVar returns the mean and the unbiased (n − 1) variance of x; both are
// NaN for no draws and the variance is NaN for one.
func meanVar(x []float64) (mean, variance float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	for _, v := range x {
		d := v - mean
		variance += d * d
	}
	return mean, variance / (n - 1)
}
