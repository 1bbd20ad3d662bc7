package compile

import (
	"fmt"
	"maps"
	"slices"
	"sync/atomic"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
)

// A long loop whose body does the same thing at every step is lowered as
// one scan op (autodiff/scan.go) rather than unrolled: its body is lowered
// once, into a graph of its own, and the op runs that graph once per
// iteration, forward and then backward over the steps. The graph of a
// GARCH or HMM likelihood over 10,000 time points is then a few dozen
// nodes, built in milliseconds, and a gradient reads only the step's small
// graph, which stays in cache.
//
// The body is traced once, with the index at its first value, and what
// depends on the index is found as it is lowered: every place that reads
// the index while lowering (a data element y[t - 1], an element of a
// parameter eta[t], a row of a local variable sigma[t - 1], the index as a
// number) becomes an input of the step whose value the op sets at each
// step, from a table computed when the model is compiled. Anything else
// that reads the index (a condition, a loop bound, a size) makes the body
// differ from step to step, and the loop is unrolled as before.
//
// The local variables declared before the loop that the body uses are of
// three kinds, told by how the body uses them:
//   - read only: loop-invariant inputs of the step;
//   - assigned whole, or at indices that do not depend on the loop's
//     index (la = next, acc[j] = ...): state carried from step to step;
//   - read and written at the loop's index minus a constant (sigma[t] =
//     f(sigma[t - 1]), gamma[t, k]): sequences, whose row t the step writes
//     and whose rows t - k it reads, k ≥ 1.
//
// A loop is unrolled instead (with the same results) when it runs fewer
// than scanMinSteps iterations, sits in a plate, a function, the generated
// or predict block, or another scanned loop, breaks or returns, uses a
// variable in a way the three kinds do not cover, or reads a row of a
// sequence that was not assigned before the loop. Unrolling also gives
// the errors of a body that is wrong, positioned as before.

// scanMinSteps is the fewest iterations a loop is scanned at: below it
// the unrolled graph is small and its gradient cheaper (the scan runs its
// step's forward pass twice).
var scanMinSteps = 100

// scanTrace is the state of a loop body's trace, set on the builder that
// lowers the body into the step's graph.
type scanTrace struct {
	outer     *builder
	index     string // the loop's index
	lo, steps int
	inlining  int // the builder's inlining when the trace began

	touched bool     // constReal read the index since the last handled site
	abort   bool     // the body cannot be scanned
	writes  []string // the outer locals the body assigns

	stepIn  []*ad.Node // the step's numbers
	recipes []func(s int) (float64, error)
	indexIn *ad.Node // the index as a number, or nil

	imports  map[*ad.Node]*ad.Node // outer nodes and their inputs or constants in the step's graph
	invIn    []*ad.Node
	invOut   []*ad.Node
	proxies  map[string]*scanProxy
	proxyOrd []*scanProxy
}

type proxyMode int

const (
	modeUnset proxyMode = iota
	modeInvariant
	modeState
	modeSeq
)

// scanProxy is an outer local variable as the step sees it.
type scanProxy struct {
	name     string
	outer    *local
	inner    *local // the variable in the step (invariant, state), or row t of it (sequence)
	mode     proxyMode
	assigned bool // the body assigns it
	carryIn  *ad.Node
	init     *ad.Node         // state: its value before the loop (outer)
	lags     map[int]*local   // sequence: row t - k, an input of the step
	lagIn    map[int]*ad.Node // and its input node
}

