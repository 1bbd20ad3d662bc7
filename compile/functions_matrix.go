package compile

import (
	ad "github.com/temper-ppl/temper/autodiff"
)

// Stan's functions for Gaussian processes, linear algebra and building
// matrices. A vector is an array of rank 1 and a matrix one of rank 2; a
// vector plays Stan's row_vector where a signature needs one (a row
// appended to a matrix by append_row, the result of append_col(x, v) with
// x a scalar). Each is written for one row's values: in a plate, the
// minibatch's axis leads and every matrix of the stack is worked apart,
// an operand that does not depend on the plate being shared by the rows.
// Sizes are checked when the model is compiled, against one row's shapes,
// and a mismatch is an error at the call. The factorisations
// (cholesky_decompose, inverse, determinant, log_determinant,
// mdivide_left_tri_low) and cumulative_sum run on the CPU only.

func init() {
	square := func(name string, f func(*ad.Node) *ad.Node) function {
		return function{params: []string{"A"}, ranks: []int{2}, build: func(b *builder, a []value) value {
			if !b.squareMatrix(name, a[0]) {
				return value{node: b.g.Placeholder(nil)}
			}
			return value{node: f(a[0].node), batched: a[0].batched}
		}}
	}
	functions["cholesky_decompose"] = square("cholesky_decompose", ad.CholeskyDecompose)
	functions["inverse"] = square("inverse", ad.Inverse)
	functions["determinant"] = square("determinant", ad.Determinant)
	functions["log_determinant"] = square("log_determinant", ad.LogDeterminant)
	functions["mdivide_left_tri_low"] = function{params: []string{"L", "b"}, ranks: []int{2, -1}, build: mdivideLeftTriLow}
	gp := function{params: []string{"x", "alpha", "rho"}, ranks: []int{-1, 0, 0}, build: gpExpQuadCov,
		alt: &function{params: []string{"x1", "x2", "alpha", "rho"}, ranks: []int{-1, -1, 0, 0}, build: gpExpQuadCov}}
	functions["gp_exp_quad_cov"], functions["cov_exp_quad"] = gp, gp
	functions["diag_matrix"] = function{params: []string{"v"}, ranks: []int{1}, build: func(b *builder, a []value) value {
		if !b.rowRankIs("diag_matrix", "a vector", a[0], 1) {
			return value{node: b.g.Placeholder(nil)}
		}
		return value{node: diagMatrix(b, a[0].node), batched: a[0].batched}
	}}
	functions["add_diag"] = function{params: []string{"A", "d"}, ranks: []int{2, -1}, build: addDiag}
	functions["crossprod"] = function{params: []string{"A"}, ranks: []int{2}, build: func(b *builder, a []value) value {
		if !b.rowRankIs("crossprod", "a matrix", a[0], 2) {
			return value{node: b.g.Placeholder(nil)}
		}
		return b.product(b.transposed(a[0]), a[0])
	}}
	functions["quad_form"] = function{params: []string{"A", "B"}, ranks: []int{2, -1}, build: quadForm}
	functions["append_col"] = function{params: []string{"A", "B"}, build: func(b *builder, a []value) value { return b.appendArrays("append_col", a) }}
	functions["append_row"] = function{params: []string{"A", "B"}, build: func(b *builder, a []value) value { return b.appendArrays("append_row", a) }}
	functions["rep_vector"] = function{params: []string{"x", "n"}, settings: 1, ranks: []int{0}, layer: repVector}
	functions["rep_matrix"] = function{params: []string{"x", "m", "n"}, settings: 2, optional: 1, ranks: []int{-1}, layer: repMatrix}
	functions["to_vector"] = function{params: []string{"A"}, build: func(b *builder, a []value) value {
		if a[0].rowRank() == 0 || a[0].rowRank() > 2 {
			return b.shapeFail("to_vector takes a vector or a matrix, and this has shape %s", a[0])
		}
		return b.columnMajor(a[0])
	}}
	functions["to_matrix"] = function{params: []string{"A", "m", "n"}, settings: 2, optional: 2, ranks: []int{-1}, layer: toMatrix}
	functions["segment"] = function{params: []string{"v", "i", "n"}, settings: 2, ranks: []int{1}, layer: func(b *builder, a []value, s []int) value {
		return b.vectorSlice("segment", a[0], s[0], s[1])
	}}
	functions["head"] = function{params: []string{"v", "n"}, settings: 1, ranks: []int{1}, layer: func(b *builder, a []value, s []int) value {
		return b.vectorSlice("head", a[0], 1, s[0])
	}}
	functions["tail"] = function{params: []string{"v", "n"}, settings: 1, ranks: []int{1}, layer: func(b *builder, a []value, s []int) value {
		if a[0].rowRank() != 1 {
			return b.vectorSlice("tail", a[0], 1, s[0]) // its error
		}
		length := rowShape(a[0].node.Shape(), a[0].batched)[0]
		return b.vectorSlice("tail", a[0], length-s[0]+1, s[0])
	}}
	functions["cumulative_sum"] = function{params: []string{"v"}, ranks: []int{1}, build: func(b *builder, a []value) value {
		if !b.rowRankIs("cumulative_sum", "a vector", a[0], 1) {
			return value{node: b.g.Placeholder(nil)}
		}
		return value{node: ad.CumulativeSum(a[0].node), batched: a[0].batched}
	}}
	// The sizes of one row's value, known when the model is compiled.
	size := func(name string, f func(shape []int) (int, bool)) function {
		return function{params: []string{"x"}, intResult: true, build: func(b *builder, a []value) value {
			n, ok := f(rowShape(a[0].node.Shape(), a[0].batched))
			if !ok {
				return b.shapeFail(name+" takes a vector or a matrix, and this has shape %s", a[0])
			}
			return value{node: b.g.Scalar(float64(n))}
		}}
	}
	functions["rows"] = size("rows", func(s []int) (int, bool) {
		if len(s) == 1 || len(s) == 2 {
			return s[0], true
		}
		return 0, false
	})
	functions["cols"] = size("cols", func(s []int) (int, bool) {
		switch len(s) {
		case 1: // a vector is a column, as Stan's
			return 1, true
		case 2:
			return s[1], true
		}
		return 0, false
	})
	functions["num_elements"] = size("num_elements", func(s []int) (int, bool) { return sizeOf(s), true })
}

