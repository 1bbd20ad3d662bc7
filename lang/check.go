package lang

import (
	"fmt"
	"sort"
	"strings"
)

// Signature describes a distribution or function of the standard library,
// as far as the checker needs it.
type Signature struct {
	// Params names the parameters, in order. For a distribution Params[0]
	// is the variate (the left-hand side of ~), so `y ~ normal(mu, sigma)`
	// needs Params = [y mu sigma].
	Params []string
	// Int marks the parameters that must be integer-valued (Int[i] for
	// Params[i]; a missing entry means real). For a variadic signature the
	// last entry also covers the extra arguments.
	Int []bool
	// Variadic says that Params lists the minimum: more arguments may follow.
	Variadic bool
	// Optional is how many of the last Params a call may leave out, for a
	// function: a layer's stride and padding, which have defaults.
	Optional int
	// Ranks, for a function, is the number of axes each argument must have
	// (counted as in Params; one row's value inside a plate), -1 or a
	// missing entry for any: the checker reports a mismatch where it knows
	// the argument's rank (a declared name, indexed or not) before any data
	// is bound.
	Ranks []int
	// IntIf, for a function, lists the arguments (counted as in Params)
	// whose being integer-valued makes the result integer-valued: if_else
	// of two ints is an int. Empty: the result is real.
	IntIf []int
	// Outside, if set, says what is wrong with a constant argument i
	// (counted as in Params) outside its support, or "" (stdlib's
	// Distribution.Outside); the checker reports it at the argument.
	Outside func(i int, v float64) string
	// IntResult, for a function, says that its result is always
	// integer-valued (poisson_rng's count).
	IntResult bool
	// Random marks a function that draws random numbers (the _rng
	// functions): only the generated block may call it.
	Random bool

	// Alt, for a function, is its signature with another number of
	// arguments, Stan's overload under the same name
	// (gp_exp_quad_cov(x1, x2, alpha, rho) beside gp_exp_quad_cov(x,
	// alpha, rho)): a call with len(Alt.Params) arguments is checked
	// against it.
	Alt *Signature
}

// intAt reports whether argument i (counted as in Params) must be
// integer-valued.
func (s Signature) intAt(i int) bool {
	if i >= len(s.Params) && s.Variadic {
		i = len(s.Params) - 1
	}
	return i >= 0 && i < len(s.Int) && s.Int[i]
}

// Env is what the checker knows of the standard library. The compiler fills
// it; lang imports nothing of temper's. A nil Env, or nil maps, know of no
// distributions or functions.
type Env struct {
	Distributions map[string]Signature
	Functions     map[string]Signature
}

// SymbolKind says what a name refers to.
type SymbolKind int

const (
	DataSym      SymbolKind = iota + 1 // a field of the data block
	ParamSym                           // a parameter
	DefineSym                          // a definition `name = e` of a block of statements
	IndexSym                           // the index of a plate
	LocalSym                           // a local variable `name: type`, which assignments change
	LoopSym                            // the index of a for loop
	FuncParamSym                       // a parameter of a user-defined function
)

func (k SymbolKind) String() string {
	switch k {
	case DataSym:
		return "data"
	case ParamSym:
		return "parameter"
	case DefineSym:
		return "definition"
	case IndexSym:
		return "plate index"
	case LocalSym:
		return "local variable"
	case LoopSym:
		return "loop index"
	case FuncParamSym:
		return "function parameter"
	}
	return fmt.Sprintf("SymbolKind(%d)", int(k))
}

// Symbol is a declared name. There is one Symbol per declaration: every
// Ident that refers to it maps to the same pointer.
type Symbol struct {
	Kind   SymbolKind
	Name   string
	Decl   *Decl   // DataSym and ParamSym
	Define *Define // DefineSym
	// Plate is the plate of an IndexSym, and of a DefineSym or LocalSym
	// defined inside a plate body (a per-row value); nil outside plates.
	Plate *Plate
	Local *LocalDecl // LocalSym
	For   *For       // LoopSym
	Param *FuncParam // FuncParamSym
	Func  *Function  // the function whose body declares a symbol, or nil
	Block BlockKind  // the block of a DefineSym or LocalSym
}

// Pos returns the position of the symbol's declaration.
func (s *Symbol) Pos() Pos {
	switch {
	case s.Decl != nil:
		return s.Decl.Pos
	case s.Define != nil:
		return s.Define.Pos
	case s.Plate != nil && s.Kind == IndexSym:
		return s.Plate.IndexPos
	case s.Local != nil:
		return s.Local.Pos
	case s.For != nil:
		return s.For.IndexPos
	case s.Param != nil:
		return s.Param.Pos
	}
	return Pos{}
}

// Info is what Check found out about a file.
type Info struct {
	// Symbols maps each resolved Ident of an expression to its symbol.
	Symbols map[*Ident]*Symbol
	// Defs maps each declaring node to the symbol it declares: a *Decl, a
	// *Define, a *LocalDecl, or a *Plate or *For (for its index).
	Defs map[Node]*Symbol
	// IsInt holds every expression the checker visited: true where the
	// expression is integer-valued (see Check), false where it is real.
	IsInt map[Expr]bool
	// InPlate maps each statement of a plate body to its plate.
	InPlate map[Stmt]*Plate
}

