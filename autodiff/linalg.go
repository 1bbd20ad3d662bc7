package autodiff

import "math"

// Dense linear algebra on small square matrices, for Gaussian processes and
// Stan's matrix functions: the Cholesky factor, the inverse, the
// determinant and its log, and a lower-triangular solve. Each op takes its
// operand as a stack of matrices [..., K, K] (one row's matrix in a plate
// is [B, K, K]) and works on one K × K matrix at a time, row-major. The
// kernels are the textbook O(K³) loops, written here rather than called
// from gonum so that gonum can be the independent reference of the tests;
// they run on the CPU only (a device program names them and refuses, as
// it does every op without a kernel). They are float64 only: the programs
// that need float32 are neural networks, which do not factor matrices.
//
// A matrix outside an op's domain (a Cholesky factor of a matrix that is
// not symmetric positive definite) gives NaN values, with NaN gradients:
// the log density is then NaN, which the samplers treat as a rejected,
// divergent point, as Stan rejects a domain error.

// symmetryTol is how far A_ij and A_ji of a matrix to factor may differ,
// relative to the larger of them and 1: Stan's CONSTRAINT_TOLERANCE
// (1e-8), relative so that covariances with large entries computed in two
// orders still pass.
const symmetryTol = 1e-8

// squareStack checks that x is a stack of square matrices [..., K, K] and
// returns K and the number of matrices.
func squareStack(g *Graph, name string, x *Node) (k, count int, ok bool) {
	s := x.shape
	if len(s) < 2 || s[len(s)-1] != s[len(s)-2] {
		g.fail(nil, "%s takes a square matrix [K, K], and this has shape %v", name, s)
		return 0, 0, false
	}
	k = s[len(s)-1]
	return k, s.Size() / (k * k), true
}

// choleskyOp is the lower Cholesky factor L of A = L Lᵀ.
type choleskyOp struct{ k, count int }

func (op *choleskyOp) Name() string     { return "cholesky_decompose" }
func (op *choleskyOp) SavedLen() int    { return 0 }
func (op *choleskyOp) ScratchLen() int  { return op.k * op.k }
func (op *choleskyOp) matrix(i int) int { return i * op.k * op.k }

// CholeskyDecompose is Stan's cholesky_decompose: the lower-triangular L
// with positive diagonal and L Lᵀ = A, for each matrix of a stack [..., K,
// K]. A must be symmetric to within 1e-8 (relative; the factor is that of
// its symmetric part (A + Aᵀ)/2, so that its gradient is symmetric) and
// positive definite; otherwise the factor is NaN.
func CholeskyDecompose(a *Node) *Node {
	if a == nil {
		return nil
	}
	if a.failed {
		return a.g.placeholder(nil)
	}
	k, count, ok := squareStack(a.g, "cholesky_decompose", a)
	if !ok {
		return a.g.placeholder(nil)
	}
	return a.g.Apply(&choleskyOp{k: k, count: count}, a.shape, a)
}

func (op *choleskyOp) Forward(a *Args) {
	k := op.k
	for m := range op.count {
		off := op.matrix(m)
		if !choleskyLower(a.Out[off:off+k*k], a.In[0][off:off+k*k], k) {
			fillNaN(a.Out[off : off+k*k])
		}
	}
}