// shapeFail records an error naming one row's shape of x, for the call.
func (b *builder) shapeFail(format string, x value) value {
	return value{node: b.g.Fail(nil, format, shapeString(rowShape(x.node.Shape(), x.batched)))}
}

// rowRankIs checks that one row's value of x has rank axes.
func (b *builder) rowRankIs(name, what string, x value, rank int) bool {
	if x.rowRank() == rank {
		return true
	}
	b.shapeFail(name+" takes "+what+", and this has shape %s", x)
	return false
}

// squareMatrix checks that one row's value of x is a square matrix.
func (b *builder) squareMatrix(name string, x value) bool {
	s := rowShape(x.node.Shape(), x.batched)
	if len(s) == 2 && s[0] == s[1] {
		return true
	}
	b.shapeFail(name+" takes a square matrix [K, K], and this has shape %s", x)
	return false
}

// together gives each operand the minibatch's axis when any has it, so
// that ops pairing matrices (a solve, a product, a concatenation) see
// stacks of the same length.
func (b *builder) together(vs ...value) ([]*ad.Node, bool) {
	batched := anyBatched(vs)
	nodes := make([]*ad.Node, len(vs))
	for i, v := range vs {
		nodes[i] = v.node
		if batched && !v.batched {
			nodes[i] = ad.BroadcastTo(v.node, append([]int{b.batch}, v.node.Shape()...)...)
		}
	}
	return nodes, batched
}

// reshapeRow gives one row's value of v the row shape s, keeping the
// minibatch's axis.
func reshapeRow(v value, s ...int) value {
	if v.batched {
		s = append([]int{v.node.Shape()[0]}, s...)
	}
	return value{node: ad.Reshape(v.node, s...), batched: v.batched}
}

// transposed swaps the two axes of one row's matrix.
func (b *builder) transposed(v value) value {
	if v.batched {
		return value{node: ad.Transpose(v.node, 0, 2, 1), batched: true}
	}
	return value{node: ad.Transpose(v.node, 1, 0)}
}

// product is the matrix product of one row's values, as @ (matmul).
// An operand on the right that depends on the plate cannot be Matmul's
// shared right operand (W @ x[n], Stan's matrix times each row's vector):
// the product is then a broadcast multiply summed over the inner axis, of
// vectors [K] and matrices [M, K] or [K, N].
func (b *builder) product(x, y value) value {
	if !y.batched {
		return value{node: ad.Matmul(x.node, y.node), batched: x.batched}
	}
	xs, ys := rowShape(x.node.Shape(), x.batched), rowShape(y.node.Shape(), y.batched)
	if len(xs) < 1 || len(xs) > 2 || len(ys) < 1 || len(ys) > 2 || xs[len(xs)-1] != ys[0] {
		return value{node: b.g.Fail(nil, "matrix product of %s and %s: the inner dimensions must agree, of vectors or matrices", shapeString(xs), shapeString(ys))}
	}
	n, _ := b.together(x, y)
	k, lm, rn := ys[0], xs[:len(xs)-1], ys[1:]
	xe := append(append(append([]int{b.batch}, lm...), k), ones(len(rn))...)
	ye := append(append(append([]int{b.batch}, ones(len(lm))...), k), rn...)
	return value{node: ad.Sum(ad.Mul(ad.Reshape(n[0], xe...), ad.Reshape(n[1], ye...)), 1+len(lm)), batched: true}
}

