package stan

import (
	"fmt"
	"strings"

	"github.com/temper-ppl/temper/lang"
)

// The .ppl's precedence levels, loosest first (docs/language.md,
// "Expressions").
const (
	precPPLOr = iota + 1
	precPPLAnd
	precPPLEq
	precPPLCmp
	precPPLAdd
	precPPLMul
	precPPLUnary
	precPPLPow
	precPPLPostfix
)

func (t *translator) expr(e Expr) string { return t.exprPrec(e, 0) }

func (t *translator) exprs(es []Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = t.expr(e)
	}
	return out
}

// exprPrec writes e, parenthesised unless it binds at least as tightly
// as min.
func (t *translator) exprPrec(e Expr, min int) string {
	s, prec := t.exprP(e)
	if prec < min {
		return "(" + s + ")"
	}
	return s
}

var pplBinary = map[string]struct {
	op   string
	prec int
}{
	"||": {"||", precPPLOr}, "&&": {"&&", precPPLAnd}, "==": {"==", precPPLEq}, "!=": {"!=", precPPLEq},
	"<": {"<", precPPLCmp}, "<=": {"<=", precPPLCmp}, ">": {">", precPPLCmp}, ">=": {">=", precPPLCmp},
	"+": {"+", precPPLAdd}, "-": {"-", precPPLAdd},
	"*": {"*", precPPLMul}, "/": {"/", precPPLMul}, ".*": {"*", precPPLMul}, "./": {"/", precPPLMul},
}

// exprP writes e and says how tightly the result binds.
func (t *translator) exprP(e Expr) (string, int) {
	switch e := e.(type) {
	case *Name:
		if v, ok := t.vars[e.Name]; ok {
			if v.rename != "" {
				return v.rename, precPPLPostfix
			}
		} else if pplKeywords[e.Name] {
			return e.Name + "_", precPPLPostfix
		}
		return e.Name, precPPLPostfix
	case *Number:
		return e.Text, precPPLPostfix
	case *Str:
		t.gap(e.Pos, "a string has no counterpart outside the infer block")
		return e.Text, precPPLPostfix
	case *Paren:
		return t.exprP(e.X)
	case *Unary:
		op := e.Op
		if op == "+" {
			return t.exprP(e.X)
		}
		return op + t.exprPrec(e.X, precPPLUnary), precPPLUnary
	case *Transpose:
		sh := t.shapeOf(e.X)
		if sh.known && sh.arr == 0 && (sh.kind == vectorK || sh.kind == rowK) {
			// a .ppl vector plays both Stan's vector and row_vector
			return t.exprP(e.X)
		}
		return "transpose(" + t.expr(e.X) + ")", precPPLPostfix
	case *Cond:
		return fmt.Sprintf("if_else(%s, %s, %s)", t.expr(e.C), t.expr(e.A), t.expr(e.B)), precPPLPostfix
	case *Binary:
		switch e.Op {
		case "^", ".^":
			return t.exprPrec(e.L, precPPLPostfix) + " ^ " + t.exprPrec(e.R, precPPLUnary), precPPLPow
		case "%", "%/%":
			t.gap(e.Pos, "the integer operator %s has no counterpart", e.Op)
			return t.exprPrec(e.L, precPPLMul) + " " + e.Op + " " + t.exprPrec(e.R, precPPLUnary), precPPLMul
		case "\\":
			t.gap(e.Pos, "the left division \\ (mdivide_left) has no counterpart")
			return t.exprPrec(e.L, precPPLMul) + " \\ " + t.exprPrec(e.R, precPPLUnary), precPPLMul
		}
		b := pplBinary[e.Op]
		op := b.op
		ls, rs := t.shapeOf(e.L), t.shapeOf(e.R)
		switch e.Op {
		case "*":
			if ls.linalg() && rs.linalg() {
				op = "@"
				if ls.kind == vectorK && rs.kind == rowK {
					t.gap(e.Pos, "the outer product of a vector and a row vector has no counterpart (the .ppl's vector @ vector is their dot product)")
				}
			}
		case "/":
			if ls.known && rs.known && ls.isInt && rs.isInt && !ls.nonScalar() && !rs.nonScalar() {
				t.gap(e.Pos, "integer division rounds towards zero in Stan; the .ppl's / is real division")
			}
			if ls.linalg() && rs.linalg() && rs.kind == matrixK {
				t.gap(e.Pos, "the right division by a matrix (mdivide_right) has no counterpart")
			}
		}
		lmin, rmin := b.prec, b.prec+1
		if b.prec == precPPLEq || b.prec == precPPLCmp {
			lmin = b.prec + 1 // comparisons do not chain in the .ppl
		}
		return t.exprPrec(e.L, lmin) + " " + op + " " + t.exprPrec(e.R, rmin), b.prec
	case *Index:
		// x[i][j] is x[i, j] when the first brackets take single indices.
		items := e.Items
		x := e.X
		for {
			inner, ok := x.(*Index)
			if !ok || hasSlice(inner.Items) {
				break
			}
			items = append(append([]Expr{}, inner.Items...), items...)
			x = inner.X
		}
		var parts []string
		for _, it := range items {
			parts = append(parts, t.indexItem(it))
		}
		return t.exprPrec(x, precPPLPostfix) + "[" + strings.Join(parts, ", ") + "]", precPPLPostfix
	case *Slice:
		return t.indexItem(e), precPPLPostfix
	case *ArrayExpr:
		return "[" + strings.Join(t.exprs(e.Elems), ", ") + "]", precPPLPostfix
	case *RowVectorExpr:
		return "[" + strings.Join(t.exprs(e.Elems), ", ") + "]", precPPLPostfix
	case *Call:
		return t.call(e)
	}
	return "?", precPPLPostfix
}