// choleskyLower sets l to the lower Cholesky factor of the symmetric part
// of s (k × k), its upper triangle zero, and reports false when s has an
// entry that is not finite, is not symmetric to within symmetryTol, or is
// not positive definite (a pivot that is not positive).
func choleskyLower(l, s []float64, k int) bool {
	for i := range k {
		for j := 0; j <= i; j++ {
			a, b := s[i*k+j], s[j*k+i]
			if math.IsInf(a, 0) || math.IsNaN(a) || math.IsInf(b, 0) || math.IsNaN(b) ||
				math.Abs(a-b) > symmetryTol*max(1, math.Abs(a), math.Abs(b)) {
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

// Backward is the symbolic adjoint of Murray (2016), "Differentiation of
// the Cholesky decomposition", arXiv:1602.07527, eq. 10, unblocked: with
// L̄ the lower triangle of the output's gradient (the upper triangle of L
// is constant) and Φ taking the lower triangle with its diagonal halved,
//
//	Ā = L⁻ᵀ sym(Φ(Lᵀ L̄)) L⁻¹,  sym(P) = (P + Pᵀ)/2,
//
// the gradient of the symmetric A that the forward pass factors. It is
// computed as two solves with Lᵀ: X = L⁻ᵀ S, then Ā = L⁻ᵀ Xᵀ (S L⁻¹ = Xᵀ
// since S is symmetric).
func (op *choleskyOp) Backward(a *Args) {
	gin := a.GradIn[0]
	if gin == nil {
		return
	}
	k := op.k
	s := a.Scratch[:k*k]
	for m := range op.count {
		off := op.matrix(m)
		l, gl, g := a.Out[off:off+k*k], a.GradOut[off:off+k*k], gin[off:off+k*k]
		if math.IsNaN(l[0]) {
			for i := range g {
				g[i] += math.NaN()
			}
			continue
		}
		// S = sym(Φ(M)), M = Lᵀ L̄ in its lower triangle: M_ij = Σ_{p≥i}
		// L_pi L̄_pj for i ≥ j.
		for i := range k {
			for j := 0; j <= i; j++ {
				sum := 0.0
				for p := i; p < k; p++ {
					sum += l[p*k+i] * gl[p*k+j]
				}
				if i == j {
					s[i*k+i] = 0.5 * sum
				} else {
					s[i*k+j], s[j*k+i] = 0.5*sum, 0.5*sum
				}
			}
		}
		solveUpperT(s, l, k, k)
		transposeSquare(s, k)
		solveUpperT(s, l, k, k)
		for i := range k {
			for j := range k {
				g[i*k+j] += 0.5 * (s[i*k+j] + s[j*k+i])
			}
		}
	}
}

// solveUpperT overwrites the k × n matrix r with L⁻ᵀ r, L lower triangular
// (k × k), by back substitution down each column.
func solveUpperT(r, l []float64, k, n int) {
	for c := range n {
		for i := k - 1; i >= 0; i-- {
			sum := r[i*n+c]
			for j := i + 1; j < k; j++ {
				sum -= l[j*k+i] * r[j*n+c]
			}
			r[i*n+c] = sum / l[i*k+i]
		}
	}
}

// solveLower overwrites the k × n matrix r with L⁻¹ r, reading only L's
// lower triangle, by forward substitution down each column.
func solveLower(r, l []float64, k, n int) {
	for c := range n {
		for i := range k {
			sum := r[i*n+c]
			for j := range i {
				sum -= l[i*k+j] * r[j*n+c]
			}
			r[i*n+c] = sum / l[i*k+i]
		}
	}
}

func transposeSquare(s []float64, k int) {
	for i := range k {
		for j := range i {
			s[i*k+j], s[j*k+i] = s[j*k+i], s[i*k+j]
		}
	}
}

func fillNaN(x []float64) {
	for i := range x {
		x[i] = math.NaN()
	}
}

// triLowSolveOp is X = L⁻¹ B for L lower triangular [..., K, K] and B
// [..., K, N] (or [..., K], N = 1).
type triLowSolveOp struct{ k, n, count int }

func (op *triLowSolveOp) Name() string    { return "mdivide_left_tri_low" }
func (op *triLowSolveOp) SavedLen() int   { return 0 }
func (op *triLowSolveOp) ScratchLen() int { return op.k * op.n }

// MdivideLeftTriLow is Stan's mdivide_left_tri_low(L, b) = L⁻¹ b, of the
// lower-triangular view of L (its upper triangle is never read and gets no
// gradient), for b a vector [K] or a matrix [K, N]; stacks of them [...,
// K, K] and [..., K] or [..., K, N] with the same leading axes solve each
// pair.
func MdivideLeftTriLow(l, b *Node) *Node {
	g := graphOf(l, b)
	if g == nil {
		return nil
	}
	if anyFailed(l, b) {
		return g.placeholder(nil)
	}
	k, count, ok := squareStack(g, "mdivide_left_tri_low", l)
	if !ok {
		return g.placeholder(nil)
	}
	lead := l.shape[:len(l.shape)-2]
	n := 1
	switch {
	case len(b.shape) == len(lead)+1 && b.shape[len(lead)] == k:
	case len(b.shape) == len(lead)+2 && b.shape[len(lead)] == k:
		n = b.shape[len(lead)+1]
	default:
		return g.fail(nil, "mdivide_left_tri_low of L %v and b %v: b must be a vector [%d] or a matrix [%d, N]", l.shape, b.shape, k, k)
	}
	if !Shape(b.shape[:len(lead)]).Equal(lead) {
		return g.fail(nil, "mdivide_left_tri_low of L %v and b %v: the leading axes differ", l.shape, b.shape)
	}
	return g.Apply(&triLowSolveOp{k: k, n: n, count: count}, b.shape, l, b)
}

func (op *triLowSolveOp) Forward(a *Args) {
	k, n := op.k, op.n
	for m := range op.count {
		x := a.Out[m*k*n : (m+1)*k*n]
		copy(x, a.In[1][m*k*n:])
		solveLower(x, a.In[0][m*k*k:], k, n)
	}
}

// Backward: B̄ = L⁻ᵀ X̄ and L̄ = -tril(B̄ Xᵀ), from dX = L⁻¹(dB - dL X).
func (op *triLowSolveOp) Backward(a *Args) {
	gl, gb := a.GradIn[0], a.GradIn[1]
	k, n := op.k, op.n
	bbar := a.Scratch[:k*n]
	for m := range op.count {
		l, x := a.In[0][m*k*k:(m+1)*k*k], a.Out[m*k*n:(m+1)*k*n]
		copy(bbar, a.GradOut[m*k*n:(m+1)*k*n])
		solveUpperT(bbar, l, k, n)
		if gb != nil {
			addTo(gb[m*k*n:(m+1)*k*n], bbar)
		}
		if gl == nil {
			continue
		}
		g := gl[m*k*k : (m+1)*k*k]
		for i := range k {
			for j := 0; j <= i; j++ {
				g[i*k+j] -= dot4(bbar[i*n:(i+1)*n], x[j*n:(j+1)*n])
			}
		}
	}
}

// luFactor overwrites a (k × k) with its LU factorisation with partial
// pivoting, P A = L U (L unit lower, U upper, both in a), recording the
// pivot row of each step in piv (as floats, so that the op's scratch
// holds them), and returns the permutation's sign (0 when a pivot is
// zero: A is singular).
func luFactor(a, piv []float64, k int) float64 {
	sign := 1.0
	for c := range k {
		p := c
		for r := c + 1; r < k; r++ {
			if math.Abs(a[r*k+c]) > math.Abs(a[p*k+c]) {
				p = r
			}
		}
		piv[c] = float64(p)
		if p != c {
			for j := range k {
				a[c*k+j], a[p*k+j] = a[p*k+j], a[c*k+j]
			}
			sign = -sign
		}
		d := a[c*k+c]
		if d == 0 {
			return 0
		}
		for r := c + 1; r < k; r++ {
			f := a[r*k+c] / d
			a[r*k+c] = f
			for j := c + 1; j < k; j++ {
				a[r*k+j] -= f * a[c*k+j]
			}
		}
	}
	return sign
}

// luInverse sets inv (k × k) to A⁻¹ from luFactor's lu and piv: the
// columns of P's rows solved by L then U.
func luInverse(inv, lu, piv []float64, k int) {
	clear(inv)
	for i := range k {
		inv[i*k+i] = 1
	}
	for c := range k { // P I: the row swaps, in order
		if p := int(piv[c]); p != c {
			for j := range k {
				inv[c*k+j], inv[p*k+j] = inv[p*k+j], inv[c*k+j]
			}
		}
	}
	for col := range k {
		for i := range k { // L, unit lower
			sum := inv[i*k+col]
			for j := range i {
				sum -= lu[i*k+j] * inv[j*k+col]
			}
			inv[i*k+col] = sum
		}
		for i := k - 1; i >= 0; i-- { // U
			sum := inv[i*k+col]
			for j := i + 1; j < k; j++ {
				sum -= lu[i*k+j] * inv[j*k+col]
			}
			inv[i*k+col] = sum / lu[i*k+i]
		}
	}
}

// luKind says which function of a matrix an luOp computes.
type luKind int

const (
	luInverseKind luKind = iota // A⁻¹
	luDetKind                   // det A
	luLogDetKind                // log |det A|
)

// luOp computes the inverse, the determinant or log |det| of each matrix
// of a stack, from an LU factorisation with partial pivoting.
type luOp struct {
	kind     luKind
	k, count int
}

func (op *luOp) Name() string {
	return [...]string{"inverse", "determinant", "log_determinant"}[op.kind]
}
func (op *luOp) SavedLen() int { return 0 }

// ScratchLen: the factors, the inverse, and the pivots (held as floats).
func (op *luOp) ScratchLen() int { return 2*op.k*op.k + op.k }

// Inverse is Stan's inverse(A) of each matrix of a stack [..., K, K]; a
// singular matrix gives infinities or NaN.
func Inverse(a *Node) *Node { return luApply(luInverseKind, a) }

// Determinant is Stan's determinant(A), one scalar per matrix of a stack
// [..., K, K].
func Determinant(a *Node) *Node { return luApply(luDetKind, a) }

// LogDeterminant is Stan's log_determinant(A) = log |det A|, one scalar
// per matrix of a stack [..., K, K]; -Inf for a singular matrix.
func LogDeterminant(a *Node) *Node { return luApply(luLogDetKind, a) }

func luApply(kind luKind, a *Node) *Node {
	if a == nil {
		return nil
	}
	if a.failed {
		return a.g.placeholder(nil)
	}
	op := &luOp{kind: kind}
	var ok bool
	if op.k, op.count, ok = squareStack(a.g, op.Name(), a); !ok {
		return a.g.placeholder(nil)
	}
	out := a.shape
	if kind != luInverseKind {
		out = a.shape[:len(a.shape)-2]
	}
	return a.g.Apply(op, out, a)
}

// factor sets the scratch's factors of matrix m and returns them, its
// pivots, and the sign of the permutation (0: singular).
func (op *luOp) factor(a *Args, m int) (lu, inv, piv []float64, sign float64) {
	k := op.k
	lu, inv, piv = a.Scratch[:k*k], a.Scratch[k*k:2*k*k], a.Scratch[2*k*k:2*k*k+k]
	copy(lu, a.In[0][m*k*k:(m+1)*k*k])
	return lu, inv, piv, luFactor(lu, piv, k)
}

func (op *luOp) Forward(a *Args) {
	k := op.k
	for m := range op.count {
		lu, inv, piv, sign := op.factor(a, m)
		switch op.kind {
		case luInverseKind:
			out := a.Out[m*k*k : (m+1)*k*k]
			if sign == 0 {
				for i := range out {
					out[i] = math.Inf(1)
				}
				continue
			}
			luInverse(inv, lu, piv, k)
			copy(out, inv)
		case luDetKind:
			d := sign
			for i := range k {
				d *= lu[i*k+i]
			}
			a.Out[m] = d
		case luLogDetKind:
			s := 0.0
			for i := range k {
				s += math.Log(math.Abs(lu[i*k+i]))
			}
			if sign == 0 {
				s = math.Inf(-1)
			}
			a.Out[m] = s
		}
	}
}

// Backward: for C = A⁻¹, Ā = -Cᵀ C̄ Cᵀ; for d = det A, Ā = d̄ d A⁻ᵀ; for
// log |det A|, Ā = d̄ A⁻ᵀ (Giles 2008, "Collected matrix derivative
// results for forward and reverse mode AD", sec. 2.2). A singular matrix
// gets NaN gradients.
func (op *luOp) Backward(a *Args) {
	gin := a.GradIn[0]
	if gin == nil {
		return
	}
	k := op.k
	for m := range op.count {
		g := gin[m*k*k : (m+1)*k*k]
		if op.kind == luInverseKind {
			c, gc := a.Out[m*k*k:(m+1)*k*k], a.GradOut[m*k*k:(m+1)*k*k]
			t := a.Scratch[:k*k]
			// t = C̄ Cᵀ, then Ā -= Cᵀ t.
			for i := range k {
				for j := range k {
					t[i*k+j] = dot4(gc[i*k:(i+1)*k], c[j*k:(j+1)*k])
				}
			}
			for i := range k {
				for p := range k {
					if f := c[p*k+i]; f != 0 {
						axpy(g[i*k:(i+1)*k], t[p*k:(p+1)*k], -f)
					}
				}
			}
			continue
		}
		lu, inv, piv, sign := op.factor(a, m)
		scale := a.GradOut[m]
		if op.kind == luDetKind {
			scale *= a.Out[m]
		}
		if sign == 0 {
			fillNaN(inv)
		} else {
			luInverse(inv, lu, piv, k)
		}
		for i := range k {
			for j := range k {
				g[i*k+j] += scale * inv[j*k+i]
			}
		}
	}
}

// cumsumOp is the running sum along the last axis.
type cumsumOp struct{ n int }

func (op *cumsumOp) Name() string { return "cumulative_sum" }

// CumulativeSum is Stan's cumulative_sum along the last axis of x: element
// i is the sum of elements 1..i.
func CumulativeSum(x *Node) *Node {
	if x == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(nil)
	}
	if len(x.shape) == 0 {
		return x.g.fail(nil, "cumulative_sum takes a vector, and this is a scalar")
	}
	return x.g.Apply(&cumsumOp{n: x.shape[len(x.shape)-1]}, x.shape, x)
}

func (op *cumsumOp) Forward(a *Args)     { cumsumForward(op.n, a) }
func (op *cumsumOp) Forward32(a *Args32) { cumsumForward(op.n, a) }

func cumsumForward[T Float](n int, a *ArgsOf[T]) {
	for start := 0; start < len(a.Out); start += n {
		var s T
		for i, v := range a.In[0][start : start+n] {
			s += v
			a.Out[start+i] = s
		}
	}
}

// Backward: each element's gradient is the sum of the output's gradients
// from its position on, a running sum from the end.
func (op *cumsumOp) Backward(a *Args)     { cumsumBackward(op.n, a) }
func (op *cumsumOp) Backward32(a *Args32) { cumsumBackward(op.n, a) }

func cumsumBackward[T Float](n int, a *ArgsOf[T]) {
	g := a.GradIn[0]
	if g == nil {
		return
	}
	for start := 0; start < len(a.GradOut); start += n {
		var s T
		for i := start + n - 1; i >= start; i-- {
			s += a.GradOut[i]
			g[i] += s
		}
	}
}