// Check resolves the names of f and checks the rules of the language that
// do not depend on the data: block structure, declarations and scopes,
// distributions and functions against env, integer-valued positions, and
// the number of indices of declared variables. Shapes are left to the
// compiler, which knows the data.
//
// The error, if any, is an ErrorList of all the errors found, sorted by
// position. Info is returned even then, filled as far as checking got.
//
// Integer-valued expressions are: int literals (no '.' or exponent), int
// data (indexed or not), plate indices, definitions whose value is
// integer-valued, vectors of integer-valued elements, and + - * of
// integer-valued operands and unary minus of one, comparisons and logic
// (== != < <= > >= && || !, which give 0 or 1 whatever their operands), and
// calls of functions whose signature says so (if_else of two ints).
// Everything else (/, ^, @, other calls, parameters) is real.
func Check(f *File, env *Env) (info *Info, err error) {
	c := &checker{
		env: env,
		info: &Info{
			Symbols: map[*Ident]*Symbol{},
			Defs:    map[Node]*Symbol{},
			IsInt:   map[Expr]bool{},
			InPlate: map[Stmt]*Plate{},
		},
		globals:     &scope{names: map[string]*Symbol{}},
		plateScopes: map[*Plate]*scope{},
		assigned:    map[*Symbol]bool{},
		declDepth:   map[*Symbol]int{},
	}
	if c.env == nil {
		c.env = &Env{}
	}
	if f == nil {
		return c.info, nil
	}
	defer func() {
		if r := recover(); r != nil {
			info = c.info
			c.errs.Add(Pos{File: f.Name, Line: 1, Col: 1}, "internal error: %v", r)
			c.errs.Sort()
			err = c.errs
		}
	}()
	c.blocks(f)
	c.errs.Sort()
	return c.info, c.errs.Err()
}

type checker struct {
	env     *Env
	info    *Info
	errs    ErrorList
	globals *scope // data and parameters

	// localsOK is set while a while loop's or an if's condition is
	// checked: it may read scalar local variables (whose values the
	// compiler must know); whileCond while a while loop's is.
	localsOK, whileCond bool

	// While checking the types of the data and param blocks: every
	// declaration of both blocks, to tell "declared later" from "unknown".
	allDecls map[string]declAt

	// While checking a model or predict block: the names it defines (and,
	// for predict, those the model block defines).
	blockDefs map[string]defAt
	current   BlockKind

	derived     *scope            // the transformed data and param blocks' definitions
	plateScopes map[*Plate]*scope // each plate's body, for export

	funcs map[string]*Function // the functions block's, by name

	// Each local variable: whether an assignment to it (of any element)
	// has been checked yet, and the depth of loops it is declared in; a
	// read at that depth before any assignment is certainly too early.
	assigned  map[*Symbol]bool
	declDepth map[*Symbol]int
}

// defAt is where a name is defined (by a definition or as a plate index)
// in a model or predict block, for the notes of "unknown name" errors.
type defAt struct {
	pos     Pos
	block   BlockKind
	inPlate bool
	inBody  bool // inside a loop's or an if's body
	loop    bool // the index of a loop
}

// collectDefs records the first definition of each name in stmts.
func collectDefs(stmts []Stmt, block BlockKind, out map[string]defAt) {
	for _, st := range stmts {
		switch st := st.(type) {
		case *Define:
			if _, ok := out[st.Name]; !ok {
				out[st.Name] = defAt{pos: st.Pos, block: block}
			}
		case *Plate:
			if _, ok := out[st.Index]; !ok {
				out[st.Index] = defAt{pos: st.IndexPos, block: block, inPlate: true}
			}
			for _, in := range st.Body {
				if d, ok := in.(*Define); ok {
					if _, ok := out[d.Name]; !ok {
						out[d.Name] = defAt{d.Pos, block, true, false, false}
					}
				}
			}
			collectBodyDefs(st.Body, block, true, out)
		case *LocalDecl:
			if _, ok := out[st.Name]; !ok {
				out[st.Name] = defAt{pos: st.Pos, block: block}
			}
		case *For, *If, *While:
			collectBodyDefs([]Stmt{st}, block, false, out)
		}
	}
}

// collectBodyDefs records the names defined inside the bodies of the loops
// and ifs of stmts.
func collectBodyDefs(stmts []Stmt, block BlockKind, inPlate bool, out map[string]defAt) {
	add := func(name string, d defAt) {
		if _, ok := out[name]; !ok {
			out[name] = d
		}
	}
	var walk func(list []Stmt, inBody bool)
	walk = func(list []Stmt, inBody bool) {
		for _, st := range list {
			switch st := st.(type) {
			case *Define:
				if inBody {
					add(st.Name, defAt{st.Pos, block, inPlate, true, false})
				}
			case *LocalDecl:
				if inBody {
					add(st.Name, defAt{st.Pos, block, inPlate, true, false})
				}
			case *For:
				add(st.Index, defAt{st.IndexPos, block, inPlate, true, true})
				walk(st.Body, true)
			case *If:
				walk(st.Then, true)
				walk(st.Else, true)
			case *While:
				walk(st.Body, true)
			}
		}
	}
	walk(stmts, false)
}

// declAt is a declaration and the kind of block it is in.
type declAt struct {
	decl *Decl
	kind BlockKind
}

// scope is one level of names: the globals, a model or predict block, or a
// plate body.
type scope struct {
	parent *scope
	names  map[string]*Symbol
	plate  *Plate // the plate whose body this is, or nil
	block  BlockKind
	loop   *For      // the loop whose body this is, or nil
	while  *While    // the while loop whose body this is, or nil
	cond   *If       // the if whose branch this is, or nil
	fn     *Function // the function whose body this is (and its nested bodies'), or nil
}