func hasSlice(items []Expr) bool {
	for _, it := range items {
		if _, ok := it.(*Slice); ok {
			return true
		}
	}
	return false
}

func (t *translator) indexItem(it Expr) string {
	s, ok := it.(*Slice)
	if !ok {
		return t.expr(it)
	}
	var lo, hi string
	if s.Lo != nil {
		lo = t.exprPrec(s.Lo, precPPLAdd)
	}
	if s.Hi != nil {
		hi = t.exprPrec(s.Hi, precPPLAdd)
	}
	if lo == "" && hi == "" {
		return ":"
	}
	return lo + ":" + hi
}

// renamedFunctions are Stan's names of functions the .ppl has under
// another name, with the same arguments.
var renamedFunctions = map[string]string{
	"dot_product":    "dot",
	"rep_row_vector": "rep_vector",
	"to_row_vector":  "to_vector",
	"fabs":           "abs",
}

func (t *translator) call(c *Call) (string, int) {
	name := c.Name
	args := t.exprs(c.Args)
	wrap := func(i int, prec int) string { return t.exprPrec(c.Args[i], prec) }
	// Log densities and draws: the _lupdf forms are _lpdf (all constants
	// kept), std_normal is normal(0, 1).
	for _, suf := range []string{"_lupdf", "_lupmf"} {
		if strings.HasSuffix(name, suf) {
			name = strings.TrimSuffix(name, suf) + strings.Replace(suf, "_lu", "_l", 1)
		}
	}
	if isStdNormal(name) && name != "std_normal" {
		suf := strings.TrimPrefix(name, "std_normal")
		name = "normal" + suf
		if suf == "_rng" {
			args = []string{"0", "1"}
		} else if len(args) > 0 {
			args = []string{args[0], "0", "1"}
			c = &Call{Pos: c.Pos, Name: name, Args: c.Args, Bar: true}
		}
	}
	if c.Bar || isDensityName(name) {
		if _, user := t.funcs[name]; !user && t.opts.Env != nil {
			if _, ok := t.opts.Env.Functions[name]; !ok {
				t.gap(c.Pos, "the function %s has no counterpart in the .ppl", c.Name)
			}
		}
		if len(args) == 0 {
			return name + "()", precPPLPostfix
		}
		return name + "(" + joinBar(args[0], args[1:]) + ")", precPPLPostfix
	}
	if _, user := t.funcs[name]; user {
		return name + "(" + strings.Join(args, ", ") + ")", precPPLPostfix
	}
	switch name {
	case "inv", "inv_sqrt", "inv_square":
		if len(args) == 1 {
			switch name {
			case "inv_sqrt":
				return "1 / sqrt(" + args[0] + ")", precPPLMul
			case "inv_square":
				return "1 / square(" + args[0] + ")", precPPLMul
			}
			return "1 / " + wrap(0, precPPLUnary), precPPLMul
		}
	case "log1m":
		if len(args) == 1 {
			return "log1p(-" + wrap(0, precPPLUnary) + ")", precPPLPostfix
		}
	case "log1m_inv_logit":
		if len(args) == 1 {
			return "log_inv_logit(-" + wrap(0, precPPLUnary) + ")", precPPLPostfix
		}
	case "Phi":
		// normal_cdf of a vector is the product over its elements: a
		// scalar only
		if len(args) == 1 && !t.shapeOf(c.Args[0]).nonScalar() {
			return "normal_cdf(" + args[0] + " | 0, 1)", precPPLPostfix
		}
	case "Phi_approx":
		if len(args) == 1 {
			// Stan's definition: logit⁻¹(0.07056 x³ + 1.5976 x)
			x := wrap(0, precPPLPostfix)
			return fmt.Sprintf("inv_logit(0.07056 * %s ^ 3 + 1.5976 * %s)", x, x), precPPLPostfix
		}
	case "rep_matrix":
		// Stan's rep_matrix(row_vector, m) stacks m rows; the .ppl's
		// rep_matrix(v, n) makes n columns
		if len(args) == 2 && t.shapeOf(c.Args[0]).kind == rowK {
			return "transpose(rep_matrix(" + args[0] + ", " + args[1] + "))", precPPLPostfix
		}
	case "append_col":
		// two row vectors end to end
		if len(args) == 2 && t.shapeOf(c.Args[0]).kind == rowK && t.shapeOf(c.Args[1]).kind == rowK {
			return "append_row(" + args[0] + ", " + args[1] + ")", precPPLPostfix
		}
	case "append_row":
		// two row vectors one above the other: a 2 × N matrix
		if len(args) == 2 {
			l, r := t.shapeOf(c.Args[0]), t.shapeOf(c.Args[1])
			if l.linalg() && l.kind == rowK && r.linalg() && r.kind == rowK {
				return "[" + args[0] + ", " + args[1] + "]", precPPLPostfix
			}
		}
	case "logit":
		x := wrap(0, precPPLUnary)
		return fmt.Sprintf("log(%s / (1 - %s))", x, x), precPPLPostfix
	case "log2":
		return fmt.Sprintf("log(%s) / log(2)", args[0]), precPPLMul
	case "log10":
		return fmt.Sprintf("log(%s) / log(10)", args[0]), precPPLMul
	case "e":
		if len(args) == 0 {
			return "exp(1)", precPPLPostfix
		}
	case "dot_self":
		if len(args) == 1 {
			return fmt.Sprintf("dot(%s, %s)", args[0], args[0]), precPPLPostfix
		}
	case "tcrossprod", "multiply_lower_tri_self_transpose":
		if len(args) == 1 {
			return fmt.Sprintf("%s @ transpose(%s)", wrap(0, precPPLMul), args[0]), precPPLMul
		}
	case "quad_form_diag":
		if len(args) == 2 {
			return fmt.Sprintf("diag_pre_multiply(%s, diag_post_multiply(%s, %s))", args[1], args[0], args[1]), precPPLPostfix
		}
	case "multiply":
		if len(args) == 2 {
			op := "*"
			if t.shapeOf(c.Args[0]).linalg() && t.shapeOf(c.Args[1]).linalg() {
				op = "@"
			}
			return wrap(0, precPPLMul) + " " + op + " " + wrap(1, precPPLUnary), precPPLMul
		}
	case "square":
	case "step":
		if len(args) == 1 {
			return "(" + wrap(0, precPPLAdd) + " >= 0)", precPPLPostfix
		}
	case "int_step":
		if len(args) == 1 {
			return "(" + wrap(0, precPPLAdd) + " > 0)", precPPLPostfix
		}
	case "max", "fmax", "min", "fmin":
		if len(args) == 2 {
			cmp := ">"
			if name == "min" || name == "fmin" {
				cmp = "<"
			}
			return fmt.Sprintf("if_else(%s %s %s, %s, %s)", wrap(0, precPPLAdd), cmp, wrap(1, precPPLAdd), args[0], args[1]), precPPLPostfix
		}
		if len(args) == 1 && name == "min" {
			return "-max(-" + wrap(0, precPPLUnary) + ")", precPPLUnary
		}
	case "log_sum_exp":
		if len(args) == 2 {
			return fmt.Sprintf("log_sum_exp([%s, %s])", args[0], args[1]), precPPLPostfix
		}
	case "size":
		if len(args) == 1 {
			return "rows(" + args[0] + ")", precPPLPostfix
		}
	case "rep_array":
		if len(args) == 2 {
			return "rep_vector(" + args[0] + ", " + args[1] + ")", precPPLPostfix
		}
		if len(args) == 3 {
			return "rep_matrix(" + args[0] + ", " + args[1] + ", " + args[2] + ")", precPPLPostfix
		}
	case "target", "get_lp":
		t.gap(c.Pos, "reading target() has no counterpart")
		return name + "()", precPPLPostfix
	}
	if r, ok := renamedFunctions[name]; ok {
		name = r
	}
	if lang.IsODESolver(name) {
		// the .ppl's ODE solvers take Stan's arguments, the function by
		// its name first
		return name + "(" + strings.Join(args, ", ") + ")", precPPLPostfix
	}
	if t.opts.Env != nil {
		if _, ok := t.opts.Env.Functions[name]; !ok {
			if strings.HasPrefix(name, "ode_") || strings.HasPrefix(name, "integrate_") || strings.HasPrefix(name, "algebra_solver") || strings.HasPrefix(name, "solve_") || name == "map_rect" || name == "reduce_sum" {
				t.gap(c.Pos, "%s (a solver, integrator or parallel map) has no counterpart in the .ppl", c.Name)
			} else {
				t.gap(c.Pos, "the function %s has no counterpart in the .ppl", c.Name)
			}
		}
	}
	return name + "(" + strings.Join(args, ", ") + ")", precPPLPostfix
}