// scanLoop lowers `for index in lo:hi { body }` as a scan, or reports
// false, having changed nothing, when the loop must be unrolled.
func (b *builder) scanLoop(st *lang.For, lo, hi int) bool {
	steps := hi - lo + 1
	if steps < scanMinSteps || b.scan != nil || b.plateIx != "" || b.rng != nil || b.predict != nil || b.inlining > 0 {
		return false
	}
	writes, ok := scannableBody(st.Index, st.Body, false)
	if !ok {
		return false
	}
	tr := &scanTrace{outer: b, index: st.Index, lo: lo, steps: steps, writes: writes,
		imports: map[*ad.Node]*ad.Node{}, proxies: map[string]*scanProxy{}}
	ib := &builder{m: b.m, g: ad.NewGraph(1), data: map[string]*ad.Node{}, params: map[string]value{},
		plateBy: b.plateBy, scan: tr, consts: maps.Clone(b.consts), nested: b.nested + 1}
	if ib.consts == nil {
		ib.consts = map[string]float64{}
	}
	ib.consts[st.Index] = float64(lo)
	ib.scopes = []map[string]value{{}}
	ib.stmts(st.Body)
	if ib.err != nil || tr.abort || tr.touched || ib.broken || ib.ret != nil || len(ib.rowTerms) > 0 {
		return false
	}
	body := ad.ScanBody{Graph: ib.g, Steps: steps, StepIn: tr.stepIn}
	if len(ib.prior) > 0 {
		t := ib.prior[0]
		for _, p := range ib.prior[1:] {
			t = ad.Add(t, p)
		}
		body.Target = t
	}
	// The table of the step's numbers, and the rows the op returns, within
	// the bound on one value's elements.
	perStep := len(tr.recipes)
	for _, p := range tr.proxyOrd {
		if p.mode == modeSeq {
			perStep += sizeOf(p.outer.shape[1:])
		}
	}
	if steps > MaxElements/max(1, perStep) {
		return false
	}
	body.Table = make([]float64, steps*len(tr.recipes))
	for s := range steps {
		for i, r := range tr.recipes {
			v, err := r(s)
			if err != nil {
				return false // out of range at some step: the unrolled loop says where
			}
			body.Table[s*len(tr.recipes)+i] = v
		}
	}
	// The carries and sequences, checked before anything is added to the
	// outer graph.
	type seqPlan struct {
		p     *scanProxy
		row   int
		lags  []int
		kmax  int
		out   *ad.Node
		inner []*ad.Node
	}
	type carryPlan struct {
		p   *scanProxy
		out *ad.Node
	}
	var seqs []seqPlan
	var carries []carryPlan
	for _, p := range tr.proxyOrd {
		switch p.mode {
		case modeState:
			v := ib.localValue(p.inner, st.Pos)
			if ib.err != nil {
				return false
			}
			carries = append(carries, carryPlan{p, ad.Reshape(v.node, sizeOf(p.outer.shape))})
		case modeSeq:
			v := ib.localValue(p.inner, st.Pos)
			if ib.err != nil {
				return false
			}
			row := sizeOf(p.outer.shape[1:])
			sp := seqPlan{p: p, row: row, out: ad.Reshape(v.node, row)}
			for k := range p.lagIn {
				sp.lags = append(sp.lags, k)
			}
			slices.Sort(sp.lags)
			for _, k := range sp.lags {
				sp.inner = append(sp.inner, p.lagIn[k])
				sp.kmax = max(sp.kmax, k)
			}
			n := p.outer.shape[0]
			if lo-sp.kmax < 1 || hi > n || !assignedRows(p.outer, 1, lo-1, row) || !assignedRows(p.outer, hi+1, n, row) {
				return false
			}
			seqs = append(seqs, sp)
		}
	}
	if err := ib.g.Err(); err != nil {
		return false
	}
	// The outer graph: the inits, the op, and what the loop leaves.
	body.Invariant, body.Outer = tr.invIn, tr.invOut
	for _, c := range carries {
		body.Carries = append(body.Carries, ad.ScanCarry{In: c.p.carryIn, Out: c.out, Init: c.p.init})
	}
	for _, sp := range seqs {
		q := ad.ScanSeq{Out: sp.out, Lags: sp.lags, LagIn: sp.inner}
		if sp.kmax > 0 {
			q.Init = b.rowsValue(sp.p.outer, lo-sp.kmax, lo-1, sp.row, st.Pos)
		}
		body.Seqs = append(body.Seqs, q)
	}
	out := ad.Scan(b.g, body)
	if !b.check(st.Pos) {
		return true
	}
	if body.Target != nil {
		b.prior = append(b.prior, ad.Index(out, 0, 0))
	}
	off := 1
	for _, c := range carries {
		size := sizeOf(c.p.outer.shape)
		b.assignWhole(c.p.outer, value{node: ad.Reshape(ad.Slice(out, 0, off, off+size), c.p.outer.shape...)}, st.Pos)
		c.p.outer.known = false
		off += size
	}
	for _, sp := range seqs {
		l, n := sp.p.outer, sp.p.outer.shape[0]
		parts := []*ad.Node{}
		if lo > 1 {
			parts = append(parts, b.rowsValue(l, 1, lo-1, sp.row, st.Pos))
		}
		parts = append(parts, ad.Slice(out, 0, off, off+steps*sp.row))
		if hi < n {
			parts = append(parts, b.rowsValue(l, hi+1, n, sp.row, st.Pos))
		}
		whole := parts[0]
		if len(parts) > 1 {
			whole = ad.Concat(0, parts...)
		}
		l.base = value{node: whole}
		clear(l.elems)
		l.whole = nil
		l.known = false
		off += steps * sp.row
	}
	b.unrolled += ib.unrolled
	b.check(st.Pos)
	scansBuilt.Add(1)
	return true
}

