package lang

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testEnv mirrors the signatures of stdlib's densities and functions (the
// compiler builds the real one from stdlib; lang may not import it).
func testEnv() *Env {
	real := func(params ...string) Signature { return Signature{Params: params, Int: make([]bool, len(params))} }
	ints := func(sig Signature, which ...int) Signature {
		for _, i := range which {
			sig.Int[i] = true
		}
		return sig
	}
	return &Env{
		Distributions: map[string]Signature{
			"normal":            real("y", "mu", "sigma"),
			"student_t":         real("y", "nu", "mu", "sigma"),
			"cauchy":            real("y", "mu", "sigma"),
			"exponential":       real("y", "beta"),
			"gamma":             real("y", "alpha", "beta"),
			"beta":              real("y", "alpha", "beta"),
			"lognormal":         real("y", "mu", "sigma"),
			"half_normal":       real("y", "sigma"),
			"uniform":           real("y", "alpha", "beta"),
			"bernoulli":         ints(real("y", "theta"), 0),
			"bernoulli_logit":   ints(real("y", "alpha"), 0),
			"binomial":          ints(real("k", "n", "theta"), 0, 1),
			"poisson":           ints(real("y", "lambda"), 0),
			"poisson_log":       ints(real("y", "alpha"), 0),
			"categorical":       ints(real("y", "theta"), 0),
			"categorical_logit": ints(real("y", "beta"), 0),
			"multi_normal_diag": real("y", "mu", "sigma"),
			// Signatures as stdlib registers them, for the golden errors of
			// new_distributions.ppl.
			"dirichlet":           real("theta", "alpha"),
			"lkj_corr_cholesky":   real("L", "eta"),
			"ordered_logistic":    ints(real("k", "eta", "c"), 0),
			"von_mises":           real("y", "mu", "kappa"),
			"bernoulli_logit_glm": ints(real("y", "x", "alpha", "beta"), 0),
			"normal_id_glm":       real("y", "x", "alpha", "beta", "sigma"),
			"wishart":             real("W", "nu", "Sigma"),
			"multi_student_t":     real("y", "nu", "mu", "Sigma"),
			"multinomial":         ints(real("y", "theta"), 0),
		},
		Functions: map[string]Signature{
			"dot":         real("x", "y"),
			"sum":         real("x"),
			"mean":        real("x"),
			"exp":         real("x"),
			"log":         real("x"),
			"sqrt":        real("x"),
			"cos":         real("x"),
			"sin":         real("x"),
			"tanh":        real("x"),
			"sigmoid":     real("x"),
			"relu":        real("x"),
			"softmax":     real("x"),
			"log_softmax": real("x"),
			"dense":       real("x", "W", "b"),
			"pi":          real(),
			"if_else":     {Params: []string{"cond", "a", "b"}, Int: make([]bool, 3), IntIf: []int{1, 2}},
			"one_hot":     ints(real("k", "K"), 0, 1),
			"concat":      {Params: []string{"x"}, Int: []bool{false}, Variadic: true},
			"sd":          real("x"),
			"transpose":   real("x"),
			"normal_rng":  {Params: []string{"mu", "sigma"}, Int: make([]bool, 2), Random: true},
			"poisson_rng": {Params: []string{"lambda"}, Int: make([]bool, 1), Random: true, IntResult: true},
			// For truncation.ppl and log_mix.ppl.
			"normal_lcdf":  {Params: []string{"y", "mu", "sigma"}, Int: make([]bool, 3)},
			"poisson_lcdf": {Params: []string{"y", "lambda"}, Int: []bool{true, false}},
			"log_mix":      {Params: []string{"theta", "lp1", "lp2"}, Int: make([]bool, 3), Optional: 1},
			// An overload by the number of arguments, for overloads.ppl.
			"gp_exp_quad_cov": {Params: []string{"x", "alpha", "rho"}, Int: make([]bool, 3), Ranks: []int{-1, 0, 0},
				Alt: &Signature{Params: []string{"x1", "x2", "alpha", "rho"}, Int: make([]bool, 4), Ranks: []int{-1, -1, 0, 0}}},
			// The layers as the compiler registers them, for layers.ppl.
			"conv2d": {Params: []string{"x", "W", "b", "stride", "padding"}, Int: []bool{false, false, false, true, true},
				Optional: 2, Ranks: []int{-1, 4, 1}},
			"max_pool2d": {Params: []string{"x", "size", "stride"}, Int: []bool{false, true, true}, Optional: 1},
			"lstm":       {Params: []string{"x", "W", "U", "b"}, Int: make([]bool, 4), Ranks: []int{-1, 2, 2, 1}},
		},
	}
}

