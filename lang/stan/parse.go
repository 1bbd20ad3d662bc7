// Package stan translates Stan programs into temper's .ppl language.
//
// Parse reads the subset of Stan that models commonly use (the seven
// blocks, old and new array declarations, sampling statements, target +=,
// loops, ifs, local variables, user functions and Stan's expressions) into
// a small syntax tree; Translate writes the .ppl program and lists, with
// the Stan file's line:col, each construct that has no counterpart. The
// parser is a hand-written recursive descent over Stan's grammar as the
// Stan Reference Manual describes it.
package stan

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pos is a 1-based line and column (in characters) of the Stan source.
type Pos struct{ Line, Col int }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tReal
	tString
	tOp
)

type token struct {
	kind tokKind
	text string
	pos  Pos
}

// SyntaxError is a Stan program that does not parse.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s: %s", e.Pos, e.Msg) }

// ops are Stan's operators and punctuation, longest first.
var ops = []string{
	".*=", "./=",
	"<-", "+=", "-=", "*=", "/=", "==", "!=", "<=", ">=", "&&", "||", ".*", "./", ".^", "%/%",
	"+", "-", "*", "/", "%", "\\", "^", "'", "~", "=", ":", ",", ";", "<", ">", "!", "?", "|",
	"(", ")", "[", "]", "{", "}",
}

// Comment is a comment of the Stan source, one line of it, without its
// markers.
type Comment struct {
	Pos  Pos
	Text string
}

func lex(src string) ([]token, []Comment, error) {
	var toks []token
	var comments []Comment
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for _, r := range src[i : i+n] {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		i += n
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			adv(1)
			continue
		case strings.HasPrefix(src[i:], "//") || c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(src[i:i+j], "#"), "//"))
			if !strings.HasPrefix(src[i:], "#include") {
				comments = append(comments, Comment{Pos{line, col}, text})
			}
			adv(j)
			continue
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, nil, &SyntaxError{Pos{line, col}, "unterminated comment"}
			}
			p := Pos{line, col}
			for _, l := range strings.Split(src[i+2:i+2+j], "\n") {
				l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
				if l != "" {
					comments = append(comments, Comment{p, l})
				}
			}
			adv(j + 4)
			continue
		}
		p := Pos{line, col}
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case unicode.IsLetter(r) || r == '_':
			j := i + size
			for j < len(src) {
				r2, s2 := utf8.DecodeRuneInString(src[j:])
				if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) && r2 != '_' {
					break
				}
				j += s2
			}
			toks = append(toks, token{tIdent, src[i:j], p})
			adv(j - i)
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			j, real := i, false
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			if j < len(src) && src[j] == '.' && !(j+1 < len(src) && (src[j+1] == '*' || src[j+1] == '/' || src[j+1] == '^')) {
				real = true
				j++
				for j < len(src) && src[j] >= '0' && src[j] <= '9' {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					real = true
					for j = k; j < len(src) && src[j] >= '0' && src[j] <= '9'; j++ {
					}
				}
			}
			kind := tInt
			if real {
				kind = tReal
			}
			toks = append(toks, token{kind, src[i:j], p})
			adv(j - i)
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				j++
			}
			if j >= len(src) || src[j] != '"' {
				return nil, nil, &SyntaxError{p, "unterminated string"}
			}
			toks = append(toks, token{tString, src[i : j+1], p})
			adv(j + 1 - i)
		default:
			found := false
			for _, op := range ops {
				if strings.HasPrefix(src[i:], op) {
					toks = append(toks, token{tOp, op, p})
					adv(len(op))
					found = true
					break
				}
			}
			if !found {
				return nil, nil, &SyntaxError{p, fmt.Sprintf("unexpected character %q", r)}
			}
		}
	}
	toks = append(toks, token{tEOF, "", Pos{line, col}})
	return toks, comments, nil
}

// Program is a parsed Stan program.
type Program struct {
	Functions []*Function
	Blocks    []*Block  // in the order of the source
	Comments  []Comment // in the order of the source
	// FunctionsPos is where the functions block begins (zero if none).
	FunctionsPos Pos
}

// Block is one of Stan's program blocks.
type Block struct {
	Name  string // "data", "transformed data", "parameters", ...
	Pos   Pos
	End   Pos // its closing brace
	Stmts []Stmt
}

