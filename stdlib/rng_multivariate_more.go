package stdlib

import (
	"math"
	"math/rand/v2"
)

// The generators of multivariate_more.go's distributions: the multivariate
// Student-t as a normal scaled by √(ν/χ²_ν), the multinomial by sequential
// binomials, the Wishart by Bartlett's decomposition and the inverse
// Wishart as the inverse of a Wishart draw.

func init() {
	registerRNG(RNG{Name: "multi_student_t", Args: []string{"nu", "mu", "Sigma"}, Rank: []int{0, 1, 2}, OutRank: 1,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			mu := a[1]
			if !allFiniteRow(a[2]) {
				return false
			}
			l, err := cholesky(len(mu), a[2])
			return err == nil && studentTDraw(r, a[0][0], mu, l, out)
		}})
	registerRNG(RNG{Name: "multi_student_t_cholesky", Args: []string{"nu", "mu", "L"}, Rank: []int{0, 1, 2}, OutRank: 1,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			return isCholeskyFactor(a[2], len(a[1])) && studentTDraw(r, a[0][0], a[1], a[2], out)
		}})
	registerRNG(RNG{Name: "multinomial", Args: []string{"theta", "N"}, Int: []bool{false, true}, Rank: []int{1, 0}, OutRank: 1, IntOut: true,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			return isSimplex(a[0]) && multinomialDraw(r, a[0], a[1][0], out)
		}})
	registerRNG(RNG{Name: "multinomial_logit", Args: []string{"gamma", "N"}, Int: []bool{false, true}, Rank: []int{1, 0}, OutRank: 1, IntOut: true,
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			gamma := a[0]
			if len(gamma) == 0 || !allFiniteRow(gamma) {
				return false
			}
			m, ls := rowShiftedLogSum(gamma)
			theta := make([]float64, len(gamma))
			for k, v := range gamma {
				theta[k] = math.Exp((v - m) - ls)
			}
			return multinomialDraw(r, theta, a[1][0], out)
		}})
	for _, inverse := range []bool{false, true} {
		for _, factor := range []bool{false, true} {
			op := wishartOp{inverse: inverse, cholesky: factor}
			registerRNG(RNG{Name: op.Name(), Args: op.args()[1:], Rank: []int{0, 2}, OutRank: 2,
				Draw: func(r *rand.Rand, a [][]float64, out []float64) bool { return wishartDraw(r, op, a[0][0], a[1], out) }})
		}
	}
}

// studentTDraw sets out = μ + √(ν/X) L z, z standard normal and X ~ χ²(ν)
// (twice a gamma(ν/2) variate, drawn in logs so that a tiny ν does not
// divide by an underflowed 0): a draw of the multivariate Student-t with
// scale matrix L Lᵀ. It reports false unless ν > 0 and μ are finite.
func studentTDraw(r *rand.Rand, nu float64, mu, l, out []float64) bool {
	if !(nu > 0) || math.IsInf(nu, 1) || !allFiniteRow(mu) {
		return false
	}
	choleskyNormalDraw(r, make([]float64, len(mu)), l, out)
	s := math.Exp(0.5 * (math.Log(nu) - math.Ln2 - logGammaDraw(r, nu/2)))
	for i := range out {
		out[i] = mu[i] + s*out[i]
	}
	return true
}

// multinomialDraw sets out to counts of n draws from the simplex theta:
// count k is binomial(n - Σ_{j<k} count_j, θ_k / Σ_{j≥k} θ_j), with the
// tail sums added from the end so that none is a difference that rounding
// could leave below θ_k. It reports false unless n is a count binomialDraw
// takes.
func multinomialDraw(r *rand.Rand, theta []float64, n float64, out []float64) bool {
	if !(n >= 0 && n <= maxTrials) {
		return false
	}
	k := len(theta)
	tail := make([]float64, k+1)
	for i := k - 1; i >= 0; i-- {
		tail[i] = tail[i+1] + theta[i]
	}
	for i := range out {
		switch {
		case n == 0 || tail[i] == 0:
			out[i] = 0
		case i == k-1 || tail[i+1] == 0:
			out[i] = n
		default:
			p := min(1, theta[i]/tail[i])
			out[i] = binomialDraw(r, n, p, min(1, tail[i+1]/tail[i]))
		}
		n -= out[i]
	}
	return true
}