// readFiles returns the contents of the files matching pattern, by name.
func readFiles(t testing.TB, pattern string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(pattern)
	if err != nil || len(names) == 0 {
		t.Fatalf("no files match %s (%v)", pattern, err)
	}
	out := map[string][]byte{}
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = src
	}
	return out
}

// sexpr dumps a node as an S-expression, without positions: the shape of a
// tree in one line.
func sexpr(n any) string {
	var b strings.Builder
	writeSexpr(&b, n)
	return b.String()
}

func writeSexpr(b *strings.Builder, n any) {
	list := func(head string, items ...Node) {
		b.WriteString("(" + head)
		for _, it := range items {
			b.WriteByte(' ')
			writeSexpr(b, it)
		}
		b.WriteByte(')')
	}

	listAny := func(head string, items ...any) {
		b.WriteString("(" + head)
		for _, it := range items {
			b.WriteByte(' ')
			writeSexpr(b, it)
		}
		b.WriteByte(')')
	}
	switch n := n.(type) {
	case nil:
		b.WriteString("nil")
	case *File:
		items := make([]any, len(n.Blocks))
		for i, bl := range n.Blocks {
			items[i] = bl
		}
		listAny("file", items...)
	case *Block:
		var items []Node
		for _, d := range n.Decls {
			items = append(items, d)
		}
		for _, s := range n.Stmts {
			items = append(items, s)
		}
		for _, s := range n.Settings {
			items = append(items, s)
		}
		for _, f := range n.Funcs {
			items = append(items, f)
		}
		list(string(n.Kind), items...)
	case *Function:
		head := "func " + n.Name
		for _, p := range n.Params {
			head += " " + p.Name + ":" + p.Type.String()
		}
		list(head+" -> "+n.Result.String(), stmtNodes(n.Body)...)
	case *LocalDecl:
		b.WriteString("(local " + n.Name + " ")
		writeSexpr(b, n.Type)
		if n.Value != nil {
			b.WriteByte(' ')
			writeSexpr(b, n.Value)
		}
		b.WriteByte(')')
	case *Assign:
		list("assign"+n.Op, n.Lhs, n.Value)
	case *For:
		list("for "+n.Index, append([]Node{n.Lo, n.Hi}, stmtNodes(n.Body)...)...)
	case *If:
		items := append([]Node{n.Cond}, stmtNodes(n.Then)...)
		if n.Else != nil {
			items = append(items, &Ident{Name: "else"})
			items = append(items, stmtNodes(n.Else)...)
		}
		list("if", items...)
	case *Return:
		list("return", n.Value)
	case *Decl:
		b.WriteString("(" + n.Name + " ")
		writeSexpr(b, n.Type)
		b.WriteByte(')')
	case *Type:
		base := "real"
		switch {
		case n.Int:
			base = "int"
		case n.Kind != "":
			base = string(n.Kind)
		}
		b.WriteString("(" + base)
		if len(n.Size) > 0 {
			b.WriteByte(' ')
			list("size", exprNodes(n.Size)...)
		}
		if n.Lower != nil {
			b.WriteString(" lower=")
			writeSexpr(b, n.Lower)
		}
		if n.Upper != nil {
			b.WriteString(" upper=")
			writeSexpr(b, n.Upper)
		}
		if len(n.Dims) > 0 {
			b.WriteByte(' ')
			list("dims", exprNodes(n.Dims)...)
		}
		b.WriteByte(')')
	case *Sample:
		items := append([]Node{n.Lhs, &Ident{Name: n.Dist}}, exprNodes(n.Args)...)
		if n.Trunc != nil {
			items = append(items, &Ident{Name: "T"}, orNone(n.Trunc.Lower), orNone(n.Trunc.Upper))
		}
		list("~", items...)
	case *While:
		list("while", append([]Node{n.Cond}, stmtNodes(n.Body)...)...)
	case *Break:
		b.WriteString("(break)")
	case *Define:
		list("= "+n.Name, n.Value)
	case *TargetAdd:
		list("+=", n.Value)
	case *Plate:
		items := []Node{&Ident{Name: n.Index}, n.Size}
		for _, s := range n.Body {
			items = append(items, s)
		}
		list("plate", items...)
	case *Setting:
		list("set "+n.Key, n.Value)
	case *SamplerSpec:
		items := make([]Node, len(n.Options))
		for i, o := range n.Options {
			items[i] = o
		}
		list("sampler "+n.Name, items...)
	case *Number:
		b.WriteString(n.Text)
	case *String:
		fmt.Fprintf(b, "%q", n.Value)
	case *Ident:
		b.WriteString(n.Name)
	case *Unary:
		list(n.Op, n.X)
	case *Binary:
		list(n.Op, n.L, n.R)
	case *Call:
		list("call "+n.Func, exprNodes(n.Args)...)
	case *Index:
		b.WriteString("(index ")
		writeSexpr(b, n.X)
		for _, it := range n.Items {
			b.WriteByte(' ')
			if !it.Slice {
				writeSexpr(b, it.Lo)
				continue
			}
			b.WriteString("(:")
			for _, x := range []Expr{it.Lo, it.Hi} {
				b.WriteByte(' ')
				if x == nil {
					b.WriteString("_")
				} else {
					writeSexpr(b, x)
				}
			}
			b.WriteByte(')')
		}
		b.WriteByte(')')
	case *Vector:
		list("vec", exprNodes(n.Elems)...)
	default:
		fmt.Fprintf(b, "<%T>", n)
	}
}

