package compile

import (
	"fmt"
	"math"
	"math/rand/v2"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
)

// The blocks around the model that compute rather than score, as Stan's
// are:
//
//   - transformed data: evaluated once, on every row of the data, when the
//     data is bound; its definitions join the data (a definition in a plate
//     body becomes a column of one value per row), so mean(x) there is the
//     full-data mean, never a minibatch's.
//   - transformed param: definitions of the parameters, visible to the
//     model, generated and predict blocks, and written to the draws after
//     the parameters.
//   - generated: evaluated for each kept draw, on every row of the data,
//     with the _rng functions; its definitions are written to the draws
//     after the transformed parameters (a definition in a plate body is one
//     column per row: y_rep[1], ..., y_rep[N]).

// definition is a named value a block computes, for the output.
type definition struct {
	name  string
	pos   lang.Pos
	node  *ad.Node
	shape []int // its full shape: a per-row value has the rows first
}

// fullRows makes the builder run every plate over all of its rows (the
// transformed data and generated blocks), each plate with indices of its
// own size, instead of over the minibatch of the model's plate.
type fullRows struct {
	plates []fullPlate
}

type fullPlate struct {
	rows *ad.Indices
	n    int
}

// enterPlate points the builder at all the rows of the plate's size; the
// returned function restores the builder.
func (f *fullRows) enterPlate(b *builder, pl *lang.Plate) func() {
	n := 0
	if v, ok := b.m.data[identName(pl.Size)]; ok && len(v.Shape) == 0 {
		n = int(v.At(0))
	}
	if n <= 0 {
		b.fail(pl.Size.Position(), "the plate's size %s is %d: it must be at least 1", lang.ExprString(pl.Size), n)
		return func() {}
	}
	rows, prevN, prevBatch, prevBy := b.rows, b.n, b.batch, b.plateBy
	b.rows = b.g.Indices("rows."+pl.Index, false, n)
	b.n, b.batch, b.plateBy = n, n, identName(pl.Size)
	f.plates = append(f.plates, fullPlate{rows: b.rows, n: n})
	return func() { b.rows, b.n, b.batch, b.plateBy = rows, prevN, prevBatch, prevBy }
}

// setRows points each plate's indices at every row.
func (f *fullRows) setRows(prog *ad.Program) error {
	for _, p := range f.plates {
		all := make([]int, p.n)
		for i := range all {
			all[i] = i
		}
		if err := prog.SetIndices(p.rows, all); err != nil {
			return err
		}
	}
	return nil
}

// collect lowers stmts, recording each definition (in a plate body too)
// in order.
//
// A local variable declared at the top level is recorded too, in its
// place, with its value at the end of the block (every element must have
// been assigned), and the statements after the block see that value.
func (b *builder) collect(stmts []lang.Stmt) []definition {
	var defs []definition
	type pending struct {
		at   int
		decl *lang.LocalDecl
		loc  *local
	}
	var locals []pending
	prevDefine, prevLocal := b.onDefine, b.onLocal
	b.onDefine = func(s *lang.Define, v value) {
		defs = append(defs, definition{name: s.Name, pos: s.Pos, node: v.node, shape: v.node.Shape()})
	}
	b.onLocal = func(s *lang.LocalDecl, l *local) {
		locals = append(locals, pending{len(defs), s, l})
		defs = append(defs, definition{name: s.Name, pos: s.Pos})
	}
	b.stmts(stmts)
	b.onDefine, b.onLocal = prevDefine, prevLocal
	for _, p := range locals {
		if b.err != nil {
			return nil
		}
		for i, e := range p.loc.elems {
			if e.node == nil && p.loc.base.node == nil {
				b.fail(p.decl.Pos, "%s is never assigned, and the block's local variables are written to the draws (or joins the data): assign every element", elementString(p.loc.name, p.loc.shape, i))
				return nil
			}
		}
		v := b.localValue(p.loc, p.decl.Pos)
		defs[p.at].node, defs[p.at].shape = v.node, v.node.Shape()
		if top := b.scopes[len(b.scopes)-1]; top[p.decl.Name].loc == p.loc {
			top[p.decl.Name] = v // fixed from now on
		}
	}
	return defs
}

