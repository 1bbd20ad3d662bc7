package lang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar's expressions, and the comma-separated lists around them, are
// parsed by hand (registered with participle.ParseTypeWith, the pattern of
// participle's expr4 example): precedence climbing gives the right tree
// shapes, and a hand-written list parser can say "expected "," or ")"" where
// a generated one only knows the closing bracket.
//
// Precedence, low to high (C's and Stan's order):
//
//	||         left-associative
//	&&         left-associative
//	== !=      non-associative: a == b == c is an error
//	< <= > >=  non-associative: a < b < c is an error
//	+ -        left-associative
//	* / @      left-associative (@ is the matrix product)
//	unary - !
//	^          right-associative, binds tighter than unary minus: -x^2 = -(x^2)
//	x[...]     indexing, and calls f(...)
//
// Each custom function returns participle.NextMatch when the next token
// cannot start what it parses (so optional parts work) and otherwise
// consumes at least one token before it can fail, so that participle, run
// with no backtracking, reports the error as it is.

// exprParser parses one expression or list from participle's token stream.
type exprParser struct {
	lex   *lexer.PeekingLexer
	depth int // recursion depth, bounded by MaxNesting
	// bar is set while parsing a density call's first argument, which a
	// single | ends: normal_lpdf(y | mu, sigma).
	bar int
	// last is the token consumed last (a truncation's T must be on its line).
	last *lexer.Token
}