// child is a new scope nested in s, in the same block and function.
func (s *scope) child() *scope {
	return &scope{parent: s, names: map[string]*Symbol{}, block: s.block, fn: s.fn}
}

// inControl returns the innermost loop or if around s: its position and
// what it is, or false.
func (s *scope) inControl() (Pos, string, bool) {
	for ; s != nil; s = s.parent {
		switch {
		case s.loop != nil:
			return s.loop.Pos, "for loop", true
		case s.while != nil:
			return s.while.Pos, "while loop", true
		case s.cond != nil:
			return s.cond.Pos, "if", true
		}
	}
	return Pos{}, "", false
}

func (s *scope) lookup(name string) *Symbol {
	for ; s != nil; s = s.parent {
		if sym, ok := s.names[name]; ok {
			return sym
		}
	}
	return nil
}

// inPlate returns the innermost plate around s, or nil.
func (s *scope) inPlate() *Plate {
	for ; s != nil; s = s.parent {
		if s.plate != nil {
			return s.plate
		}
	}
	return nil
}

// visible lists the names in scope, for suggestions.
func (s *scope) visible() []string {
	var names []string
	for ; s != nil; s = s.parent {
		for n := range s.names {
			names = append(names, n)
		}
	}
	return names
}

func (c *checker) errorf(pos Pos, format string, args ...any) *Error {
	return c.errs.Add(pos, format, args...)
}

// note attaches "declared here" notes.
func note(e *Error, pos Pos, msg string) {
	if pos.IsValid() {
		e.Notes = append(e.Notes, Note{Pos: pos, Msg: msg})
	}
}

func (c *checker) blocks(f *File) {
	// Each kind at most once.
	first := map[BlockKind]*Block{}
	for _, b := range f.Blocks {
		if b == nil {
			continue
		}
		if prev, ok := first[b.Kind]; ok {
			e := c.errorf(b.Pos, "duplicate %s block", b.Kind)
			note(e, prev.Pos, fmt.Sprintf("the first %s block is here", b.Kind))
			continue
		}
		first[b.Kind] = b
	}
	// Data before parameters whatever the source order: parameter types may
	// use any data. Every block is checked, duplicates included, so that
	// their errors are reported too.
	c.allDecls = map[string]declAt{}
	for _, kind := range []BlockKind{DataBlock, ParamBlock} {
		for _, b := range f.Blocks {
			if b != nil && b.Kind == kind {
				for _, d := range b.Decls {
					if d != nil {
						if _, ok := c.allDecls[d.Name]; !ok {
							c.allDecls[d.Name] = declAt{d, kind}
						}
					}
				}
			}
		}
	}
	// The definitions of the transformed data and transformed param
	// blocks are seen by the blocks after them, in this order.
	c.derived = &scope{parent: c.globals, names: map[string]*Symbol{}}
	// Declarations first: the transformed data block sees the parameters'
	// names, to say that it cannot use them.
	order := []BlockKind{DataBlock, ParamBlock}
	for _, k := range BlockKinds {
		if k != DataBlock && k != ParamBlock {
			order = append(order, k)
		}
	}
	for _, kind := range order {
		for _, b := range f.Blocks {
			if b == nil || b.Kind != kind {
				continue
			}
			switch kind {
			case DataBlock, ParamBlock:
				for _, d := range b.Decls {
					c.decl(d, kind)
				}
			case InferBlock:
				c.settings(b.Settings, "setting")
			case FunctionsBlock:
				if b == first[kind] {
					c.functions(b.Funcs)
				} else {
					c.funcBodies(b.Funcs)
				}
			default:
				s := &scope{parent: c.derived, names: map[string]*Symbol{}, block: kind}
				c.blockDefs, c.current = map[string]defAt{}, kind
				collectDefs(b.Stmts, kind, c.blockDefs)
				if (kind == PredictBlock || kind == GeneratedBlock) && f.Model != nil {
					collectDefs(f.Model.Stmts, ModelBlock, c.blockDefs)
				}
				c.stmts(b.Stmts, s)
				c.blockDefs = nil
				if b == first[kind] && (kind == TransformedDataBlock || kind == TransformedParamBlock) {
					c.export(b.Stmts, s)
				}
			}
		}
	}
}

// export makes the definitions of a transformed data or transformed param
// block visible to the blocks after it. A definition in a plate body of
// transformed data is a column: one value per row of the data.
func (c *checker) export(stmts []Stmt, s *scope) {
	add := func(d *Define, from *scope) {
		if sym := from.names[d.Name]; sym != nil && sym.Define == d && c.derived.names[d.Name] == nil {
			c.derived.names[d.Name] = sym
		}
	}
	for _, st := range stmts {
		switch st := st.(type) {
		case *Define:
			add(st, s)
		case *LocalDecl:
			if sym := s.names[st.Name]; sym != nil && sym.Local == st && c.derived.names[st.Name] == nil {
				c.derived.names[st.Name] = sym
			}
		case *Plate:
			if body := c.plateScopes[st]; body != nil {
				for _, in := range st.Body {
					if d, ok := in.(*Define); ok {
						add(d, body)
					}
				}
			}
		}
	}
}

// checkName reports a keyword used as a name.
func (c *checker) checkName(name string, pos Pos) {
	if IsKeyword(name) {
		c.errorf(pos, "%q is a keyword and cannot be used as a name", name)
	}
}

