package lang

import (
	"fmt"
	"strings"
)

// Pos is a position in a source file: 1-based line and column (in runes) and
// a 0-based byte offset.
type Pos struct {
	File   string
	Offset int
	Line   int
	Col    int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Node is any node of the syntax tree.
type Node interface {
	Position() Pos
}

// File is a parsed .ppl source: its blocks in source order. Each kind of
// block appears at most once (the checker enforces it).
type File struct {
	Name             string
	Data             *Block // or nil
	TransformedData  *Block // or nil
	Param            *Block // or nil
	TransformedParam *Block // or nil
	Model            *Block // or nil
	Generated        *Block // or nil
	Predict          *Block // or nil
	Infer            *Block // or nil
	Functions        *Block // or nil: the user's functions
	Blocks           []*Block
}

// Function returns the user-defined function of that name, or nil.
func (f *File) Function(name string) *Function {
	if f == nil || f.Functions == nil {
		return nil
	}
	for _, fn := range f.Functions.Funcs {
		if fn.Name == name {
			return fn
		}
	}
	return nil
}

// BlockKind names the nine blocks.
type BlockKind string

const (
	DataBlock             BlockKind = "data"
	TransformedDataBlock  BlockKind = "transformed data"
	ParamBlock            BlockKind = "param"
	TransformedParamBlock BlockKind = "transformed param"
	ModelBlock            BlockKind = "model"
	GeneratedBlock        BlockKind = "generated"
	PredictBlock          BlockKind = "predict"
	InferBlock            BlockKind = "infer"
	FunctionsBlock        BlockKind = "functions"
)

// BlockKinds are the kinds of block in their canonical order, the order
// the checker reads them in.
var BlockKinds = []BlockKind{FunctionsBlock, DataBlock, TransformedDataBlock, ParamBlock, TransformedParamBlock, ModelBlock, GeneratedBlock, PredictBlock, InferBlock}

// AddBlock appends b to the file's blocks and, if it is the first of its
// kind, sets the field of that kind (the checker reports a second one).
func (f *File) AddBlock(b *Block) {
	f.Blocks = append(f.Blocks, b)
	var slot **Block
	switch b.Kind {
	case DataBlock:
		slot = &f.Data
	case TransformedDataBlock:
		slot = &f.TransformedData
	case ParamBlock:
		slot = &f.Param
	case TransformedParamBlock:
		slot = &f.TransformedParam
	case ModelBlock:
		slot = &f.Model
	case GeneratedBlock:
		slot = &f.Generated
	case PredictBlock:
		slot = &f.Predict
	case InferBlock:
		slot = &f.Infer
	case FunctionsBlock:
		slot = &f.Functions
	default:
		return
	}
	if *slot == nil {
		*slot = b
	}
}

// Block is one block. Data and param blocks hold Decls; the infer block
// holds Settings; the functions block holds Funcs; the others hold Stmts.
type Block struct {
	Pos      Pos
	Kind     BlockKind
	Decls    []*Decl
	Stmts    []Stmt
	Settings []*Setting
	Funcs    []*Function
}

// Function is a user-defined function of the functions block:
// `name(x: real, v: real[]): real { body }`. It is inlined where it is
// called; its body sees its parameters and nothing else of the program.
type Function struct {
	Pos     Pos // the name's
	Name    string
	Params  []*FuncParam
	Result  *FuncType
	Body    []Stmt
	BodyEnd Pos // the closing "}"
}

func (f *Function) Position() Pos { return f.Pos }

// FuncParam is one parameter of a function, `x: real[]`.
type FuncParam struct {
	Pos  Pos
	Name string
	Type *FuncType
}

// FuncType is the type of a function's parameter or result: real or int
// and a number of axes, written with empty brackets (real[] is a vector,
// real[,] a matrix), since the sizes come with the arguments.
type FuncType struct {
	Pos  Pos
	Int  bool
	Rank int
}

func (p *FuncParam) Position() Pos { return p.Pos }
func (t *FuncType) Position() Pos  { return t.Pos }

func (t *FuncType) String() string {
	s := "real"
	if t.Int {
		s = "int"
	}
	if t.Rank > 0 {
		s += "[" + strings.Repeat(",", t.Rank-1) + "]"
	}
	return s
}

func (b *Block) Position() Pos { return b.Pos }

// Decl declares a data field or a parameter: `name: type`.
type Decl struct {
	Pos  Pos
	Name string
	Type *Type
}

func (d *Decl) Position() Pos { return d.Pos }

// Type is `real` or `int`, an optional constraint `<lower=e, upper=e>` and
// optional dimensions `[d1, d2, ...]`: real<lower=0>[N, D]. Or it is a
// constrained type with its size and optional array dimensions after it:
// simplex[K] is one simplex of K entries, simplex[K][J] is J of them, of
// shape [J, K] (Kind is set, Size holds K, Dims holds J).
type Type struct {
	Pos   Pos
	Int   bool // int, else real
	Lower Expr // or nil
	Upper Expr // or nil
	// Offset and Multiplier are Stan's affine transform of a real
	// parameter, x = offset + multiplier·u (either may be nil: 0 and 1).
	Offset, Multiplier Expr
	Dims               []Expr
	// Kind is the constrained type, or "" for real and int.
	Kind TypeKind
	// Size is a constrained type's own size: [K] of simplex[K]. The
	// value's shape is Dims followed by [K] (vectors) or [K, K] (matrices).
	Size    []Expr
	SizePos Pos // the size's "["
}

func (t *Type) Position() Pos { return t.Pos }

// Rank is the number of axes of a value of the type.
func (t *Type) Rank() int {
	switch {
	case t.Kind == "":
		return len(t.Dims)
	case t.Kind.Matrix():
		return len(t.Dims) + 2
	}
	return len(t.Dims) + 1
}

// TypeKind names a constrained type: Stan's constrained vectors and
// matrices, whose values the samplers reach through a transform of fewer
// unconstrained reals.
type TypeKind string

const (
	Simplex            TypeKind = "simplex"
	Ordered            TypeKind = "ordered"
	PositiveOrdered    TypeKind = "positive_ordered"
	UnitVector         TypeKind = "unit_vector"
	CholeskyFactorCorr TypeKind = "cholesky_factor_corr"
	CholeskyFactorCov  TypeKind = "cholesky_factor_cov"
	CorrMatrix         TypeKind = "corr_matrix"
	CovMatrix          TypeKind = "cov_matrix"
)

// TypeKinds lists the constrained types.
var TypeKinds = []TypeKind{Simplex, Ordered, PositiveOrdered, UnitVector, CholeskyFactorCorr, CholeskyFactorCov, CorrMatrix, CovMatrix}

// Matrix reports whether a value of the kind is a K×K matrix (else a
// K-vector).
func (k TypeKind) Matrix() bool {
	switch k {
	case CholeskyFactorCorr, CholeskyFactorCov, CorrMatrix, CovMatrix:
		return true
	}
	return false
}

// MinSize is the smallest K of the kind: a simplex, unit vector or
// correlation matrix of size 1 is a single point (or two), with nothing to
// sample.
func (k TypeKind) MinSize() int {
	switch k {
	case Simplex, UnitVector, CholeskyFactorCorr, CorrMatrix:
		return 2
	}
	return 1
}

// typeKind returns the constrained type of that name.
func typeKind(name string) (TypeKind, bool) {
	for _, k := range TypeKinds {
		if string(k) == name {
			return k, true
		}
	}
	return "", false
}

// Stmt is a statement of a model or predict block.
type Stmt interface {
	Node
	stmt()
}

// Sample is `lhs ~ dist(args...)`: it adds dist's log density of lhs.
type Sample struct {
	Pos     Pos
	Lhs     Expr
	Dist    string
	DistPos Pos
	Args    []Expr
	Trunc   *Truncation // or nil
}

// Truncation is Stan's T[lower, upper] after a ~ statement's distribution:
// the density renormalised to the interval, log(F(U) − F(L)) subtracted
// (for a discrete variate F(L − 1), so that L itself is kept). Either
// bound may be nil, T[L, ] or T[, U], not both.
type Truncation struct {
	Pos          Pos // the "T"
	Lower, Upper Expr
}

// Define is `name = expr`: a deterministic value, usable by later statements
// (and reported when defined in a predict block).
type Define struct {
	Pos   Pos
	Name  string
	Value Expr
}

// TargetAdd is `target += expr`: it adds the sum of expr to the log density.
type TargetAdd struct {
	Pos   Pos
	Value Expr
}

// Plate is `for i in plate(N) { body }`: the body is written for one row i
// of the observation axis, which the compiler minibatches and vectorises.
type Plate struct {
	Pos      Pos // the "for"
	Index    string
	IndexPos Pos // the index name's position
	Size     Expr
	Body     []Stmt
}

// LocalDecl is `name: type`, optionally `= value`, in a block of
// statements: a local variable, which assignments may change (element by
// element for an array). At the top level of transformed param and
// generated it is written to the draws with its final value.
type LocalDecl struct {
	Pos   Pos
	Name  string
	Type  *Type
	Value Expr // or nil
}

// Assign is `lhs = value` or `lhs += value` where lhs is a local variable
// or an element of one: `sigma[t] = ...`, `acc += ...`. A plain
// `name = value` whose name is a local variable in scope is parsed as a
// Define; the checker and the compiler read it as an assignment.
type Assign struct {
	Pos   Pos // the left side's
	Lhs   Expr
	Op    string // "=" or "+="
	OpPos Pos
	Value Expr
}

// For is `for i in lo:hi { body }`: a loop over the integers lo..hi
// (none when hi < lo), whose bounds are known when the model is compiled;
// the compiler unrolls it.
type For struct {
	Pos      Pos
	Index    string
	IndexPos Pos
	Lo, Hi   Expr
	Body     []Stmt
}

// If is `if cond { then } else { otherwise }`, decided when the model is
// compiled: cond may use data and loop indices only. An `else if` is an
// Else of one If.
type If struct {
	Pos  Pos
	Cond Expr
	Then []Stmt
	Else []Stmt // or nil
}

// While is `while cond { body }`: the body runs while cond, decided when
// the model is compiled (from numbers, data, loop indices and scalar local
// variables whose values are known then), is nonzero; the compiler unrolls
// it, at most MaxUnrolled iterations.
type While struct {
	Pos  Pos
	Cond Expr
	Body []Stmt
}

// Break is `break`: it leaves the innermost for or while loop.
type Break struct {
	Pos Pos
}

// Return is `return value` in a function's body.
type Return struct {
	Pos   Pos
	Value Expr
}

func (s *LocalDecl) Position() Pos { return s.Pos }
func (s *Assign) Position() Pos    { return s.Pos }
func (s *For) Position() Pos       { return s.Pos }
func (s *If) Position() Pos        { return s.Pos }
func (s *Return) Position() Pos    { return s.Pos }
func (*LocalDecl) stmt()           {}
func (*Assign) stmt()              {}
func (*For) stmt()                 {}
func (*If) stmt()                  {}
func (*Return) stmt()              {}
func (s *While) Position() Pos     { return s.Pos }
func (s *Break) Position() Pos     { return s.Pos }
func (*While) stmt()               {}
func (*Break) stmt()               {}

func (s *Sample) Position() Pos    { return s.Pos }
func (s *Define) Position() Pos    { return s.Pos }
func (s *TargetAdd) Position() Pos { return s.Pos }
func (s *Plate) Position() Pos     { return s.Pos }
func (*Sample) stmt()              {}
func (*Define) stmt()              {}
func (*TargetAdd) stmt()           {}
func (*Plate) stmt()               {}

// Expr is an expression.
type Expr interface {
	Node
	expr()
}

// Number is a numeric literal; Int is set when it has no '.' or exponent.
type Number struct {
	Pos   Pos
	Value float64
	Int   bool
	Text  string
}

// Ident is a name: a data field, parameter, definition or plate index.
type Ident struct {
	Pos  Pos
	Name string
}

// Unary is `-x`.
type Unary struct {
	Pos Pos
	Op  string
	X   Expr
}

// Binary is `l op r` for op one of + - * / ^ @ (^ is power, @ the matrix
// product).
type Binary struct {
	Pos  Pos // the operator's position
	Op   string
	L, R Expr
}

// Call is `f(args...)`: a stdlib function or layer.
type Call struct {
	Pos  Pos
	Func string
	Args []Expr
}

// Index is `x[i, j:k, :]`: one item per leading axis indexed.
type Index struct {
	Pos   Pos // the '['
	X     Expr
	Items []IndexItem
}

// IndexItem is a single index (Slice false, Lo the index) or a slice
// `lo:hi` (either may be nil: from the start, to the end).
type IndexItem struct {
	Pos    Pos
	Slice  bool
	Lo, Hi Expr
}

// Vector is a literal `[a, b, c]`.
type Vector struct {
	Pos   Pos
	Elems []Expr
}

// String is a quoted literal; only settings of the infer block take one.
type String struct {
	Pos   Pos
	Value string
}

func (e *Number) Position() Pos { return e.Pos }
func (e *Ident) Position() Pos  { return e.Pos }
func (e *Unary) Position() Pos  { return e.Pos }
func (e *Binary) Position() Pos { return e.Pos }
func (e *Call) Position() Pos   { return e.Pos }
func (e *Index) Position() Pos  { return e.Pos }
func (e *Vector) Position() Pos { return e.Pos }
func (e *String) Position() Pos { return e.Pos }
func (*Number) expr()           {}
func (*Ident) expr()            {}
func (*Unary) expr()            {}
func (*Binary) expr()           {}
func (*Call) expr()             {}
func (*Index) expr()            {}
func (*Vector) expr()           {}
func (*String) expr()           {}

// Setting is `key = value` in the infer block. Value is a Number, String,
// Ident (a sampler name: `sampler = sgld`), NumberList or SamplerSpec.
type Setting struct {
	Pos   Pos
	Key   string
	Value Node
}

func (s *Setting) Position() Pos { return s.Pos }

// NumberList is `[x1, x2, ...]` in the infer block: a list of numbers,
// such as a ladder's levels given by hand.
type NumberList struct {
	Pos    Pos
	Values []*Number
}

func (l *NumberList) Position() Pos { return l.Pos }

// SamplerSpec is `name(key = value, ...)` in the infer block:
// sampler = sghmc(lr = 1e-3, friction = 0.1).
type SamplerSpec struct {
	Pos     Pos
	Name    string
	Options []*Setting
}

func (s *SamplerSpec) Position() Pos { return s.Pos }
