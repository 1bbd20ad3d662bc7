package stdlib

import (
	"fmt"
	"math"
)

// The matrix types keep their free values in the row-major order of the
// lower triangle: strictly below the diagonal for the correlation types
// ((2,1), (3,1), (3,2), ...), diagonal included for the covariance types
// ((1,1), (2,1), (2,2), ...), as Stan reads them.

// strictIndex is the position of (i, j), i > j, among the strictly lower
// entries in row-major order (0-based).
func strictIndex(i, j int) int { return i*(i-1)/2 + j }

// lowerIndex is the position of (i, j), i ≥ j, among the lower entries,
// diagonal included, in row-major order (0-based).
func lowerIndex(i, j int) int { return i*(i+1)/2 + j }

// logCosh is log(cosh(u)) without overflow: |u| + log1p(e^{-2|u|}) - log 2.
func logCosh(u float64) float64 {
	a := math.Abs(u)
	return a + math.Log1p(math.Exp(-2*a)) - math.Ln2
}

// choleskyCorrTransform is Stan's transform for Cholesky factors of
// correlation matrices (Reference Manual, "Cholesky factors of correlation
// matrices"): K(K-1)/2 reals, z = tanh(u) the canonical partial
// correlations, and row i of L broken like a stick on the squared scale:
// L_ij = z_ij·sqrt(1 - Σ_{j'<j} L_ij'²) below the diagonal,
// L_ii = sqrt(1 - Σ_{j<i} L_ij²). As 1 - Σ_{j'<j} L_ij'² = Π_{j'<j} (1 - z_ij'²)
// and 1 - tanh² = 1/cosh², L_ij = tanh(u_ij)·exp(-a_ij) with
// a_ij = Σ_{j'<j} log cosh u_ij', which has no cancellation. The
// log-Jacobian of the strictly lower entries is
// Σ_{i>j} log(1 - z_ij²) + ½ log(1 - Σ_{j'<j} L_ij'²) = Σ_{i>j} -2 lc_ij - a_ij,
// which gathers to -Σ_{i>j} (i - j + 1)·log cosh u_ij (0-based i, j).
type choleskyCorrTransform struct{}

func (choleskyCorrTransform) free(k int) int { return k * (k - 1) / 2 }

func (choleskyCorrTransform) value(k int, u, x []float64) {
	clear(x)
	for i := range k {
		a := 0.0
		for j := range i {
			v := u[strictIndex(i, j)]
			x[i*k+j] = math.Tanh(v) * math.Exp(-a)
			a += logCosh(v)
		}
		x[i*k+i] = math.Exp(-a)
	}
}

// valueGrad: ∂L_ij/∂u_ij = (1 - tanh² u_ij)·exp(-a_ij), and every later
// entry of the row, diagonal included, depends on u_ij through exp(-a):
// ∂L_im/∂u_ij = -tanh(u_ij)·L_im for j < m ≤ i.
func (choleskyCorrTransform) valueGrad(k int, u, x, xBar, uBar []float64) {
	a := make([]float64, k) // a_ij of the row: dividing L_ij by tanh fails at u = 0
	for i := 1; i < k; i++ {
		for j := 1; j < i; j++ {
			a[j] = a[j-1] + logCosh(u[strictIndex(i, j-1)])
		}
		tail := xBar[i*k+i] * x[i*k+i] // Σ over later entries of x̄·L
		for j := i - 1; j >= 0; j-- {
			p := strictIndex(i, j)
			t := math.Tanh(u[p])
			uBar[p] += xBar[i*k+j]*(1-t*t)*math.Exp(-a[j]) - t*tail
			tail += xBar[i*k+j] * x[i*k+j]
		}
	}
}

func (choleskyCorrTransform) logJacobian(k int, u []float64) float64 {
	s := 0.0
	for i := 1; i < k; i++ {
		for j := range i {
			s -= float64(i-j+1) * logCosh(u[strictIndex(i, j)])
		}
	}
	return s
}

func (choleskyCorrTransform) logJacobianGrad(k int, u []float64, g float64, uBar []float64) {
	for i := 1; i < k; i++ {
		for j := range i {
			p := strictIndex(i, j)
			uBar[p] -= g * float64(i-j+1) * math.Tanh(u[p])
		}
	}
}

// matrixTol is the slack of the checks of matrix values: unit diagonals,
// unit rows, symmetry and zeros above the diagonal, relative to the
// entries' scale where they have one: Stan's CONSTRAINT_TOLERANCE.
const matrixTol = simplexTol

