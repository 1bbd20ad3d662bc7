// Package compile turns a checked .ppl file and its data into a Model: the
// layout of the unconstrained parameter vector, the constraint transforms
// with their Jacobians, and the energy graph
//
//	U(θ) = -log p(θ) - log|J(θ)| - (N/B) Σ_{n ∈ batch} log p(row n | θ)
//
// whose plate is vectorised over the minibatch and whose gradient comes from
// one autodiff pass for all replicas. A Model implements infer.Target.
package compile

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// Model is a compiled program bound to its data.
type Model struct {
	file    *lang.File
	data    Data
	input   Data // the data as given, for NonCentred's compile
	params  []*param
	dim     int
	n       int    // rows of the observation axis (0: no plate)
	plateBy string // the data scalar that sizes the plate
	names   []string

	constrain *outputs // the parameters' transforms alone
	out       *outputs // the transformed parameters and generated quantities; nil without
	derived   []string // their columns

	part  part        // the terms the energy has: all, or PowerParts' prior's or likelihood's
	power *powerSplit // set with part

	grouping string // the int data field whose groups stratify minibatches (Strata); "" for none
	groups   int    // the length of the array it indexes
}

// param is one declared parameter: its constrained shape and where its
// unconstrained values sit in θ. A constrained type (simplex[K][J]) has
// fewer unconstrained values than constrained ones: J items of
// kind.Free(k) each.
type param struct {
	decl   *lang.Decl
	shape  []int
	offset int
	size   int // unconstrained values, in θ

	kind *stdlib.ConstrainedType // or nil for real
	k    int                     // the constrained type's size K
}

// newParam lays out a parameter of the given constrained shape at offset.
func newParam(d *lang.Decl, shape []int, offset int) *param {
	p := &param{decl: d, shape: shape, offset: offset, size: sizeOf(shape)}
	if d.Type.Kind != "" {
		p.kind, _ = stdlib.Constrained(string(d.Type.Kind))
		lead := shape[:len(d.Type.Dims)]
		p.k = shape[len(lead)]
		p.size = sizeOf(lead) * p.kind.Free(p.k)
	}
	return p
}

// thetaShape is the shape of the parameter's block of θ: its own for real,
// the array's dimensions and the free values of one item for a
// constrained type.
func (p *param) thetaShape() []int {
	if p.kind == nil {
		return p.shape
	}
	return append(append([]int(nil), p.shape[:len(p.decl.Type.Dims)]...), p.kind.Free(p.k))
}

// Compile binds data to f (already checked by lang.Check) and lays out its
// parameters. Errors carry source positions (a lang.ErrorList) where they
// come from the program, and name the data file where they come from data.
func Compile(f *lang.File, data Data) (*Model, error) {
	m := &Model{file: f, data: Data{}, input: data}
	if err := m.bind(data); err != nil {
		return nil, err
	}
	var errs lang.ErrorList
	if f.Param != nil {
		for _, d := range f.Param.Decls {
			shape, err := m.dims(d.Type)
			if err != nil {
				errs.Add(d.Type.Pos, "%s: %v", d.Name, err)
				continue
			}
			if m.dim+sizeOf(shape) > MaxParameters {
				errs.Add(d.Type.Pos, "%s: the parameters would number more than %d: a run keeps several copies of them per chain, with a column of the draws each, and the memory would run out", d.Name, MaxParameters)
				continue
			}
			p := newParam(d, shape, m.dim)
			m.params = append(m.params, p)
			m.dim += p.size
		}
	}
	if len(errs) == 0 { // named once every size is known to fit
		for _, p := range m.params {
			m.names = append(m.names, draws.FlatNames(p.decl.Name, p.shape)...)
		}
	}
	if m.dim == 0 && len(errs) == 0 {
		pos := lang.Pos{File: f.Name, Line: 1, Col: 1}
		if f.Param != nil {
			pos = f.Param.Pos
		}
		errs.Add(pos, "the program has no parameters to sample")
	}
	if err := m.findPlate(&errs); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	// Build the energy once for one replica and a small batch, so that shape
	// errors surface now, positioned, rather than at the first step.
	bt, err := m.build(1, min(m.n, 2))
	if err != nil {
		return nil, err
	}
	m.grouping, m.groups = pickGrouping(bt.groupings)
	c, err := m.newConstrainer()
	if err != nil {
		return nil, err
	}
	m.constrain = c
	if m.out, m.derived, err = m.newOutputs(); err != nil {
		return nil, err
	}
	return m, nil
}

// bind binds the data fields and computes the transformed data.
func (m *Model) bind(data Data) error {
	var errs lang.ErrorList
	if err := m.bindData(data, &errs); err != nil {
		return err
	}
	if len(errs) > 0 {
		errs.Sort()
		return errs
	}
	return m.transformData()
}