// scansBuilt counts the scans lowered, for tests.
var scansBuilt atomic.Int64

// scannableBody reports whether a loop's body may be traced (no break or
// return out of it, no plate, no loop that reuses its index) and lists the
// names it assigns.
func scannableBody(index string, body []lang.Stmt, inLoop bool) ([]string, bool) {
	var names []string
	for _, s := range body {
		switch s := s.(type) {
		case *lang.Assign:
			id, _ := s.Lhs.(*lang.Ident)
			if ix, ok := s.Lhs.(*lang.Index); ok {
				id, _ = ix.X.(*lang.Ident)
			}
			if id != nil {
				names = append(names, id.Name)
			}
		case *lang.Define:
			names = append(names, s.Name)
		case *lang.Break:
			if !inLoop {
				return nil, false
			}
		case *lang.Return, *lang.Plate:
			return nil, false
		case *lang.For:
			if s.Index == index {
				return nil, false
			}
			n, ok := scannableBody(index, s.Body, true)
			if !ok {
				return nil, false
			}
			names = append(names, n...)
		case *lang.While:
			n, ok := scannableBody(index, s.Body, true)
			if !ok {
				return nil, false
			}
			names = append(names, n...)
		case *lang.If:
			for _, br := range [][]lang.Stmt{s.Then, s.Else} {
				n, ok := scannableBody(index, br, inLoop)
				if !ok {
					return nil, false
				}
				names = append(names, n...)
			}
		}
	}
	return names, true
}

// assignedRows reports whether every element of rows lo..hi (1-based) of
// a local whose rows hold row elements is assigned.
func assignedRows(l *local, lo, hi, row int) bool {
	if l.base.node != nil {
		return true
	}
	for i := (lo - 1) * row; i < hi*row; i++ {
		if l.elems[i].node == nil {
			return false
		}
	}
	return true
}

// rowsValue is rows lo..hi of a local, flattened.
func (b *builder) rowsValue(l *local, lo, hi, row int, pos lang.Pos) *ad.Node {
	n := (hi - lo + 1) * row
	return ad.Reshape(b.stackValues(b.readElems(l, (lo-1)*row, n, pos), []int{n}).node, n)
}

// fail marks the trace as not scannable; the builder stops lowering.
func (tr *scanTrace) fail(b *builder, pos lang.Pos, why string) value {
	tr.abort = true
	return b.fail(pos, "internal: this loop cannot be scanned: %s", why)
}

