package autodiff

import "github.com/temper-ppl/temper/autodiff/kernel"

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

func (op *matmulOp) Forward(a *Args)     { matmulForward(op, a) }
func (op *matmulOp) Forward32(a *Args32) { matmulForward(op, a) }

func matmulForward[T Float](op *matmulOp, a *ArgsOf[T]) {
	gemm(a.Threads(), false, false, op.m, op.n, op.k, a.In[0], op.k, a.In[1], op.n, 0, a.Out, op.n)
}

// Backward: ∂a += ∂c·bᵀ and ∂b += aᵀ·∂c.
func (op *matmulOp) Backward(a *Args)     { matmulBackward(op, a) }
func (op *matmulOp) Backward32(a *Args32) { matmulBackward(op, a) }

func matmulBackward[T Float](op *matmulOp, a *ArgsOf[T]) {
	if ga := a.GradIn[0]; ga != nil {
		gemm(a.Threads(), false, true, op.m, op.k, op.n, a.GradOut, op.n, a.In[1], op.n, 1, ga, op.k)
	}
	if gb := a.GradIn[1]; gb != nil {
		gemm(a.Threads(), true, false, op.k, op.n, op.m, a.In[0], op.k, a.GradOut, op.n, 1, gb, op.n)
	}
}

// gemm sets c = op(a)·op(b) + beta·c for the m × n result, where op
// transposes when asked, with the kernels of package kernel on up to
// threads goroutines. Every element's sum over k is grouped the same way
// whatever the number of goroutines, so a product gives the same bits.
func gemm[T Float](threads int, transA, transB bool, m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	kernel.Gemm(threads, transA, transB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}

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

func (op *dotOp) Forward(a *Args)     { dotForward(op, a) }
func (op *dotOp) Forward32(a *Args32) { dotForward(op, a) }

func dotForward[T Float](op *dotOp, a *ArgsOf[T]) {
	x, y, out, k, p := a.In[0], a.In[1], a.Out, op.k, op.plan
	if m, v := op.gemv(); m >= 0 {
		// The rows of one operand against the other's one vector: a
		// matrix-vector product, on the GEMM kernels.
		p.rows(func(offs [maxOperands]int, start int) {
			gemm(a.Threads(), false, false, p.inner, 1, k, a.In[m][offs[m]*k:], k, a.In[v][offs[v]*k:], 1, 0, out[start:], 1)
		})
		return
	}
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			xr := x[(offs[0]+t*p.innerStride[0])*k:][:k]
			yr := y[(offs[1]+t*p.innerStride[1])*k:][:k]
			out[start+t] = T(dot4(xr, yr))
		}
	})
}

// gemv reports which operand is a matrix of rows (m) dotted with the
// other's single vector (v) along the plan's inner axis, when there are
// enough rows for a matrix-vector product to pay; m is -1 otherwise.
func (op *dotOp) gemv() (m, v int) {
	const minRows = 16
	p := op.plan
	switch {
	case p.inner < minRows:
	case p.innerStride[0] == 1 && p.innerStride[1] == 0:
		return 0, 1
	case p.innerStride[0] == 0 && p.innerStride[1] == 1:
		return 1, 0
	}
	return -1, -1
}

// dot4 is Σ x_i·y_i accumulated in float64 (for float32 programs too) in
// four independent sums, which a loop-carried single sum's add latency
// would otherwise hold to a quarter of the machine's rate.
func dot4[T Float](x, y []T) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += float64(x[i]) * float64(y[i])
		s1 += float64(x[i+1]) * float64(y[i+1])
		s2 += float64(x[i+2]) * float64(y[i+2])
		s3 += float64(x[i+3]) * float64(y[i+3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds a·x to dst, four elements a round.
func axpy[T Float](dst, x []T, a T) {
	x = x[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		dst[i] += a * x[i]
		dst[i+1] += a * x[i+1]
		dst[i+2] += a * x[i+2]
		dst[i+3] += a * x[i+3]
	}
	for ; i < len(dst); i++ {
		dst[i] += a * x[i]
	}
}

func (op *dotOp) Backward(a *Args)     { dotBackward(op, a) }
func (op *dotOp) Backward32(a *Args32) { dotBackward(op, a) }

func dotBackward[T Float](op *dotOp, a *ArgsOf[T]) {
	x, y, k, p := a.In[0], a.In[1], op.k, op.plan
	gx, gy := a.GradIn[0], a.GradIn[1]
	if m, v := op.gemv(); m >= 0 {
		// ∂v += Mᵀ·∂out (a transposed matrix-vector product) and ∂M +=
		// ∂out·vᵀ (a rank-one update), on the GEMM kernels.
		p.rows(func(offs [maxOperands]int, start int) {
			g := a.GradOut[start:]
			if gv := a.GradIn[v]; gv != nil {
				gemm(a.Threads(), true, false, k, 1, p.inner, a.In[m][offs[m]*k:], k, g, 1, 1, gv[offs[v]*k:], 1)
			}
			if gm := a.GradIn[m]; gm != nil {
				gemm(a.Threads(), false, false, p.inner, k, 1, g, 1, a.In[v][offs[v]*k:], k, 1, gm[offs[m]*k:], k)
			}
		})
		return
	}
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			g := a.GradOut[start+t]
			ox, oy := (offs[0]+t*p.innerStride[0])*k, (offs[1]+t*p.innerStride[1])*k
			if gx != nil {
				axpy(gx[ox:ox+k], y[oy:oy+k], g)
			}
			if gy != nil {
				axpy(gy[oy:oy+k], x[ox:ox+k], g)
			}
		}
	})
}