// findPlate checks that every plate iterates over the same data scalar and
// records its value N.
func (m *Model) findPlate(errs *lang.ErrorList) error {
	for _, b := range []*lang.Block{m.file.Model, m.file.Predict} {
		if b == nil {
			continue
		}
		for _, s := range b.Stmts {
			pl, ok := s.(*lang.Plate)
			if !ok {
				continue
			}
			id, ok := pl.Size.(*lang.Ident)
			v, isData := m.data[identName(pl.Size)]
			if !ok || !isData || len(v.Shape) != 0 {
				errs.Add(pl.Size.Position(), "a plate's size must be an int data field (the number of observations)")
				continue
			}
			if b == m.file.Predict {
				continue // predictions run over their own data
			}
			if m.plateBy != "" && m.plateBy != id.Name {
				errs.Add(pl.Size.Position(), "all plates of the model must run over the same observations: this one is %s, an earlier one %s", id.Name, m.plateBy)
				continue
			}
			m.plateBy, m.n = id.Name, int(v.At(0))
		}
	}
	return nil
}

func identName(e lang.Expr) string {
	if id, ok := e.(*lang.Ident); ok {
		return id.Name
	}
	return ""
}

// SourceName is the name the model's source was parsed under (its file's
// path, for a model read from a file).
func (m *Model) SourceName() string { return m.file.Name }

// Dim is the length of the unconstrained parameter vector.
func (m *Model) Dim() int { return m.dim }

// NumData is N, the number of observations the plate runs over; 0 for
// the prior of PowerParts, which is exact.
func (m *Model) NumData() int {
	if m.part == priorPart {
		return 0
	}
	return m.n
}

// OutputNames are the columns of a draw: the flattened constrained
// parameters (w.1, w.2, ...), then the transformed parameters and the
// generated quantities, as Stan orders them.
func (m *Model) OutputNames() []string {
	return append(m.names[:len(m.names):len(m.names)], m.derived...)
}

// ParamNames are the columns of the parameters alone, the first of
// OutputNames.
func (m *Model) ParamNames() []string { return append([]string(nil), m.names...) }

// Constrain maps one unconstrained point to its columns (OutputNames).
// The generated block's random numbers come from a stream seeded by the
// point's bits; ConstrainSeeded chooses the stream.
func (m *Model) Constrain(dst, theta []float64) {
	if m.out == nil { // no random numbers to seed
		m.constrain.apply(dst, theta, 0)
		return
	}
	m.out.apply(dst, theta, seedOf(theta))
}

// ConstrainSeeded is Constrain with the generated block's random numbers
// drawn from the stream seed: a run derives it from its seed, chain and
// iteration, so that its draws are reproducible.
func (m *Model) ConstrainSeeded(dst, theta []float64, seed uint64) {
	if m.out == nil {
		m.constrain.apply(dst, theta, 0)
		return
	}
	m.out.apply(dst, theta, seed)
}

// ConstrainParams writes the parameters' columns of theta alone (the
// first len(ParamNames()) of OutputNames) into dst: cheaper than
// Constrain when there are derived columns, and free of random numbers.
func (m *Model) ConstrainParams(dst, theta []float64) { m.constrain.apply(dst, theta, 0) }

// DomainErrors lists the generated block's _rng calls that got arguments
// outside their domain in some draw so far (their values are NaN there).
func (m *Model) DomainErrors() []DomainError {
	if m.out == nil {
		return nil
	}
	return m.out.domainErrors()
}

// Params describes the parameters: name, constrained shape, offset in θ
// and bounds.
func (m *Model) Params() []ParamInfo {
	out := make([]ParamInfo, len(m.params))
	for i, p := range m.params {
		out[i] = ParamInfo{Name: p.decl.Name, Shape: append([]int(nil), p.shape...), Offset: p.offset, Size: p.size,
			Kind:  string(p.decl.Type.Kind),
			Lower: m.constBound(p.decl.Type.Lower, math.Inf(-1)), Upper: m.constBound(p.decl.Type.Upper, math.Inf(1))}
	}
	return out
}

// ParamInfo describes one parameter's place in θ and its constraint.
type ParamInfo struct {
	Name string
	// Shape is the shape of the constrained value, as the draws hold it.
	Shape []int
	// Offset and Size are the parameter's place in θ: Size unconstrained
	// values, as many as Shape holds except for a constrained type
	// (simplex[K] has K-1).
	Offset int
	Size   int
	// Kind is the constrained type (simplex, cov_matrix, ...), or "" for
	// real.
	Kind string
	// Lower and Upper are the declared bounds: -Inf and +Inf where there
	// is none, NaN where the bound is not a constant of literals and data
	// scalars (it depends on another parameter). A parameter with both is
	// mapped by the logistic transform, with one by the exponential.
	Lower, Upper float64
}

// constBound is a bound's value: none when e is nil, NaN when it is not
// constant.
func (m *Model) constBound(e lang.Expr, none float64) float64 {
	if e == nil {
		return none
	}
	v, err := m.constReal(e)
	if err != nil {
		return math.NaN()
	}
	return v
}

func sizeOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// shapeExprs are the expressions of a type's shape: its dimensions, then
// a constrained type's size K, twice for a K×K matrix.
func shapeExprs(t *lang.Type) []lang.Expr {
	out := append([]lang.Expr(nil), t.Dims...)
	if t.Kind != "" && len(t.Size) == 1 {
		out = append(out, t.Size[0])
		if t.Kind.Matrix() {
			out = append(out, t.Size[0])
		}
	}
	return out
}