// Type is a Stan type as declared.
type Type struct {
	Pos        Pos
	Base       string // int, real, vector, row_vector, matrix, simplex, ..., void
	Sizes      []Expr // vector[N], matrix[N, K]: the type's own sizes
	Bounds     []Bound
	ArrayDims  []Expr // array[d1, d2] or the old trailing name[d1, d2]
	ArrayRank  int    // function argument types: array[,] real
	Data       bool   // a function argument marked data
	Complex    bool   // complex, complex_vector, tuple, ...: no counterpart
	TypeString string
}

// Bound is one of <lower=e>, <upper=e>, <offset=e>, <multiplier=e>.
type Bound struct {
	Key   string
	Value Expr
}

// Function is a user-defined function.
type Function struct {
	Pos    Pos
	Result *Type
	Name   string
	Params []Param
	Body   []Stmt // nil for a forward declaration
	End    Pos    // the body's closing brace
}

// Param is a function parameter.
type Param struct {
	Type *Type
	Name string
}

// Stmt is a statement.
type Stmt interface{ stmtPos() Pos }

// Expr is an expression.
type Expr interface{ exprPos() Pos }

type (
	// Decl is a variable declaration, with an optional initial value.
	Decl struct {
		Pos  Pos
		Type *Type
		Name string
		Init Expr // or nil
	}
	// Tilde is `lhs ~ dist(args) T[lo, hi];`.
	Tilde struct {
		Pos      Pos
		LHS      Expr
		Dist     string
		DistPos  Pos
		Args     []Expr
		Trunc    bool
		TruncLo  Expr // or nil
		TruncHi  Expr // or nil
		TruncPos Pos
	}
	// TargetPlus is `target += e;`.
	TargetPlus struct {
		Pos  Pos
		Expr Expr
	}
	// Assign is `lhs op e;` with op one of = += -= *= /= .*= ./= (and <-).
	Assign struct {
		Pos Pos
		LHS Expr
		Op  string
		RHS Expr
	}
	// For is `for (v in lo:hi) body`, or a foreach `for (v in e)` (Hi nil).
	For struct {
		Pos    Pos
		Var    string
		Lo, Hi Expr
		Body   []Stmt
	}
	// While is a while loop.
	While struct {
		Pos  Pos
		Cond Expr
		Body []Stmt
	}
	// If is an if with an optional else.
	If struct {
		Pos  Pos
		Cond Expr
		Then []Stmt
		Else []Stmt // or nil; an else-if is one If inside
	}
	// Nested is a braced block of statements.
	Nested struct {
		Pos   Pos
		Stmts []Stmt
	}
	// Return is `return e;` (Value nil for a void return).
	Return struct {
		Pos   Pos
		Value Expr
	}
	// Other is a statement without counterpart: print, reject, break, ...
	Other struct {
		Pos  Pos
		What string
	}
	// ExprStmt is a function call as a statement.
	ExprStmt struct {
		Pos  Pos
		Expr Expr
	}
)

func (s *Decl) stmtPos() Pos       { return s.Pos }
func (s *Tilde) stmtPos() Pos      { return s.Pos }
func (s *TargetPlus) stmtPos() Pos { return s.Pos }
func (s *Assign) stmtPos() Pos     { return s.Pos }
func (s *For) stmtPos() Pos        { return s.Pos }
func (s *While) stmtPos() Pos      { return s.Pos }
func (s *If) stmtPos() Pos         { return s.Pos }
func (s *Nested) stmtPos() Pos     { return s.Pos }
func (s *Return) stmtPos() Pos     { return s.Pos }
func (s *Other) stmtPos() Pos      { return s.Pos }
func (s *ExprStmt) stmtPos() Pos   { return s.Pos }

type (
	// Name is a variable.
	Name struct {
		Pos  Pos
		Name string
	}
	// Number is an int or real literal, as written.
	Number struct {
		Pos  Pos
		Text string
		Int  bool
	}
	// Str is a string literal (print and reject only).
	Str struct {
		Pos  Pos
		Text string
	}
	// Binary is `l op r`.
	Binary struct {
		Pos  Pos
		Op   string
		L, R Expr
	}
	// Unary is a prefix `-`, `+` or `!`.
	Unary struct {
		Pos Pos
		Op  string
		X   Expr
	}
	// Transpose is the postfix `'`.
	Transpose struct {
		Pos Pos
		X   Expr
	}
	// Cond is `c ? a : b`.
	Cond struct {
		Pos     Pos
		C, A, B Expr
	}
	// Call is `f(args)`, or `f(y | args)` (Bar set) for a log density.
	Call struct {
		Pos  Pos
		Name string
		Args []Expr
		Bar  bool
	}
	// Index is `x[items]`.
	Index struct {
		Pos   Pos
		X     Expr
		Items []Expr // an item is an Expr or a *Slice
	}
	// Slice is `lo:hi` with either end optional (nil).
	Slice struct {
		Pos    Pos
		Lo, Hi Expr
	}
	// ArrayExpr is `{a, b}`.
	ArrayExpr struct {
		Pos   Pos
		Elems []Expr
	}
	// RowVectorExpr is `[a, b]`.
	RowVectorExpr struct {
		Pos   Pos
		Elems []Expr
	}
	// Paren is `(e)`.
	Paren struct {
		Pos Pos
		X   Expr
	}
)