func (choleskyCorrTransform) inverse(k int, x []float64) ([]float64, error) {
	if err := lowerTriangular(k, x); err != nil {
		return nil, err
	}
	u := make([]float64, k*(k-1)/2)
	for i := range k {
		rest := 1.0 // 1 - Σ_{j'<j} L_ij'²
		for j := range i {
			z := x[i*k+j] / math.Sqrt(rest)
			if !(math.Abs(z) < 1) {
				return nil, fmt.Errorf("row %d: entry [%d, %d] = %v leaves no room for the diagonal: the row's length must be 1", i+1, i+1, j+1, x[i*k+j])
			}
			u[strictIndex(i, j)] = math.Atanh(z)
			rest -= x[i*k+j] * x[i*k+j]
		}
		d := x[i*k+i]
		if !(d > 0) {
			return nil, fmt.Errorf("diagonal entry [%d, %d] is %v; it must be positive", i+1, i+1, d)
		}
		if math.Abs(d*d-rest) > matrixTol {
			return nil, fmt.Errorf("row %d has length %.10g, not 1", i+1, math.Sqrt(1-rest+d*d))
		}
	}
	return u, nil
}

// lowerTriangular checks that the entries above the diagonal are zero.
func lowerTriangular(k int, x []float64) error {
	for i := range k {
		for j := i + 1; j < k; j++ {
			if x[i*k+j] != 0 {
				return fmt.Errorf("entry [%d, %d] above the diagonal is %v, not 0", i+1, j+1, x[i*k+j])
			}
		}
	}
	return nil
}

// choleskyCovTransform is Stan's transform for Cholesky factors of
// covariance matrices (Reference Manual, "Cholesky factors of covariance
// matrices"), square: K(K+1)/2 reals fill the lower triangle, the diagonal
// through exp. The log-Jacobian is Σ_k u_kk.
type choleskyCovTransform struct{}

func (choleskyCovTransform) free(k int) int { return k * (k + 1) / 2 }

func (choleskyCovTransform) value(k int, u, x []float64) {
	clear(x)
	for i := range k {
		for j := range i {
			x[i*k+j] = u[lowerIndex(i, j)]
		}
		x[i*k+i] = math.Exp(u[lowerIndex(i, i)])
	}
}

func (choleskyCovTransform) valueGrad(k int, u, x, xBar, uBar []float64) {
	for i := range k {
		for j := range i {
			uBar[lowerIndex(i, j)] += xBar[i*k+j]
		}
		uBar[lowerIndex(i, i)] += xBar[i*k+i] * x[i*k+i]
	}
}

func (choleskyCovTransform) logJacobian(k int, u []float64) float64 {
	s := 0.0
	for i := range k {
		s += u[lowerIndex(i, i)]
	}
	return s
}

func (choleskyCovTransform) logJacobianGrad(k int, _ []float64, g float64, uBar []float64) {
	for i := range k {
		uBar[lowerIndex(i, i)] += g
	}
}

func (choleskyCovTransform) inverse(k int, x []float64) ([]float64, error) {
	if err := lowerTriangular(k, x); err != nil {
		return nil, err
	}
	u := make([]float64, k*(k+1)/2)
	for i := range k {
		for j := range i {
			u[lowerIndex(i, j)] = x[i*k+j]
		}
		if d := x[i*k+i]; !(d > 0) {
			return nil, fmt.Errorf("diagonal entry [%d, %d] is %v; it must be positive", i+1, i+1, d)
		}
		u[lowerIndex(i, i)] = math.Log(x[i*k+i])
	}
	return u, nil
}

// corrMatrixTransform is Stan's correlation matrix transform (Reference
// Manual, "Correlation matrices"): Ω = L Lᵀ with L the Cholesky factor of
// choleskyCorrTransform. The map from the strictly lower entries of L to
// those of Ω is triangular in row-major order with diagonal
// ∂Ω_ij/∂L_ij = L_jj, so the log-Jacobian adds Σ_j (K-1-j)·log L_jj =
// -Σ_j (K-1-j)·a_jj to the factor's; gathered, it is
// -Σ_{i>j} (K - j)·log cosh u_ij (0-based j), the manual's
// ½ Σ (K-i-1) log(1 - z²) + Σ log(1 - z²) in its upper-triangular indexing.
type corrMatrixTransform struct{ factorProduct }

func (corrMatrixTransform) logJacobian(k int, u []float64) float64 {
	s := 0.0
	for i := 1; i < k; i++ {
		for j := range i {
			s -= float64(k-j) * logCosh(u[strictIndex(i, j)])
		}
	}
	return s
}

func (corrMatrixTransform) logJacobianGrad(k int, u []float64, g float64, uBar []float64) {
	for i := 1; i < k; i++ {
		for j := range i {
			p := strictIndex(i, j)
			uBar[p] -= g * float64(k-j) * math.Tanh(u[p])
		}
	}
}