// wishartDraw sets out (K×K, row-major) to a draw of op's distribution:
// the Wishart with ν degrees of freedom and scale Σ = L Lᵀ, the inverse
// Wishart, or (op.cholesky, the scale given by its factor L) the Cholesky
// factor of such a draw. Bartlett's decomposition: with A lower
// triangular, A_ii = √χ²(ν - i) (i from 0) and A_ij standard normal below
// the diagonal, A Aᵀ is Wishart(ν, I), and M A Aᵀ Mᵀ is Wishart(ν, M Mᵀ)
// for any M. The Wishart draw is (LA)(LA)ᵀ, LA its Cholesky factor; with
// M = L⁻ᵀ, whose M Mᵀ is Σ⁻¹, the inverse of the Wishart(ν, Σ⁻¹) draw is
// (L A⁻ᵀ)(L A⁻ᵀ)ᵀ, an inverse Wishart(ν, Σ) draw that never inverts Σ.
// It reports false unless Σ is symmetric positive definite and finite (L
// a lower triangle with a positive diagonal), and ν > K - 1 is finite.
func wishartDraw(r *rand.Rand, op wishartOp, nu float64, scale, out []float64) bool {
	k := int(math.Round(math.Sqrt(float64(len(scale)))))
	if !(nu > float64(k-1)) || math.IsInf(nu, 1) {
		return false
	}
	l := scale // only its lower triangle is read
	if !op.cholesky {
		var err error
		if !allFiniteRow(scale) {
			return false
		}
		if l, err = cholesky(k, scale); err != nil {
			return false
		}
	} else if !isCholeskyFactor(scale, k) {
		return false
	}
	a := make([]float64, k*k)
	for i := range k {
		for j := range i {
			a[i*k+j] = r.NormFloat64()
		}
		a[i*k+i] = math.Exp(0.5 * (math.Ln2 + logGammaDraw(r, (nu-float64(i))/2)))
	}
	c := make([]float64, k*k) // LA, or L A⁻ᵀ
	if !op.inverse {
		for i := range k {
			for j := 0; j <= i; j++ {
				s := 0.0
				for m := j; m <= i; m++ {
					s += l[i*k+m] * a[m*k+j]
				}
				c[i*k+j] = s
			}
		}
		if op.cholesky {
			copy(out, c)
		} else {
			selfOuter(k, c, out)
		}
		return true
	}
	ainv, col := make([]float64, k*k), make([]float64, k)
	for j := range k { // column j of A⁻¹
		clear(col)
		col[j] = 1
		lowerSolve(col, a, k)
		for m := range k {
			ainv[m*k+j] = col[m]
		}
	}
	for i := range k { // (L A⁻ᵀ)_ij = Σ_m L_im (A⁻¹)_jm, both lower triangular
		for j := range k {
			s := 0.0
			for m := 0; m <= min(i, j); m++ {
				s += l[i*k+m] * ainv[j*k+m]
			}
			c[i*k+j] = s
		}
	}
	for i := range k {
		for j := 0; j <= i; j++ {
			s := 0.0
			for m := range k {
				s += c[i*k+m] * c[j*k+m]
			}
			out[i*k+j], out[j*k+i] = s, s
		}
	}
	if op.cholesky { // the inverse Wishart draw's factor
		f, err := cholesky(k, out)
		if err != nil {
			return false
		}
		copy(out, f)
	}
	return true
}

// LKJCorrDraw sets out (K×K, row-major) to a K×K correlation matrix drawn
// from LKJ(η), Stan's lkj_corr: L Lᵀ for L drawn by LKJCorrCholeskyDraw,
// its diagonal set to exactly 1 (each row of L has unit norm to rounding).
// It reports false where LKJCorrCholeskyDraw does.
func LKJCorrDraw(r *rand.Rand, K int, eta float64, out []float64) bool {
	l := make([]float64, len(out))
	if !LKJCorrCholeskyDraw(r, K, eta, l) {
		return false
	}
	selfOuter(K, l, out)
	for i := range K {
		out[i*K+i] = 1
	}
	return true
}