func (e *Name) exprPos() Pos          { return e.Pos }
func (e *Number) exprPos() Pos        { return e.Pos }
func (e *Str) exprPos() Pos           { return e.Pos }
func (e *Binary) exprPos() Pos        { return e.Pos }
func (e *Unary) exprPos() Pos         { return e.Pos }
func (e *Transpose) exprPos() Pos     { return e.Pos }
func (e *Cond) exprPos() Pos          { return e.Pos }
func (e *Call) exprPos() Pos          { return e.Pos }
func (e *Index) exprPos() Pos         { return e.Pos }
func (e *Slice) exprPos() Pos         { return e.Pos }
func (e *ArrayExpr) exprPos() Pos     { return e.Pos }
func (e *RowVectorExpr) exprPos() Pos { return e.Pos }
func (e *Paren) exprPos() Pos         { return e.Pos }

type parser struct {
	toks     []token
	comments []Comment
	i        int
	depth    int
}

// bail is the private panic type that carries a syntax error out of the
// recursion; Parse recovers it.
type bail struct{ err *SyntaxError }

// maxDepth bounds the nesting of expressions and statements.
const maxDepth = 200

// Parse parses a Stan program.
func Parse(src string) (prog *Program, err error) {
	toks, comments, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, comments: comments}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			prog, err = nil, b.err
		}
	}()
	return p.program(), nil
}

func (p *parser) tok() token { return p.toks[p.i] }

func (p *parser) peek(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if p.i < len(p.toks)-1 {
		p.i++
	}
	return t
}

func (p *parser) is(text string) bool {
	t := p.tok()
	return (t.kind == tOp || t.kind == tIdent) && t.text == text
}

func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.next()
		return true
	}
	return false
}

func (p *parser) failf(pos Pos, format string, args ...any) {
	panic(bail{&SyntaxError{pos, fmt.Sprintf(format, args...)}})
}

func describe(t token) string {
	if t.kind == tEOF {
		return "the end of the file"
	}
	return fmt.Sprintf("%q", t.text)
}

func (p *parser) expect(text string) token {
	if !p.is(text) {
		p.failf(p.tok().pos, "expected %q, found %s", text, describe(p.tok()))
	}
	return p.next()
}