func (c *checker) decl(d *Decl, kind BlockKind) {
	if d == nil || d.Type == nil {
		return
	}
	c.checkName(d.Name, d.Pos)
	symKind := DataSym
	if kind == ParamBlock {
		symKind = ParamSym
		if d.Type.Int {
			c.errorf(d.Type.Pos, "parameter %s must be real: the samplers move parameters continuously", d.Name)
		}
	}
	t := d.Type
	for _, dim := range t.Dims {
		c.typeExpr(dim, d, kind, true)
	}
	c.constrainedType(t, d, kind)
	if t.Lower != nil {
		c.typeExpr(t.Lower, d, kind, false)
	}
	if t.Upper != nil {
		c.typeExpr(t.Upper, d, kind, false)
	}
	c.affine(t, d, kind)
	if prev := c.globals.names[d.Name]; prev != nil {
		e := c.errorf(d.Pos, "%s redeclared", d.Name)
		note(e, prev.Pos(), "previously declared here")
		return
	}
	sym := &Symbol{Kind: symKind, Name: d.Name, Decl: d}
	c.globals.names[d.Name] = sym
	c.info.Defs[d] = sym
}

// affine checks Stan's offset and multiplier: of real parameters only, and
// not with bounds, whose transform they would replace.
func (c *checker) affine(t *Type, d *Decl, kind BlockKind) {
	for _, e := range []Expr{t.Offset, t.Multiplier} {
		if e == nil {
			continue
		}
		switch {
		case kind != ParamBlock:
			c.errorf(StartPos(e), "offset and multiplier apply to parameters: they say where the sampler's coordinates are")
		case t.Lower != nil || t.Upper != nil:
			c.errorf(StartPos(e), "offset and multiplier cannot be combined with lower or upper bounds: write the bounds alone, or reparameterise")
		default:
			c.typeExpr(e, d, kind, false)
			continue
		}
		return
	}
}

// constrainedType checks the size of a constrained type (simplex[K]): one
// integer, at least the kind's smallest where it is a literal (the
// compiler checks the others once the data gives their value), and no
// bounds, as the type itself constrains every entry.
func (c *checker) constrainedType(t *Type, d *Decl, kind BlockKind) {
	if t.Kind == "" {
		return
	}
	for _, b := range []Expr{t.Lower, t.Upper, t.Offset, t.Multiplier} {
		if b != nil {
			c.errorf(StartPos(b), "%s cannot take bounds: the type itself constrains its entries", t.Kind)
		}
	}
	for _, e := range t.Size {
		c.typeExpr(e, d, kind, true)
	}
	switch {
	case len(t.Size) == 2 && t.Kind == CholeskyFactorCov:
		c.errorf(t.SizePos, "cholesky_factor_cov[M, N] is not supported: only square factors, cholesky_factor_cov[K]")
	case len(t.Size) != 1:
		c.errorf(t.SizePos, "%s takes one size, K: %s[K]", t.Kind, t.Kind)
	default:
		if n, ok := t.Size[0].(*Number); ok && n.Int && n.Value < float64(t.Kind.MinSize()) {
			c.errorf(StartPos(n), "%s[%s]: its size must be at least %d", t.Kind, n.Text, t.Kind.MinSize())
		}
	}
}

// typeExpr checks a dimension (dim) or a bound of the type of d. A type may
// use numbers, arithmetic and names of scalars declared before d: data
// declared earlier for the dimensions and bounds of data, data for the
// dimensions of parameters, data and earlier parameters for their bounds.
// Dimensions must be integer-valued.
func (c *checker) typeExpr(e Expr, d *Decl, kind BlockKind, dim bool) {
	var walk func(e Expr) bool
	walk = func(e Expr) bool {
		isInt := false
		switch e := e.(type) {
		case *Number:
			isInt = e.Int
		case *Ident:
			isInt = c.typeName(e, d, kind, dim)
		case *Unary:
			isInt = walk(e.X)
			if e.Op == "!" {
				c.errorf(e.Pos, "%s may only use numbers, names and arithmetic, not the logical operator !", what(dim))
			}
		case *Binary:
			l, r := walk(e.L), walk(e.R)
			isInt = l && r && (e.Op == "+" || e.Op == "-" || e.Op == "*")
			switch {
			case e.Op == "@":
				c.errorf(e.Pos, "%s cannot use the matrix product @", what(dim))
			case IsLogical(e.Op):
				c.errorf(e.Pos, "%s may only use numbers, names and arithmetic, not the operator %s", what(dim), e.Op)
			}
		case nil:
			return false
		default:
			c.errorf(StartPos(e), "%s may only use numbers, names and arithmetic, not %s", what(dim), describeExpr(e))
			c.info.IsInt[e] = false
			return false
		}
		c.info.IsInt[e] = isInt
		return isInt
	}
	before := len(c.errs)
	if !walk(e) && dim && len(c.errs) == before {
		c.errorf(StartPos(e), "dimension %s is not an integer", shortExpr(e))
	}
}

