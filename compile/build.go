package compile

import (
	"fmt"
	"math"
	"slices"
	"strings"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// value is a compiled expression. A batched value has a leading axis of one
// entry per minibatch row (the plate vectorised); its row shape is the rest.
type value struct {
	node    *ad.Node
	batched bool
	loc     *local // set for a local variable in a scope (node is nil): read it with localValue
}

func (v value) rowRank() int {
	if v.batched {
		return len(v.node.Shape()) - 1
	}
	return len(v.node.Shape())
}

// builder lowers the model (or predict) block to one graph for P replicas.
type builder struct {
	m       *Model
	n       int // rows of the observation axis
	g       *ad.Graph
	blocks  []paramBlock // θ's parameter blocks, one Param input each
	rows    *ad.Indices  // the minibatch; nil without a plate
	batch   int          // rows per minibatch (B)
	data    map[string]*ad.Node
	params  map[string]value
	scopes  []map[string]value
	plateIx string // the plate's index variable while inside it

	prior    []*ad.Node // scalar log-density terms: priors, Jacobians, global terms
	rowTerms []*ad.Node // [B] per-row log-likelihood terms

	predict *predictions        // set when lowering the predict block
	memo    map[lang.Expr]value // when set, each expression is lowered once

	full     *fullRows                 // set: plates run over all their rows (derived.go)
	rng      *rngSource                // set: the generated block's random stream
	onDefine func(*lang.Define, value) // set: called with each definition
	plateBy  string                    // the data scalar that sizes the current plate

	// Loops, ifs and functions (control.go).
	consts     map[string]float64            // the loop indices' values, and an inlined function's int parameters
	nested     int                           // inside a loop's, an if's or a function's body
	unrolled   int                           // the loop iterations so far
	inlining   int                           // functions being inlined
	ret        *value                        // the value an inlined function returned
	onLocal    func(*lang.LocalDecl, *local) // set: called with each local variable at a block's top level
	constElems bool                          // constReal may read data elements
	broken     bool                          // a break: the statements up to the innermost loop are skipped
	scalars    map[uint64]*ad.Node           // scalar constants by their bits (scalar)
	scan       *scanTrace                    // set while a loop's body is traced into a scan's step (scan.go)
	groupings  map[string]int                // the int data that index arrays by row (g in a[g[n]]), and the arrays' lengths

	err *lang.Error // the first error, positioned
}

// built is a graph of the energy with the nodes an evaluator reads.
type built struct {
	g       *ad.Graph
	blocks  []paramBlock
	rows    *ad.Indices
	energy  *ad.Node // U, one scalar per replica
	rowLL   *ad.Node // [B] per-row log-likelihoods, or nil without a plate
	params  []*ad.Node
	scale   float64 // N/B
	batch   int
	dataSet bool
	// groupings are the int data fields that index an array by the
	// plate's rows (g in a[g[n]]), with the number of groups each indexes.
	groupings map[string]int
}

// build lowers the model for P replicas and minibatches of batch rows
// (batch ≤ 0 or ≥ N: every row). With checkOnly, it only reports errors.
func (m *Model) build(replicas, batch int) (*built, error) {
	return m.buildFor(replicas, batch, false)
}

// buildFor is build, for the CPU alone where host is set: the graph may
// then hold ops no device has a kernel for (autodiff's SetHostOnly).
func (m *Model) buildFor(replicas, batch int, host bool) (*built, error) {
	b := m.newBuilder(replicas)
	if host {
		b.g.SetHostOnly()
	}
	if m.n > 0 {
		if batch <= 0 || batch > m.n {
			batch = m.n
		}
		b.batch = batch
		b.rows = b.g.Indices("minibatch", true, batch)
	}
	out := &built{g: b.g, rows: b.rows, batch: b.batch}
	for _, p := range m.params {
		v := b.param(p)
		if b.err != nil {
			return nil, lang.ErrorList{b.err}
		}
		b.params[p.decl.Name] = v
		out.params = append(out.params, v.node)
	}
	out.blocks = b.blocks
	b.transformParams()
	if m.file.Model != nil {
		b.stmts(m.file.Model.Stmts)
	}
	if b.err != nil {
		return nil, lang.ErrorList{b.err}
	}
	if m.part == priorPart { // the truncated priors' normalising constant
		b.prior = append(b.prior, b.g.Scalar(-m.power.logMass))
	}
	if m.part == logLikPart && len(b.prior) > 0 {
		return nil, errLogLikOutsidePlate
	}
	logp := b.g.Scalar(0)
	for _, t := range b.prior {
		logp = ad.Add(logp, t)
	}
	if len(b.rowTerms) > 0 {
		rowLL := b.rowTerms[0]
		for _, t := range b.rowTerms[1:] {
			rowLL = ad.Add(rowLL, t)
		}
		out.rowLL = rowLL
		out.scale = float64(m.n) / float64(b.batch)
		logp = ad.Add(logp, ad.Mul(b.g.Scalar(out.scale), ad.SumAll(rowLL)))
	}
	out.energy = ad.Neg(logp)
	out.groupings = b.groupings
	if err := b.g.Err(); err != nil {
		return nil, fmt.Errorf("internal error assembling the energy: %v", err)
	}
	return out, nil
}

// newBuilder starts a graph with the model's data as constants.
func (m *Model) newBuilder(replicas int) *builder {
	b := &builder{m: m, n: m.n, g: ad.NewGraph(replicas), data: map[string]*ad.Node{}, params: map[string]value{}, plateBy: m.plateBy}
	for name, v := range m.data {
		switch {
		case v.Stored != nil:
			b.data[name] = b.g.ConstStored(name, v.Shape, v.Stored)
		case isMapped(v.Values):
			b.data[name] = b.g.ConstMapped(name, v.Shape, v.Values)
		default:
			b.data[name] = b.g.ConstData(name, v.Shape, v.Values)
		}
	}
	b.scopes = []map[string]value{{}}
	b.consts = map[string]float64{}
	return b
}

// paramBlock is the Param input that holds one parameter's unconstrained
// values, θ[offset : offset+size] of each replica. One input per
// parameter, rather than one for θ cut by slices, lets the evaluator
// write each block where the graph reads it (converting to float32 on the
// way) and read its gradient where the graph leaves it, with no copy in
// the graph and no gradient of θ to clear and add into.
type paramBlock struct {
	node         *ad.Node
	offset, size int
}

// param declares the parameter's unconstrained values as a block of θ and
// applies its constraint, adding the log-Jacobian to the prior terms. A
// constrained type's block has the array's dimensions and then its free
// values ([J, K-1] for simplex[K][J]).
func (b *builder) param(p *param) value {
	d := p.decl
	u := b.g.Input("θ."+d.Name, ad.Param, p.thetaShape()...)
	b.blocks = append(b.blocks, paramBlock{node: u, offset: p.offset, size: p.size})
	t := d.Type
	var x, logJ *ad.Node
	switch {
	case p.kind != nil:
		x, logJ = p.kind.Apply(u, p.k)
	case t.Lower != nil && t.Upper != nil:
		lo, hi := b.bound(t.Lower), b.bound(t.Upper)
		x, logJ = stdlib.Interval(u, lo, hi)
	case t.Lower != nil:
		x, logJ = stdlib.LowerBound(u, b.bound(t.Lower))
	case t.Upper != nil:
		x, logJ = stdlib.UpperBound(u, b.bound(t.Upper))
	case t.Offset != nil || t.Multiplier != nil:
		offset, multiplier := b.g.Scalar(0), b.g.Scalar(1)
		if t.Offset != nil {
			offset = b.bound(t.Offset)
		}
		if t.Multiplier != nil {
			multiplier = b.bound(t.Multiplier)
		}
		x, logJ = stdlib.Affine(u, offset, multiplier)
	default:
		return value{node: u}
	}
	b.check(d.Type.Pos)
	if b.m.part != likelihoodPart && b.m.part != logLikPart {
		b.prior = append(b.prior, ad.SumAll(logJ))
	}
	return value{node: x}
}

// bound compiles a constraint bound: an expression of data and earlier
// parameters, with no plate.
func (b *builder) bound(e lang.Expr) *ad.Node {
	v := b.expr(e)
	if v.batched && b.err == nil {
		b.fail(e.Position(), "a bound cannot depend on the plate")
	}
	return v.node
}

func (b *builder) fail(pos lang.Pos, format string, args ...any) value {
	if b.err == nil {
		b.err = &lang.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	return value{node: b.g.Placeholder(nil)}
}

// check attributes a new graph error to pos: expressions are built inner
// first, so the innermost expression whose op failed gets the blame.
func (b *builder) check(pos lang.Pos) bool {
	if b.err != nil {
		return false
	}
	if err := b.g.Err(); err != nil {
		b.err = &lang.Error{Pos: pos, Msg: strings.TrimPrefix(err.Error(), "autodiff: ")}
		return false
	}
	return true
}

func (b *builder) lookup(name string) (value, bool) {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if v, ok := b.scopes[i][name]; ok {
			return v, true
		}
	}
	if v, ok := b.params[name]; ok {
		return v, true
	}
	if n, ok := b.data[name]; ok {
		return value{node: n}, true
	}
	if b.scan != nil {
		return b.scan.lookup(b, name)
	}
	return value{}, false
}

func (b *builder) stmts(list []lang.Stmt) {
	for _, s := range list {
		if b.err != nil || b.ret != nil || b.broken {
			return
		}
		switch s := s.(type) {
		case *lang.Define:
			if _, ok := b.lookupLocal(s.Name); ok { // an assignment to a local variable
				b.assign(&lang.Assign{Pos: s.Pos, Lhs: &lang.Ident{Pos: s.Pos, Name: s.Name}, Op: "=", Value: s.Value})
				continue
			}
			v := b.expr(s.Value)
			b.scopes[len(b.scopes)-1][s.Name] = v
			if b.nested > 0 {
				continue // a loop's, an if's or a function's: not reported
			}
			if b.predict != nil {
				b.predict.define(s, v)
			}
			if b.onDefine != nil && b.err == nil {
				b.onDefine(s, v)
			}
		case *lang.LocalDecl:
			l := b.localDecl(s)
			if l != nil && b.nested == 0 && b.onLocal != nil && b.err == nil {
				b.onLocal(s, l)
			}
		case *lang.Assign:
			b.assign(s)
		case *lang.For:
			b.forLoop(s)
		case *lang.If:
			b.ifStmt(s)
		case *lang.While:
			b.whileLoop(s)
		case *lang.Break:
			b.broken = true
		case *lang.Return:
			v := b.expr(s.Value)
			b.ret = &v
		case *lang.Sample:
			if !b.m.keeps(s) {
				continue
			}
			v := b.sample(s)
			if b.predict != nil {
				b.predict.sample(b, s, v)
				continue
			}
			b.addTerm(s.Pos, v)
		case *lang.TargetAdd:
			b.addTerm(s.Pos, b.expr(s.Value))
		case *lang.Plate:
			if b.plateIx != "" {
				b.fail(s.Pos, "nested plates are not supported")
				return
			}
			restore := func() {}
			if b.full != nil {
				restore = b.full.enterPlate(b, s)
			}
			b.plateIx = s.Index
			b.scopes = append(b.scopes, map[string]value{})
			b.stmts(s.Body)
			b.scopes = b.scopes[:len(b.scopes)-1]
			b.plateIx = ""
			restore()
		}
	}
}

// addTerm adds a log-density term: a batched one per row (summed over its
// row axes), an unbatched one once, or once per row inside a plate (a
// statement written for one row counts for each of the N rows).
func (b *builder) addTerm(pos lang.Pos, v value) {
	if b.err != nil {
		return
	}
	if v.batched {
		n := v.node
		if len(n.Shape()) > 1 {
			n = ad.Sum(ad.Reshape(n, b.batch, -1), 1)
		}
		b.rowTerms = append(b.rowTerms, n)
	} else {
		term := stdlib.SumAll(v.node) // fused with the density where stdlib can
		if b.plateIx != "" {
			term = ad.Mul(b.g.Scalar(float64(b.n)), term)
		}
		b.prior = append(b.prior, term)
	}
	b.check(pos)
}

// sample compiles lhs ~ dist(args) to its elementwise log density.
func (b *builder) sample(s *lang.Sample) value {
	dist, ok := stdlib.Lookup(s.Dist)
	if !ok {
		return b.fail(s.DistPos, "unknown distribution %q", s.Dist)
	}
	if len(s.Args)+1 != dist.Arity() {
		return b.fail(s.DistPos, "%s takes %d arguments (%s), got %d", s.Dist, dist.Arity()-1, strings.Join(dist.Args[1:], ", "), len(s.Args))
	}
	vals := []value{b.expr(s.Lhs)}
	for _, a := range s.Args {
		vals = append(vals, b.expr(a))
	}
	if b.err != nil {
		return value{}
	}
	var nodes []*ad.Node
	switch dist.Layout {
	case stdlib.Vector: // the density broadcasts the leading axes itself
		for _, v := range vals {
			nodes = append(nodes, v.node)
		}
	case stdlib.GLM:
		if nodes = b.glmArgs(s, vals); nodes == nil {
			return value{node: b.g.Placeholder(nil)}
		}
	default:
		nodes = b.align(vals)
	}
	out := value{node: dist.LogDensity(nodes...), batched: anyBatched(vals)}
	if s.Trunc != nil && b.check(s.DistPos) {
		out = b.truncate(s, vals, out)
	}
	if b.check(s.DistPos) && b.m.part == priorPart {
		b.checkPrior(s, vals[0].node, out.node)
	}
	return out
}

// checkPrior makes sure that a prior's density counts each value of its
// left side once, so that it is normalised (PowerParts): arguments of
// more values than the left side would count some twice.
func (b *builder) checkPrior(s *lang.Sample, lhs, density *ad.Node) {
	item := 1 // the values one density is of: a vector's, or a matrix's
	if rank := stdlib.VariateRank(s.Dist); rank > 0 {
		shape := lhs.Shape()
		if len(shape) >= rank {
			item = sizeOf(shape[len(shape)-rank:])
		}
	}
	if density.Size()*item != lhs.Size() {
		b.fail(s.Pos, "this prior has %d densities of %d values each for the %d values of %s on its left: its arguments broadcast beyond the left side, which counts some values more than once, so it is not a normalised prior (path = power): give the arguments the left side's shape",
			density.Size(), item, lhs.Size(), exprString(s.Lhs))
	}
}

func anyBatched(vs []value) bool {
	for _, v := range vs {
		if v.batched {
			return true
		}
	}
	return false
}

// align prepares operands for an elementwise op between row values: a
// batched operand [B, row...] whose row has fewer axes than another's gets
// axes of extent 1 after its batch axis, so that NumPy's right-aligned
// broadcasting pairs row axes with row axes and never the batch axis with a
// row axis.
func (b *builder) align(vs []value) []*ad.Node {
	rank := 0
	for _, v := range vs {
		rank = max(rank, v.rowRank())
	}
	return b.alignTo(vs, rank)
}

// alignTo is align to a given row rank, at least each operand's.
func (b *builder) alignTo(vs []value, rank int) []*ad.Node {
	nodes := make([]*ad.Node, len(vs))
	for i, v := range vs {
		nodes[i] = v.node
		if v.batched && v.rowRank() < rank {
			shape := v.node.Shape()
			padded := append([]int{shape[0]}, ones(rank-v.rowRank())...)
			nodes[i] = ad.Reshape(v.node, append(padded, shape[1:]...)...)
		}
	}
	return nodes
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func (b *builder) expr(e lang.Expr) value {
	if b.err != nil {
		return value{node: b.g.Placeholder(nil)}
	}
	if v, ok := b.memo[e]; ok && b.nested == 0 {
		return v
	}
	v := b.lower(e)
	if b.memo != nil && b.err == nil && b.nested == 0 {
		b.memo[e] = v
	}
	return v
}

func (b *builder) lower(e lang.Expr) value {
	var v value
	switch e := e.(type) {
	case *lang.Number:
		v = value{node: b.scalar(e.Value)}
	case *lang.Ident:
		if tr := b.scan; tr != nil && e.Name == tr.index && b.inlining == tr.inlining {
			return tr.indexValue(b)
		}
		if k, ok := b.consts[e.Name]; ok {
			return value{node: b.scalar(k)}
		}
		if e.Name == b.plateIx {
			return b.fail(e.Pos, "the plate index %s can only index data or parameters (as in X[%s])", e.Name, e.Name)
		}
		var ok bool
		if v, ok = b.lookup(e.Name); !ok {
			return b.fail(e.Pos, "unknown name %q", e.Name)
		}
		if v.loc != nil {
			if p := v.loc.proxy; p != nil && !b.scan.settle(b, p, e.Pos) {
				return value{node: b.g.Placeholder(nil)}
			}
			v = b.localValue(v.loc, e.Pos)
		}
	case *lang.Unary:
		x := b.expr(e.X)
		op := ad.Neg
		if e.Op == "!" {
			op = ad.Not
		}
		v = value{node: op(x.node), batched: x.batched}
	case *lang.Binary:
		v = b.binary(e)
	case *lang.Call:
		v = b.call(e)
	case *lang.Index:
		v = b.index(e)
	case *lang.Vector:
		v = b.vector(e)
	default:
		return b.fail(e.Position(), "this expression cannot be used in a model")
	}
	b.check(e.Position())
	return v
}

func (b *builder) binary(e *lang.Binary) value {
	l, r := b.expr(e.L), b.expr(e.R)
	if b.err != nil {
		return value{}
	}
	batched := l.batched || r.batched
	if e.Op == "@" {
		return b.product(l, r)
	}
	n := b.align([]value{l, r})
	op, ok := binaryOps[e.Op]
	if !ok {
		return b.fail(e.Pos, "unknown operator %q", e.Op)
	}
	return value{node: op(n[0], n[1]), batched: batched}
}

// binaryOps are the elementwise operators, all broadcasting. Comparisons
// and logic give 0 or 1, with no gradient.
var binaryOps = map[string]func(a, c *ad.Node) *ad.Node{
	"+": ad.Add, "-": ad.Sub, "*": ad.Mul, "/": ad.Div, "^": ad.Pow,
	"<": ad.Less, "<=": ad.LessEqual, ">": ad.Greater, ">=": ad.GreaterEqual,
	"==": ad.Equal, "!=": ad.NotEqual, "&&": ad.And, "||": ad.Or,
}

// index compiles x[i, j:k, ...]: indices are 1-based and slices inclusive,
// as in Stan. The plate index selects the minibatch's rows of the first axis.
func (b *builder) index(e *lang.Index) value {
	if id, ok := e.X.(*lang.Ident); ok {
		if v, ok := b.lookupLocal(id.Name); ok {
			if p := v.loc.proxy; p != nil {
				if out, handled := b.readProxy(p, e, id); handled {
					return out
				}
			}
			if out, ok := b.localIndex(v.loc, e, id.Pos); ok {
				return out
			}
		}
		if d, ok := b.m.data[id.Name]; ok && b.nested > 0 && len(e.Items) == len(d.Shape) && id.Name != b.plateIx {
			// An element of the data in a loop (y[t - 1]): a constant,
			// not an op on the whole array per iteration.
			if _, shadowed := b.lookupScopes(id.Name); !shadowed {
				if tr := b.scan; tr != nil {
					if v, ok := tr.dataElement(b, id.Name, d, e.Items); ok {
						return v
					}
				} else if x, err := b.dataElement(id.Name, d, e.Items); err == nil {
					return value{node: b.scalar(x)}
				}
			}
		}
	}
	x := b.expr(e.X)
	if b.err != nil {
		return value{}
	}
	node, batched := x.node, x.batched
	if tr := b.scan; tr != nil && len(e.Items) > 0 && !e.Items[0].Slice && !batched {
		b.constElems = true // z[t] in mu[z[t]]: a number of the step too
		_, hit, err := tr.tainted(b, e.Items[0].Lo)
		b.constElems = false
		if err == nil && hit {
			return b.dynamicRow(x, e, lang.StartPos(e.Items[0].Lo))
		}
	}
	axis := 0
	if batched {
		axis = 1
	}
	for k, it := range e.Items {
		if b.err != nil {
			return value{}
		}
		if id, ok := it.Lo.(*lang.Ident); ok && !it.Slice && id.Name == b.plateIx && b.plateIx != "" {
			if k != 0 || batched {
				return b.fail(it.Pos, "the plate index %s must be the first index of data or a parameter", id.Name)
			}
			if shape := node.Shape(); len(shape) == 0 || shape[0] != b.n {
				return b.fail(it.Pos, "indexing by the plate index %s needs a first dimension of %d (%s), this has shape %s",
					id.Name, b.n, b.plateBy, shapeString(shape))
			}
			if b.batch != b.n {
				node = ad.Gather(node, b.rows)
			} // else every row, in order (useAllRows, fullRows.setRows): the gather would copy the whole value
			batched, axis = true, 1
			continue
		}
		shape := node.Shape()
		if axis >= len(shape) {
			return b.fail(it.Pos, "too many indices for a value of shape %s", shapeString(rowShape(shape, batched)))
		}
		if !it.Slice {
			touched := b.scan != nil && b.scan.touched
			i, err := b.constInt(it.Lo)
			if b.scan != nil && err != nil {
				b.scan.touched = touched // not a constant: lowered as a value below, reading the index as a number of the step
			}
			if err != nil && isDataIndex(it.Lo) {
				if k != 0 || batched {
					return b.fail(it.Pos, "an index by data (%s) must be the first index of an array that does not depend on the plate", exprString(it.Lo))
				}
				idx := b.dataIndex(it.Lo, shape[0])
				if b.err != nil {
					return value{}
				}
				node = ad.TakeRows(node, ad.Sub(idx.node, b.g.Scalar(1)))
				batched, axis = idx.batched, len(idx.node.Shape())
				continue
			}
			if err != nil {
				return b.fail(it.Pos, "%v", err)
			}
			if i < 1 || i > shape[axis] {
				return b.fail(it.Pos, "index %d is out of range 1..%d", i, shape[axis])
			}
			node = ad.Index(node, axis, i-1)
			continue
		}
		lo, hi := 1, shape[axis]
		var err error
		if it.Lo != nil {
			if lo, err = b.constInt(it.Lo); err != nil {
				return b.fail(it.Pos, "%v", err)
			}
		}
		if it.Hi != nil {
			if hi, err = b.constInt(it.Hi); err != nil {
				return b.fail(it.Pos, "%v", err)
			}
		}
		if lo < 1 || hi > shape[axis] || lo > hi {
			return b.fail(it.Pos, "slice %d:%d is out of range 1..%d", lo, hi, shape[axis])
		}
		node = ad.Slice(node, axis, lo-1, hi)
		axis++
	}
	return value{node: node, batched: batched}
}

func rowShape(shape []int, batched bool) []int {
	if batched {
		return shape[1:]
	}
	return shape
}

// vector compiles a vector literal: of scalars, or of arrays of one shape
// (nested literals, a matrix's rows); in a plate, of each row's values
// ([x1[n], x2[n]], a row built from data columns).
func (b *builder) vector(e *lang.Vector) value {
	elems := make([]value, len(e.Elems))
	for i, el := range e.Elems {
		elems[i] = b.expr(el)
		if b.err != nil {
			return value{}
		}
		first, this := rowShape(elems[0].node.Shape(), elems[0].batched), rowShape(elems[i].node.Shape(), elems[i].batched)
		if !slices.Equal(first, this) {
			return b.fail(el.Position(), "the elements of a vector literal must have one shape, and this has shape %s after %s", shapeString(this), shapeString(first))
		}
	}
	parts, batched := b.together(elems...)
	axis := 0
	if batched {
		axis = 1
	}
	for i, p := range parts {
		s := p.Shape()
		parts[i] = ad.Reshape(p, append(append(s[:axis:axis], 1), s[axis:]...)...)
	}
	return value{node: ad.Concat(axis, parts...), batched: batched}
}

// isDataIndex reports whether e has the form of an index by data: an int
// data field, indexed by the plate index or constants (g[n], idx).
func isDataIndex(e lang.Expr) bool {
	switch e := e.(type) {
	case *lang.Ident:
		return true
	case *lang.Index:
		_, ok := e.X.(*lang.Ident)
		return ok
	}
	return false
}

// dataIndex compiles an index by data, g[n] or idx, into its values,
// having checked that every value the index can take (over all the rows
// of the data, not only a minibatch's) is an integer in 1..rows: a value
// outside is an error naming the field and element, at compile time.
func (b *builder) dataIndex(e lang.Expr, rows int) value {
	field, selected, ok := b.selectData(e)
	if !ok {
		return b.fail(lang.StartPos(e), "an index must be a constant, the plate index, or int data indexed by the plate index or constants (as in a[g[n]]), not %s", exprString(e))
	}
	v := b.m.data[field]
	if ix, ok := e.(*lang.Index); ok && len(v.Shape) == 1 && v.Shape[0] == b.n && len(ix.Items) == 1 && b.plateIx != "" {
		if id, ok := ix.Items[0].Lo.(*lang.Ident); ok && id.Name == b.plateIx {
			if b.groupings == nil {
				b.groupings = map[string]int{}
			}
			b.groupings[field] = max(b.groupings[field], rows)
		}
	}
	for _, i := range selected {
		x := v.At(i)
		if x != math.Trunc(x) || x < 1 || x > float64(rows) {
			return b.fail(lang.StartPos(e), "%s = %v in %s, which indexes an axis of %d: an index by data must be an integer in 1..%d",
				elementString(field, v.Shape, i), x, v.Source, rows, rows)
		}
	}
	return b.expr(e)
}

// selectData returns the data field an index by data reads and the flat
// positions of the elements it can select: every row for the plate index,
// the given position for a constant.
func (b *builder) selectData(e lang.Expr) (string, []int, bool) {
	id, items := (*lang.Ident)(nil), []lang.IndexItem(nil)
	switch e := e.(type) {
	case *lang.Ident:
		id = e
	case *lang.Index:
		id, _ = e.X.(*lang.Ident)
		items = e.Items
	}
	if id == nil || id.Name == b.plateIx {
		return "", nil, false
	}
	v, ok := b.m.data[id.Name]
	if !ok || len(items) > len(v.Shape) {
		return "", nil, false
	}
	want := make([]int, len(items)) // -1: any position (the plate index)
	for k, it := range items {
		if it.Slice {
			return "", nil, false
		}
		if pi, ok := it.Lo.(*lang.Ident); ok && pi.Name == b.plateIx && k == 0 {
			want[k] = -1
			continue
		}
		c, err := b.constInt(it.Lo)
		if err != nil || c < 1 || c > v.Shape[k] {
			return "", nil, false
		}
		want[k] = c - 1
	}
	var selected []int
	pos := make([]int, len(v.Shape))
	for i := range v.Len() {
		match := true
		for k, w := range want {
			match = match && (w < 0 || pos[k] == w)
		}
		if match {
			selected = append(selected, i)
		}
		for d := len(pos) - 1; d >= 0; d-- { // the next position, row-major
			if pos[d]++; pos[d] < v.Shape[d] {
				break
			}
			pos[d] = 0
		}
	}
	return id.Name, selected, true
}
