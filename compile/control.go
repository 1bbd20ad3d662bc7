package compile

import (
	"fmt"
	"math"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
)

// Local variables, loops, ifs and user-defined functions are lowered by
// unrolling: the builder runs a loop's body once per value of its index
// (known when the model is compiled), takes the branch of an if whose
// condition it computes from the data, and inlines a function's body at
// each call. Each element of a local variable is its own node, so that
// sigma[t] = f(sigma[t-1]) chains T small nodes, and the gradient, one
// reverse pass over them, costs O(T); the whole variable is stacked into
// one node where it is used whole.

// MaxUnrolled bounds the iterations the loops of one block unroll to, all
// loops together: each iteration adds nodes to the graph (GARCH's takes
// 30 µs to build, and the graph is built twice), so a million of them
// take about a minute, and more would take gigabytes to hold.
const MaxUnrolled = 1_000_000

// local is a local variable while its block is lowered.
type local struct {
	name  string
	shape []int
	// base is the flattened value of the last assignment to the whole
	// variable ([size], or [B, size] in a plate), or a nil node: none.
	base value
	// elems are the elements assigned since, one node each ([] or [B]);
	// a nil node reads base's element, or is unassigned without base.
	elems []value
	whole *value // the stacked value, until the next assignment
	// known is set while a scalar's value is known when the model is
	// compiled (assigned from numbers, data, loop indices and other known
	// locals), value holding it: a while loop's counter.
	known bool
	value float64
	// tainted is set while known holds a value computed from a scanned
	// loop's index; proxy is set on a scanned loop's view of a local
	// declared before it (scan.go).
	tainted bool
	proxy   *scanProxy
}

// track records whether a scalar local's assignment, op ("=" or "+="),
// gives it a value known when the model is compiled.
func (b *builder) track(l *local, op string, e lang.Expr) {
	if len(l.shape) != 0 {
		return
	}
	b.constElems = true
	var touched bool
	if b.scan != nil {
		touched, b.scan.touched = b.scan.touched, false
	}
	x, err := b.constReal(e)
	b.constElems = false
	if b.scan != nil {
		l.tainted = b.scan.touched
		b.scan.touched = touched
	}
	switch {
	case err != nil || (op == "+=" && !l.known):
		l.known = false
	case op == "+=":
		l.value += x
	default:
		l.known, l.value = true, x
	}
}

// localDecl declares a local variable and assigns its initial value.
func (b *builder) localDecl(st *lang.LocalDecl) *local {
	shape := make([]int, len(st.Type.Dims))
	size := 1
	for i, d := range st.Type.Dims {
		n, err := b.constInt(d)
		switch {
		case err != nil:
			b.fail(lang.StartPos(d), "%v", err)
			return nil
		case n < 1:
			b.fail(lang.StartPos(d), "dimension %d of %s is %d; dimensions must be at least 1", i+1, st.Name, n)
			return nil
		case n > MaxElements/size:
			b.fail(lang.StartPos(d), "%s holds more than %d values", st.Name, MaxElements)
			return nil
		}
		shape[i], size = n, size*n
	}
	l := &local{name: st.Name, shape: shape, elems: make([]value, size)}
	b.scopes[len(b.scopes)-1][st.Name] = value{loc: l}
	if st.Value != nil {
		b.track(l, "=", st.Value)
		b.assignWhole(l, b.expr(st.Value), lang.StartPos(st.Value))
	}
	return l
}

// assign lowers `lhs = value` or `lhs += value` to a local variable.
func (b *builder) assign(st *lang.Assign) {
	id, _ := st.Lhs.(*lang.Ident)
	var items []lang.IndexItem
	if ix, ok := st.Lhs.(*lang.Index); ok {
		id, _ = ix.X.(*lang.Ident)
		items = ix.Items
	}
	if id == nil {
		b.fail(st.Pos, "only a local variable or an element of one can be assigned")
		return
	}
	v, ok := b.lookupLocal(id.Name)
	if !ok {
		b.fail(id.Pos, "%s is not a local variable of this block: only those can be assigned", id.Name)
		return
	}
	l := v.loc
	if p := l.proxy; p != nil {
		if row, rest, seq := b.scan.seqIndex(b, p, items, true, id.Pos); seq {
			if b.err != nil {
				return
			}
			l, items = row, rest
		} else if !b.scan.settle(b, p, id.Pos) {
			return
		}
	}
	if len(items) == 0 {
		b.track(l, st.Op, st.Value)
	} else {
		l.known = false
	}
	rhs := b.expr(st.Value)
	if b.err != nil {
		return
	}
	if len(items) == 0 {
		if st.Op == "+=" {
			rhs = b.addValues(b.localValue(l, id.Pos), rhs, st.OpPos)
		}
		b.assignWhole(l, rhs, lang.StartPos(st.Value))
		return
	}
	off, sub, ok := b.localBlock(l, items)
	if !ok {
		return
	}
	if st.Op == "+=" {
		rhs = b.addValues(b.stackValues(b.readElems(l, off, sizeOf(sub), id.Pos), sub), rhs, st.OpPos)
	}
	b.assignElems(l, off, sub, rhs, lang.StartPos(st.Value))
}