// identityMatrix is the k × k identity.
func identityMatrix(b *builder, k int) *ad.Node {
	v := make([]float64, k*k)
	for i := range k {
		v[i*k+i] = 1
	}
	return b.g.Const(ad.Shape{k, k}, v...)
}

// diagMatrix is the matrix with the vector v (or each row's) on its
// diagonal: v as a column times the identity.
func diagMatrix(b *builder, v *ad.Node) *ad.Node {
	s := v.Shape()
	k := s[len(s)-1]
	return ad.Mul(ad.Reshape(v, append(s, 1)...), identityMatrix(b, k))
}

// addDiag is add_diag(A, d): A plus d on its diagonal, d a scalar or a
// vector as long as the diagonal.
func addDiag(b *builder, a []value) value {
	m, d := a[0], a[1]
	if !b.squareMatrix("add_diag", m) {
		return value{node: b.g.Placeholder(nil)}
	}
	k := rowShape(m.node.Shape(), m.batched)[0]
	var diag value
	switch ds := rowShape(d.node.Shape(), d.batched); {
	case len(ds) == 0:
		n := b.align([]value{{node: identityMatrix(b, k)}, d})
		diag = value{node: ad.Mul(n[0], n[1]), batched: d.batched}
	case len(ds) == 1 && ds[0] == k:
		diag = value{node: diagMatrix(b, d.node), batched: d.batched}
	default:
		return value{node: b.g.Fail(nil, "add_diag of a matrix [%d, %d] takes a scalar or a vector [%d] to add, and this has shape %s", k, k, k, shapeString(ds))}
	}
	n := b.align([]value{m, diag})
	return value{node: ad.Add(n[0], n[1]), batched: m.batched || d.batched}
}

// mdivideLeftTriLow is L⁻¹ b of the lower triangle of L.
func mdivideLeftTriLow(b *builder, a []value) value {
	l, rhs := a[0], a[1]
	if !b.squareMatrix("mdivide_left_tri_low", l) {
		return value{node: b.g.Placeholder(nil)}
	}
	k := rowShape(l.node.Shape(), l.batched)[0]
	if rs := rowShape(rhs.node.Shape(), rhs.batched); len(rs) < 1 || len(rs) > 2 || rs[0] != k {
		return value{node: b.g.Fail(nil, "mdivide_left_tri_low of L [%d, %d] takes b a vector [%d] or a matrix [%d, N], and this has shape %s", k, k, k, k, shapeString(rs))}
	}
	n, batched := b.together(l, rhs)
	return value{node: ad.MdivideLeftTriLow(n[0], n[1]), batched: batched}
}

