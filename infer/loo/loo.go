// Package loo estimates a model's expected log predictive density for new
// data from its posterior draws: Pareto-smoothed importance-sampling
// leave-one-out cross-validation (PSIS-LOO; Vehtari, Gelman & Gabry 2017,
// "Practical Bayesian model evaluation using leave-one-out cross-validation
// and WAIC", Statistics and Computing 27) and WAIC (Watanabe 2010), from
// the S × N matrix of pointwise log-likelihoods log p(y_i | θ_s).
//
// The computation follows R's loo package (version 2.5), which a test
// checks it against to 1e-6: the raw ratios 1/p(y_i | θ_s), their largest
// M = ⌈min(S/5, 3√(S/r_eff))⌉ replaced by the expected order statistics of
// a generalised Pareto fitted by Zhang & Stephens (2009) with loo's weakly
// informative prior on k, truncated at the largest raw ratio. The k̂
// threshold above which an observation's estimate is unreliable is
// min(1 - 1/log₁₀ S, 0.7) (Vehtari, Simpson, Gelman, Yao & Gabry 2024,
// "Pareto smoothed importance sampling", JMLR 25).
package loo

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Result is PSIS-LOO and WAIC of a log-likelihood matrix.
type Result struct {
	S, N int
	// ELPD is Σ_i elpd_loo,i; PLoo = Σ lpd_i - ELPD the effective number of
	// parameters; LooIC = -2 ELPD; each with its standard error √(N·var_i).
	ELPD, ELPDSE, PLoo, PLooSE, LooIC, LooICSE float64
	// WAIC's, from the same matrix.
	ELPDWAIC, ELPDWAICSE, PWAIC, PWAICSE, WAIC, WAICSE float64
	// Pointwise holds each observation's terms.
	Pointwise []Point
	// KThreshold is the k̂ above which an observation's PSIS estimate is
	// unreliable for this S.
	KThreshold float64
}

// Point is one observation's terms.
type Point struct {
	ELPD, PLoo, LPD, K, REff float64
}

// HighK are the observations (from 0) whose k̂ exceeds the threshold.
func (r *Result) HighK() []int {
	var out []int
	for i, p := range r.Pointwise {
		if !(p.K <= r.KThreshold) {
			out = append(out, i)
		}
	}
	return out
}

// Compute is PSIS-LOO and WAIC of the log-likelihood matrix logLik
// (logLik[s][i] = log p(y_i | θ_s), S draws × N observations), with each
// observation's relative efficiency rEff[i] = ESS/S of its ratios (nil:
// 1, as for independent draws).
func Compute(logLik [][]float64, rEff []float64) (*Result, error) {
	s := len(logLik)
	if s < 2 {
		return nil, errors.New("loo needs at least two draws")
	}
	n := len(logLik[0])
	if n == 0 {
		return nil, errors.New("loo needs at least one observation")
	}
	for _, row := range logLik {
		if len(row) != n {
			return nil, fmt.Errorf("the log-likelihood matrix is ragged: rows of %d and %d", n, len(row))
		}
	}
	if rEff != nil && len(rEff) != n {
		return nil, fmt.Errorf("%d relative efficiencies for %d observations", len(rEff), n)
	}
	r := &Result{S: s, N: n, Pointwise: make([]Point, n), KThreshold: min(1-1/math.Log10(float64(s)), 0.7)}
	col, lr := make([]float64, s), make([]float64, s)
	var elpd, ploo, elpdW, pW []float64
	for i := range n {
		for d := range s {
			col[d] = logLik[d][i]
			if math.IsNaN(col[d]) || math.IsInf(col[d], 1) {
				return nil, fmt.Errorf("observation %d: log-likelihood %v in draw %d", i+1, col[d], d+1)
			}
			lr[d] = -col[d]
		}
		re := 1.0
		if rEff != nil {
			re = rEff[i]
		}
		lw, k := PSIS(lr, re)
		norm := logSumExp(lw)
		terms := make([]float64, s)
		for d := range s {
			terms[d] = lw[d] - norm + col[d]
		}
		p := Point{ELPD: logSumExp(terms), LPD: logSumExp(col) - math.Log(float64(s)), K: k, REff: re}
		p.PLoo = p.LPD - p.ELPD
		r.Pointwise[i] = p
		elpd, ploo = append(elpd, p.ELPD), append(ploo, p.PLoo)
		v := stat.Variance(col, nil)
		elpdW, pW = append(elpdW, p.LPD-v), append(pW, v)
	}
	r.ELPD, r.ELPDSE = Total(elpd)
	r.PLoo, r.PLooSE = Total(ploo)
	r.LooIC, r.LooICSE = -2*r.ELPD, 2*r.ELPDSE
	r.ELPDWAIC, r.ELPDWAICSE = Total(elpdW)
	r.PWAIC, r.PWAICSE = Total(pW)
	r.WAIC, r.WAICSE = -2*r.ELPDWAIC, 2*r.ELPDWAICSE
	return r, nil
}