// step adds a number of the step, its value at step s given by r.
func (tr *scanTrace) step(b *builder, r func(s int) (float64, error)) *ad.Node {
	n := b.g.Input(fmt.Sprintf("scan.step%d", len(tr.stepIn)), ad.Data)
	tr.stepIn = append(tr.stepIn, n)
	tr.recipes = append(tr.recipes, r)
	return n
}

// indexValue is the loop's index as a number of the step.
func (tr *scanTrace) indexValue(b *builder) value {
	if tr.indexIn == nil {
		lo := tr.lo
		tr.indexIn = tr.step(b, func(s int) (float64, error) { return float64(lo + s), nil })
	}
	return value{node: tr.indexIn}
}

// atStep evaluates f with the index at its value at step s, the other
// constants as they are now (the indices of the loops inside the body).
func (tr *scanTrace) atStep(b *builder, f func() (float64, error)) func(s int) (float64, error) {
	snap := maps.Clone(b.consts)
	return func(s int) (float64, error) {
		saved := b.consts
		snap[tr.index] = float64(tr.lo + s)
		b.consts = snap
		defer func() { b.consts = saved }()
		return f()
	}
}

// tainted evaluates an int expression and reports whether it read the
// loop's index, consuming the read.
func (tr *scanTrace) tainted(b *builder, e lang.Expr) (int, bool, error) {
	saved := tr.touched
	tr.touched = false
	i, err := b.constInt(e)
	hit := tr.touched
	tr.touched = saved
	return i, hit, err
}

// lag is the constant k of an index expression t - k (the value at the
// index's first value and the next must differ by one), or false.
func (tr *scanTrace) lag(b *builder, e lang.Expr, i0 int) (int, bool) {
	b.consts[tr.index]++
	i1, _, err := tr.tainted(b, e)
	b.consts[tr.index]--
	if err != nil || i1-i0 != 1 {
		return 0, false
	}
	return tr.lo - i0, true
}

// importValue is an outer value in the step's graph: a constant, or an
// input that takes the outer node's value at every step.
func (tr *scanTrace) importValue(b *builder, name string, v value, pos lang.Pos) (value, bool) {
	if v.batched {
		tr.fail(b, pos, name+" depends on a plate's row")
		return value{}, false
	}
	if in, ok := tr.imports[v.node]; ok {
		return value{node: in}, true
	}
	var in *ad.Node
	switch c := v.node.ConstValues(); {
	case c != nil:
		in = b.g.Const(v.node.Shape(), c...)
	case v.node.Replicated():
		in = b.g.Input(name, ad.Param, v.node.Shape()...)
	default: // data, or computed from data: no gradient
		in = b.g.Input(name, ad.Data, v.node.Shape()...)
	}
	if v.node.ConstValues() == nil {
		tr.invIn, tr.invOut = append(tr.invIn, in), append(tr.invOut, v.node)
	}
	tr.imports[v.node] = in
	return value{node: in}, true
}

// lookup resolves a name the body's scopes do not hold: an outer local
// variable (as a proxy), or another outer value, imported.
func (tr *scanTrace) lookup(b *builder, name string) (value, bool) {
	if b.inlining > tr.inlining { // a function's body sees its parameters alone
		if v, ok := tr.outer.params[name]; ok {
			return tr.importValue(b, name, v, lang.Pos{})
		}
		if n, ok := tr.outer.data[name]; ok {
			return tr.importValue(b, name, value{node: n}, lang.Pos{})
		}
		return value{}, false
	}
	if p, ok := tr.proxy(b, name); ok {
		return value{loc: p.inner}, true
	}
	v, ok := tr.outer.lookup(name)
	if !ok || v.loc != nil {
		return value{}, ok
	}
	return tr.importValue(b, name, v, lang.Pos{})
}