// lookupLocal finds the local variable name in the scopes.
func (b *builder) lookupLocal(name string) (value, bool) {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if v, ok := b.scopes[i][name]; ok {
			return v, v.loc != nil
		}
	}
	if b.scan != nil {
		if p, ok := b.scan.proxy(b, name); ok {
			return value{loc: p.inner}, true
		}
	}
	return value{}, false
}

// addValues is l + r, aligned for a plate's rows.
func (b *builder) addValues(l, r value, pos lang.Pos) value {
	n := b.align([]value{l, r})
	v := value{node: ad.Add(n[0], n[1]), batched: l.batched || r.batched}
	b.check(pos)
	return v
}

// assignWhole sets every element of l to v, which must have l's shape or
// be a scalar.
func (b *builder) assignWhole(l *local, v value, pos lang.Pos) {
	node, ok := b.broadcastTo(v, l.shape, l.name, pos)
	if !ok {
		return
	}
	size := sizeOf(l.shape)
	if v.batched {
		node = ad.Reshape(node, b.batch, size)
	} else {
		node = ad.Reshape(node, size)
	}
	l.base = value{node: node, batched: v.batched}
	clear(l.elems)
	l.whole = nil
	b.check(pos)
}

// broadcastTo gives v the row shape shape (v's own, or a scalar's
// repeated).
func (b *builder) broadcastTo(v value, shape []int, name string, pos lang.Pos) (*ad.Node, bool) {
	row := rowShape(v.node.Shape(), v.batched)
	switch {
	case sameShape(row, shape):
		return v.node, true
	case len(row) == 0 || sizeOf(row) == 1:
		if v.batched {
			return ad.BroadcastTo(ad.Reshape(v.node, append([]int{b.batch}, ones(len(shape))...)...), append([]int{b.batch}, shape...)...), true
		}
		return ad.BroadcastTo(ad.Reshape(v.node, ones(len(shape))...), shape...), true
	}
	b.fail(pos, "%s has shape %s, and the value assigned has shape %s", name, shapeString(shape), shapeString(row))
	return nil, false
}

func sameShape(a, c []int) bool {
	if len(a) != len(c) {
		return false
	}
	for i := range a {
		if a[i] != c[i] {
			return false
		}
	}
	return true
}

// localBlock finds the elements that constant indices select: the flat
// offset of the first and the shape of the block (the axes not indexed).
func (b *builder) localBlock(l *local, items []lang.IndexItem) (int, []int, bool) {
	if len(items) > len(l.shape) {
		b.fail(items[0].Pos, "%s has %d dimensions, indexed with %d", l.name, len(l.shape), len(items))
		return 0, nil, false
	}
	off := 0
	for k, it := range items {
		if it.Slice {
			b.fail(it.Pos, "a slice of a local variable cannot be assigned: assign its elements in a loop")
			return 0, nil, false
		}
		i, err := b.constInt(it.Lo)
		if err != nil {
			b.fail(lang.StartPos(it.Lo), "an index of a local variable must be known when the model is compiled (numbers, data and loop indices): %v", err)
			return 0, nil, false
		}
		if i < 1 || i > l.shape[k] {
			b.fail(lang.StartPos(it.Lo), "index %d is out of range 1..%d", i, l.shape[k])
			return 0, nil, false
		}
		off = off*l.shape[k] + i - 1
	}
	sub := l.shape[len(items):]
	return off * sizeOf(sub), sub, true
}

// assignElems sets the elements [off, off+size of sub) of l to v, of
// shape sub or a scalar.
func (b *builder) assignElems(l *local, off int, sub []int, v value, pos lang.Pos) {
	n := sizeOf(sub)
	if n == 1 && v.rowRank() == 0 {
		l.elems[off] = v
		l.whole = nil
		return
	}
	node, ok := b.broadcastTo(v, sub, elementString(l.name, l.shape, off), pos)
	if !ok {
		return
	}
	axis := 0
	if v.batched {
		node, axis = ad.Reshape(node, b.batch, n), 1
	} else {
		node = ad.Reshape(node, n)
	}
	for j := range n {
		l.elems[off+j] = value{node: ad.Index(node, axis, j), batched: v.batched}
	}
	l.whole = nil
	b.check(pos)
}

