package lang

// WalkExpr calls fn on e and on every expression inside it, parents before
// their children; nil expressions (an open slice's missing end) are
// skipped.
func WalkExpr(e Expr, fn func(Expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch e := e.(type) {
	case *Unary:
		WalkExpr(e.X, fn)
	case *Binary:
		WalkExpr(e.L, fn)
		WalkExpr(e.R, fn)
	case *Call:
		for _, a := range e.Args {
			WalkExpr(a, fn)
		}
	case *Index:
		WalkExpr(e.X, fn)
		for _, it := range e.Items {
			WalkExpr(it.Lo, fn)
			WalkExpr(it.Hi, fn)
		}
	case *Vector:
		for _, x := range e.Elems {
			WalkExpr(x, fn)
		}
	}
}