// typeName resolves a name used in the type of d and reports whether it is
// integer-valued.
func (c *checker) typeName(id *Ident, d *Decl, kind BlockKind, dim bool) bool {
	sym := c.globals.names[id.Name]
	if sym == nil {
		later, declared := c.allDecls[id.Name]
		switch {
		case id.Name == d.Name:
			c.errorf(id.Pos, "the type of %s cannot use %s itself", d.Name, d.Name)
		case !declared:
			c.unknownName(id, c.globals.visible())
		case later.kind == ParamBlock && (dim || kind == DataBlock):
			e := c.errorf(id.Pos, "%s may only use data, and %s is a parameter", what(dim), id.Name)
			note(e, later.decl.Pos, "declared here")
		default:
			e := c.errorf(id.Pos, "%s is declared after %s: a type may only use names declared before it", id.Name, d.Name)
			note(e, later.decl.Pos, "declared here")
		}
		return false
	}
	c.info.Symbols[id] = sym
	t := sym.Decl.Type
	switch {
	case dim && sym.Kind == ParamSym:
		e := c.errorf(id.Pos, "%s may only use data, and %s is a parameter", what(dim), id.Name)
		note(e, sym.Pos(), "declared here")
		return false
	case t.Rank() > 0:
		e := c.errorf(id.Pos, "%s may only use scalars, and %s has %s", what(dim), id.Name, plural(t.Rank(), "dimension"))
		note(e, sym.Pos(), "declared here")
		return false
	case dim && !t.Int:
		e := c.errorf(id.Pos, "dimension %s must be an int, and %s is real", id.Name, id.Name)
		note(e, sym.Pos(), "declared here")
		return false
	}
	return t.Int
}

func what(dim bool) string {
	if dim {
		return "a dimension"
	}
	return "a bound"
}

// plural returns "1 dimension", "2 dimensions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// describeExpr names the kind of an expression for messages.
func describeExpr(e Expr) string {
	switch e.(type) {
	case *Call:
		return "a function call"
	case *Index:
		return "indexing"
	case *Vector:
		return "a vector"
	case *String:
		return "a string"
	}
	return "this expression"
}

// stmts checks a statement list in scope s.
func (c *checker) stmts(list []Stmt, s *scope) {
	for _, st := range list {
		if st == nil {
			continue
		}
		if p := s.inPlate(); p != nil {
			c.info.InPlate[st] = p
		}
		switch st := st.(type) {
		case *Sample:
			switch {
			case s.fn != nil:
				c.errorf(st.Pos, "a function's body computes a value: ~ belongs in the model block")
			case computesOnly(s.block):
				c.errorf(st.Pos, "the %s block only computes values: ~ belongs in the model block%s", s.block, orRNG(s.block))
			}
			c.sample(st, s)
		case *Define:
			if sym := s.lookup(st.Name); sym != nil && sym.Kind == LocalSym {
				c.assign(&Assign{Pos: st.Pos, Lhs: &Ident{Pos: st.Pos, Name: st.Name}, Op: "=", Value: st.Value}, s)
				continue
			}
			c.define(st, s)
		case *TargetAdd:
			switch {
			case s.fn != nil:
				c.errorf(st.Pos, "a function's body computes a value: target += belongs in the model block")
			case s.block != ModelBlock:
				c.errorf(st.Pos, "target += is only allowed in the model block")
			}
			c.expr(st.Value, s)
		case *Plate:
			if pos, what, ok := s.inControl(); ok {
				e := c.errorf(st.Pos, "a plate cannot be inside a %s: the plate is the minibatched axis of the whole block; put the loop inside the plate (for n in plate(N) { for t in 1:T { ... } })", what)
				note(e, pos, "the enclosing "+what)
			} else if s.fn != nil {
				c.errorf(st.Pos, "a function's body cannot have a plate: call the function inside one")
			}
			if s.block == TransformedParamBlock {
				c.errorf(st.Pos, "the transformed param block cannot have a plate: its values are written once per draw; compute per-row values in the model block, or in the generated block for the output")
			}
			c.plate(st, s)
		case *LocalDecl:
			c.localDecl(st, s)
		case *Assign:
			c.assign(st, s)
		case *For:
			c.forLoop(st, s)
		case *If:
			c.ifStmt(st, s)
		case *While:
			c.whileLoop(st, s)
		case *Break:
			c.breakStmt(st, s)
		case *Return:
			c.returnStmt(st, s)
		}
	}
}

// computesOnly reports whether the block holds definitions only.
func computesOnly(k BlockKind) bool {
	return k == TransformedDataBlock || k == TransformedParamBlock || k == GeneratedBlock
}

// orRNG suggests the random number generators where they may be used.
func orRNG(k BlockKind) string {
	if k == GeneratedBlock {
		return " (draw a variate with a _rng function: y_rep = normal_rng(mu, sigma))"
	}
	return ""
}

// checked is what checking an expression found: whether it is
// integer-valued, and whether it is free of errors (so that a name already
// reported unknown is not also reported as real-valued where an integer is
// needed).
type checked struct{ isInt, clean bool }

// needsInt reports whether an integer-valued expression is missing: it is
// real-valued and has no error of its own.
func (k checked) needsInt() bool { return !k.isInt && k.clean }

func (c *checker) check(e Expr, s *scope) checked {
	before := len(c.errs)
	isInt := c.expr(e, s)
	return checked{isInt, len(c.errs) == before}
}

func (c *checker) checkAll(xs []Expr, s *scope) []checked {
	out := make([]checked, len(xs))
	for i, x := range xs {
		out[i] = c.check(x, s)
	}
	return out
}