// readElems returns the elements [off, off+n) of l, each assigned.
func (b *builder) readElems(l *local, off, n int, pos lang.Pos) []value {
	out := make([]value, n)
	for j := range n {
		i := off + j
		switch e := l.elems[i]; {
		case e.node != nil:
			out[j] = e
		case l.base.node == nil:
			b.fail(pos, "%s is read before it is assigned", elementString(l.name, l.shape, i))
			return nil
		default:
			axis := 0
			if l.base.batched {
				axis = 1
			}
			l.elems[i] = value{node: ad.Index(l.base.node, axis, i), batched: l.base.batched}
			out[j] = l.elems[i]
		}
	}
	return out
}

// localValue is the whole value of l.
func (b *builder) localValue(l *local, pos lang.Pos) value {
	if l.whole != nil {
		return *l.whole
	}
	var v value
	untouched := true
	for _, e := range l.elems {
		untouched = untouched && e.node == nil
	}
	switch {
	case untouched && l.base.node != nil:
		shape := l.shape
		if l.base.batched {
			shape = append([]int{b.batch}, shape...)
		}
		v = value{node: ad.Reshape(l.base.node, shape...), batched: l.base.batched}
	default:
		elems := b.readElems(l, 0, len(l.elems), pos)
		if b.err != nil {
			return value{node: b.g.Placeholder(nil)}
		}
		v = b.stackValues(elems, l.shape)
	}
	l.whole = &v
	return v
}

// stackValues makes one value of shape shape from its elements, each a
// scalar (a [B] column of a plate's rows when batched).
func (b *builder) stackValues(elems []value, shape []int) value {
	if elems == nil {
		return value{node: b.g.Placeholder(nil)}
	}
	batched := anyBatched(elems)
	if !batched {
		if len(elems) == 1 {
			return value{node: ad.Reshape(elems[0].node, shape...)}
		}
		parts := make([]*ad.Node, len(elems))
		for i, e := range elems {
			parts[i] = ad.Reshape(e.node, 1)
		}
		return value{node: ad.Reshape(ad.Concat(0, parts...), shape...)}
	}
	parts := make([]*ad.Node, len(elems))
	for i, e := range elems {
		if e.batched {
			parts[i] = ad.Reshape(e.node, b.batch, 1)
		} else {
			parts[i] = ad.BroadcastTo(ad.Reshape(e.node, 1, 1), b.batch, 1)
		}
	}
	node := parts[0]
	if len(parts) > 1 {
		node = ad.Concat(1, parts...)
	}
	return value{node: ad.Reshape(node, append([]int{b.batch}, shape...)...), batched: true}
}

// localIndex reads x[i, j, ...] of a local variable x by constant
// indices, element by element: sigma[t - 1] is the node assigned to it,
// not an index into the stacked variable. ok is false for other indices
// (slices, indices by data), which index the whole value.
func (b *builder) localIndex(l *local, e *lang.Index, pos lang.Pos) (value, bool) {
	if len(e.Items) > len(l.shape) {
		return value{}, false
	}
	for _, it := range e.Items {
		if it.Slice {
			return value{}, false
		}
		if _, err := b.constInt(it.Lo); err != nil {
			return value{}, false
		}
	}
	off, sub, ok := b.localBlock(l, e.Items)
	if !ok {
		return value{node: b.g.Placeholder(nil)}, true
	}
	elems := b.readElems(l, off, sizeOf(sub), pos)
	if b.err != nil {
		return value{node: b.g.Placeholder(nil)}, true
	}
	return b.stackValues(elems, sub), true
}

// forLoop unrolls `for i in lo:hi { body }`.
func (b *builder) forLoop(st *lang.For) {
	b.constElems = true
	lo, err := b.constInt(st.Lo)
	if err != nil {
		b.constElems = false
		b.fail(lang.StartPos(st.Lo), "the bounds of a loop must be known when the model is compiled: %v", err)
		return
	}
	hi, err := b.constInt(st.Hi)
	b.constElems = false
	if err != nil {
		b.fail(lang.StartPos(st.Hi), "the bounds of a loop must be known when the model is compiled: %v", err)
		return
	}
	if b.scanLoop(st, lo, hi) {
		return
	}
	if n := hi - lo + 1; n > 0 {
		if b.unrolled += n; b.unrolled > MaxUnrolled {
			b.fail(st.Pos, "the loops unroll to more than %d iterations: the graph would not fit in memory", MaxUnrolled)
			return
		}
	}
	b.nested++
	defer func() { b.nested--; delete(b.consts, st.Index) }()
	for t := lo; t <= hi && b.err == nil && b.ret == nil && !b.broken; t++ {
		b.consts[st.Index] = float64(t)
		b.scopes = append(b.scopes, map[string]value{})
		b.stmts(st.Body)
		b.scopes = b.scopes[:len(b.scopes)-1]
	}
	b.broken = false
}

