package lang

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Parse parses the source of one .ppl file. filename is used in positions
// only. The error, if any, is an ErrorList: the lexical errors, or the
// first syntax error (parsing stops there), or errors found while building
// the tree (a malformed constraint, a definition of something that is not
// a name). The File is nil when the syntax could not be recognised;
// otherwise it holds everything but the parts in error, and Check may still
// be run on it (a REPL can), though a compiler should stop at the error.
//
// Parse never panics: sources over MaxSourceSize bytes or nested deeper
// than MaxNesting are errors, and an internal failure is reported as an
// error at the start of the file.
func Parse(filename string, src []byte) (f *File, err error) {
	start := Pos{File: filename, Line: 1, Col: 1}
	defer recoverTo(start, &err)
	g, err := parseWith(grammar, filename, src, func(*lexer.Token) string {
		return "a block (functions, data, transformed data, param, transformed param, model, generated, predict or infer)"
	})
	if err != nil {
		return nil, err
	}
	c := &converter{}
	f = c.file(filename, g)
	c.errs.Sort()
	return f, c.errs.Err()
}

// ParseExpr parses src as a single expression (the REPL evaluates one);
// errors are as for Parse.
func ParseExpr(filename string, src []byte) (x Expr, err error) {
	defer recoverTo(Pos{File: filename, Line: 1, Col: 1}, &err)
	g, err := parseWith(exprGrammar, filename, src, func(t *lexer.Token) string {
		if t.Pos.Offset == 0 || t.EOF() {
			return "an expression"
		}
		return "an operator or the end of the expression"
	})
	if err != nil {
		return nil, err
	}
	return g.X, nil
}

// recoverTo turns a panic into an error at pos: no panic escapes the
// package's entry points, whatever the input.
func recoverTo(pos Pos, err *error) {
	if r := recover(); r != nil {
		*err = ErrorList{{Pos: pos, Msg: fmt.Sprintf("internal error: %v", r)}}
	}
}

// parseWith scans src and runs parser p on the tokens.
// fallback says what was expected where participle does not say.
func parseWith[G any](p *participle.Parser[G], filename string, src []byte, fallback func(*lexer.Token) string) (*G, error) {
	start := Pos{File: filename, Line: 1, Col: 1}
	if len(src) > MaxSourceSize {
		return nil, ErrorList{{Pos: start, Msg: fmt.Sprintf("source too large: %d bytes (the limit is %d)", len(src), MaxSourceSize)}}
	}
	tokens, errs := scan(filename, src)
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	peeking, err := lexer.Upgrade(&sliceLexer{tokens: tokens})
	if err != nil {
		return nil, ErrorList{{Pos: start, Msg: err.Error()}}
	}
	g, err := p.ParseFromLexer(peeking)
	if err != nil {
		return nil, ErrorList{syntaxError(err, tokens, start, fallback)}
	}
	return g, nil
}

var unexpectedRE = regexp.MustCompile(`^unexpected token "(?:[^"\\]|\\.)*"(?: \(expected (.*)\))?$`)

// syntaxError turns participle's error into an "expected X, found Y" error
// at the offending token.
func syntaxError(err error, tokens []lexer.Token, start Pos, fallback func(*lexer.Token) string) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	var unexpected *participle.UnexpectedTokenError
	if errors.As(err, &unexpected) {
		tok := &unexpected.Unexpected
		what := ""
		if m := unexpectedRE.FindStringSubmatch(unexpected.Message()); m != nil {
			what = friendlyExpected(m[1], enclosing(tokens, tok.Pos.Offset))
		}
		if what == "" {
			what = fallback(tok)
		}
		return errorAt(tok, "expected %s, found %s", what, describe(tok))
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		pos := toPos(perr.Position())
		if !pos.IsValid() {
			pos = start
		}
		return &Error{Pos: pos, Msg: perr.Message()}
	}
	return &Error{Pos: start, Msg: err.Error()}
}

// bodyKind says what a brace-delimited body holds, for the "}" of
// "expected "}" or a statement".
type bodyKind int

const (
	noBody bodyKind = iota
	declBody
	stmtBody
	settingBody
	funcBody
)