func (c *checker) sample(st *Sample, s *scope) {
	lhs := c.check(st.Lhs, s)
	args := c.checkAll(st.Args, s)
	sig, ok := c.env.Distributions[st.Dist]
	if !ok {
		msg := fmt.Sprintf("unknown distribution %q", st.Dist)
		if _, isFunc := c.env.Functions[st.Dist]; isFunc {
			msg = fmt.Sprintf("%s is a function, not a distribution", st.Dist)
		} else if sugg := Suggest(st.Dist, keys(c.env.Distributions)); sugg != "" {
			msg += fmt.Sprintf("; did you mean %q?", sugg)
		}
		c.errorf(st.DistPos, "%s", msg)
		return
	}
	if len(sig.Params) == 0 {
		return // a malformed signature: nothing to check against
	}
	if !c.arity(st.Dist, st.DistPos, sig, sig.Params[1:], len(st.Args)) {
		return
	}
	if st.Trunc != nil {
		c.truncation(st, s)
	}
	if sig.intAt(0) && lhs.needsInt() && st.Lhs != nil {
		c.errorf(StartPos(st.Lhs), "%s is a distribution over integers, but %s is real-valued", st.Dist, shortExpr(st.Lhs))
	}
	for i, a := range st.Args {
		if sig.intAt(i+1) && args[i].needsInt() {
			c.errorf(StartPos(a), "argument %s of %s must be integer-valued, but %s is real-valued", paramName(sig, i+1), st.Dist, shortExpr(a))
		}
		if v, ok := literalValue(a); ok && sig.Outside != nil {
			if msg := sig.Outside(i+1, v); msg != "" {
				c.errorf(StartPos(a), "%s, got %s", msg, shortExpr(a))
			}
		}
	}
}

// truncation checks a ~ statement's T[L, U]: its distribution must have
// log CDFs (NAME_lcdf), which the normalisation is computed from.
func (c *checker) truncation(st *Sample, s *scope) {
	c.check(st.Trunc.Lower, s)
	c.check(st.Trunc.Upper, s)
	if _, ok := c.env.Functions[st.Dist+"_lcdf"]; !ok {
		c.errorf(st.Trunc.Pos, "%s cannot be truncated: T[L, U] is normalised by its CDF, and %s has no %s_lcdf", st.Dist, st.Dist, st.Dist)
	}
}

// literalValue is the value of a number written as a literal, signed or
// not: the arguments whose support the checker can judge.
func literalValue(e Expr) (float64, bool) {
	switch e := e.(type) {
	case *Number:
		return e.Value, true
	case *Unary:
		if v, ok := literalValue(e.X); ok && e.Op == "-" {
			return -v, true
		}
	}
	return 0, false
}

// paramName names argument i (counted as in Params) of sig.
func paramName(sig Signature, i int) string {
	if i < len(sig.Params) {
		return sig.Params[i]
	}
	return sig.Params[len(sig.Params)-1]
}

// arity checks the number of arguments of a call of name, whose parameters
// (without a distribution's variate) are params.
func (c *checker) arity(name string, pos Pos, sig Signature, params []string, got int) bool {
	want := len(params)
	least := want - max(0, min(sig.Optional, want))
	if got == want || sig.Variadic && got > want || got >= least && got <= want {
		return true
	}
	var takes string
	switch {
	case sig.Variadic:
		takes = "at least " + plural(want, "argument")
	case least < want:
		takes = fmt.Sprintf("%d to %d arguments", least, want)
	case want == 0:
		takes = "no arguments"
	default:
		takes = plural(want, "argument")
	}
	if want > 0 {
		takes += " (" + strings.Join(params, ", ")
		if sig.Variadic {
			takes += ", ..."
		}
		takes += ")"
	}
	c.errorf(pos, "%s takes %s, got %d", name, takes, got)
	return false
}

func (c *checker) define(st *Define, s *scope) {
	c.expr(st.Value, s)
	c.checkName(st.Name, st.Pos)
	if prev := s.lookup(st.Name); prev != nil {
		var e *Error
		switch prev.Kind {
		case DefineSym:
			e = c.errorf(st.Pos, "%s is already defined", st.Name)
		case IndexSym:
			e = c.errorf(st.Pos, "%s is already the index of the plate", st.Name)
		case LoopSym:
			e = c.errorf(st.Pos, "%s is already the index of the loop, which cannot change", st.Name)
		case FuncParamSym:
			e = c.errorf(st.Pos, "%s is already a parameter of the function, which cannot change: copy it into a local variable (%s2: real = %s)", st.Name, st.Name, st.Name)
		default:
			e = c.errorf(st.Pos, "%s is already declared as %s", st.Name, article(prev.Kind))
		}
		note(e, prev.Pos(), "previously declared here")
		return
	}
	sym := &Symbol{Kind: DefineSym, Name: st.Name, Define: st, Plate: s.inPlate(), Block: s.block, Func: s.fn}
	s.names[st.Name] = sym
	c.info.Defs[st] = sym
}

// article returns "data" or "a parameter" for a message.
func article(k SymbolKind) string {
	if k == DataSym {
		return "data"
	}
	return "a " + k.String()
}

func (c *checker) plate(p *Plate, s *scope) {
	if outer := s.inPlate(); outer != nil {
		e := c.errorf(p.Pos, "nested plates are not supported")
		note(e, outer.Pos, "the enclosing plate")
	}
	c.plateSize(p.Size, s)
	body := &scope{parent: s, names: map[string]*Symbol{}, plate: p, block: s.block}
	c.checkName(p.Index, p.IndexPos)
	sym := &Symbol{Kind: IndexSym, Name: p.Index, Plate: p}
	if prev := s.lookup(p.Index); prev != nil {
		e := c.errorf(p.IndexPos, "the plate index must be a new name, and %s is already declared as %s", p.Index, article(prev.Kind))
		note(e, prev.Pos(), "previously declared here")
	}
	body.names[p.Index] = sym
	c.info.Defs[p] = sym
	c.plateScopes[p] = body
	c.stmts(p.Body, body)
}