// transformData evaluates the transformed data block on every row of the
// data and adds its definitions to m.data. A value that is not finite is
// an error at its definition: nothing downstream could use it.
func (m *Model) transformData() error {
	blk := m.file.TransformedData
	if blk == nil {
		return nil
	}
	b := m.newBuilder(1)
	b.full = &fullRows{}
	defs := b.collect(blk.Stmts)
	if b.err != nil {
		return lang.ErrorList{b.err}
	}
	if len(defs) == 0 {
		return nil
	}
	outs := make([]*ad.Node, len(defs))
	for i, d := range defs {
		outs[i] = d.node
	}
	prog, err := b.g.Compile(outs...)
	if err != nil {
		return fmt.Errorf("compiling the transformed data block: %v", err)
	}
	if err := b.full.setRows(prog); err != nil {
		return err
	}
	prog.Forward()
	source := "the transformed data block"
	for _, d := range defs {
		vals := append([]float64(nil), prog.Value(d.node)...)
		for i, x := range vals {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lang.ErrorList{{Pos: d.pos, Msg: fmt.Sprintf("%s is %v: the transformed data must be finite", elementString(d.name, d.shape, i), x)}}
			}
		}
		m.data[d.name] = &Value{Shape: d.shape, Values: vals, Source: source}
	}
	return nil
}

// transformParams lowers the transformed param block, whose definitions
// the later statements see, and returns them.
func (b *builder) transformParams() []definition {
	if b.m.file.TransformedParam == nil {
		return nil
	}
	pred := b.predict
	b.predict = nil // the predict block reports its own definitions only
	defs := b.collect(b.m.file.TransformedParam.Stmts)
	b.predict = pred
	return defs
}

// outputs is a program that computes columns of a draw from one
// unconstrained point: the constrained parameters alone (the
// constrainer), or with the transformed parameters and the generated
// quantities, whose _rng functions draw from pcg's stream.
type outputs struct {
	prog   *ad.Program
	blocks []paramBlock
	nodes  []*ad.Node
	pcg    *rand.PCG // nil without _rng functions
	rngs   []*rngOp
}

// newOutputs builds the output program, or returns nil when the draws hold
// the parameters alone (the constrainer computes them).
func (m *Model) newOutputs() (*outputs, []string, error) {
	if m.file.TransformedParam == nil && m.file.Generated == nil {
		return nil, nil, nil
	}
	b := m.newBuilder(1)
	b.full = &fullRows{}
	o := &outputs{pcg: rand.NewPCG(0, 0)}
	b.rng = &rngSource{src: rand.New(o.pcg)}
	for _, p := range m.params {
		v := b.param(p)
		if b.err != nil {
			return nil, nil, lang.ErrorList{b.err}
		}
		b.params[p.decl.Name] = v
		o.nodes = append(o.nodes, v.node)
	}
	o.blocks = b.blocks
	defs := b.transformParams()
	if g := m.file.Generated; g != nil && b.err == nil {
		b.scopes = append(b.scopes, map[string]value{})
		defs = append(defs, b.collect(g.Stmts)...)
	}
	if b.err != nil {
		return nil, nil, lang.ErrorList{b.err}
	}
	var names []string
	for _, d := range defs {
		o.nodes = append(o.nodes, d.node)
		names = append(names, draws.FlatNames(d.name, d.shape)...)
	}
	prog, err := b.g.Compile(o.nodes...)
	if err != nil {
		return nil, nil, fmt.Errorf("compiling the generated quantities: %v", err)
	}
	if err := b.full.setRows(prog); err != nil {
		return nil, nil, err
	}
	o.prog, o.rngs = prog, b.rng.ops
	return o, names, nil
}

// apply computes the columns of the point theta into dst, the _rng
// functions drawing from the stream seed.
func (o *outputs) apply(dst, theta []float64, seed uint64) {
	if o.pcg != nil {
		o.pcg.Seed(seed, 0x9e3779b97f4a7c15)
	}
	for _, bl := range o.blocks {
		copy(o.prog.Value(bl.node), theta[bl.offset:bl.offset+bl.size])
	}
	o.prog.Forward()
	pos := 0
	for _, n := range o.nodes {
		pos += copy(dst[pos:], o.prog.Value(n))
	}
}

// domainErrors lists, for each _rng call that got arguments outside its
// distribution's domain, where it is and in how many draws.
func (o *outputs) domainErrors() []DomainError {
	var out []DomainError
	for _, r := range o.rngs {
		if r.bad > 0 {
			out = append(out, DomainError{Pos: r.pos, Func: r.gen.Name + "_rng", Draws: r.bad})
		}
	}
	return out
}

// DomainError reports an _rng call of the generated block whose arguments
// were outside its distribution's domain (a negative scale): its values
// are NaN in those draws.
type DomainError struct {
	Pos   lang.Pos
	Func  string
	Draws int // the number of draws with at least one such value
}

func (e DomainError) String() string {
	return fmt.Sprintf("%s: %s got arguments outside its domain in %d draws; its values there are NaN", e.Pos, e.Func, e.Draws)
}

// seedOf derives the generated block's stream for a point that comes with
// no seed: a hash of its bits, so that the same point gives the same
// draws and different points different ones.
func seedOf(theta []float64) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, x := range theta {
		h ^= math.Float64bits(x)
		h *= 0x100000001b3
	}
	return h
}
