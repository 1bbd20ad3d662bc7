package autodiff

import "math"

// Ops that move elements without arithmetic: reshape, transpose, concat,
// slice, broadcast and the row gather that draws a minibatch.

type reshapeOp struct{}

func (reshapeOp) Name() string         { return "reshape" }
func (reshapeOp) Forward(a *Args)      { copy(a.Out, a.In[0]) }
func (reshapeOp) Forward32(a *Args32)  { copy(a.Out, a.In[0]) }
func (reshapeOp) Backward(a *Args)     { addTo(a.GradIn[0], a.GradOut) }
func (reshapeOp) Backward32(a *Args32) { addTo(a.GradIn[0], a.GradOut) }

func addTo[T Float](dst, src []T) {
	if dst == nil {
		return
	}
	for i, v := range src {
		dst[i] += v
	}
}

// Reshape gives x a new shape with the same number of elements, in row-major
// order. One extent may be -1, inferred from the others.
func Reshape(x *Node, shape ...int) *Node {
	if x == nil {
		return nil
	}
	s := Shape(shape).Clone()
	if x.failed {
		return x.g.placeholder(s)
	}
	infer, known := -1, 1
	for i, d := range s {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d > 0:
			known *= d
		default:
			return x.g.fail(s, "reshape of %v to %v: bad extent %d", x.shape, s, d)
		}
	}
	if infer >= 0 {
		if x.shape.Size()%known != 0 {
			return x.g.fail(s, "reshape of %v to %v: size %d is not a multiple of %d", x.shape, s, x.shape.Size(), known)
		}
		s[infer] = x.shape.Size() / known
	}
	if s.Size() != x.shape.Size() {
		return x.g.fail(s, "reshape of %v (%d elements) to %v (%d elements)", x.shape, x.shape.Size(), s, s.Size())
	}
	return x.g.Apply(reshapeOp{}, s, x)
}

// transposeOp permutes axes: result axis d is operand axis perm[d].
type transposeOp struct {
	out     Shape
	strides []int // operand stride of each result axis
}

func (op *transposeOp) Name() string { return "transpose" }

// Transpose permutes the axes of x: axis d of the result is axis perm[d] of x.
// Without perm it reverses the axes (the matrix transpose for rank 2).
func Transpose(x *Node, perm ...int) *Node {
	if x == nil {
		return nil
	}
	rank := len(x.shape)
	if len(perm) == 0 {
		for d := rank - 1; d >= 0; d-- {
			perm = append(perm, d)
		}
	}
	if x.failed {
		return x.g.placeholder(nil)
	}
	if len(perm) != rank {
		return x.g.fail(nil, "transpose of %v: permutation %v has %d axes, want %d", x.shape, perm, len(perm), rank)
	}
	seen := make([]bool, rank)
	op := &transposeOp{out: make(Shape, rank), strides: make([]int, rank)}
	st := x.shape.strides()
	for d, p := range perm {
		if p < 0 || p >= rank || seen[p] {
			return x.g.fail(nil, "transpose of %v: %v is not a permutation of the axes", x.shape, perm)
		}
		seen[p] = true
		op.out[d], op.strides[d] = x.shape[p], st[p]
	}
	return x.g.Apply(op, op.out, x)
}

// each calls visit(j, i) for result element j and operand element i, in
// result order.
func (op *transposeOp) each(visit func(j, i int)) {
	var ctr [maxRank]int
	rank, off := len(op.out), 0
	for j := range op.out.Size() {
		visit(j, off)
		for d := rank - 1; d >= 0; d-- {
			ctr[d]++
			off += op.strides[d]
			if ctr[d] < op.out[d] {
				break
			}
			off -= op.strides[d] * ctr[d]
			ctr[d] = 0
		}
	}
}

func (op *transposeOp) Forward(a *Args)     { transposeForward(op, a) }
func (op *transposeOp) Forward32(a *Args32) { transposeForward(op, a) }

func transposeForward[T Float](op *transposeOp, a *ArgsOf[T]) {
	x, out := a.In[0], a.Out
	op.each(func(j, i int) { out[j] = x[i] })
}

func (op *transposeOp) Backward(a *Args)     { transposeBackward(op, a) }
func (op *transposeOp) Backward32(a *Args32) { transposeBackward(op, a) }

func transposeBackward[T Float](op *transposeOp, a *ArgsOf[T]) {
	gx, gout := a.GradIn[0], a.GradOut
	if gx == nil {
		return
	}
	op.each(func(j, i int) { gx[i] += gout[j] })
}

// concatOp joins operands along an axis, viewed as [outer, n_i, inner].
type concatOp struct {
	outer, inner int
	ns           []int
}

func (op *concatOp) Name() string { return "concat" }