// plateSize checks that a plate's size names an int data scalar: the
// number of rows of the observation axis.
func (c *checker) plateSize(e Expr, s *scope) {
	c.expr(e, s)
	id, ok := e.(*Ident)
	if !ok {
		if e != nil {
			c.errorf(StartPos(e), "the size of a plate must be the name of an int data field (the number of rows), not %s", shortExpr(e))
		}
		return
	}
	sym := c.info.Symbols[id]
	if sym == nil {
		return // reported as unknown
	}
	var why string
	switch {
	case sym.Kind != DataSym:
		why = fmt.Sprintf("%s is %s", id.Name, article(sym.Kind))
	case !sym.Decl.Type.Int:
		why = fmt.Sprintf("%s is real", id.Name)
	case len(sym.Decl.Type.Dims) > 0:
		why = fmt.Sprintf("%s has %s", id.Name, plural(len(sym.Decl.Type.Dims), "dimension"))
	default:
		return
	}
	e2 := c.errorf(id.Pos, "the size of a plate must be an int data scalar (the number of rows), and %s", why)
	note(e2, sym.Pos(), "declared here")
}

// expr checks an expression of a model or predict block and reports whether
// it is integer-valued.
func (c *checker) expr(e Expr, s *scope) bool {
	isInt := false
	switch e := e.(type) {
	case nil:
		return false
	case *Number:
		isInt = e.Int
	case *String:
		c.errorf(e.Pos, "a string is only allowed in the infer block")
	case *Ident:
		isInt = c.ident(e, s)
	case *Unary:
		isInt = c.expr(e.X, s) || e.Op == "!"
	case *Binary:
		l, r := c.expr(e.L, s), c.expr(e.R, s)
		isInt = l && r && (e.Op == "+" || e.Op == "-" || e.Op == "*") || IsLogical(e.Op)
	case *Call:
		isInt = c.call(e, s)
	case *Index:
		isInt = c.index(e, s)
	case *Vector:
		isInt = len(e.Elems) > 0
		for _, x := range e.Elems {
			if !c.expr(x, s) {
				isInt = false
			}
		}
	}
	c.info.IsInt[e] = isInt
	return isInt
}

func (c *checker) ident(id *Ident, s *scope) bool {
	sym := s.lookup(id.Name)
	if sym == nil {
		c.unknownName(id, s.visible())
		return false
	}
	c.info.Symbols[id] = sym
	if s.block == TransformedDataBlock && sym.Kind == ParamSym {
		e := c.errorf(id.Pos, "the transformed data block cannot use the parameter %s: it is computed once, from the data alone", id.Name)
		note(e, sym.Pos(), "declared here")
	}
	switch sym.Kind {
	case DataSym:
		return sym.Decl.Type.Int
	case IndexSym, LoopSym:
		return true
	case DefineSym:
		return c.info.IsInt[sym.Define.Value]
	case LocalSym:
		c.readLocal(id.Name, id.Pos, sym, s)
		return sym.Local.Type.Int
	case FuncParamSym:
		return sym.Param.Type.Int
	}
	return false
}

func (c *checker) unknownName(id *Ident, candidates []string) {
	if IsKeyword(id.Name) {
		c.errorf(id.Pos, "%q is a keyword and cannot be used as a name", id.Name)
		return
	}
	msg := fmt.Sprintf("unknown name %q", id.Name)
	def, defined := c.blockDefs[id.Name]
	if sugg := Suggest(id.Name, candidates); sugg != "" && !defined {
		msg += fmt.Sprintf("; did you mean %q?", sugg)
	}
	e := c.errorf(id.Pos, "%s", msg)
	switch {
	case !defined:
	case def.block != c.current:
		note(e, def.pos, fmt.Sprintf("%s is defined in the %s block, whose definitions %s cannot see", id.Name, def.block, c.current))
	case def.pos.Offset > id.Pos.Offset:
		note(e, def.pos, fmt.Sprintf("%s is defined here, after its use", id.Name))
	case def.loop:
		note(e, def.pos, fmt.Sprintf("%s is the index of this loop: only the loop's body can use it", id.Name))
	case def.inBody:
		note(e, def.pos, fmt.Sprintf("%s is declared here, inside the body of a loop or an if: only that body can use it", id.Name))
	case def.inPlate:
		note(e, def.pos, fmt.Sprintf("%s is defined here, inside a plate: only that plate's body can use it", id.Name))
	}
}

// suggestFunction is the known function nearest an unknown name: for a
// density called with the wrong one of _lpdf and _lpmf, the other, which
// the spelling alone ties with the distribution's _lcdf.
func (c *checker) suggestFunction(name string) string {
	for _, swap := range [][2]string{{"_lpdf", "_lpmf"}, {"_lpmf", "_lpdf"}} {
		if base, ok := strings.CutSuffix(name, swap[0]); ok {
			if _, known := c.env.Functions[base+swap[1]]; known {
				return base + swap[1]
			}
		}
	}
	return Suggest(name, append(keys(c.env.Functions), keys(c.funcs)...))
}