func isDensityName(name string) bool {
	for _, suf := range []string{"_lpdf", "_lpmf", "_lcdf", "_lccdf", "_cdf"} {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// shapeOf is what the translator can tell of e's type: enough to tell
// Stan's matrix product from its elementwise one.
func (t *translator) shapeOf(e Expr) shape {
	switch e := e.(type) {
	case *Name:
		if v, ok := t.vars[e.Name]; ok {
			return v.shape
		}
		return shape{}
	case *Number:
		return shape{isInt: e.Int, known: true}
	case *Paren:
		return t.shapeOf(e.X)
	case *Unary:
		s := t.shapeOf(e.X)
		if e.Op == "!" {
			return shape{isInt: true, known: true}
		}
		return s
	case *Transpose:
		s := t.shapeOf(e.X)
		switch s.kind {
		case vectorK:
			s.kind = rowK
		case rowK:
			s.kind = vectorK
		}
		return s
	case *Cond:
		return t.shapeOf(e.A)
	case *Binary:
		l, r := t.shapeOf(e.L), t.shapeOf(e.R)
		switch e.Op {
		case "==", "!=", "<", "<=", ">", ">=", "&&", "||":
			return shape{isInt: true, known: true}
		case "*":
			if l.linalg() && r.linalg() {
				switch {
				case l.kind == rowK && r.kind == vectorK:
					return shape{known: true}
				case l.kind == matrixK && r.kind == vectorK:
					return shape{kind: vectorK, known: true}
				case l.kind == rowK && r.kind == matrixK:
					return shape{kind: rowK, known: true}
				default:
					return shape{kind: matrixK, known: true}
				}
			}
		case "^", ".^":
			s := l
			if !l.nonScalar() {
				s = r
			}
			s.isInt = false
			return s
		}
		s := l
		if !l.nonScalar() && r.nonScalar() || l.nonScalar() && r.nonScalar() && r.kind > l.kind {
			s = r
		}
		s.isInt = l.isInt && r.isInt && e.Op != "./"
		s.known = l.known && r.known
		return s
	case *Index:
		s := t.shapeOf(e.X)
		for _, it := range e.Items {
			_, slice := it.(*Slice)
			multi := !slice && t.shapeOf(it).nonScalar()
			if s.arr > 0 {
				if !slice && !multi {
					s.arr--
				}
				continue
			}
			switch s.kind {
			case vectorK, rowK:
				if !slice && !multi {
					s.kind = scalarK
				}
			case matrixK:
				if !slice && !multi {
					s.kind = rowK // a row; a second index takes an element
				} else {
					s.kind = -matrixK // rows kept: the next item indexes columns
				}
			case -matrixK:
				if !slice && !multi {
					s.kind = vectorK
				} else {
					s.kind = matrixK
				}
			}
		}
		if s.kind == -matrixK {
			s.kind = matrixK
		}
		return s
	case *ArrayExpr:
		if len(e.Elems) == 0 {
			return shape{}
		}
		s := t.shapeOf(e.Elems[0])
		s.arr++
		return s
	case *RowVectorExpr:
		if len(e.Elems) > 0 && t.shapeOf(e.Elems[0]).kind == rowK {
			return shape{kind: matrixK, known: true}
		}
		return shape{kind: rowK, known: true}
	case *Call:
		return t.callShape(e)
	}
	return shape{}
}

var scalarFunctions = map[string]bool{
	"sum": true, "mean": true, "sd": true, "variance": true, "log_sum_exp": true, "dot_product": true,
	"dot_self": true, "num_elements": true, "rows": true, "cols": true, "size": true, "determinant": true,
	"log_determinant": true, "prod": true, "norm2": true, "squared_distance": true, "distance": true,
}

var intFunctions = map[string]bool{"num_elements": true, "rows": true, "cols": true, "size": true, "int_step": true}

var matrixFunctions = map[string]bool{
	"cholesky_decompose": true, "gp_exp_quad_cov": true, "cov_exp_quad": true, "diag_matrix": true,
	"add_diag": true, "diag_pre_multiply": true, "diag_post_multiply": true, "crossprod": true,
	"tcrossprod": true, "inverse": true, "rep_matrix": true, "to_matrix": true, "quad_form_diag": true,
	"multiply_lower_tri_self_transpose": true, "lkj_corr_cholesky_rng": true, "lkj_corr_rng": true,
	"wishart_rng": true, "inv_wishart_rng": true, "identity_matrix": true, "append_col": true,
}

var vectorFunctions = map[string]bool{
	"rep_vector": true, "to_vector": true, "softmax": true, "log_softmax": true, "cumulative_sum": true,
	"segment": true, "head": true, "tail": true, "append_row": true, "mdivide_left_tri_low": true,
	"dirichlet_rng": true, "multi_normal_rng": true, "multi_normal_cholesky_rng": true, "linspaced_vector": true,
}

func (t *translator) callShape(c *Call) shape {
	name := c.Name
	if f, ok := t.funcs[name]; ok {
		return typeShape(f.Result)
	}
	switch {
	case c.Bar || isDensityName(name):
		return shape{known: true}
	case intFunctions[name]:
		return shape{isInt: true, known: true}
	case scalarFunctions[name] || name == "max" || name == "min":
		if (name == "max" || name == "min") && len(c.Args) == 2 {
			return t.shapeOf(c.Args[0])
		}
		return shape{known: true}
	case matrixFunctions[name]:
		return shape{kind: matrixK, known: true}
	case vectorFunctions[name]:
		return shape{kind: vectorK, known: true}
	case name == "rep_row_vector" || name == "to_row_vector" || name == "columns_dot_product":
		return shape{kind: rowK, known: true}
	case name == "transpose" && len(c.Args) == 1:
		return t.shapeOf(&Transpose{X: c.Args[0]})
	case name == "quad_form" && len(c.Args) == 2:
		if s := t.shapeOf(c.Args[1]); s.kind == vectorK {
			return shape{known: true}
		}
		return shape{kind: matrixK, known: true}
	case lang.IsODESolver(name):
		// an array of state vectors (a T × N matrix in the .ppl)
		return shape{arr: 1, kind: vectorK, known: true}
	case strings.HasSuffix(name, "_rng"):
		s := shape{known: true}
		for _, a := range c.Args {
			if as := t.shapeOf(a); as.nonScalar() {
				s = shape{arr: 1, known: true}
			}
		}
		return s
	}
	// elementwise functions: the shape of the first argument, real
	if len(c.Args) > 0 {
		s := t.shapeOf(c.Args[0])
		s.isInt = false
		return s
	}
	return shape{known: true}
}