// gpExpQuadCov is Stan's exponentiated quadratic kernel α² exp(-|x_i -
// x_j|²/(2ρ²)) over the points of x: the reals of a vector [N], or the
// rows of a matrix [N, D] (Stan's array of vectors); and, called with two
// sets of points (x1, x2, alpha, rho), the N1 × N2 cross-covariance
// between x1's points and x2's, both vectors or both matrices of the same
// D, for predictions at new points. Built of elementwise ops, it has
// gradients in every argument, the points included.
func gpExpQuadCov(b *builder, a []value) value {
	pts := a[:len(a)-2]
	names := []string{"x"}
	if len(pts) == 2 {
		names = []string{"x1", "x2"}
	}
	shapes := make([][]int, len(pts))
	for i, x := range pts {
		shapes[i] = rowShape(x.node.Shape(), x.batched)
		if len(shapes[i]) < 1 || len(shapes[i]) > 2 {
			return b.shapeFail("gp_exp_quad_cov takes points "+names[i]+", a vector [N] or a matrix [N, D] of N points, and this has shape %s", x)
		}
	}
	if len(pts) == 2 && (len(shapes[0]) != len(shapes[1]) || len(shapes[0]) == 2 && shapes[0][1] != shapes[1][1]) {
		return value{node: b.g.Fail(nil, "gp_exp_quad_cov takes points x1 and x2 of one dimension, two vectors or two matrices [N1, D] and [N2, D], and these have shapes %s and %s",
			shapeString(shapes[0]), shapeString(shapes[1]))}
	}
	for i, name := range []string{"alpha", "rho"} {
		if a[len(pts)+i].rowRank() != 0 {
			return b.shapeFail("gp_exp_quad_cov takes a scalar "+name+", and this has shape %s", a[len(pts)+i])
		}
	}
	nodes, batched := b.together(pts...)
	x1, x2 := nodes[0], nodes[len(nodes)-1]
	xs := shapes[0]
	lead := x1.Shape()[:len(x1.Shape())-len(xs)]
	n1, n2 := xs[0], shapes[len(shapes)-1][0]
	at := func(x *ad.Node, dims ...int) *ad.Node {
		return ad.Reshape(x, append(append([]int(nil), lead...), dims...)...)
	}
	var sq *ad.Node // [..., N1, N2]: the squared distances
	if len(xs) == 1 {
		sq = ad.Square(ad.Sub(at(x1, n1, 1), at(x2, 1, n2)))
	} else {
		d := xs[1]
		sq = ad.Sum(ad.Square(ad.Sub(at(x1, n1, 1, d), at(x2, 1, n2, d))), -1)
	}
	vals := []value{{node: sq, batched: batched}, a[len(pts)], a[len(pts)+1]}
	aligned := b.align(vals)
	alpha, rho := aligned[1], aligned[2]
	scaled := ad.Div(ad.Mul(aligned[0], b.g.Scalar(-0.5)), ad.Square(rho))
	return value{node: ad.Mul(ad.Square(alpha), ad.Exp(scaled)), batched: anyBatched(vals)}
}

// quadForm is quad_form(A, B) = Bᵀ A B, a scalar for a vector B.
func quadForm(b *builder, a []value) value {
	m, v := a[0], a[1]
	if !b.squareMatrix("quad_form", m) {
		return value{node: b.g.Placeholder(nil)}
	}
	k := rowShape(m.node.Shape(), m.batched)[0]
	vs := rowShape(v.node.Shape(), v.batched)
	if len(vs) < 1 || len(vs) > 2 || vs[0] != k {
		return value{node: b.g.Fail(nil, "quad_form of A [%d, %d] takes B a vector [%d] or a matrix [%d, N], and this has shape %s", k, k, k, k, shapeString(vs))}
	}
	col := v
	if len(vs) == 1 {
		col = reshapeRow(v, k, 1)
	}
	out := b.product(b.transposed(col), b.product(m, col))
	if len(vs) == 1 {
		return reshapeRow(out)
	}
	return out
}

// appendArrays is append_col or append_row, with Stan's combinations of
// scalars, vectors and matrices.
func (b *builder) appendArrays(name string, a []value) value {
	x, y := a[0], a[1]
	xs, ys := rowShape(x.node.Shape(), x.batched), rowShape(y.node.Shape(), y.batched)
	fail := func(why string) value {
		return value{node: b.g.Fail(nil, "%s of %s and %s: %s", name, shapeString(xs), shapeString(ys), why)}
	}
	var axis int // of one row's value, after the reshapes
	switch rx, ry := len(xs), len(ys); {
	case rx > 2 || ry > 2 || (rx == 0 && ry == 0) || (rx == 0 && ry == 2) || (rx == 2 && ry == 0):
		return fail("it takes vectors and matrices, or a scalar and a vector (a vector of scalars is a literal: [a, b])")
	case rx <= 1 && ry <= 1 && (name == "append_row" || rx == 0 || ry == 0):
		// Vectors end to end (a scalar is one entry): append_row's
		// vectors, and append_col's row vector with a scalar.
		if rx == 0 {
			x = reshapeRow(x, 1)
		}
		if ry == 0 {
			y = reshapeRow(y, 1)
		}
		axis = 0
	case name == "append_col":
		// A vector is a column [M, 1]; the rows must agree.
		if rx == 1 {
			x = reshapeRow(x, xs[0], 1)
		}
		if ry == 1 {
			y = reshapeRow(y, ys[0], 1)
		}
		if rowShape(x.node.Shape(), x.batched)[0] != rowShape(y.node.Shape(), y.batched)[0] {
			return fail("the numbers of rows differ (a vector is a column)")
		}
		axis = 1
	default: // append_row with a matrix: a vector is a row [1, N]
		if rx == 1 {
			x = reshapeRow(x, 1, xs[0])
		}
		if ry == 1 {
			y = reshapeRow(y, 1, ys[0])
		}
		if rowShape(x.node.Shape(), x.batched)[1] != rowShape(y.node.Shape(), y.batched)[1] {
			return fail("the numbers of columns differ (a vector is a row)")
		}
	}
	n, batched := b.together(x, y)
	if batched {
		axis++
	}
	return value{node: ad.Concat(axis, n[0], n[1]), batched: batched}
}