// call checks a function call and reports whether its result is
// integer-valued.
func (c *checker) call(e *Call, s *scope) bool {
	if IsODESolver(e.Func) && c.funcs[e.Func] == nil {
		return c.odeCall(e, s)
	}
	args := c.checkAll(e.Args, s)
	if f := c.funcs[e.Func]; f != nil {
		return c.userCall(e, f, args, s)
	}
	sig, ok := c.env.Functions[e.Func]
	if !ok {
		switch _, isDist := c.env.Distributions[e.Func]; {
		case isDist:
			c.errorf(e.Pos, `%s is a distribution, not a function: use it after "~"`, e.Func)
		default:
			msg := fmt.Sprintf("unknown function %q", e.Func)
			if sugg := c.suggestFunction(e.Func); sugg != "" {
				msg += fmt.Sprintf("; did you mean %q?", sugg)
			}
			c.errorf(e.Pos, "%s", msg)
		}
		return false
	}
	if alt := sig.Alt; alt != nil {
		if len(e.Args) == len(alt.Params) {
			sig = *alt
		} else if len(e.Args) != len(sig.Params) {
			c.errorf(e.Pos, "%s takes %s (%s) or %d (%s), got %d", e.Func, plural(len(sig.Params), "argument"), strings.Join(sig.Params, ", "),
				len(alt.Params), strings.Join(alt.Params, ", "), len(e.Args))
			return false
		}
	}
	if !c.arity(e.Func, e.Pos, sig, sig.Params, len(e.Args)) {
		return false
	}
	if sig.Random && s.block != GeneratedBlock {
		c.errorf(e.Pos, "%s draws random numbers: it is only allowed in the generated block", e.Func)
	}
	for i, a := range e.Args {
		if sig.intAt(i) && args[i].needsInt() {
			c.errorf(StartPos(a), "argument %s of %s must be integer-valued, but %s is real-valued", paramName(sig, i), e.Func, shortExpr(a))
		}
		if i < len(sig.Ranks) && sig.Ranks[i] >= 0 {
			if r := c.rank(a); r >= 0 && r != sig.Ranks[i] {
				has := fmt.Sprintf("has %d", r)
				if r == 0 {
					has = "is a scalar"
				}
				c.errorf(StartPos(a), "argument %s of %s must have %s, but %s %s",
					paramName(sig, i), e.Func, plural(sig.Ranks[i], "dimension"), shortExpr(a), has)
			}
		}
	}
	if sig.IntResult {
		return true
	}
	isInt := len(sig.IntIf) > 0
	for _, i := range sig.IntIf {
		isInt = isInt && i < len(args) && args[i].isInt
	}
	return isInt
}

// IsLogical reports whether op is a comparison or a logical operator: its
// result is 0 or 1, an int.
func IsLogical(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=", "&&", "||":
		return true
	}
	return false
}

// index checks x[items]: integer-valued indices, and no more of them than x
// has dimensions where that is known.
func (c *checker) index(e *Index, s *scope) bool {
	isInt := c.expr(e.X, s)
	for _, it := range e.Items {
		for _, x := range []Expr{it.Lo, it.Hi} {
			if x != nil && c.check(x, s).needsInt() {
				c.errorf(StartPos(x), "index %s must be integer-valued", shortExpr(x))
			}
		}
	}
	if rank := c.rank(e.X); rank >= 0 && len(e.Items) > rank {
		name := shortExpr(e.X)
		if rank == 0 {
			c.errorf(e.Pos, "%s is a scalar and cannot be indexed", name)
		} else {
			c.errorf(e.Pos, "%s has %s, indexed with %d", name, plural(rank, "dimension"), len(e.Items))
		}
	}
	return isInt
}

// rank returns the number of dimensions of e when the declarations tell it
// (a data field or parameter, a plate index, or an indexed one), else -1.
func (c *checker) rank(e Expr) int {
	switch e := e.(type) {
	case *Ident:
		sym := c.info.Symbols[e]
		switch {
		case sym == nil:
			return -1
		case sym.Decl != nil && sym.Decl.Type != nil:
			return sym.Decl.Type.Rank()
		case sym.Kind == IndexSym || sym.Kind == LoopSym:
			return 0
		case sym.Local != nil && sym.Local.Type != nil:
			return len(sym.Local.Type.Dims)
		case sym.Param != nil:
			return sym.Param.Type.Rank
		}
	case *Call:
		if f := c.funcs[e.Func]; f != nil {
			return f.Result.Rank
		}
	case *Index:
		r := c.rank(e.X)
		if r < 0 || len(e.Items) > r {
			return -1
		}
		for _, it := range e.Items {
			if it.Slice {
				continue
			}
			// An index by an int array (a[idx]) keeps the array's axes;
			// any other index is a scalar (the compiler indexes by no
			// other arrays).
			r += max(c.rank(it.Lo), 0) - 1
		}
		return r
	case *Number:
		return 0
	}
	return -1
}

// settings checks the settings of the infer block (what = "setting") or the
// options of a sampler (what = "option"): their keys must be unique. The
// grammar already limits values to numbers, strings, names and sampler
// specs; which keys exist and what values they take is the CLI's to check,
// since any key it does not know is a sampler option.
func (c *checker) settings(list []*Setting, what string) {
	seen := map[string]*Setting{}
	for _, st := range list {
		if st == nil {
			continue
		}
		if prev, ok := seen[st.Key]; ok {
			e := c.errorf(st.Pos, "duplicate %s %q", what, st.Key)
			note(e, prev.Pos, "previously set here")
		} else {
			seen[st.Key] = st
		}
		if spec, ok := st.Value.(*SamplerSpec); ok {
			c.settings(spec.Options, "option")
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