// PSIS smooths the log importance ratios of one observation: it returns
// the log weights (unnormalised, on the ratios' scale) and the Pareto
// shape k̂ of their tail (+Inf when the tail is too short or flat to fit).
func PSIS(logRatios []float64, rEff float64) ([]float64, float64) {
	s := len(logRatios)
	top := slices.Max(logRatios)
	lw := make([]float64, s)
	for d, v := range logRatios {
		lw[d] = v - top // for safer exponentiation
	}
	tail := int(math.Ceil(min(0.2*float64(s), 3*math.Sqrt(float64(s)/rEff))))
	k := math.Inf(1)
	if tail >= 5 && tail < s {
		order := make([]int, s)
		for d := range order {
			order[d] = d
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case lw[a] < lw[b]:
				return -1
			case lw[a] > lw[b]:
				return 1
			}
			return 0
		})
		ids := order[s-tail:]
		xs := make([]float64, tail)
		for j, d := range ids {
			xs[j] = lw[d]
		}
		if xs[tail-1]-xs[0] >= flatTail { // else the tail is flat, and k̂ is left +Inf as loo leaves it
			cutoff := lw[order[s-tail-1]]
			smoothed, kk := smoothTail(xs, cutoff)
			k = kk
			for j, d := range ids {
				lw[d] = smoothed[j]
			}
		}
	}
	for d := range lw {
		lw[d] = min(lw[d], 0) + top // truncated at the largest raw ratio
	}
	return lw, k
}

// flatTail is loo's bound below which a tail's span is too flat to fit:
// .Machine$double.eps / 100.
const flatTail = 2.220446049250313e-16 / 100

// smoothTail replaces the sorted log ratios x above the cutoff by the
// log of a generalised Pareto's expected order statistics, fitted to
// e^x - e^cutoff.
func smoothTail(x []float64, cutoff float64) ([]float64, float64) {
	n := len(x)
	ec := math.Exp(cutoff)
	y := make([]float64, n)
	for j, v := range x {
		y[j] = math.Exp(v) - ec
	}
	k, sigma := gpdFit(y)
	if math.IsInf(k, 0) || math.IsNaN(k) {
		return x, k
	}
	out := make([]float64, n)
	for j := range n {
		p := (float64(j) + 0.5) / float64(n)
		out[j] = math.Log(qgpd(p, k, sigma) + ec)
	}
	return out, k
}

// gpdFit is Zhang & Stephens's (2009) estimate of a generalised Pareto's
// shape k and scale σ from the sorted sample x > 0, with loo's weakly
// informative prior: the profile likelihood averaged over a grid of
// θ = -k/σ (30 + ⌊√n⌋ points), and k shrunk toward 0.5 as
// (n k + 10·0.5)/(n + 10).
func gpdFit(x []float64) (k, sigma float64) {
	n := len(x)
	const prior = 3
	m := 30 + int(math.Floor(math.Sqrt(float64(n))))
	xstar := x[int(math.Floor(float64(n)/4+0.5))-1] // the first quartile
	theta := make([]float64, m)
	logLik := make([]float64, m)
	for j := range m {
		theta[j] = 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j+1)-0.5)))/prior/xstar
		a := -theta[j]
		kj := 0.0
		for _, v := range x {
			kj += math.Log1p(a * v)
		}
		kj /= float64(n)
		logLik[j] = float64(n) * (math.Log(a/kj) - kj - 1)
	}
	norm := logSumExp(logLik)
	thetaHat := 0.0
	for j := range m {
		thetaHat += theta[j] * math.Exp(logLik[j]-norm)
	}
	for _, v := range x {
		k += math.Log1p(-thetaHat * v)
	}
	k /= float64(n)
	sigma = -k / thetaHat
	k = (k*float64(n) + 0.5*10) / (float64(n) + 10)
	if math.IsNaN(k) {
		k = math.Inf(1)
	}
	return k, sigma
}

// qgpd is the generalised Pareto's p-quantile.
func qgpd(p, k, sigma float64) float64 {
	if math.IsNaN(sigma) || sigma <= 0 {
		return math.NaN()
	}
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

func logSumExp(x []float64) float64 {
	top := slices.Max(x)
	if math.IsInf(top, -1) {
		return top
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - top)
	}
	return top + math.Log(s)
}

// Total is Σ x and its standard error √(n·var(x)), the sum of n
// pointwise terms and its error (loo's estimates and loo_compare's
// differences).
func Total(x []float64) (float64, float64) {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s, math.Sqrt(float64(len(x)) * stat.Variance(x, nil))
}

// Weights are one observation's normalised PSIS weights, from its draws'
// log-likelihoods logLik (the ratios' reciprocals) and relative
// efficiency: the weights of the leave-one-out posterior's expectations
// (LOO-PIT, the predictive's moments).
func Weights(logLik []float64, rEff float64) []float64 {
	lr := make([]float64, len(logLik))
	for d, v := range logLik {
		lr[d] = -v
	}
	lw, _ := PSIS(lr, rEff)
	norm := logSumExp(lw)
	for d := range lw {
		lw[d] = math.Exp(lw[d] - norm)
	}
	return lw
}
