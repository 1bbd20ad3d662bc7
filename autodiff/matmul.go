package autodiff

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// matmulOp multiplies a, viewed as [m, k], by b, viewed as [k, n]: one GEMM
// per replica, so replicas sharing a data matrix stay independent products.
type matmulOp struct{ m, k, n int }

func (op *matmulOp) Name() string { return "matmul" }

// Matmul is the matrix product a·b on the last axis of a and the first of b.
// a may be a vector [k] or have leading axes [..., k] (a batch of rows, which
// the product keeps); b is a matrix [k, n] or a vector [k]. A vector b drops
// the result's last axis, as does a vector a its first.
func Matmul(a, b *Node) *Node {
	g := graphOf(a, b)
	if g == nil {
		return nil
	}
	if anyFailed(a, b) {
		return g.placeholder(nil)
	}
	if len(a.shape) < 1 || len(b.shape) < 1 || len(b.shape) > 2 {
		return g.fail(nil, "matmul of %v and %v: needs an array of rank ≥ 1 and a vector or matrix", a.shape, b.shape)
	}
	k := a.shape[len(a.shape)-1]
	if b.shape[0] != k {
		return g.fail(nil, "matmul of %v and %v: inner dimensions %d and %d differ", a.shape, b.shape, k, b.shape[0])
	}
	n := 1
	out := a.shape[: len(a.shape)-1 : len(a.shape)-1]
	if len(b.shape) == 2 {
		n = b.shape[1]
		out = append(out, n)
	}
	return g.Apply(&matmulOp{m: a.shape.Size() / k, k: k, n: n}, out, a, b)
}

func (op *matmulOp) Forward(a *Args) {
	gemm(false, false, op.m, op.n, op.k, a.In[0], op.k, a.In[1], op.n, 0, a.Out, op.n)
}

// Backward: ∂a += ∂c·bᵀ and ∂b += aᵀ·∂c.
func (op *matmulOp) Backward(a *Args) {
	if ga := a.GradIn[0]; ga != nil {
		gemm(false, true, op.m, op.k, op.n, a.GradOut, op.n, a.In[1], op.n, 1, ga, op.k)
	}
	if gb := a.GradIn[1]; gb != nil {
		gemm(true, false, op.k, op.n, op.m, a.In[0], op.k, a.GradOut, op.n, 1, gb, op.n)
	}
}

// gemm sets c = op(a)·op(b) + beta·c for the m × n result, where op
// transposes when asked. It calls gonum's GEMM on tiles of at most
// gemmTileM × gemmTileN: gonum runs a problem that small on the calling
// goroutine, while larger ones start goroutines and allocate. Tiling the
// output leaves each element's sum over k in the same order, so a product
// gives the same bits whatever the shape of its neighbours.
func gemm(transA, transB bool, m, n, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	tA, tB := blas.NoTrans, blas.NoTrans
	if transA {
		tA = blas.Trans
	}
	if transB {
		tB = blas.Trans
	}
	var impl gonum.Implementation
	for i0 := 0; i0 < m; i0 += gemmTileM {
		mb := min(gemmTileM, m-i0)
		var aSub []float64
		if transA {
			aSub = a[i0:]
		} else {
			aSub = a[i0*lda:]
		}
		for j0 := 0; j0 < n; j0 += gemmTileN {
			nb := min(gemmTileN, n-j0)
			var bSub []float64
			if transB {
				bSub = b[j0*ldb:]
			} else {
				bSub = b[j0:]
			}
			impl.Dgemm(tA, tB, mb, nb, k, 1, aSub, lda, bSub, ldb, beta, c[i0*ldc+j0:], ldc)
		}
	}
}

// gonum's Dgemm stays serial below four 64 × 64 blocks of output
// (blas/gonum/dgemm.go, minParBlock); 64 × 192 is three.
const (
	gemmTileM = 64
	gemmTileN = 192
)

// dotOp contracts the last axis of two operands whose leading axes broadcast.
type dotOp struct {
	k    int
	plan *bcastPlan // over the leading axes; offsets count rows of length k
}

func (op *dotOp) Name() string { return "dot" }

// Dot is Σ_i a[..., i]·b[..., i]: the inner product over the last axis, with
// the leading axes broadcast. dot(X, w) for X [B, D] and w [D] gives the B
// row products.
func Dot(a, b *Node) *Node {
	g := graphOf(a, b)
	if g == nil {
		return nil
	}
	if anyFailed(a, b) {
		return g.placeholder(nil)
	}
	if len(a.shape) < 1 || len(b.shape) < 1 || a.shape[len(a.shape)-1] != b.shape[len(b.shape)-1] {
		return g.fail(nil, "dot of %v and %v: the last dimensions must agree", a.shape, b.shape)
	}
	la, lb := a.shape[:len(a.shape)-1], b.shape[:len(b.shape)-1]
	out, err := BroadcastShapes(la, lb)
	if err != nil {
		return g.fail(nil, "dot of %v and %v: %v", a.shape, b.shape, err)
	}
	plan, err := newBcastPlan(out, []Shape{la, lb})
	if err != nil {
		return g.fail(nil, "dot: %v", err)
	}
	return g.Apply(&dotOp{k: a.shape[len(a.shape)-1], plan: plan}, out, a, b)
}

func (op *dotOp) Forward(a *Args) {
	x, y, out, k, p := a.In[0], a.In[1], a.Out, op.k, op.plan
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			xr := x[(offs[0]+t*p.innerStride[0])*k:][:k]
			yr := y[(offs[1]+t*p.innerStride[1])*k:][:k]
			s := 0.0
			for i, v := range xr {
				s += v * yr[i]
			}
			out[start+t] = s
		}
	})
}

func (op *dotOp) Backward(a *Args) {
	x, y, k, p := a.In[0], a.In[1], op.k, op.plan
	gx, gy := a.GradIn[0], a.GradIn[1]
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			g := a.GradOut[start+t]
			ox, oy := (offs[0]+t*p.innerStride[0])*k, (offs[1]+t*p.innerStride[1])*k
			if gx != nil {
				for i, v := range y[oy : oy+k] {
					gx[ox+i] += g * v
				}
			}
			if gy != nil {
				for i, v := range x[ox : ox+k] {
					gy[oy+i] += g * v
				}
			}
		}
	})
}