func (p *parser) ident() token {
	t := p.tok()
	if t.kind != tIdent {
		p.failf(t.pos, "expected a name, found %s", describe(t))
	}
	return p.next()
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.failf(p.tok().pos, "nested more than %d levels deep", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

var blockNames = []struct{ words []string }{
	{[]string{"functions"}},
	{[]string{"data"}},
	{[]string{"transformed", "data"}},
	{[]string{"parameters"}},
	{[]string{"transformed", "parameters"}},
	{[]string{"model"}},
	{[]string{"generated", "quantities"}},
}

func (p *parser) program() *Program {
	prog := &Program{Comments: p.comments}
	for p.tok().kind != tEOF {
		pos := p.tok().pos
		var name string
		for _, b := range blockNames {
			ok := true
			for k, w := range b.words {
				t := p.peek(k)
				if t.kind != tIdent || t.text != w {
					ok = false
					break
				}
			}
			if ok && p.peek(len(b.words)).text == "{" {
				name = strings.Join(b.words, " ")
				p.i += len(b.words)
				break
			}
		}
		if name == "" {
			p.failf(pos, "expected a block (functions, data, transformed data, parameters, transformed parameters, model, generated quantities), found %s", describe(p.tok()))
		}
		p.expect("{")
		if name == "functions" {
			prog.FunctionsPos = pos
			for !p.is("}") {
				prog.Functions = append(prog.Functions, p.function())
			}
			p.expect("}")
			continue
		}
		b := &Block{Name: name, Pos: pos}
		for !p.is("}") {
			if p.tok().kind == tEOF {
				p.failf(p.tok().pos, "expected \"}\", found the end of the file")
			}
			b.Stmts = append(b.Stmts, p.stmt())
		}
		b.End = p.expect("}").pos
		prog.Blocks = append(prog.Blocks, b)
	}
	return prog
}

// function parses `ret name(args) { body }` or a forward declaration.
func (p *parser) function() *Function {
	pos := p.tok().pos
	ret := p.argType()
	f := &Function{Pos: pos, Result: ret, Name: p.ident().text}
	p.expect("(")
	for !p.is(")") {
		t := p.argType()
		f.Params = append(f.Params, Param{Type: t, Name: p.ident().text})
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	if p.accept(";") {
		return f
	}
	p.expect("{")
	f.Body = []Stmt{}
	for !p.is("}") {
		if p.tok().kind == tEOF {
			p.failf(p.tok().pos, "expected \"}\", found the end of the file")
		}
		f.Body = append(f.Body, p.stmt())
	}
	f.End = p.expect("}").pos
	return f
}

// argType parses an unsized type of a function's argument or result:
// `data array[,] real`, `vector`, `real[]` (old), `void`.
func (p *parser) argType() *Type {
	t := &Type{Pos: p.tok().pos}
	if p.accept("data") {
		t.Data = true
	}
	if p.accept("array") {
		p.expect("[")
		t.ArrayRank = 1
		for p.accept(",") {
			t.ArrayRank++
		}
		p.expect("]")
	}
	base := p.ident()
	t.Base = base.text
	if isComplex(t.Base) {
		t.Complex = true
	}
	if p.is("[") && p.peek(1).text == "]" || p.is("[") && p.peek(1).text == "," {
		p.next()
		t.ArrayRank++
		for p.accept(",") {
			t.ArrayRank++
		}
		p.expect("]")
	}
	return t
}

func isComplex(base string) bool {
	return strings.HasPrefix(base, "complex") || base == "tuple"
}

var sizedTypes = map[string]int{
	"vector": 1, "row_vector": 1, "matrix": 2, "simplex": 1, "ordered": 1, "positive_ordered": 1,
	"unit_vector": 1, "sum_to_zero_vector": 1, "cholesky_factor_corr": 1, "cholesky_factor_cov": 2,
	"corr_matrix": 1, "cov_matrix": 1, "column_stochastic_matrix": 2, "row_stochastic_matrix": 2,
	"complex_vector": 1, "complex_row_vector": 1, "complex_matrix": 2, "sum_to_zero_matrix": 2,
}

// isTypeStart says whether a statement starts with a declaration.
func (p *parser) isTypeStart() bool {
	t := p.tok()
	if t.kind != tIdent {
		return false
	}
	switch t.text {
	case "int", "real", "complex", "array", "tuple":
		return true
	}
	if _, ok := sizedTypes[t.text]; ok {
		n := p.peek(1).text
		return n == "[" || n == "<"
	}
	return false
}

// declType parses a sized type: `array[d] vector<lower=0>[N]`.
func (p *parser) declType() *Type {
	t := &Type{Pos: p.tok().pos}
	start := p.i
	if p.accept("array") {
		p.expect("[")
		t.ArrayDims = p.exprList("]")
		p.expect("]")
	}
	t.Base = p.ident().text
	if isComplex(t.Base) {
		t.Complex = true
	}
	if p.is("<") {
		p.next()
		for {
			k := p.ident()
			switch k.text {
			case "lower", "upper", "offset", "multiplier":
			default:
				p.failf(k.pos, "expected lower, upper, offset or multiplier, found %q", k.text)
			}
			p.expect("=")
			t.Bounds = append(t.Bounds, Bound{Key: k.text, Value: p.binary(precAdd)})
			if !p.accept(",") {
				break
			}
		}
		p.expect(">")
	}
	if n, ok := sizedTypes[t.Base]; ok {
		p.expect("[")
		t.Sizes = p.exprList("]")
		p.expect("]")
		if len(t.Sizes) > n || len(t.Sizes) == 0 {
			p.failf(t.Pos, "%s takes %d size(s), found %d", t.Base, n, len(t.Sizes))
		}
	}
	var parts []string
	for _, tk := range p.toks[start:p.i] {
		parts = append(parts, tk.text)
	}
	t.TypeString = strings.Join(parts, "")
	return t
}

func (p *parser) exprList(end string) []Expr {
	var es []Expr
	if p.is(end) {
		return es
	}
	for {
		es = append(es, p.expr())
		if !p.accept(",") {
			return es
		}
	}
}

func (p *parser) stmts() []Stmt {
	if p.is("{") {
		p.next()
		var ss []Stmt
		for !p.is("}") {
			if p.tok().kind == tEOF {
				p.failf(p.tok().pos, "expected \"}\", found the end of the file")
			}
			ss = append(ss, p.stmt())
		}
		p.next()
		return ss
	}
	return []Stmt{p.stmt()}
}

func (p *parser) stmt() Stmt {
	p.enter()
	defer p.leave()
	t := p.tok()
	pos := t.pos
	if p.isTypeStart() {
		ty := p.declType()
		name := p.ident()
		d := &Decl{Pos: pos, Type: ty, Name: name.text}
		if p.is("[") { // the old array syntax: real x[N];
			p.next()
			ty.ArrayDims = p.exprList("]")
			p.expect("]")
		}
		if p.accept("=") {
			d.Init = p.expr()
		}
		p.expect(";")
		return d
	}
	if t.kind == tIdent {
		switch t.text {
		case "for":
			p.next()
			p.expect("(")
			v := p.ident().text
			p.expect("in")
			lo := p.expr()
			f := &For{Pos: pos, Var: v, Lo: lo}
			if p.accept(":") {
				f.Hi = p.expr()
			}
			p.expect(")")
			f.Body = p.stmts()
			return f
		case "while":
			p.next()
			p.expect("(")
			c := p.expr()
			p.expect(")")
			return &While{Pos: pos, Cond: c, Body: p.stmts()}
		case "if":
			p.next()
			p.expect("(")
			c := p.expr()
			p.expect(")")
			s := &If{Pos: pos, Cond: c, Then: p.stmts()}
			if p.accept("else") {
				s.Else = p.stmts()
			}
			return s
		case "return":
			p.next()
			r := &Return{Pos: pos}
			if !p.is(";") {
				r.Value = p.expr()
			}
			p.expect(";")
			return r
		case "break", "continue":
			p.next()
			p.expect(";")
			return &Other{Pos: pos, What: t.text}
		case "print", "reject", "fatal_error":
			p.next()
			p.expect("(")
			p.exprList(")")
			p.expect(")")
			p.expect(";")
			return &Other{Pos: pos, What: t.text}
		case "profile":
			p.next()
			p.expect("(")
			p.expr()
			p.expect(")")
			return &Nested{Pos: pos, Stmts: p.stmts()}
		case "target":
			if p.peek(1).text == "+=" {
				p.next()
				p.next()
				e := p.expr()
				p.expect(";")
				return &TargetPlus{Pos: pos, Expr: e}
			}
		}
	}
	if p.is("{") {
		return &Nested{Pos: pos, Stmts: p.stmts()}
	}
	if p.accept(";") {
		return &Nested{Pos: pos}
	}
	lhs := p.expr()
	switch op := p.tok(); op.text {
	case "~":
		p.next()
		dt := p.ident()
		s := &Tilde{Pos: pos, LHS: lhs, Dist: dt.text, DistPos: dt.pos}
		p.expect("(")
		s.Args = p.exprList(")")
		p.expect(")")
		if p.is("T") && p.peek(1).text == "[" {
			s.Trunc, s.TruncPos = true, p.tok().pos
			p.next()
			p.next()
			if !p.is(",") {
				s.TruncLo = p.expr()
			}
			p.expect(",")
			if !p.is("]") {
				s.TruncHi = p.expr()
			}
			p.expect("]")
		}
		p.expect(";")
		return s
	case "=", "<-", "+=", "-=", "*=", "/=", ".*=", "./=":
		p.next()
		rhs := p.expr()
		p.expect(";")
		return &Assign{Pos: pos, LHS: lhs, Op: op.text, RHS: rhs}
	case ";":
		p.next()
		return &ExprStmt{Pos: pos, Expr: lhs}
	}
	p.failf(p.tok().pos, "expected \"~\", \"=\" or \";\" after the expression, found %s", describe(p.tok()))
	return nil
}

// Precedence levels, loosest first (the Stan Reference Manual's table).
const (
	precOr = iota
	precAnd
	precEq
	precCmp
	precAdd
	precMul
	precLdiv
	precUnary
)

var binaryPrec = map[string]int{
	"||": precOr, "&&": precAnd, "==": precEq, "!=": precEq,
	"<": precCmp, "<=": precCmp, ">": precCmp, ">=": precCmp,
	"+": precAdd, "-": precAdd,
	"*": precMul, "/": precMul, "%": precMul, ".*": precMul, "./": precMul, "%/%": precMul,
	"\\": precLdiv,
}

func (p *parser) expr() Expr {
	p.enter()
	defer p.leave()
	c := p.binary(precOr)
	if p.is("?") {
		pos := p.next().pos
		a := p.expr()
		p.expect(":")
		b := p.expr()
		return &Cond{Pos: pos, C: c, A: a, B: b}
	}
	return c
}

func (p *parser) binary(min int) Expr {
	l := p.unary()
	for {
		t := p.tok()
		prec, ok := binaryPrec[t.text]
		if t.kind != tOp || !ok || prec < min {
			return l
		}
		p.next()
		r := p.binary(prec + 1)
		l = &Binary{Pos: t.pos, Op: t.text, L: l, R: r}
	}
}

func (p *parser) unary() Expr {
	p.enter()
	defer p.leave()
	t := p.tok()
	if t.kind == tOp && (t.text == "-" || t.text == "!" || t.text == "+") {
		p.next()
		return &Unary{Pos: t.pos, Op: t.text, X: p.unary()}
	}
	return p.power()
}

// power parses `x ^ y` and `x .^ y`, right associative, binding tighter
// than unary minus on its left (-x^2 is -(x^2)).
func (p *parser) power() Expr {
	x := p.postfix()
	if p.is("^") || p.is(".^") {
		t := p.next()
		return &Binary{Pos: t.pos, Op: t.text, L: x, R: p.unary()}
	}
	return x
}

func (p *parser) postfix() Expr {
	x := p.primary()
	for {
		switch {
		case p.is("["):
			pos := p.next().pos
			var items []Expr
			for {
				items = append(items, p.indexItem())
				if !p.accept(",") {
					break
				}
			}
			p.expect("]")
			x = &Index{Pos: pos, X: x, Items: items}
		case p.is("'"):
			pos := p.next().pos
			x = &Transpose{Pos: pos, X: x}
		default:
			return x
		}
	}
}

func (p *parser) indexItem() Expr {
	pos := p.tok().pos
	if p.is(",") || p.is("]") {
		return &Slice{Pos: pos}
	}
	if p.accept(":") {
		s := &Slice{Pos: pos}
		if !p.is(",") && !p.is("]") {
			s.Hi = p.expr()
		}
		return s
	}
	lo := p.binary(precOr)
	if p.accept(":") {
		s := &Slice{Pos: pos, Lo: lo}
		if !p.is(",") && !p.is("]") {
			s.Hi = p.binary(precOr)
		}
		return s
	}
	return lo
}

func (p *parser) primary() Expr {
	t := p.tok()
	switch t.kind {
	case tInt, tReal:
		p.next()
		return &Number{Pos: t.pos, Text: t.text, Int: t.kind == tInt}
	case tString:
		p.next()
		return &Str{Pos: t.pos, Text: t.text}
	case tIdent:
		p.next()
		if p.is("(") {
			p.next()
			c := &Call{Pos: t.pos, Name: t.text}
			if !p.is(")") {
				first := p.expr()
				c.Args = append(c.Args, first)
				if p.accept("|") {
					c.Bar = true
					if !p.is(")") {
						c.Args = append(c.Args, p.exprList(")")...)
					}
				} else {
					for p.accept(",") {
						c.Args = append(c.Args, p.expr())
					}
				}
			}
			p.expect(")")
			return c
		}
		return &Name{Pos: t.pos, Name: t.text}
	case tOp:
		switch t.text {
		case "(":
			p.next()
			x := p.expr()
			p.expect(")")
			return &Paren{Pos: t.pos, X: x}
		case "{":
			p.next()
			es := p.exprList("}")
			p.expect("}")
			return &ArrayExpr{Pos: t.pos, Elems: es}
		case "[":
			p.next()
			es := p.exprList("]")
			p.expect("]")
			return &RowVectorExpr{Pos: t.pos, Elems: es}
		}
	}
	p.failf(t.pos, "expected an expression, found %s", describe(t))
	return nil
}