// enclosing finds the innermost "{" still open before offset and tells from
// the token before it what the body holds.
func enclosing(tokens []lexer.Token, offset int) bodyKind {
	var open []int // indexes of unclosed "{"
	for i := range tokens {
		t := &tokens[i]
		if t.EOF() || t.Pos.Offset >= offset {
			break
		}
		if t.Type != tokPunct {
			continue
		}
		switch t.Value {
		case "{":
			open = append(open, i)
		case "}":
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 || open[len(open)-1] == 0 {
		return noBody
	}
	before := tokens[open[len(open)-1]-1]
	switch before.Value {
	case "data", "param":
		if i := open[len(open)-1]; i >= 2 && tokens[i-2].Value == "transformed" {
			return stmtBody
		}
		return declBody
	case "model", "predict", "generated", ")", "else":
		return stmtBody
	case "infer":
		return settingBody
	case "functions":
		return funcBody
	}
	if before.Type == tokIdent || before.Type == tokNumber || before.Value == "]" {
		// the end of a loop's range, an if's condition or a function's
		// result type
		return stmtBody
	}
	return noBody
}

// productionNames says in words what participle's productions are.
var productionNames = map[string]string{
	"BlockG":     "a block (functions, data, transformed data, param, transformed param, model, generated, predict or infer)",
	"FuncG":      "a function",
	"FuncParamG": "a parameter",
	"FuncTypeG":  "a type",
	"ForG":       "a statement",
	"IfG":        "a statement",
	"ElseG":      `"else"`,
	"ReturnG":    "a statement",
	"DeclG":      "a declaration",
	"TypeG":      "a type",
	"StmtG":      "a statement",
	"TargetG":    "a statement",
	"SimpleG":    "a statement",
	"SettingG":   "a setting",
	"Expr":       "an expression",
	"DistNode":   "a distribution",
	"BoundsNode": `"<"`,
	"DimsNode":   `"["`,
	"ValueNode":  "a number, a string or a sampler",
	"<ident>":    "a name",
	"<number>":   "a number",
	"<string>":   "a string",
}

// friendlyExpected reads the EBNF participle gives as what it expected (the
// rest of the failed sequence, such as `"in" "plate" "(" Expr ")"`) and
// returns what could come next, in words: `"in"`. In a body whose "}" was
// expected it adds what the body holds: `"}" or a statement`.
func friendlyExpected(ebnf string, body bodyKind) string {
	e := &ebnfReader{toks: ebnfTokenRE.FindAllString(ebnf, -1)}
	first, _ := e.alternatives()
	if e.bad || len(first) == 0 {
		return ""
	}
	var words []string
	seen := map[string]bool{}
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for _, f := range first {
		if name, ok := productionNames[f]; ok {
			add(name)
		} else {
			add(f)
		}
		if f == `"}"` {
			switch body {
			case declBody:
				add("a declaration")
			case stmtBody:
				add("a statement")
			case settingBody:
				add("a setting")
			case funcBody:
				add("a function")
			}
		}
	}
	return joinOr(words)
}

// joinOr joins words as `a`, `a or b`, `a, b or c`.
func joinOr(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

var ebnfTokenRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|<\w+>|\w+|[()|?*+!]|\S`)

// ebnfReader computes the set of first tokens of an EBNF expression:
//
//	alternatives = sequence {"|" sequence}
//	sequence     = {item}
//	item         = atom ["?" | "*" | "+" | "!"]
//	atom         = literal | name | <token> | "(" alternatives ")"
type ebnfReader struct {
	toks []string
	i    int
	bad  bool
}

func (e *ebnfReader) peek() string {
	if e.i < len(e.toks) {
		return e.toks[e.i]
	}
	return ""
}

// alternatives returns the first set and whether the expression can match
// nothing.
func (e *ebnfReader) alternatives() (first []string, empty bool) {
	for {
		f, em := e.sequence()
		first = append(first, f...)
		empty = empty || em
		if e.peek() != "|" {
			return first, empty
		}
		e.i++
	}
}

func (e *ebnfReader) sequence() (first []string, empty bool) {
	empty = true
	for {
		switch e.peek() {
		case "", "|", ")":
			return first, empty
		}
		f, em := e.item()
		if empty {
			first = append(first, f...)
			empty = em
		}
	}
}

func (e *ebnfReader) item() (first []string, empty bool) {
	t := e.peek()
	e.i++
	switch {
	case t == "(":
		first, empty = e.alternatives()
		if e.peek() != ")" {
			e.bad = true
			return nil, false
		}
		e.i++
	case t == ")" || t == "|" || t == "?" || t == "*" || t == "+" || t == "!":
		e.bad = true
		return nil, false
	default:
		first = []string{t}
	}
	switch e.peek() {
	case "?", "*":
		e.i++
		empty = true
	case "+", "!":
		e.i++
	}
	return first, empty
}

// converter builds the AST from the grammar's structs, reporting the
// errors the grammar cannot express.
type converter struct {
	errs ErrorList
}

func (c *converter) pos(p lexer.Position) Pos { return toPos(p) }

func (c *converter) file(name string, g *sourceG) *File {
	f := &File{Name: name}
	for _, bg := range g.Blocks {
		f.AddBlock(c.block(bg))
	}
	return f
}

func (c *converter) block(g *blockG) *Block {
	b := &Block{Pos: c.pos(g.Pos)}
	switch {
	case g.DeclKind != "":
		b.Kind = BlockKind(g.DeclKind)
		for _, d := range g.Decls {
			b.Decls = append(b.Decls, c.decl(d))
		}
	case g.StmtKind != "":
		b.Kind = BlockKind(g.StmtKind)
		b.Stmts = c.stmts(g.Stmts)
	case g.Transformed != "":
		b.Kind = BlockKind("transformed " + g.Transformed)
		b.Stmts = c.stmts(g.TStmts)
	case g.Functions != "":
		b.Kind = FunctionsBlock
		for _, fg := range g.Funcs {
			b.Funcs = append(b.Funcs, c.function(fg))
		}
	default:
		b.Kind = InferBlock
		for _, s := range g.Settings {
			b.Settings = append(b.Settings, &Setting{Pos: c.pos(s.Pos), Key: s.Key, Value: s.Value.(*settingValue).Node})
		}
	}
	return b
}

func (c *converter) decl(g *declG) *Decl {
	t := c.typ(g.Type)
	if bl, ok := g.Type.Bounds.(*boundList); ok {
		for _, item := range bl.Items {
			slot := map[string]*Expr{"lower": &t.Lower, "upper": &t.Upper, "offset": &t.Offset, "multiplier": &t.Multiplier}[item.Key]
			if *slot != nil {
				c.errs.Add(item.KeyPos, "duplicate %s bound", item.Key)
				continue
			}
			*slot = item.Value
		}
	}
	return &Decl{Pos: c.pos(g.Pos), Name: g.Name, Type: t}
}

// typ converts a type's name and dimensions: real[N, D], or simplex[K]
// with its size in Size and an array's dimensions, simplex[K][J], in Dims.
func (c *converter) typ(g *typeG) *Type {
	t := &Type{Pos: c.pos(g.Pos), Int: g.Base == "int"}
	dims, _ := g.Dims.(*dimList)
	array, _ := g.Array.(*dimList)
	switch kind, ok := typeKind(g.Base); {
	case g.Base == "real" || g.Base == "int":
		if dims != nil {
			t.Dims = dims.Dims
		}
		if array != nil {
			c.errs.Add(array.Pos, "%s takes its dimensions in one list: %s[N, D]", g.Base, g.Base)
		}
	case ok:
		t.Kind = kind
		if dims == nil {
			c.errs.Add(t.Pos, "%s needs its size: %s[K]", kind, kind)
			break
		}
		t.Size, t.SizePos = dims.Dims, dims.Pos
		if array != nil {
			t.Dims = array.Dims
		}
	default:
		e := c.errs.Add(t.Pos, "unknown type %q: a type is real, int or one of %s", g.Base, typeKindList())
		if s := Suggest(g.Base, typeNames()); s != "" {
			e.Msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
	}
	return t
}

func typeNames() []string {
	names := []string{"real", "int"}
	for _, k := range TypeKinds {
		names = append(names, string(k))
	}
	return names
}

func typeKindList() string {
	names := typeNames()[2:]
	return strings.Join(names, ", ")
}

func (c *converter) stmts(gs []*stmtG) []Stmt {
	var out []Stmt
	for _, g := range gs {
		if s := c.stmt(g); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// function converts a user-defined function.
func (c *converter) function(g *funcG) *Function {
	f := &Function{Pos: c.pos(g.Name.Pos), Name: g.Name.Value, Result: c.funcType(g.Result),
		Body: c.stmts(g.Body), BodyEnd: c.pos(g.BodyEnd.Pos)}
	for _, p := range g.Params {
		f.Params = append(f.Params, &FuncParam{Pos: c.pos(p.Pos), Name: p.Name, Type: c.funcType(p.Type)})
	}
	return f
}

// funcType converts real[,] and the like.
func (c *converter) funcType(g *funcTypeG) *FuncType {
	t := &FuncType{Pos: c.pos(g.Pos), Int: g.Base == "int"}
	if g.Open != "" {
		t.Rank = len(g.Commas) + 1
	}
	if g.Base != "real" && g.Base != "int" {
		c.errs.Add(t.Pos, "unknown type %q: a function's parameters and result are real or int, with empty brackets for their axes (real[] is a vector, real[,] a matrix)", g.Base)
	}
	return t
}

func (c *converter) stmt(g *stmtG) Stmt {
	switch {
	case g.For != nil:
		p := g.For
		if p.Plate != "" {
			return &Plate{
				Pos:      c.pos(p.Pos),
				Index:    p.Index.Value,
				IndexPos: c.pos(p.Index.Pos),
				Size:     p.Size,
				Body:     c.stmts(p.Body),
			}
		}
		return &For{Pos: c.pos(p.Pos), Index: p.Index.Value, IndexPos: c.pos(p.Index.Pos), Lo: p.Lo, Hi: p.Hi, Body: c.stmts(p.Body)}
	case g.While != nil:
		return &While{Pos: c.pos(g.While.Pos), Cond: g.While.Cond, Body: c.stmts(g.While.Body)}
	case g.Break != nil:
		return &Break{Pos: c.pos(g.Break.Pos)}
	case g.If != nil:
		return c.ifStmt(g.If)
	case g.Return != nil:
		return &Return{Pos: c.pos(g.Return.Pos), Value: g.Return.Value}
	case g.Target != nil:
		return &TargetAdd{Pos: c.pos(g.Target.Pos), Value: g.Target.Value}
	case g.Simple != nil:
		s := g.Simple
		if d, ok := s.Dist.(*distCall); ok {
			return &Sample{Pos: c.pos(s.Pos), Lhs: s.Lhs, Dist: d.Name, DistPos: d.NamePos, Args: d.Args, Trunc: d.Trunc}
		}
		id, isName := s.Lhs.(*Ident)
		switch {
		case s.Type != nil:
			if !isName {
				c.errs.Add(c.pos(s.Pos), "only a name can be declared: name: type")
				return nil
			}
			d := &Decl{Pos: id.Pos, Name: id.Name, Type: c.typ(s.Type)}
			if bl, ok := s.Type.Bounds.(*boundList); ok && len(bl.Items) > 0 {
				c.errs.Add(bl.Items[0].KeyPos, "a local variable takes no bounds or offset: it is computed, not sampled")
			}
			return &LocalDecl{Pos: id.Pos, Name: id.Name, Type: d.Type, Value: s.Init}
		case s.Add != nil:
			if !assignable(s.Lhs) {
				c.errs.Add(c.pos(s.Pos), `only a local variable or an element of one can be assigned with "+="`)
				return nil
			}
			return &Assign{Pos: lhsPos(s.Lhs), Lhs: s.Lhs, Op: "+=", OpPos: c.pos(s.AddOp.Pos), Value: s.Add}
		case isName:
			return &Define{Pos: id.Pos, Name: id.Name, Value: s.Value}
		case assignable(s.Lhs):
			return &Assign{Pos: lhsPos(s.Lhs), Lhs: s.Lhs, Op: "=", Value: s.Value}
		}
		c.errs.Add(c.pos(s.Pos), `only a name can be defined with "=" (use "~" to observe a value), and only a local variable or an element of one assigned`)
		return nil
	}
	return nil
}

// ifStmt converts an if and its else chain.
func (c *converter) ifStmt(g *ifG) *If {
	s := &If{Pos: c.pos(g.Pos), Cond: g.Cond, Then: c.stmts(g.Then)}
	if g.Else != nil {
		if g.Else.If != nil {
			s.Else = []Stmt{c.ifStmt(g.Else.If)}
		} else {
			s.Else = c.stmts(g.Else.Body)
			if s.Else == nil {
				s.Else = []Stmt{}
			}
		}
	}
	return s
}

// assignable reports whether e has the form of an assignment's left side:
// a name, or a name indexed by single indices or slices.
func assignable(e Expr) bool {
	switch e := e.(type) {
	case *Ident:
		return true
	case *Index:
		_, ok := e.X.(*Ident)
		return ok
	}
	return false
}

// lhsPos is the position of an assignment's left side: its name.
func lhsPos(e Expr) Pos {
	if ix, ok := e.(*Index); ok {
		return ix.X.Position()
	}
	return e.Position()
}