// Concat joins xs along axis; their other extents must agree.
func Concat(axis int, xs ...*Node) *Node {
	g := graphOf(xs...)
	if g == nil {
		return nil
	}
	if anyFailed(xs...) {
		return g.placeholder(nil)
	}
	first := xs[0].shape
	ax, err := normAxis(axis, len(first))
	if err != nil {
		return g.fail(nil, "concat of %v: %v", first, err)
	}
	out := first.Clone()
	out[ax] = 0
	op := &concatOp{}
	for _, x := range xs {
		s := x.shape
		same := len(s) == len(first)
		for d := 0; same && d < len(s); d++ {
			same = d == ax || s[d] == first[d]
		}
		if !same {
			return g.fail(nil, "concat along axis %d: shapes %v and %v differ off that axis", ax, first, s)
		}
		var n int
		op.outer, n, op.inner = splitAt(s, ax)
		op.ns = append(op.ns, n)
		out[ax] += n
	}
	return g.Apply(op, out, xs...)
}

func (op *concatOp) Forward(a *Args)     { concatForward(op, a) }
func (op *concatOp) Forward32(a *Args32) { concatForward(op, a) }

func concatForward[T Float](op *concatOp, a *ArgsOf[T]) {
	pos := 0
	for o := range op.outer {
		for i, n := range op.ns {
			w := n * op.inner
			pos += copy(a.Out[pos:], a.In[i][o*w:(o+1)*w])
		}
	}
}

func (op *concatOp) Backward(a *Args)     { concatBackward(op, a) }
func (op *concatOp) Backward32(a *Args32) { concatBackward(op, a) }

func concatBackward[T Float](op *concatOp, a *ArgsOf[T]) {
	pos := 0
	for o := range op.outer {
		for i, n := range op.ns {
			w := n * op.inner
			if gi := a.GradIn[i]; gi != nil {
				addTo(gi[o*w:(o+1)*w], a.GradOut[pos:pos+w])
			}
			pos += w
		}
	}
}

// sliceOp keeps the range [start, end) of one axis.
type sliceOp struct {
	outer, n, inner, start, end int
}

func (op *sliceOp) Name() string { return "slice" }

// Slice keeps indices start ≤ i < end of axis.
func Slice(x *Node, axis, start, end int) *Node {
	if x == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(nil)
	}
	ax, err := normAxis(axis, len(x.shape))
	if err != nil {
		return x.g.fail(nil, "slice of %v: %v", x.shape, err)
	}
	if start < 0 || end > x.shape[ax] || start >= end {
		return x.g.fail(nil, "slice [%d:%d] of axis %d with extent %d", start, end, ax, x.shape[ax])
	}
	op := &sliceOp{start: start, end: end}
	op.outer, op.n, op.inner = splitAt(x.shape, ax)
	out := x.shape.Clone()
	out[ax] = end - start
	return x.g.Apply(op, out, x)
}

func (op *sliceOp) Forward(a *Args)     { sliceForward(op, a) }
func (op *sliceOp) Forward32(a *Args32) { sliceForward(op, a) }

func sliceForward[T Float](op *sliceOp, a *ArgsOf[T]) {
	w := (op.end - op.start) * op.inner
	for o := range op.outer {
		from := (o*op.n + op.start) * op.inner
		copy(a.Out[o*w:(o+1)*w], a.In[0][from:from+w])
	}
}

func (op *sliceOp) Backward(a *Args)     { sliceBackward(op, a) }
func (op *sliceOp) Backward32(a *Args32) { sliceBackward(op, a) }

func sliceBackward[T Float](op *sliceOp, a *ArgsOf[T]) {
	gx := a.GradIn[0]
	if gx == nil {
		return
	}
	w := (op.end - op.start) * op.inner
	for o := range op.outer {
		from := (o*op.n + op.start) * op.inner
		addTo(gx[from:from+w], a.GradOut[o*w:(o+1)*w])
	}
}

// Index selects position i of axis and drops the axis: x[i] for axis 0.
func Index(x *Node, axis, i int) *Node {
	if x == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(nil)
	}
	ax, err := normAxis(axis, len(x.shape))
	if err != nil {
		return x.g.fail(nil, "index of %v: %v", x.shape, err)
	}
	if i < 0 || i >= x.shape[ax] {
		return x.g.fail(nil, "index %d out of range [0, %d) on axis %d of %v", i, x.shape[ax], ax, x.shape)
	}
	out := append(x.shape[:ax:ax], x.shape[ax+1:]...)
	return Reshape(Slice(x, ax, i, i+1), out...)
}

var identityFunc = &ScalarFunc{Name: "broadcast", Arity: 1,
	Value: func(x []float64) float64 { return x[0] },
	Grad:  func(dx, _ []float64, _ float64) { dx[0] = 1 }}

// BroadcastTo repeats x along new leading axes and axes of extent 1 to give
// it shape; the gradient sums over the repeats.
func BroadcastTo(x *Node, shape ...int) *Node {
	if x == nil {
		return nil
	}
	s := Shape(shape).Clone()
	if x.failed {
		return x.g.placeholder(s)
	}
	if b, err := BroadcastShapes(x.shape, s); err != nil || !b.Equal(s) {
		return x.g.fail(s, "cannot broadcast %v to %v", x.shape, s)
	}
	return elementwiseTo(identityFunc, s, x)
}

// gatherOp copies rows of its operand, chosen by an index vector.
type gatherOp struct {
	ix     *Indices
	row    int    // elements per row
	stored Stored // the operand's data, read where a program holds no copy of it (Stored), or nil
}

