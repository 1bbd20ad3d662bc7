package lang

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Precedence levels of ExprString, low to high.
const (
	precOr = iota + 1
	precAnd
	precEquality
	precRelational
	precSum
	precProduct
	precUnary
	precPower
	precPostfix
)

// ExprString returns e as source text, with the parentheses precedence needs
// and no others: ExprString of the tree of `-(x^2) + (a+b)*c` is
// "-x ^ 2 + (a + b) * c".
func ExprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e, precOr)
	return b.String()
}

// StartPos returns the position of the first token of e. It differs from
// e.Position() for a binary expression (whose position is its operator) and
// an index expression (its bracket): an error about a whole expression reads
// best at its start.
func StartPos(e Expr) Pos {
	for {
		switch x := e.(type) {
		case *Binary:
			e = x.L
		case *Index:
			e = x.X
		case nil:
			return Pos{}
		default:
			return e.Position()
		}
	}
}

// shortExpr is ExprString cut to a length fit for a message.
func shortExpr(e Expr) string {
	s := ExprString(e)
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:37]) + "..."
	}
	return s
}

func writeExpr(b *strings.Builder, e Expr, prec int) {
	open := func(p int) func() {
		if p < prec {
			b.WriteByte('(')
			return func() { b.WriteByte(')') }
		}
		return func() {}
	}
	switch e := e.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Number:
		if e.Text != "" {
			b.WriteString(e.Text)
		} else {
			b.WriteString(strconv.FormatFloat(e.Value, 'g', -1, 64))
		}
	case *String:
		b.WriteString(strconv.Quote(e.Value))
	case *Ident:
		b.WriteString(e.Name)
	case *Unary:
		defer open(precUnary)()
		b.WriteString(e.Op)
		writeExpr(b, e.X, precUnary)
	case *Binary:
		var p, lp, rp int
		switch e.Op {
		case "||":
			p, lp, rp = precOr, precOr, precAnd
		case "&&":
			p, lp, rp = precAnd, precAnd, precEquality
		case "==", "!=": // non-associative: operands of the same level get parentheses
			p, lp, rp = precEquality, precRelational, precRelational
		case "<", "<=", ">", ">=":
			p, lp, rp = precRelational, precSum, precSum
		case "+", "-":
			p, lp, rp = precSum, precSum, precProduct
		case "^":
			p, lp, rp = precPower, precPostfix, precUnary
		default:
			p, lp, rp = precProduct, precProduct, precUnary
		}
		defer open(p)()
		writeExpr(b, e.L, lp)
		b.WriteString(" " + e.Op + " ")
		writeExpr(b, e.R, rp)
	case *Call:
		b.WriteString(e.Func)
		if IsDensityCall(e.Func) && len(e.Args) > 1 {
			b.WriteByte('(')
			writeExpr(b, e.Args[0], precOr)
			writeList(b, " | ", e.Args[1:], ")")
			break
		}
		writeList(b, "(", e.Args, ")")
	case *Index:
		writeExpr(b, e.X, precPostfix)
		b.WriteByte('[')
		for i, it := range e.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			if it.Lo != nil {
				writeExpr(b, it.Lo, precOr)
			}
			if it.Slice {
				b.WriteByte(':')
				if it.Hi != nil {
					writeExpr(b, it.Hi, precOr)
				}
			}
		}
		b.WriteByte(']')
	case *Vector:
		writeList(b, "[", e.Elems, "]")
	default:
		b.WriteString("<?>")
	}
}

func writeList(b *strings.Builder, open string, xs []Expr, close string) {
	b.WriteString(open)
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, x, precOr)
	}
	b.WriteString(close)
}