// IsDensityCall reports whether a function's name is a density's or a
// log CDF's, called as Stan calls them with a bar after the first
// argument: NAME_lpdf(y | θ) (or _lpmf for a discrete variate), and
// NAME_lcdf(y | θ), NAME_lccdf(y | θ), NAME_cdf(y | θ).
func IsDensityCall(name string) bool {
	for _, suffix := range []string{"_lpdf", "_lpmf", "_lcdf", "_lccdf", "_cdf"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

func (p *exprParser) peek() *lexer.Token { return p.lex.Peek() }
func (p *exprParser) next() *lexer.Token { p.last = p.lex.Next(); return p.last }

// is reports whether the next token is the punctuation s.
func (p *exprParser) is(s string) bool {
	t := p.peek()
	return t.Type == tokPunct && t.Value == s
}

// errorf returns a syntax error at token t.
func errorAt(t *lexer.Token, format string, args ...any) *Error {
	return &Error{Pos: toPos(t.Pos), Msg: fmt.Sprintf(format, args...)}
}

// expected returns "expected <what>, found <next token>" at the next token.
func (p *exprParser) expected(what string) *Error {
	t := p.peek()
	return errorAt(t, "expected %s, found %s", what, describe(t))
}

// expect consumes the punctuation s or fails.
func (p *exprParser) expect(s string) (*lexer.Token, error) {
	if !p.is(s) {
		return nil, p.expected(strconv.Quote(s))
	}
	return p.next(), nil
}

// enter and leave bracket each recursive step.
func (p *exprParser) enter() error {
	p.depth++
	if p.depth > MaxNesting {
		return errorAt(p.peek(), "expression nested too deeply: more than %d levels", MaxNesting)
	}
	return nil
}

func (p *exprParser) leave() { p.depth-- }

// startsExpr reports whether t can begin an expression.
func startsExpr(t *lexer.Token) bool {
	switch t.Type {
	case tokNumber, tokIdent, tokString:
		return true
	case tokPunct:
		return t.Value == "(" || t.Value == "[" || t.Value == "-" || t.Value == "!"
	}
	return false
}

// height adds one level to an expression tree of height h, failing at
// maxExprDepth.
func height(h int, at *lexer.Token) (int, error) {
	h++
	if h > maxExprDepth {
		return h, errorAt(at, "expression too deep: more than %d nested operations", maxExprDepth)
	}
	return h, nil
}

// parseExpression is the participle entry point for Expr.
func parseExpression(lex *lexer.PeekingLexer) (Expr, error) {
	if !startsExpr(lex.Peek()) {
		return nil, participle.NextMatch
	}
	p := &exprParser{lex: lex}
	x, _, err := p.expr()
	if err != nil {
		return nil, err
	}
	return x, nil
}

// required parses an expression that must be there: what names it in the
// error when the next token cannot start one.
func (p *exprParser) required(what string) (Expr, int, error) {
	if !startsExpr(p.peek()) {
		return nil, 0, p.expected(what)
	}
	return p.expr()
}

// expr parses a whole expression: a disjunction.
func (p *exprParser) expr() (Expr, int, error) { return p.or() }

// or parses and {"||" and}.
func (p *exprParser) or() (Expr, int, error) {
	x, h, err := p.leftAssoc(p.and, "||")
	if err == nil && p.is("|") && p.bar == 0 {
		return nil, 0, errorAt(p.peek(), `invalid operator "|": the logical or is ||, and a single | only follows a density's first argument, as in normal_lpdf(y | mu, sigma)`)
	}
	return x, h, err
}

// and parses equality {"&&" equality}.
func (p *exprParser) and() (Expr, int, error) {
	return p.leftAssoc(p.equality, "&&")
}

// equality parses relational [("==" | "!=") relational].
func (p *exprParser) equality() (Expr, int, error) {
	return p.comparison(p.relational, "==", "!=")
}

// relational parses sum [("<" | "<=" | ">" | ">=") sum].
func (p *exprParser) relational() (Expr, int, error) {
	return p.comparison(p.sum, "<", "<=", ">", ">=")
}

// isAny reports whether the next token is one of the punctuations ops.
func (p *exprParser) isAny(ops ...string) bool {
	for _, op := range ops {
		if p.is(op) {
			return true
		}
	}
	return false
}

// leftAssoc parses operand {op operand}, grouping to the left.
func (p *exprParser) leftAssoc(operand func() (Expr, int, error), ops ...string) (Expr, int, error) {
	x, h, err := operand()
	for err == nil && p.isAny(ops...) {
		op := p.next()
		if !startsExpr(p.peek()) {
			return nil, 0, p.expected(fmt.Sprintf("an expression after %q", op.Value))
		}
		var y Expr
		var hy int
		if y, hy, err = operand(); err == nil {
			x = &Binary{Pos: toPos(op.Pos), Op: op.Value, L: x, R: y}
			h, err = height(max(h, hy), op)
		}
	}
	return x, h, err
}

// comparison parses operand [op operand] for a non-associative level: a
// chain such as a < b < c would compare the 0/1 result of a < b with c, as
// in C, which is never what is meant, so it is an error.
func (p *exprParser) comparison(operand func() (Expr, int, error), ops ...string) (Expr, int, error) {
	x, h, err := operand()
	if err != nil || !p.isAny(ops...) {
		return x, h, err
	}
	op := p.next()
	if !startsExpr(p.peek()) {
		return nil, 0, p.expected(fmt.Sprintf("an expression after %q", op.Value))
	}
	y, hy, err := operand()
	if err != nil {
		return nil, 0, err
	}
	if p.isAny(ops...) {
		return nil, 0, errorAt(p.peek(), "comparisons do not chain: write %s %s b && b %s c, or use parentheses",
			"a", op.Value, p.peek().Value)
	}
	h, err = height(max(h, hy), op)
	return &Binary{Pos: toPos(op.Pos), Op: op.Value, L: x, R: y}, h, err
}

// sum parses term {("+" | "-") term}.
func (p *exprParser) sum() (Expr, int, error) {
	x, h, err := p.term()
	for err == nil && (p.is("+") || p.is("-")) {
		op := p.next()
		var y Expr
		var hy int
		if y, hy, err = p.operand(op); err == nil {
			x = &Binary{Pos: toPos(op.Pos), Op: op.Value, L: x, R: y}
			h, err = height(max(h, hy), op)
		}
	}
	return x, h, err
}

// operand parses the right operand of a sum's operator.
func (p *exprParser) operand(op *lexer.Token) (Expr, int, error) {
	if !startsExpr(p.peek()) {
		return nil, 0, p.expected(fmt.Sprintf("an expression after %q", op.Value))
	}
	return p.term()
}

// term parses a product: unary {("*" | "/" | "@") unary}.
func (p *exprParser) term() (Expr, int, error) {
	x, h, err := p.unary()
	for err == nil && (p.is("*") || p.is("/") || p.is("@")) {
		op := p.next()
		if !startsExpr(p.peek()) {
			return nil, 0, p.expected(fmt.Sprintf("an expression after %q", op.Value))
		}
		var y Expr
		var hy int
		if y, hy, err = p.unary(); err == nil {
			x = &Binary{Pos: toPos(op.Pos), Op: op.Value, L: x, R: y}
			h, err = height(max(h, hy), op)
		}
	}
	return x, h, err
}

// unary parses ("-" | "!") unary | power.
func (p *exprParser) unary() (Expr, int, error) {
	if !p.is("-") && !p.is("!") {
		return p.power()
	}
	op := p.next()
	if err := p.enter(); err != nil {
		return nil, 0, err
	}
	defer p.leave()
	if !startsExpr(p.peek()) {
		return nil, 0, p.expected(fmt.Sprintf("an expression after %q", op.Value))
	}
	x, h, err := p.unary()
	if err != nil {
		return nil, 0, err
	}
	h, err = height(h, op)
	return &Unary{Pos: toPos(op.Pos), Op: op.Value, X: x}, h, err
}

// power parses postfix ["^" unary]; the exponent may itself be a power
// (right-associative) or negated: 2^-1.
func (p *exprParser) power() (Expr, int, error) {
	x, h, err := p.postfix()
	if err != nil || !p.is("^") {
		return x, h, err
	}
	op := p.next()
	if err := p.enter(); err != nil {
		return nil, 0, err
	}
	defer p.leave()
	if !startsExpr(p.peek()) {
		return nil, 0, p.expected(`an expression after "^"`)
	}
	y, hy, err := p.unary()
	if err != nil {
		return nil, 0, err
	}
	h, err = height(max(h, hy), op)
	return &Binary{Pos: toPos(op.Pos), Op: "^", L: x, R: y}, h, err
}

// postfix parses primary {"[" items "]"}.
func (p *exprParser) postfix() (Expr, int, error) {
	x, h, err := p.primary()
	for err == nil && p.is("[") {
		lb := p.next()
		var items []IndexItem
		var hi int
		if items, hi, err = p.indexItems(); err == nil {
			x = &Index{Pos: toPos(lb.Pos), X: x, Items: items}
			h, err = height(max(h, hi), lb)
		}
	}
	return x, h, err
}

// indexItems parses item {"," item} "]" after the "[", each item an index
// or a slice lo:hi with either bound optional.
func (p *exprParser) indexItems() ([]IndexItem, int, error) {
	if err := p.enter(); err != nil {
		return nil, 0, err
	}
	defer p.leave()
	var items []IndexItem
	h := 0
	for {
		start := p.peek()
		item := IndexItem{Pos: toPos(start.Pos)}
		if !p.is(":") {
			if !startsExpr(start) {
				return nil, 0, p.expected("an index")
			}
			lo, hl, err := p.expr()
			if err != nil {
				return nil, 0, err
			}
			item.Lo, h = lo, max(h, hl)
		}
		if p.is(":") {
			p.next()
			item.Slice = true
			if startsExpr(p.peek()) {
				hi, hh, err := p.expr()
				if err != nil {
					return nil, 0, err
				}
				item.Hi, h = hi, max(h, hh)
			}
		}
		items = append(items, item)
		switch {
		case p.is(","):
			p.next()
		case p.is("]"):
			p.next()
			return items, h, nil
		case item.Slice:
			return nil, 0, p.expected(`"," or "]"`)
		default:
			return nil, 0, p.expected(`",", ":" or "]"`)
		}
	}
}

// list parses expr {"," expr} close, after the opening bracket.
func (p *exprParser) list(close string) ([]Expr, int, error) {
	if err := p.enter(); err != nil {
		return nil, 0, err
	}
	defer p.leave()
	var xs []Expr
	h := 0
	for {
		x, hx, err := p.required("an expression")
		if err != nil {
			return nil, 0, err
		}
		xs, h = append(xs, x), max(h, hx)
		switch {
		case p.is(","):
			p.next()
		case p.is(close):
			p.next()
			return xs, h, nil
		default:
			return nil, 0, p.expected(fmt.Sprintf("%q or %q", ",", close))
		}
	}
}

// args parses a call's arguments after "(": [expr {"," expr}] ")".
func (p *exprParser) args() ([]Expr, int, error) {
	if p.is(")") {
		p.next()
		return nil, 0, nil
	}
	if !startsExpr(p.peek()) {
		return nil, 0, p.expected(`an argument or ")"`)
	}
	return p.list(")")
}

// densityArgs parses a density call's arguments after "(": expr "|"
// [expr {"," expr}] ")", or a lone expr ")" for a density without
// parameters.
func (p *exprParser) densityArgs(name string) ([]Expr, int, error) {
	if err := p.enter(); err != nil {
		return nil, 0, err
	}
	defer p.leave()
	p.bar++
	y, h, err := p.required(fmt.Sprintf("the value whose density %s takes", name))
	p.bar--
	if err != nil {
		return nil, 0, err
	}
	switch {
	case p.is(")"):
		p.next()
		return []Expr{y}, h, nil
	case !p.is("|"):
		return nil, 0, p.expected(fmt.Sprintf(`"|" after %s's first argument (%s(y | ...))`, name, name))
	}
	p.next()
	rest, hr, err := p.list(")")
	if err != nil {
		return nil, 0, err
	}
	return append([]Expr{y}, rest...), max(h, hr), nil
}

// primary parses a number, a string, a name, a call, a parenthesised
// expression or a vector literal.
func (p *exprParser) primary() (Expr, int, error) {
	t := p.peek()
	switch {
	case t.Type == tokNumber:
		p.next()
		n, err := number(t, false)
		return n, 1, err
	case t.Type == tokString:
		p.next()
		s, _ := strconv.Unquote(t.Value) // the scanner checked it
		return &String{Pos: toPos(t.Pos), Value: s}, 1, nil
	case t.Type == tokIdent:
		p.next()
		if !p.is("(") {
			return &Ident{Pos: toPos(t.Pos), Name: t.Value}, 1, nil
		}
		p.next()
		var args []Expr
		var h int
		var err error
		if IsDensityCall(t.Value) {
			args, h, err = p.densityArgs(t.Value)
		} else {
			args, h, err = p.args()
		}
		if err != nil {
			return nil, 0, err
		}
		h, err = height(h, t)
		return &Call{Pos: toPos(t.Pos), Func: t.Value, Args: args}, h, err
	case p.is("("):
		p.next()
		if err := p.enter(); err != nil {
			return nil, 0, err
		}
		defer p.leave()
		x, h, err := p.required("an expression")
		if err != nil {
			return nil, 0, err
		}
		if _, err := p.expect(")"); err != nil {
			return nil, 0, err
		}
		return x, h, nil
	case p.is("["):
		p.next()
		elems, h, err := p.list("]")
		if err != nil {
			return nil, 0, err
		}
		h, err = height(h, t)
		return &Vector{Pos: toPos(t.Pos), Elems: elems}, h, err
	}
	return nil, 0, p.expected("an expression")
}

// number converts a number token; neg puts a minus sign in front.
func number(t *lexer.Token, neg bool) (*Number, error) {
	text := t.Value
	if neg {
		text = "-" + text
	}
	n := &Number{Pos: toPos(t.Pos), Text: text, Int: !strings.ContainsAny(t.Value, ".eE")}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, errorAt(t, "number %s is out of range", t.Value)
	}
	if n.Int && (v > 1<<53 || v < -(1<<53)) {
		return nil, errorAt(t, "integer %s is too large (the limit is 2^53)", t.Value)
	}
	n.Value = v
	return n, nil
}

// distCall is the right-hand side of ~: name(args...).
type distCall struct {
	Name    string
	NamePos Pos
	Args    []Expr
	Trunc   *Truncation // or nil
}

func (*distCall) distNode() {}

// distNode is the grammar's type for a distCall.
type distNode interface{ distNode() }

func parseDist(lex *lexer.PeekingLexer) (distNode, error) {
	p := &exprParser{lex: lex}
	t := p.peek()
	if t.Type != tokIdent {
		return nil, p.expected("a distribution")
	}
	p.next()
	if _, err := p.expect("("); err != nil {
		return nil, err
	}
	args, _, err := p.args()
	if err != nil {
		return nil, err
	}
	d := &distCall{Name: t.Value, NamePos: toPos(t.Pos), Args: args}
	// T[L, U] truncates: a T on the line of the closing parenthesis, so
	// that a next statement beginning T[1] = ... is not taken for one.
	if next := p.peek(); next.Type == tokIdent && next.Value == "T" && p.last != nil && next.Pos.Line == p.last.Pos.Line {
		p.next()
		if d.Trunc, err = p.truncation(next); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// truncation parses a truncation's bounds after its T: "[" [expr] ","
// [expr] "]", at least one of the two.
func (p *exprParser) truncation(t *lexer.Token) (*Truncation, error) {
	if _, err := p.expect("["); err != nil {
		return nil, err
	}
	tr := &Truncation{Pos: toPos(t.Pos)}
	var err error
	if !p.is(",") {
		if tr.Lower, _, err = p.required(`a lower bound or ","`); err != nil {
			return nil, err
		}
	}
	if _, err := p.expect(","); err != nil {
		return nil, err
	}
	if !p.is("]") {
		if tr.Upper, _, err = p.required(`an upper bound or "]"`); err != nil {
			return nil, err
		}
	}
	if tr.Lower == nil && tr.Upper == nil {
		return nil, errorAt(t, "a truncation T[L, U] needs a lower or an upper bound (T[L, ] or T[, U])")
	}
	if _, err := p.expect("]"); err != nil {
		return nil, err
	}
	return tr, nil
}

// bound is one item of a constraint: lower=e, upper=e, offset=e or
// multiplier=e.
type bound struct {
	Key    string
	KeyPos Pos
	Value  Expr
}

// boundList is a type's constraint <lower=e, upper=e> or <offset=e,
// multiplier=e>.
type boundList struct{ Items []bound }

func (*boundList) boundsNode() {}

type boundsNode interface{ boundsNode() }

func parseBounds(lex *lexer.PeekingLexer) (boundsNode, error) {
	p := &exprParser{lex: lex}
	if !p.is("<") {
		return nil, participle.NextMatch
	}
	p.next()
	var b boundList
	for {
		t := p.peek()
		if t.Type != tokIdent || (t.Value != "lower" && t.Value != "upper" && t.Value != "offset" && t.Value != "multiplier") {
			return nil, p.expected(`"lower", "upper", "offset" or "multiplier"`)
		}
		p.next()
		if _, err := p.expect("="); err != nil {
			return nil, err
		}
		// A bound is a sum: a comparison's ">" would swallow the closing
		// bracket of the constraint.
		if !startsExpr(p.peek()) {
			return nil, p.expected("an expression")
		}
		x, _, err := p.sum()
		if err != nil {
			return nil, err
		}
		b.Items = append(b.Items, bound{Key: t.Value, KeyPos: toPos(t.Pos), Value: x})
		switch {
		case p.is(","):
			p.next()
		case p.is(">"):
			p.next()
			return &b, nil
		default:
			return nil, p.expected(`"," or ">"`)
		}
	}
}

// dimList is a type's dimensions [e, e, ...]; Pos is the "[".
type dimList struct {
	Pos  Pos
	Dims []Expr
}

func (*dimList) dimsNode() {}

type dimsNode interface{ dimsNode() }

func parseDims(lex *lexer.PeekingLexer) (dimsNode, error) {
	p := &exprParser{lex: lex}
	if !p.is("[") {
		return nil, participle.NextMatch
	}
	open := p.next()
	dims, _, err := p.list("]")
	if err != nil {
		return nil, err
	}
	return &dimList{Pos: toPos(open.Pos), Dims: dims}, nil
}

// settingValue is the value of an infer-block setting: a *Number, *String,
// *Ident or *SamplerSpec.
type settingValue struct{ Node Node }

func (*settingValue) valueNode() {}

type valueNode interface{ valueNode() }

func parseValue(lex *lexer.PeekingLexer) (valueNode, error) {
	t := lex.Peek()
	if !(t.Type == tokNumber || t.Type == tokString || t.Type == tokIdent || t.Type == tokPunct && (t.Value == "-" || t.Value == "[")) {
		return nil, participle.NextMatch
	}
	p := &exprParser{lex: lex}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	return &settingValue{Node: n}, nil
}

// value parses number | "-" number | string | name | "[" number {"," number} "]"
// | name "(" [option {"," option}] ")".
func (p *exprParser) value() (Node, error) {
	t := p.peek()
	switch {
	case p.is("["):
		p.next()
		list := &NumberList{Pos: toPos(t.Pos)}
		for {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			x, ok := v.(*Number)
			if !ok {
				return nil, &Error{Pos: v.Position(), Msg: "a list holds numbers only"}
			}
			list.Values = append(list.Values, x)
			switch {
			case p.is(","):
				p.next()
			case p.is("]"):
				p.next()
				return list, nil
			default:
				return nil, p.expected(`"," or "]"`)
			}
		}
	case t.Type == tokNumber:
		p.next()
		return number(t, false)
	case p.is("-"):
		p.next()
		n := p.peek()
		if n.Type != tokNumber {
			return nil, p.expected(`a number after "-"`)
		}
		p.next()
		x, err := number(n, true)
		if err == nil {
			x.Pos = toPos(t.Pos)
		}
		return x, err
	case t.Type == tokString:
		p.next()
		s, _ := strconv.Unquote(t.Value)
		return &String{Pos: toPos(t.Pos), Value: s}, nil
	case t.Type == tokIdent:
		p.next()
		if !p.is("(") {
			return &Ident{Pos: toPos(t.Pos), Name: t.Value}, nil
		}
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		spec := &SamplerSpec{Pos: toPos(t.Pos), Name: t.Value}
		if p.is(")") {
			p.next()
			return spec, nil
		}
		for {
			k := p.peek()
			if k.Type != tokIdent {
				return nil, p.expected(`an option name or ")"`)
			}
			p.next()
			if _, err := p.expect("="); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			spec.Options = append(spec.Options, &Setting{Pos: toPos(k.Pos), Key: k.Value, Value: v})
			switch {
			case p.is(","):
				p.next()
			case p.is(")"):
				p.next()
				return spec, nil
			default:
				return nil, p.expected(`"," or ")"`)
			}
		}
	}
	return nil, p.expected("a number, a string or a sampler")
}