// dims evaluates a type's shape from the data: for a constrained type,
// the array's dimensions followed by [K] or [K, K].
func (m *Model) dims(t *lang.Type) ([]int, error) {
	exprs := shapeExprs(t)
	shape := make([]int, len(exprs))
	size := 1
	for i, e := range exprs {
		v, err := m.constInt(e)
		if err != nil {
			return nil, err
		}
		if i == len(t.Dims) && t.Kind != "" && v < t.Kind.MinSize() {
			return nil, fmt.Errorf("%s[%d]: its size must be at least %d", t.Kind, v, t.Kind.MinSize())
		}
		if v < 1 {
			return nil, fmt.Errorf("dimension %d is %d; dimensions must be at least 1", i+1, v)
		}
		shape[i] = v
		if v > MaxElements/size {
			return nil, fmt.Errorf("%s holds more than %d values (%d GiB of float64), more than a declaration may: the memory would run out before the run started", shapeString(shape[:i+1]), MaxElements, MaxElements*8>>30)
		}
		size *= v
	}
	return shape, nil
}

// MaxElements bounds the values of one declaration, so that a size that
// cannot fit in memory (real[1e11]) is refused with an error rather than
// met by the Go runtime's out-of-memory crash: 2^28 float64 values are
// 2 GiB, and a run keeps several copies of its parameters per chain.
const MaxElements = 1 << 28

// MaxParameters bounds the unconstrained parameters of a model (16.8
// million, a large neural network's), each of which a run keeps in θ, its
// gradient and the dynamics' state for every replica, and names as a
// column of the draws.
const MaxParameters = 1 << 24

// constInt evaluates an integer expression of literals and int data scalars.
func (m *Model) constInt(e lang.Expr) (int, error) {
	v, err := m.constReal(e)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<40 {
		return 0, fmt.Errorf("%v is not an integer", v)
	}
	return int(v), nil
}

// constReal evaluates an expression of literals and data scalars.
func (m *Model) constReal(e lang.Expr) (float64, error) {
	switch e := e.(type) {
	case *lang.Number:
		return e.Value, nil
	case *lang.Ident:
		v, ok := m.data[e.Name]
		if !ok {
			return 0, fmt.Errorf("%s is not a data field with a value here", e.Name)
		}
		if len(v.Shape) != 0 {
			return 0, fmt.Errorf("%s is not a scalar", e.Name)
		}
		return v.At(0), nil
	case *lang.Unary:
		x, err := m.constReal(e.X)
		return -x, err
	case *lang.Binary:
		l, err := m.constReal(e.L)
		if err != nil {
			return 0, err
		}
		r, err := m.constReal(e.R)
		if err != nil {
			return 0, err
		}
		if v, ok := constArith(e.Op, l, r); ok {
			return v, nil
		}
	}
	return 0, fmt.Errorf("a dimension or index must be computed from numbers and data scalars")
}

// constArith is l op r for the binary operators of the language: the
// arithmetic, and the comparisons and logic as 1 or 0 (a type's checker
// refuses those, an if's condition has them).
func constArith(op string, l, r float64) (float64, bool) {
	switch op {
	case "+":
		return l + r, true
	case "-":
		return l - r, true
	case "*":
		return l * r, true
	case "/":
		return l / r, true
	case "^":
		return math.Pow(l, r), true
	case "<":
		return boolFloat(l < r), true
	case "<=":
		return boolFloat(l <= r), true
	case ">":
		return boolFloat(l > r), true
	case ">=":
		return boolFloat(l >= r), true
	case "==":
		return boolFloat(l == r), true
	case "!=":
		return boolFloat(l != r), true
	case "&&":
		return boolFloat(l != 0 && r != 0), true
	case "||":
		return boolFloat(l != 0 || r != 0), true
	}
	return 0, false
}

// MappedBytes is the size of the data that is memory-mapped from files
// (large .npy arrays, ReadNPY) rather than held in memory.
func (m *Model) MappedBytes() int64 {
	total := int64(0)
	for _, v := range m.data {
		if isMapped(v.Values) {
			total += int64(len(v.Values)) * 8
		}
	}
	return total
}

// DataValues are the values of the data field name (flattened row-major),
// and whether it is declared int (counts), for the model checks that set
// the data beside replications of it.
func (m *Model) DataValues(name string) (values []float64, isInt bool, err error) {
	if b := m.file.Data; b != nil {
		for _, d := range b.Decls {
			if d.Name == name {
				isInt = d.Type.Int
			}
		}
	}
	v, ok := m.input[name]
	if !ok {
		v, ok = m.data[name]
	}
	if !ok {
		return nil, false, fmt.Errorf("the model has no data field %s", name)
	}
	return v.Float64s(), isInt, nil
}

// DataShape is the data field name's shape ([] for a scalar).
func (m *Model) DataShape(name string) ([]int, error) {
	v, ok := m.input[name]
	if !ok {
		v, ok = m.data[name]
	}
	if !ok {
		return nil, fmt.Errorf("the model has no data field %s", name)
	}
	return append([]int(nil), v.Shape...), nil
}