// whileLoop unrolls `while cond { body }`: the condition is computed
// before each iteration, from values known when the model is compiled
// (a scalar local variable's among them, as the iterations before left
// it), and each iteration counts towards MaxUnrolled, which stops a loop
// whose condition never becomes false.
func (b *builder) whileLoop(st *lang.While) {
	b.nested++
	defer func() { b.nested--; b.broken = false }()
	for b.err == nil && b.ret == nil && !b.broken {
		b.constElems = true
		c, err := b.constReal(st.Cond)
		b.constElems = false
		if err != nil {
			b.fail(lang.StartPos(st.Cond), "the condition of a while loop must be known when the model is compiled: %v", err)
			return
		}
		if done := c == 0 || math.IsNaN(c); done {
			return
		}
		if b.unrolled++; b.unrolled > MaxUnrolled {
			b.fail(st.Pos, "the loops unroll to more than %d iterations: does this while loop's condition ever become false?", MaxUnrolled)
			return
		}
		b.scopes = append(b.scopes, map[string]value{})
		b.stmts(st.Body)
		b.scopes = b.scopes[:len(b.scopes)-1]
	}
}

// ifStmt lowers the branch of `if cond { ... } else { ... }` that the
// condition, computed now, chooses.
func (b *builder) ifStmt(st *lang.If) {
	b.constElems = true
	c, err := b.constReal(st.Cond)
	b.constElems = false
	if err != nil {
		b.fail(lang.StartPos(st.Cond), "the condition of an if must be known when the model is compiled: %v", err)
		return
	}
	branch := st.Then
	if c == 0 || math.IsNaN(c) {
		branch = st.Else
	}
	b.nested++
	b.scopes = append(b.scopes, map[string]value{})
	b.stmts(branch)
	b.scopes = b.scopes[:len(b.scopes)-1]
	b.nested--
}

// userCall inlines a call of a user-defined function: its body is lowered
// with its parameters bound to the arguments (an int parameter to the
// argument's value, known now), seeing nothing else of the program.
func (b *builder) userCall(e *lang.Call, f *lang.Function) value {
	if len(e.Args) != len(f.Params) {
		return b.fail(e.Pos, "%s takes %d arguments, got %d", f.Name, len(f.Params), len(e.Args))
	}
	if b.inlining > maxInlineDepth {
		return b.fail(e.Pos, "functions call each other more than %d deep", maxInlineDepth)
	}
	params := map[string]value{}
	consts := map[string]float64{}
	for i, p := range f.Params {
		a := e.Args[i]
		if p.Type.Int && p.Type.Rank == 0 {
			k, err := b.constInt(a)
			if err != nil {
				return b.fail(lang.StartPos(a), "argument %s of %s is an int, which must be known when the model is compiled: %v", p.Name, f.Name, err)
			}
			consts[p.Name] = float64(k)
			continue
		}
		v := b.expr(a)
		if b.err != nil {
			return value{}
		}
		if r := v.rowRank(); r != p.Type.Rank {
			return b.fail(lang.StartPos(a), "argument %s of %s must have %d dimensions (%s), and this has shape %s", p.Name, f.Name, p.Type.Rank, p.Type, shapeString(rowShape(v.node.Shape(), v.batched)))
		}
		params[p.Name] = v
	}
	saved := struct {
		scopes  []map[string]value
		consts  map[string]float64
		plateIx string
		ret     *value
	}{b.scopes, b.consts, b.plateIx, b.ret}
	b.scopes, b.consts, b.plateIx, b.ret = []map[string]value{params}, consts, "", nil
	b.nested++
	b.inlining++
	b.stmts(f.Body)
	b.inlining--
	b.nested--
	ret := b.ret
	b.scopes, b.consts, b.plateIx, b.ret = saved.scopes, saved.consts, saved.plateIx, saved.ret
	if b.err != nil {
		return value{node: b.g.Placeholder(nil)}
	}
	if ret == nil {
		return b.fail(e.Pos, "%s ended without returning a value", f.Name)
	}
	return *ret
}

