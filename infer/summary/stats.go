package summary

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Stats summarizes the posterior draws of one scalar quantity.
type Stats struct {
	Name string
	// Mean and SD are the mean and standard deviation (divisor N − 1) of
	// all draws.
	Mean, SD float64
	// MCSE is the Monte Carlo standard error of Mean (see MCSEMean).
	MCSE float64
	// Q5, Q50 and Q95 are the 5%, 50% and 95% quantiles of all draws,
	// Hyndman and Fan's definition 7 (R's default).
	Q5, Q50, Q95 float64
	// ESSBulk, ESSTail and Rhat are the diagnostics of the functions of the
	// same names.
	ESSBulk, ESSTail, Rhat float64
}

// Summarize computes the Stats of the draws chains[m][i] of one quantity:
// the figures of ESSBulk, ESSTail, SplitRhat and MCSEMean, computed once
// each, where calling
// the four functions would sort five times and rank-normalise the same
// draws twice; a 4 × 60,000-draw run's summaries took most of the time
// after its sampling. It sorts three times: the draws, and the split
// draws and their folded values with their places.
func Summarize(name string, chains [][]float64) Stats {
	pool := sortedPool(chains)
	mean, variance := meanVar(pool)
	st := Stats{
		Name: name,
		Mean: mean,
		SD:   math.Sqrt(variance),
		MCSE: MCSEMean(chains),
		Q5:   quantile7(pool, 0.05),
		Q50:  quantile7(pool, 0.5),
		Q95:  quantile7(pool, 0.95),
	}
	x := equalize(chains)
	if degenerate(x) {
		st.ESSBulk, st.ESSTail, st.Rhat = math.NaN(), math.NaN(), math.NaN()
		return st
	}
	xpool := pool
	if len(x)*len(x[0]) != len(pool) { // chains cut to the shortest
		xpool = sortedPool(x)
	}
	split := splitChains(x)
	z := normalScores(split, float64(countDraws(split)))
	st.ESSBulk = ess(z)
	st.ESSTail = math.Min(ess(splitChains(indicator(x, quantile7(xpool, 0.05)))), ess(splitChains(indicator(x, quantile7(xpool, 0.95)))))
	st.Rhat = math.NaN()
	if len(x[0]) >= 4 {
		folded := splitChains(fold(x, quantile7(xpool, 0.5)))
		st.Rhat = math.Max(classicRhat(z), classicRhat(normalScores(folded, float64(countDraws(folded)))))
	}
	return st
}

// MCSEMean is the Monte Carlo standard error of the posterior mean,
// sd/sqrt(ESS_mean), where ESS_mean is the effective sample size of the
// untransformed split chains: the error of a mean depends on the
// autocorrelation of the draws themselves, not of their ranks. It is NaN
// where the ESS is (see the package documentation).
func MCSEMean(chains [][]float64) float64 {
	x := equalize(chains)
	if x == nil {
		return math.NaN()
	}
	_, variance := meanVar(sortedPool(x))
	return math.Sqrt(variance / essMean(x))
}

// SummarizeWeighted is Summarize for weighted draws, such as the cycle
// weights of cyclical SG-MCMC: weights[m][i] is the weight of chains[m][i],
// and need not be normalized. Mean, SD and the quantiles are weighted:
//
//	mean = Σ wᵢxᵢ / V₁,   SD² = Σ wᵢ(xᵢ − mean)² / (V₁ − V₂/V₁),
//
// with V₁ = Σ wᵢ and V₂ = Σ wᵢ², the unbiased variance for reliability
// weights, and the quantiles as described at weightedQuantile; with equal
// weights all three equal Summarize's. Draws of weight zero count for
// nothing. ESSBulk, ESSTail and Rhat are those of the unweighted draws: they
// judge whether the sampler mixed, which the weights do not change. MCSE
// combines the two sources of error, approximately, as
//
//	MCSE = SD / sqrt(ESS_mean · n_eff / N),   n_eff = V₁²/V₂,
//
// Kish's effective size of a weighted sample scaling the ESS of the draws;
// with equal weights n_eff = N and MCSE equals MCSEMean.
//
// It panics if weights does not have the shape of chains or a weight is
// negative, NaN or infinite, as for mismatched slices in gonum's stat. If
// every weight is zero the weighted statistics are NaN.
func SummarizeWeighted(name string, chains [][]float64, weights [][]float64) Stats {
	draws := weightedPool(chains, weights)
	s := Summarize(name, chains)
	var v1, v2 float64
	for _, d := range draws {
		v1 += d.w
		v2 += d.w * d.w
	}
	if v1 == 0 {
		nan := math.NaN()
		s.Mean, s.SD, s.MCSE, s.Q5, s.Q50, s.Q95 = nan, nan, nan, nan, nan, nan
		return s
	}
	var mean, ss float64
	for _, d := range draws {
		mean += d.w * d.x
	}
	mean /= v1
	for _, d := range draws {
		ss += d.w * (d.x - mean) * (d.x - mean)
	}
	s.Mean = mean
	s.SD = math.Sqrt(ss / (v1 - v2/v1))
	s.Q5 = weightedQuantile(draws, 0.05)
	s.Q50 = weightedQuantile(draws, 0.5)
	s.Q95 = weightedQuantile(draws, 0.95)
	nEff := v1 * v1 / v2
	s.MCSE = s.SD / math.Sqrt(essMean(chains)*nEff/float64(countDraws(chains)))
	return s
}

// weightedPool returns the draws of positive weight sorted by value,
// checking the weights as SummarizeWeighted documents.
func weightedPool(chains, weights [][]float64) []weighted {
	if len(weights) != len(chains) {
		panic(fmt.Sprintf("summary: %d chains of weights for %d chains of draws", len(weights), len(chains)))
	}
	var draws []weighted
	for m, c := range chains {
		if len(weights[m]) != len(c) {
			panic(fmt.Sprintf("summary: chain %d has %d weights for %d draws", m, len(weights[m]), len(c)))
		}
		for i, x := range c {
			w := weights[m][i]
			if !(w >= 0) || math.IsInf(w, 1) {
				panic(fmt.Sprintf("summary: weight %v of chain %d, draw %d is not finite and non-negative", w, m, i))
			}
			if w > 0 {
				draws = append(draws, weighted{x, w})
			}
		}
	}
	slices.SortFunc(draws, func(a, b weighted) int { return cmp.Compare(a.x, b.x) })
	return draws
}

// countDraws is the number of draws in all chains.
func countDraws(chains [][]float64) int {
	n := 0
	for _, c := range chains {
		n += len(c)
	}
	return n
}
