package lang

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar of the block structure. These structs are internal:
// Parse converts them into the AST of ast.go. Expressions and the
// comma-separated lists inside types, samples and settings are parsed by the
// hand-written functions of expr.go.
//
// The struct names appear in participle's error messages as the EBNF of
// what was expected; friendlyExpected translates them.

// sourceG is a whole file: its blocks in order.
type sourceG struct {
	Blocks []*blockG `parser:"@@*"`
}

// blockG is one block; which of the three bodies it has depends on the
// keyword. `transformed data` and `transformed param` hold statements.
type blockG struct {
	Pos         lexer.Position
	DeclKind    string      `parser:"  @('data' | 'param') '{'"`
	Decls       []*declG    `parser:"  @@* '}'"`
	StmtKind    string      `parser:"| @('model' | 'predict' | 'generated') '{'"`
	Stmts       []*stmtG    `parser:"  @@* '}'"`
	Transformed string      `parser:"| 'transformed' @('data' | 'param') '{'"`
	TStmts      []*stmtG    `parser:"  @@* '}'"`
	Infer       string      `parser:"| @'infer' '{'"`
	Settings    []*settingG `parser:"  @@* '}'"`
	Functions   string      `parser:"| @'functions' '{'"`
	Funcs       []*funcG    `parser:"  @@* '}'"`
}

// funcG is a user-defined function: name(x: real, v: real[]): real { ... }.
type funcG struct {
	Name    lexer.Token   `parser:"@Ident '('"`
	Params  []*funcParamG `parser:"( @@ ( ',' @@ )* )? ')'"`
	Result  *funcTypeG    `parser:"':' @@"`
	Body    []*stmtG      `parser:"'{' @@*"`
	BodyEnd lexer.Token   `parser:"@'}'"`
}

// funcParamG is one parameter of a function, `x: real[]`.
type funcParamG struct {
	Pos  lexer.Position
	Name string     `parser:"@Ident ':'"`
	Type *funcTypeG `parser:"@@"`
}

// funcTypeG is real or int with empty brackets for its axes: real[,].
type funcTypeG struct {
	Pos    lexer.Position
	Base   string   `parser:"@Ident"`
	Open   string   `parser:"( @'['"`
	Commas []string `parser:"  @','* ']' )?"`
}

// declG is `name: type`.
type declG struct {
	Pos  lexer.Position
	Name string `parser:"@Ident ':'"`
	Type *typeG `parser:"@@ ';'?"`
}

// typeG is a type's name (real, int or a constrained type such as
// simplex; the converter tells them apart, so that their names are not
// reserved words) with an optional constraint and dimensions: a second
// list of dimensions follows a constrained type's size, simplex[K][J].
type typeG struct {
	Pos    lexer.Position
	Base   string     `parser:"@Ident"`
	Bounds boundsNode `parser:"@@?"`
	Dims   dimsNode   `parser:"@@?"`
	Array  dimsNode   `parser:"@@?"`
}

// stmtG is one statement of a block of statements or a function body.
type stmtG struct {
	For    *forG    `parser:"(  @@"`
	While  *whileG  `parser:" | @@"`
	Break  *breakG  `parser:" | @@"`
	If     *ifG     `parser:" | @@"`
	Return *returnG `parser:" | @@"`
	Target *targetG `parser:" | @@"`
	Simple *simpleG `parser:" | @@ ) ';'?"`
}

// forG is `for i in plate(N) { ... }` or `for i in lo:hi { ... }`.
type forG struct {
	Pos   lexer.Position
	Index lexer.Token `parser:"'for' @Ident 'in'"`
	Plate string      `parser:"( @'plate'"`
	Size  Expr        `parser:"  '(' @@ ')'"`
	Lo    Expr        `parser:"| @@ ':'"`
	Hi    Expr        `parser:"  @@ )"`
	Body  []*stmtG    `parser:"'{' @@* '}'"`
}

// whileG is `while cond { ... }`.
type whileG struct {
	Pos  lexer.Position
	Cond Expr     `parser:"'while' @@"`
	Body []*stmtG `parser:"'{' @@* '}'"`
}

// breakG is `break`, which leaves the innermost loop.
type breakG struct {
	Pos     lexer.Position
	Keyword string `parser:"@'break'"`
}

// ifG is `if cond { ... }` with an optional else.
type ifG struct {
	Pos  lexer.Position
	Cond Expr     `parser:"'if' @@"`
	Then []*stmtG `parser:"'{' @@* '}'"`
	Else *elseG   `parser:"@@?"`
}

// elseG is `else if ...` or `else { ... }`.
type elseG struct {
	If   *ifG     `parser:"'else' ( @@"`
	Body []*stmtG `parser:"| '{' @@* '}' )"`
}

// returnG is `return e` in a function's body.
type returnG struct {
	Pos   lexer.Position
	Value Expr `parser:"'return' @@"`
}

// targetG is `target += e`.
type targetG struct {
	Pos   lexer.Position
	Value Expr `parser:"'target' '+=' @@"`
}

// simpleG is `lhs ~ dist(args)`, `lhs = e`, `lhs += e` or a local
// variable's declaration `name: type` (with an optional `= e`): all start
// with an expression, so they are one production and the converter tells
// them apart.
type simpleG struct {
	Pos   lexer.Position
	Lhs   Expr        `parser:"@@"`
	Value Expr        `parser:"( '=' @@"`
	AddOp lexer.Token `parser:"| @'+='"`
	Add   Expr        `parser:"  @@"`
	Dist  distNode    `parser:"| '~' @@"`
	Type  *typeG      `parser:"| ':' @@"`
	Init  Expr        `parser:"  ( '=' @@ )? )"`
}

// settingG is `key = value` in the infer block.
type settingG struct {
	Pos   lexer.Position
	Key   string    `parser:"@Ident '='"`
	Value valueNode `parser:"@@ ';'?"`
}

// grammar is the parser. Lookahead 0 makes every choice final once it has
// consumed a token (the grammar is LL(1)), so a failure inside a statement
// is reported where it happens instead of being retried as something else
// and reported at the statement's start.
var grammar = participle.MustBuild[sourceG](options...)

// exprG is a lone expression, the root of ParseExpr's grammar.
type exprG struct {
	X Expr `parser:"@@"`
}

var exprGrammar = participle.MustBuild[exprG](options...)

var options = []participle.Option{
	participle.Lexer(definition{}),
	participle.UseLookahead(0),
	participle.ParseTypeWith(parseExpression),
	participle.ParseTypeWith(parseDist),
	participle.ParseTypeWith(parseBounds),
	participle.ParseTypeWith(parseDims),
	participle.ParseTypeWith(parseValue),
}
