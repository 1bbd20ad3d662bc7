package stdlib

import (
	"math"
	"math/rand/v2"
)

// The generators of vector variates (the multivariate normals, the
// Dirichlet), and LKJCorrCholeskyDraw, whose variate's shape is set by the
// value of an argument and so has no row in the table.

func init() {
	registerRNG(RNG{Name: "multi_normal_diag", Args: []string{"mu", "sigma"}, Rank: []int{1, 1}, OutRank: 1,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			mu, sigma := a[0], a[1]
			if !allFiniteRow(mu) || !allFiniteRow(sigma) {
				return false
			}
			for k := range out {
				if !(sigma[k] > 0) {
					return false
				}
				out[k] = mu[k] + sigma[k]*r.NormFloat64()
			}
			return true
		}})
	// L's upper triangle is ignored, as by multi_normal_cholesky_lpdf, which
	// also asks for a positive diagonal.
	registerRNG(RNG{Name: "multi_normal_cholesky", Args: []string{"mu", "L"}, Rank: []int{1, 2}, OutRank: 1,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			mu, l := a[0], a[1]
			if !allFiniteRow(mu) || !isCholeskyFactor(l, len(mu)) {
				return false
			}
			choleskyNormalDraw(r, mu, l, out)
			return true
		}})
	registerRNG(RNG{Name: "multi_normal", Args: []string{"mu", "Sigma"}, Rank: []int{1, 2}, OutRank: 1,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			mu := a[0]
			if !allFiniteRow(mu) || !allFiniteRow(a[1]) {
				return false
			}
			l, err := cholesky(len(mu), a[1])
			if err != nil {
				return false
			}
			choleskyNormalDraw(r, mu, l, out)
			return true
		}})
	// Normalised gammas, normalised in logs (logGammaDraw) so that small
	// concentrations, whose gammas underflow, still give a simplex.
	registerRNG(RNG{Name: "dirichlet", Args: []string{"alpha"}, Rank: []int{1}, OutRank: 1,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			alpha := a[0]
			m := math.Inf(-1)
			for k, v := range alpha {
				if !(v > 0) || math.IsInf(v, 1) {
					return false
				}
				out[k] = logGammaDraw(r, v)
				m = max(m, out[k])
			}
			if math.IsInf(m, -1) { // every gamma underflowed even in logs (denormal α)
				return false
			}
			total := 0.0
			for k := range out {
				out[k] = math.Exp(out[k] - m)
				total += out[k]
			}
			for k := range out {
				out[k] /= total
			}
			return true
		}})
}

// choleskyNormalDraw sets out = μ + Lz for z standard normal, reading L's
// lower triangle (K×K row-major, K = len(mu)). z is drawn into out and
// overwritten from the last row up, each row reading only the z above it.
func choleskyNormalDraw(r *rand.Rand, mu, l, out []float64) {
	k := len(mu)
	for i := range out {
		out[i] = r.NormFloat64()
	}
	for i := k - 1; i >= 0; i-- {
		s := mu[i]
		for j := 0; j <= i; j++ {
			s += l[i*k+j] * out[j]
		}
		out[i] = s
	}
}

// isCholeskyFactor reports whether the lower triangle of l (k×k) is finite
// with a positive diagonal.
func isCholeskyFactor(l []float64, k int) bool {
	for i := range k {
		if !allFiniteRow(l[i*k:][:i]) || !(l[i*k+i] > 0) || math.IsInf(l[i*k+i], 1) {
			return false
		}
	}
	return true
}

// LKJCorrCholeskyDraw sets out (K×K, row-major) to the Cholesky factor of a
// K×K correlation matrix drawn from LKJ(η), the density ∝ det(Ω)^(η-1) of
// Stan's lkj_corr_cholesky, by the onion method (Lewandowski, Kurowicka &
// Joe 2009, section 3.2) in its Cholesky form: row i (from 0) is √y·u
// followed by √(1-y), with y ~ beta(i/2, η + (K-1-i)/2) and u uniform on
// the unit sphere in R^i, so each row has unit norm. It reports false
// unless K ≥ 1, η > 0 is finite and len(out) = K².
//
// It has no row in the RNG table: Stan's lkj_corr_cholesky_rng(K, eta)
// returns a variate whose shape is the value of K, not the shape of an
// argument, which RNG's OutRank cannot say; the compiler lowers that
// function onto this one, with K a constant.
func LKJCorrCholeskyDraw(r *rand.Rand, K int, eta float64, out []float64) bool {
	if K < 1 || !(eta > 0) || math.IsInf(eta, 1) || len(out) != K*K {
		return false
	}
	clear(out)
	out[0] = 1
	for i := 1; i < K; i++ {
		logY, log1mY := betaLogDraw(r, float64(i)/2, eta+float64(K-1-i)/2)
		row := out[i*K:][:i]
		norm := 0.0
		for j := range row {
			row[j] = r.NormFloat64()
			norm += row[j] * row[j]
		}
		scale := math.Exp(logY/2) / math.Sqrt(norm)
		for j := range row {
			row[j] *= scale
		}
		out[i*K+i] = math.Exp(log1mY / 2)
	}
	return true
}