// columnMajor is Stan's to_vector: one row's vector as it is, a matrix's
// elements column by column.
func (b *builder) columnMajor(v value) value {
	if v.rowRank() == 2 {
		v = b.transposed(v)
	}
	return reshapeRow(v, -1)
}

// repVector is rep_vector(x, n): n copies of the scalar x.
func repVector(b *builder, a []value, s []int) value {
	n := s[0]
	if n < 1 {
		return value{node: b.g.Fail(nil, "rep_vector needs a length n of at least 1, got %d", n)}
	}
	if a[0].rowRank() != 0 {
		return b.shapeFail("rep_vector takes a scalar x, and this has shape %s", a[0])
	}
	return broadcastRow(b, a[0], n)
}

// broadcastRow repeats one row's value of v to the row shape s (v's shape
// padded with leading ones).
func broadcastRow(b *builder, v value, s ...int) value {
	if !v.batched {
		return value{node: ad.BroadcastTo(v.node, s...)}
	}
	vs := v.node.Shape()
	padded := append(append([]int{vs[0]}, ones(len(s)-len(vs)+1)...), vs[1:]...)
	return value{node: ad.BroadcastTo(ad.Reshape(v.node, padded...), append([]int{vs[0]}, s...)...), batched: true}
}

// repMatrix is rep_matrix(x, m, n), the scalar x in every entry of an m ×
// n matrix, or rep_matrix(v, n), n columns each the vector v.
func repMatrix(b *builder, a []value, s []int) value {
	for _, d := range s {
		if d < 1 {
			return value{node: b.g.Fail(nil, "rep_matrix needs sizes of at least 1, got %d", d)}
		}
	}
	x := a[0]
	if len(s) == 2 {
		if x.rowRank() != 0 {
			return b.shapeFail("rep_matrix(x, m, n) takes a scalar x, and this has shape %s; rep_matrix(v, n) repeats a vector as n columns", x)
		}
		return broadcastRow(b, x, s[0], s[1])
	}
	if x.rowRank() != 1 {
		return b.shapeFail("rep_matrix(v, n) takes a vector v, and this has shape %s; rep_matrix(x, m, n) repeats a scalar", x)
	}
	m := rowShape(x.node.Shape(), x.batched)[0]
	return broadcastRow(b, reshapeRow(x, m, 1), m, s[0])
}

// toMatrix is to_matrix(A, m, n): the elements of a vector or matrix,
// taken column by column, as an m × n matrix filled column by column
// (Stan's column-major order); to_matrix(A) is A as a matrix, a vector
// being a column.
func toMatrix(b *builder, a []value, s []int) value {
	x := a[0]
	if x.rowRank() == 0 || x.rowRank() > 2 {
		return b.shapeFail("to_matrix takes a vector or a matrix, and this has shape %s", x)
	}
	xs := rowShape(x.node.Shape(), x.batched)
	switch len(s) {
	case 0:
		if len(xs) == 1 {
			return reshapeRow(x, xs[0], 1)
		}
		return x
	case 1:
		return value{node: b.g.Fail(nil, "to_matrix takes both sizes m and n, or neither")}
	}
	m, n := s[0], s[1]
	if m < 1 || n < 1 || m*n != sizeOf(xs) {
		return value{node: b.g.Fail(nil, "to_matrix of %s to %d × %d: the sizes must be at least 1 and hold its %d elements", shapeString(xs), m, n, sizeOf(xs))}
	}
	return b.transposed(reshapeRow(b.columnMajor(x), n, m))
}

// vectorSlice is segment(v, i, n): the n entries of one row's vector v
// from the i-th (1-based) on.
func (b *builder) vectorSlice(name string, v value, i, n int) value {
	if v.rowRank() != 1 {
		return b.shapeFail(name+" takes a vector, and this has shape %s", v)
	}
	length := rowShape(v.node.Shape(), v.batched)[0]
	if n < 1 || i < 1 || i+n-1 > length {
		return value{node: b.g.Fail(nil, "%s of a vector [%d]: entries %d to %d are not all in 1..%d", name, length, i, i+n-1, length)}
	}
	return value{node: ad.Slice(v.node, -1, i-1, i-1+n), batched: v.batched}
}