// proxy is the step's view of the outer local variable name, made at the
// first use.
func (tr *scanTrace) proxy(b *builder, name string) (*scanProxy, bool) {
	if p, ok := tr.proxies[name]; ok {
		return p, true
	}
	if b.inlining > tr.inlining {
		return nil, false
	}
	v, ok := tr.outer.lookupLocal(name)
	if !ok {
		return nil, false
	}
	l := v.loc
	p := &scanProxy{name: name, outer: l, assigned: slices.Contains(tr.writes, name)}
	p.inner = &local{name: name, shape: l.shape, elems: make([]value, len(l.elems)), proxy: p}
	if l.known && !p.assigned {
		p.inner.known, p.inner.value = true, l.value
	}
	if l.known && p.assigned { // a counter: its value steers the loop
		tr.fail(b, lang.Pos{}, name+" is a number known when the model is compiled that the loop changes")
		return nil, false
	}
	tr.proxies[name] = p
	tr.proxyOrd = append(tr.proxyOrd, p)
	return p, true
}

// settle fixes a proxy's kind at its first use other than as a sequence:
// state if the body assigns it, else invariant.
func (tr *scanTrace) settle(b *builder, p *scanProxy, pos lang.Pos) bool {
	switch p.mode {
	case modeSeq:
		tr.fail(b, pos, p.name+" is read or written whole, and at the loop's index")
		return false
	case modeState, modeInvariant:
		return true
	}
	full := p.outer.base.node != nil
	if !full {
		full = true
		for _, e := range p.outer.elems {
			full = full && e.node != nil
		}
	}
	if !p.assigned {
		p.mode = modeInvariant
		if !full {
			tr.fail(b, pos, p.name+" is not assigned in full before the loop")
			return false
		}
		v, ok := tr.importValue(b, p.name, tr.outer.localValue(p.outer, pos), pos)
		if !ok {
			return false
		}
		p.inner.base = value{node: ad.Reshape(v.node, sizeOf(p.outer.shape))}
		return true
	}
	p.mode = modeState
	if full {
		size := sizeOf(p.outer.shape)
		p.init = ad.Reshape(tr.outer.localValue(p.outer, pos).node, size)
		p.carryIn = b.g.Input(p.name, ad.Param, size)
		p.inner.base = value{node: p.carryIn}
	}
	return true
}

// seqRow makes a proxy a sequence: its inner local becomes row t.
func (tr *scanTrace) seqRow(b *builder, p *scanProxy, pos lang.Pos) bool {
	switch p.mode {
	case modeSeq:
		return true
	case modeUnset:
		if !p.assigned {
			break
		}
		if len(p.outer.shape) < 1 {
			break
		}
		p.mode = modeSeq
		sub := p.outer.shape[1:]
		p.inner = &local{name: p.name, shape: sub, elems: make([]value, sizeOf(sub)), proxy: p}
		p.lags, p.lagIn = map[int]*local{}, map[int]*ad.Node{}
		return true
	}
	tr.fail(b, pos, p.name+" is indexed by the loop's index but not written at it")
	return false
}

// seqIndex handles x[t - k, ...] of a sequence: the row local of lag k
// (k = 0: the row this step writes) and the remaining indices. ok false
// means the first index does not read the loop's index.
func (tr *scanTrace) seqIndex(b *builder, p *scanProxy, items []lang.IndexItem, write bool, pos lang.Pos) (*local, []lang.IndexItem, bool) {
	if len(items) == 0 || items[0].Slice || !p.assigned && p.mode != modeSeq {
		return nil, nil, false // read only: an invariant, maybe indexed by a number of the step
	}
	i0, hit, err := tr.tainted(b, items[0].Lo)
	if err != nil || !hit {
		return nil, nil, false
	}
	k, ok := tr.lag(b, items[0].Lo, i0)
	switch {
	case !ok || k < 0 || write && k != 0:
		tr.fail(b, pos, p.name+" is indexed by the loop's index other than as t - k, k ≥ 0 (written at t)")
		return nil, nil, true
	case !tr.seqRow(b, p, pos):
		return nil, nil, true
	}
	if k == 0 {
		return p.inner, items[1:], true
	}
	l, seen := p.lags[k]
	if !seen {
		sub := p.inner.shape
		in := b.g.Input(fmt.Sprintf("%s[t-%d]", p.name, k), ad.Param, sizeOf(sub))
		l = &local{name: p.name, shape: sub, base: value{node: in}, elems: make([]value, sizeOf(sub))}
		p.lags[k], p.lagIn[k] = l, in
	}
	return l, items[1:], true
}