// scalar is a constant scalar node, one per value in a graph: an
// unrolled loop reads the same numbers in every iteration.
func (b *builder) scalar(x float64) *ad.Node {
	if b.scalars == nil {
		b.scalars = map[uint64]*ad.Node{}
	}
	key := math.Float64bits(x)
	n, ok := b.scalars[key]
	if !ok {
		n = b.g.Scalar(x)
		b.scalars[key] = n
	}
	return n
}

// maxInlineDepth bounds nested inlining; the checker refuses recursion,
// so only a program built by hand could reach it.
const maxInlineDepth = 100

// constInt evaluates an integer expression of numbers, data scalars and
// loop indices (and a function's int parameters).
func (b *builder) constInt(e lang.Expr) (int, error) {
	v, err := b.constReal(e)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<40 {
		return 0, fmt.Errorf("%v is not an integer", v)
	}
	return int(v), nil
}

// constReal evaluates an expression that is known when the model is
// compiled: numbers, data (scalars, and elements by constant indices),
// loop indices, arithmetic, comparisons, logic and the functions of
// lang.ConstFunctions; data elements only while constElems is set (an
// if's condition, a loop's bounds), so that elsewhere an index by data
// stays one. Other expressions are Model.constReal's errors.
func (b *builder) constReal(e lang.Expr) (float64, error) {
	switch e := e.(type) {
	case *lang.Ident:
		if v, ok := b.consts[e.Name]; ok {
			if tr := b.scan; tr != nil && e.Name == tr.index && b.inlining == tr.inlining {
				tr.touched = true
			}
			return v, nil
		}
		if v, ok := b.lookupLocal(e.Name); ok {
			if v.loc.known {
				if v.loc.tainted && b.scan != nil {
					b.scan.touched = true
				}
				return v.loc.value, nil
			}
			return 0, fmt.Errorf("%s is not known when the model is compiled (its value depends on the parameters, or is not a scalar)", e.Name)
		}
		if _, ok := b.lookup(e.Name); ok && b.m.data[e.Name] == nil {
			return 0, fmt.Errorf("%s is not known when the model is compiled", e.Name)
		}
	case *lang.Index:
		if id, ok := e.X.(*lang.Ident); ok && b.constElems {
			if v, isData := b.m.data[id.Name]; isData && len(e.Items) == len(v.Shape) {
				if _, shadowed := b.lookupScopes(id.Name); !shadowed {
					return b.dataElement(id.Name, v, e.Items)
				}
			}
		}
	case *lang.Unary:
		x, err := b.constReal(e.X)
		if e.Op == "!" {
			return boolFloat(x == 0), err
		}
		return -x, err
	case *lang.Binary:
		l, err := b.constReal(e.L)
		if err != nil {
			return 0, err
		}
		r, err := b.constReal(e.R)
		if err != nil {
			return 0, err
		}
		if v, ok := constArith(e.Op, l, r); ok {
			return v, nil
		}
	case *lang.Call:
		if f, ok := constCalls[e.Func]; ok && len(e.Args) == 1 {
			x, err := b.constReal(e.Args[0])
			return f(x), err
		}
	}
	return b.m.constReal(e)
}

// constCalls are lang.ConstFunctions, on numbers.
var constCalls = map[string]func(float64) float64{
	"abs": math.Abs, "fabs": math.Abs, "exp": math.Exp, "log": math.Log, "sqrt": math.Sqrt,
	"square": func(x float64) float64 { return x * x },
}

func boolFloat(c bool) float64 {
	if c {
		return 1
	}
	return 0
}

// lookupScopes finds name in the builder's scopes alone (not the
// parameters or data).
func (b *builder) lookupScopes(name string) (value, bool) {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if v, ok := b.scopes[i][name]; ok {
			return v, true
		}
	}
	if tr := b.scan; tr != nil && b.inlining == tr.inlining {
		return tr.outer.lookupScopes(name)
	}
	return value{}, false
}

// dataElement is the element of a data field that constant indices
// select.
func (b *builder) dataElement(name string, v *Value, items []lang.IndexItem) (float64, error) {
	flat := 0
	for k, it := range items {
		if it.Slice {
			return 0, fmt.Errorf("a slice of %s is not one value", name)
		}
		i, err := b.constInt(it.Lo)
		if err != nil {
			return 0, err
		}
		if i < 1 || i > v.Shape[k] {
			return 0, fmt.Errorf("index %d of %s is out of range 1..%d", i, name, v.Shape[k])
		}
		flat = flat*v.Shape[k] + i - 1
	}
	return v.At(flat), nil
}
