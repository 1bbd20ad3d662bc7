package loo

import (
	"errors"
	"fmt"
	"math"
)

// Subsampled PSIS-LOO for large data (Magnusson, Andersen, Jonasson &
// Vehtari 2019, "Bayesian leave-one-out cross-validation for large data",
// ICML, Section 3): the exact elpd_loo,i of a simple random sample of m of
// the N observations, and a cheap approximation π̃_i of every one (here
// log p(y_i | θ̂) at a point estimate θ̂), combined by the difference
// estimator
//
//	elpd = Σ_i π̃_i + N ē,  ē the mean of e_j = elpd_loo,j - π̃_j,
//
// unbiased for any approximation, whose subsampling variance
// N²(1 - m/N) s_e²/m is small when the approximation is good (Eq. 7-8).
// The usual standard error of elpd_loo, √(N σ²) for the pointwise terms'
// population variance σ², is estimated from the same sample: Σ elpd_i²
// by Σ π̃_i² + N·mean(elpd_j² - π̃_j²) (Eq. 9).

// Subsampled is the difference estimator's elpd_loo.
type Subsampled struct {
	N, M int
	// ELPD is the estimate, ELPDSE its usual standard error (the spread of
	// the pointwise terms), SubsamplingSE the error the subsample adds.
	ELPD, ELPDSE, SubsamplingSE float64
	// Sample holds the sampled observations' exact terms.
	Sample *Result
	// Rows are the sampled observations (from 0), in Sample's order.
	Rows []int
}

// Subsample estimates elpd_loo from approx (π̃_i for every observation),
// the sampled rows, and their log-likelihood matrix logLik (S × m, the
// columns in rows' order) with their relative efficiencies.
func Subsample(approx []float64, rows []int, logLik [][]float64, rEff []float64) (*Subsampled, error) {
	n, m := len(approx), len(rows)
	switch {
	case m < 2:
		return nil, errors.New("subsampled LOO needs at least two sampled observations")
	case m > n:
		return nil, fmt.Errorf("%d sampled observations of %d", m, n)
	}
	r, err := Compute(logLik, rEff)
	if err != nil {
		return nil, err
	}
	if r.N != m {
		return nil, fmt.Errorf("a log-likelihood matrix of %d observations for %d sampled rows", r.N, m)
	}
	var sumApprox, sumApprox2 float64
	for _, a := range approx {
		sumApprox += a
		sumApprox2 += a * a
	}
	e := make([]float64, m)
	var meanE, meanSq float64
	for j, row := range rows {
		if row < 0 || row >= n {
			return nil, fmt.Errorf("sampled row %d of %d", row, n)
		}
		elpd := r.Pointwise[j].ELPD
		e[j] = elpd - approx[row]
		meanE += e[j] / float64(m)
		meanSq += (elpd*elpd - approx[row]*approx[row]) / float64(m)
	}
	varE := 0.0
	for _, v := range e {
		varE += (v - meanE) * (v - meanE) / float64(m-1)
	}
	nf := float64(n)
	s := &Subsampled{N: n, M: m, Sample: r, Rows: rows}
	s.ELPD = sumApprox + nf*meanE
	s.SubsamplingSE = math.Sqrt(nf * nf * (1 - float64(m)/nf) * varE / float64(m))
	sumSq := sumApprox2 + nf*meanSq
	sigma2 := (sumSq - s.ELPD*s.ELPD/nf) / (nf - 1)
	s.ELPDSE = math.Sqrt(nf * math.Max(0, sigma2))
	return s, nil
}