// readProxy lowers x[items] of a proxy; handled false: the caller's usual
// path reads it (the proxy settled).
func (b *builder) readProxy(p *scanProxy, e *lang.Index, id *lang.Ident) (value, bool) {
	tr := b.scan
	l, rest, seq := tr.seqIndex(b, p, e.Items, false, id.Pos)
	if b.err != nil {
		return value{node: b.g.Placeholder(nil)}, true
	}
	if !seq {
		if !tr.settle(b, p, id.Pos) {
			return value{node: b.g.Placeholder(nil)}, true
		}
		if p.mode == modeInvariant && len(e.Items) > 0 && !e.Items[0].Slice {
			b.constElems = true
			_, hit, err := tr.tainted(b, e.Items[0].Lo)
			b.constElems = false
			if err == nil && hit {
				return b.dynamicRow(b.localValue(p.inner, id.Pos), e, id.Pos), true
			}
		}
		return value{}, false
	}
	if len(rest) == 0 {
		return b.localValue(l, id.Pos), true
	}
	out, ok := b.localIndex(l, &lang.Index{X: e.X, Items: rest}, id.Pos)
	if !ok {
		return tr.fail(b, id.Pos, "a row of "+p.name+" is indexed by other than constants"), true
	}
	return out, true
}

// dynamicRow is x[i, ...] where i, the first index, depends on the loop's
// index: a row taken by a number of the step, then the other indices.
func (b *builder) dynamicRow(x value, e *lang.Index, pos lang.Pos) value {
	tr := b.scan
	shape := x.node.Shape()
	if len(shape) < 1 {
		return tr.fail(b, pos, "a scalar is indexed")
	}
	rows, it := shape[0], e.Items[0]
	idx := tr.step(b, tr.atStep(b, func() (float64, error) {
		b.constElems = true
		i, err := b.constInt(it.Lo)
		b.constElems = false
		if err == nil && (i < 1 || i > rows) {
			err = fmt.Errorf("index %d is out of range 1..%d", i, rows)
		}
		return float64(i - 1), err
	}))
	v := value{node: ad.TakeRows(x.node, idx)}
	if len(e.Items) == 1 {
		return v
	}
	for _, rest := range e.Items[1:] {
		if rest.Slice {
			return tr.fail(b, pos, "a slice after an index by the loop's index")
		}
		j, hit, err := tr.tainted(b, rest.Lo)
		if err != nil || hit {
			return tr.fail(b, pos, "a second index depends on the loop's index or is not known")
		}
		if s := v.node.Shape(); j < 1 || j > s[0] {
			return tr.fail(b, pos, "index out of range")
		}
		v = value{node: ad.Index(v.node, 0, j-1)}
	}
	return v
}

// dataElement lowers an element of data by indices known now: a constant,
// or, when they read the loop's index, a number of the step. ok false: the
// indices are not all known (the caller indexes the whole array).
func (tr *scanTrace) dataElement(b *builder, name string, d *Value, items []lang.IndexItem) (value, bool) {
	saved := tr.touched
	tr.touched = false
	x, err := b.dataElement(name, d, items)
	hit := tr.touched
	tr.touched = saved || hit && err != nil
	switch {
	case err != nil:
		return value{}, false
	case hit:
		return value{node: tr.step(b, tr.atStep(b, func() (float64, error) { return b.dataElement(name, d, items) }))}, true
	}
	return value{node: b.scalar(x)}, true
}