func stmtNodes(xs []Stmt) []Node {
	out := make([]Node, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func exprNodes(xs []Expr) []Node {
	out := make([]Node, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// source prints a file back as source text, for the round-trip tests: one
// statement a line, each ended by ";" (a statement starting with "(", "["
// or "-" would otherwise continue the expression of the line before).
func source(f *File) string {
	var b strings.Builder
	var stmts func(list []Stmt, indent string)
	stmts = func(list []Stmt, indent string) {
		for _, s := range list {
			switch s := s.(type) {
			case *Sample:
				trunc := ""
				if s.Trunc != nil {
					trunc = " T[" + boundSource(s.Trunc.Lower) + ", " + boundSource(s.Trunc.Upper) + "]"
				}
				fmt.Fprintf(&b, "%s%s ~ %s(%s)%s;\n", indent, ExprString(s.Lhs), s.Dist, exprList(s.Args), trunc)
			case *While:
				fmt.Fprintf(&b, "%swhile %s {\n", indent, ExprString(s.Cond))
				stmts(s.Body, indent+"  ")
				fmt.Fprintf(&b, "%s}\n", indent)
			case *Break:
				fmt.Fprintf(&b, "%sbreak;\n", indent)
			case *Define:
				fmt.Fprintf(&b, "%s%s = %s;\n", indent, s.Name, ExprString(s.Value))
			case *TargetAdd:
				fmt.Fprintf(&b, "%starget += %s;\n", indent, ExprString(s.Value))
			case *Plate:
				fmt.Fprintf(&b, "%sfor %s in plate(%s) {\n", indent, s.Index, ExprString(s.Size))
				stmts(s.Body, indent+"  ")
				fmt.Fprintf(&b, "%s}\n", indent)
			case *LocalDecl:
				fmt.Fprintf(&b, "%s%s: %s", indent, s.Name, typeSource(s.Type))
				if s.Value != nil {
					fmt.Fprintf(&b, " = %s", ExprString(s.Value))
				}
				b.WriteString(";\n")
			case *Assign:
				fmt.Fprintf(&b, "%s%s %s %s;\n", indent, ExprString(s.Lhs), s.Op, ExprString(s.Value))
			case *For:
				fmt.Fprintf(&b, "%sfor %s in %s:%s {\n", indent, s.Index, ExprString(s.Lo), ExprString(s.Hi))
				stmts(s.Body, indent+"  ")
				fmt.Fprintf(&b, "%s}\n", indent)
			case *If:
				fmt.Fprintf(&b, "%sif %s {\n", indent, ExprString(s.Cond))
				stmts(s.Then, indent+"  ")
				if s.Else != nil {
					fmt.Fprintf(&b, "%s} else {\n", indent)
					stmts(s.Else, indent+"  ")
				}
				fmt.Fprintf(&b, "%s}\n", indent)
			case *Return:
				fmt.Fprintf(&b, "%sreturn %s;\n", indent, ExprString(s.Value))
			}
		}
	}
	for _, bl := range f.Blocks {
		fmt.Fprintf(&b, "%s {\n", bl.Kind)
		for _, d := range bl.Decls {
			fmt.Fprintf(&b, "  %s: %s\n", d.Name, typeSource(d.Type))
		}
		for _, fn := range bl.Funcs {
			params := make([]string, len(fn.Params))
			for i, p := range fn.Params {
				params[i] = p.Name + ": " + p.Type.String()
			}
			fmt.Fprintf(&b, "  %s(%s): %s {\n", fn.Name, strings.Join(params, ", "), fn.Result)
			stmts(fn.Body, "    ")
			b.WriteString("  }\n")
		}
		stmts(bl.Stmts, "  ")
		for _, s := range bl.Settings {
			fmt.Fprintf(&b, "  %s = %s\n", s.Key, valueString(s.Value))
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// typeSource prints a type.
func typeSource(t *Type) string {
	base := "real"
	switch {
	case t.Int:
		base = "int"
	case t.Kind != "":
		base = string(t.Kind)
	}
	var bounds []string
	if t.Lower != nil {
		bounds = append(bounds, "lower="+boundString(t.Lower))
	}
	if t.Upper != nil {
		bounds = append(bounds, "upper="+boundString(t.Upper))
	}
	if len(bounds) > 0 {
		base += "<" + strings.Join(bounds, ", ") + ">"
	}
	if t.Kind != "" {
		base += "[" + exprList(t.Size) + "]"
	}
	if len(t.Dims) > 0 {
		base += "[" + exprList(t.Dims) + "]"
	}
	return base
}

func exprList(xs []Expr) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = ExprString(x)
	}
	return strings.Join(parts, ", ")
}

func valueString(n Node) string {
	switch n := n.(type) {
	case *SamplerSpec:
		parts := make([]string, len(n.Options))
		for i, o := range n.Options {
			parts[i] = o.Key + " = " + valueString(o.Value)
		}
		return n.Name + "(" + strings.Join(parts, ", ") + ")"
	case Expr:
		return ExprString(n)
	}
	return fmt.Sprintf("<%T>", n)
}

// walk calls fn on every node of f.
func walk(f *File, fn func(Node)) {
	var stmts func([]Stmt)
	expr := func(e Expr) {
		WalkExpr(e, func(x Expr) { fn(x) })
	}
	var setting func(*Setting)
	setting = func(s *Setting) {
		fn(s)
		switch v := s.Value.(type) {
		case *SamplerSpec:
			fn(v)
			for _, o := range v.Options {
				setting(o)
			}
		case Expr:
			expr(v)
		}
	}
	stmts = func(list []Stmt) {
		for _, s := range list {
			fn(s)
			switch s := s.(type) {
			case *Sample:
				expr(s.Lhs)
				for _, a := range s.Args {
					expr(a)
				}
				if s.Trunc != nil {
					expr(s.Trunc.Lower)
					expr(s.Trunc.Upper)
				}
			case *While:
				expr(s.Cond)
				stmts(s.Body)
			case *Define:
				expr(s.Value)
			case *TargetAdd:
				expr(s.Value)
			case *Plate:
				expr(s.Size)
				stmts(s.Body)
			case *LocalDecl:
				fn(s.Type)
				for _, x := range s.Type.Dims {
					expr(x)
				}
				expr(s.Value)
			case *Assign:
				expr(s.Lhs)
				expr(s.Value)
			case *For:
				expr(s.Lo)
				expr(s.Hi)
				stmts(s.Body)
			case *If:
				expr(s.Cond)
				stmts(s.Then)
				stmts(s.Else)
			case *Return:
				expr(s.Value)
			}
		}
	}
	for _, b := range f.Blocks {
		fn(b)
		for _, d := range b.Decls {
			fn(d)
			fn(d.Type)
			expr(d.Type.Lower)
			expr(d.Type.Upper)
			for _, x := range d.Type.Dims {
				expr(x)
			}
		}
		stmts(b.Stmts)
		for _, f := range b.Funcs {
			fn(f)
			for _, p := range f.Params {
				fn(p)
				fn(p.Type)
			}
			fn(f.Result)
			stmts(f.Body)
		}
		for _, s := range b.Settings {
			setting(s)
		}
	}
}

// boundString prints a bound of a type: a bound is parsed as a sum (a ">"
// ends the constraint), so a comparison or logic there needs parentheses.
func boundString(e Expr) string {
	switch e := e.(type) {
	case *Binary:
		if IsLogical(e.Op) {
			return "(" + ExprString(e) + ")"
		}
	}
	return ExprString(e)
}

// orNone is e, or the name "none" for a missing truncation bound.
func orNone(e Expr) Node {
	if e == nil {
		return &Ident{Name: "none"}
	}
	return e
}

// boundSource is a truncation bound's source, empty when missing.
func boundSource(e Expr) string {
	if e == nil {
		return ""
	}
	return ExprString(e)
}