func (corrMatrixTransform) inverse(k int, x []float64) ([]float64, error) {
	for i := range k {
		if d := x[i*k+i]; math.Abs(d-1) > matrixTol {
			return nil, fmt.Errorf("diagonal entry [%d, %d] is %v, not 1", i+1, i+1, d)
		}
	}
	l, err := cholesky(k, x)
	if err != nil {
		return nil, err
	}
	for i := range k { // unit rows exactly, after the rounding of the factorisation
		r := 0.0
		for j := 0; j <= i; j++ {
			r += l[i*k+j] * l[i*k+j]
		}
		for j := 0; j <= i; j++ {
			l[i*k+j] /= math.Sqrt(r)
		}
	}
	return choleskyCorrTransform{}.inverse(k, l)
}

// covMatrixTransform is Stan's covariance matrix transform (Reference
// Manual, "Covariance matrices"): Σ = L Lᵀ with L the Cholesky factor of
// choleskyCovTransform, K + K(K-1)/2 reals. The log-Jacobian of the lower
// triangle of Σ is K log 2 + Σ_k (K - k + 1)·u_kk (0-based k), the
// manual's 2^K Π_k z_kk^{K-k+2} in 1-based k.
type covMatrixTransform struct{ factorProduct }

// factorProduct is the value X = L Lᵀ of a matrix type built on the
// Cholesky factor transform f, and its gradient; the types add their own
// log-Jacobians and inverses.
type factorProduct struct{ f transform }

func (t factorProduct) free(k int) int { return t.f.free(k) }

func (t factorProduct) value(k int, u, x []float64) {
	l := make([]float64, k*k)
	t.f.value(k, u, l)
	selfOuter(k, l, x)
}

func (t factorProduct) valueGrad(k int, u, _, xBar, uBar []float64) {
	l := make([]float64, k*k)
	t.f.value(k, u, l)
	t.f.valueGrad(k, u, l, selfOuterGrad(k, l, xBar), uBar)
}

func (covMatrixTransform) logJacobian(k int, u []float64) float64 {
	s := float64(k) * math.Ln2
	for i := range k {
		s += float64(k-i+1) * u[lowerIndex(i, i)]
	}
	return s
}

func (covMatrixTransform) logJacobianGrad(k int, _ []float64, g float64, uBar []float64) {
	for i := range k {
		uBar[lowerIndex(i, i)] += g * float64(k-i+1)
	}
}

func (covMatrixTransform) inverse(k int, x []float64) ([]float64, error) {
	l, err := cholesky(k, x)
	if err != nil {
		return nil, err
	}
	return choleskyCovTransform{}.inverse(k, l)
}

// selfOuter sets x = L Lᵀ for a lower-triangular K×K L.
func selfOuter(k int, l, x []float64) {
	for i := range k {
		for j := 0; j <= i; j++ {
			s := 0.0
			for m := 0; m <= j; m++ {
				s += l[i*k+m] * l[j*k+m]
			}
			x[i*k+j], x[j*k+i] = s, s
		}
	}
}

// selfOuterGrad is L̄ = (X̄ + X̄ᵀ) L, the adjoint of L in X = L Lᵀ, on the
// lower triangle (the entries above it are not free).
func selfOuterGrad(k int, l, xBar []float64) []float64 {
	lBar := make([]float64, k*k)
	for i := range k {
		for m := 0; m <= i; m++ {
			s := 0.0
			for j := m; j < k; j++ {
				s += (xBar[i*k+j] + xBar[j*k+i]) * l[j*k+m]
			}
			lBar[i*k+m] = s
		}
	}
	return lBar
}

// cholesky factors a symmetric positive definite K×K matrix as L Lᵀ, L
// lower triangular with a positive diagonal, or says why it cannot.
func cholesky(k int, x []float64) ([]float64, error) {
	for i := range k {
		for j := range i {
			a, b := x[i*k+j], x[j*k+i]
			if math.Abs(a-b) > matrixTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) {
				return nil, fmt.Errorf("entry [%d, %d] is %v but entry [%d, %d] is %v: it must be symmetric", i+1, j+1, a, j+1, i+1, b)
			}
		}
	}
	l := make([]float64, k*k)
	for j := range k {
		d := x[j*k+j]
		for m := range j {
			d -= l[j*k+m] * l[j*k+m]
		}
		if !(d > 0) {
			return nil, fmt.Errorf("its leading %d×%d block is not positive definite", j+1, j+1)
		}
		l[j*k+j] = math.Sqrt(d)
		for i := j + 1; i < k; i++ {
			s := x[i*k+j]
			for m := range j {
				s -= l[i*k+m] * l[j*k+m]
			}
			l[i*k+j] = s / l[j*k+j]
		}
	}
	return l, nil
}
