package stdlib

import "math"

// Small dense linear algebra for the multivariate densities, on k × k
// row-major matrices of which only the lower triangle is read.

// symTol is how far Σ_ij and Σ_ji of a covariance matrix may differ, relative
// to the larger of them and 1: Stan's CONSTRAINT_TOLERANCE (1e-8), made
// relative so that a covariance with large entries computed in two orders
// (A Aᵀ) still passes.
const symTol = 1e-8

// lowerSolve overwrites z with L⁻¹z by forward substitution.
func lowerSolve(z, l []float64, k int) {
	for i := range k {
		s := z[i]
		for j := range i {
			s -= l[i*k+j] * z[j]
		}
		z[i] = s / l[i*k+i]
	}
}

// upperSolveT sets w = L⁻ᵀz by back substitution (w and z may not alias).
func upperSolveT(w, z, l []float64, k int) {
	for i := k - 1; i >= 0; i-- {
		s := z[i]
		for j := i + 1; j < k; j++ {
			s -= l[j*k+i] * w[j]
		}
		w[i] = s / l[i*k+i]
	}
}

// choleskyOf sets l to the lower Cholesky factor of the symmetric part
// (S + Sᵀ)/2 of s, zeroing l's upper triangle, and reports false when s has
// an entry that is not finite, is not symmetric to within symTol, or is not
// positive definite (a pivot that is not positive).
func choleskyOf(l, s []float64, k int) bool {
	for i := range k {
		for j := 0; j <= i; j++ {
			a, b := s[i*k+j], s[j*k+i]
			if math.IsInf(a, 0) || math.IsNaN(a) || math.IsInf(b, 0) || math.IsNaN(b) ||
				math.Abs(a-b) > symTol*max(1, math.Abs(a), math.Abs(b)) {
				return false
			}
			sum := 0.5*a + 0.5*b
			for p := range j {
				sum -= l[i*k+p] * l[j*k+p]
			}
			if i == j {
				if !(sum > 0) {
					return false
				}
				l[i*k+i] = math.Sqrt(sum)
			} else {
				l[i*k+j] = sum / l[j*k+j]
			}
		}
		clear(l[i*k+i+1 : (i+1)*k])
	}
	return true
}

// choleskyInverse sets inv = (L Lᵀ)⁻¹ = L⁻ᵀ L⁻¹, one column at a time, with
// z and w scratch vectors of k.
func choleskyInverse(inv, l []float64, k int, z, w []float64) {
	for c := range k {
		clear(z)
		z[c] = 1
		lowerSolve(z, l, k)
		upperSolveT(w, z, l, k)
		for r := range k {
			inv[r*k+c] = w[r]
		}
	}
}

// floats returns n floats from buf (a caller's stack array) when they fit,
// else a new slice: the densities' scratch, free for small k.
func floats(buf []float64, n int) []float64 {
	if n <= len(buf) {
		return buf[:n:n]
	}
	return make([]float64, n)
}