func (op *gatherOp) Name() string { return "gather" }

// Gather selects rows (entries along axis 0) of x: the result's row b is
// x[ix[b]]. With replicated indices each replica gathers its own rows.
func Gather(x *Node, ix *Indices) *Node {
	if x == nil || ix == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(nil)
	}
	if ix.g != x.g {
		return x.g.fail(nil, "gather: indices %q belong to another graph", ix.name)
	}
	if len(x.shape) < 1 {
		return x.g.fail(nil, "gather: cannot take rows of a scalar")
	}
	if ix.bound < 0 || x.shape[0] < ix.bound {
		ix.bound = x.shape[0]
	}
	out := append(Shape{ix.n}, x.shape[1:]...)
	return x.g.apply(&gatherOp{ix: ix, row: x.shape.Size() / x.shape[0], stored: x.stored}, out, ix.replicated, x)
}

func (op *gatherOp) Forward(a *Args)     { gatherForward(op, a) }
func (op *gatherOp) Forward32(a *Args32) { gatherForward(op, a) }

func gatherForward[T Float](op *gatherOp, a *ArgsOf[T]) {
	if a.In[0] == nil { // the program converts the rows from the stored data
		storedRows(op.stored, a.Indices(op.ix), op.row, a.Out)
		return
	}
	for b, r := range a.Indices(op.ix) {
		copy(a.Out[b*op.row:(b+1)*op.row], a.In[0][r*op.row:(r+1)*op.row])
	}
}

// Backward scatters the gradient back, adding where a row was drawn twice.
func (op *gatherOp) Backward(a *Args)     { gatherBackward(op, a) }
func (op *gatherOp) Backward32(a *Args32) { gatherBackward(op, a) }

func gatherBackward[T Float](op *gatherOp, a *ArgsOf[T]) {
	gx := a.GradIn[0]
	if gx == nil {
		return
	}
	for b, r := range a.Indices(op.ix) {
		addTo(gx[r*op.row:(r+1)*op.row], a.GradOut[b*op.row:(b+1)*op.row])
	}
}

// takeRowsOp copies rows of its first operand chosen by the values of its
// second: a gather by data, such as a group's intercept for each row.
type takeRowsOp struct {
	rows, row int // rows of the operand, elements per row
}

func (op *takeRowsOp) Name() string { return "take_rows" }

// TakeRows selects rows (entries along axis 0) of x by the values of idx,
// 0-based: the result has shape idx.Shape() followed by x's row shape, and
// its entry i is x[idx[i]]. idx is a value of the graph (data, a minibatch
// of a data column), not an Indices, so that a plate can gather a
// parameter's rows by a data column of the rows it draws; it gets no
// gradient. The gradient of x is a scatter-add, so a pass costs O(idx's
// entries × row) whatever the number of rows of x.
//
// The values must be integers in [0, rows of x); the caller checks its data
// (the compiler does, naming the field and element). A value outside gives
// NaN entries rather than a panic.
func TakeRows(x, idx *Node) *Node {
	g := graphOf(x, idx)
	if g == nil {
		return nil
	}
	if anyFailed(x, idx) {
		return g.placeholder(nil)
	}
	if len(x.shape) < 1 {
		return g.fail(nil, "take_rows: cannot take rows of a scalar")
	}
	out := append(idx.shape.Clone(), x.shape[1:]...)
	return g.Apply(&takeRowsOp{rows: x.shape[0], row: x.shape.Size() / x.shape[0]}, out, x, idx)
}

func (op *takeRowsOp) Forward(a *Args)     { takeRowsForward(op, a) }
func (op *takeRowsOp) Forward32(a *Args32) { takeRowsForward(op, a) }

// row returns the row index that v names, or -1 for a value that names none.
func (op *takeRowsOp) rowOf(v float64) int {
	r := int(v)
	if float64(r) != v || r < 0 || r >= op.rows {
		return -1
	}
	return r
}

func takeRowsForward[T Float](op *takeRowsOp, a *ArgsOf[T]) {
	x, out := a.In[0], a.Out
	for i, v := range a.In[1] {
		dst := out[i*op.row : (i+1)*op.row]
		r := op.rowOf(float64(v))
		if r < 0 {
			for j := range dst {
				dst[j] = T(math.NaN())
			}
			continue
		}
		copy(dst, x[r*op.row:(r+1)*op.row])
	}
}

// Backward scatters the gradient back to the rows taken, adding where a
// row was taken more than once.
func (op *takeRowsOp) Backward(a *Args)     { takeRowsBackward(op, a) }
func (op *takeRowsOp) Backward32(a *Args32) { takeRowsBackward(op, a) }

func takeRowsBackward[T Float](op *takeRowsOp, a *ArgsOf[T]) {
	gx := a.GradIn[0]
	if gx == nil {
		return
	}
	for i, v := range a.In[1] {
		if r := op.rowOf(float64(v)); r >= 0 {
			addTo(gx[r*op.row:(r+1)*op.row], a.GradOut[i*op.row:(i+1)*op.row])
		}
	}
}
