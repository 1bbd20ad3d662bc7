package lang

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func mustParse(t *testing.T, name string) (*File, []byte) {
	t.Helper()
	src := readFiles(t, "testdata/programs/"+name)["testdata/programs/"+name]
	f, err := Parse(name, src)
	if err != nil {
		t.Fatalf("Parse(%s):\n%s", name, Format(err, src))
	}
	return f, src
}

// at returns the position of the n-th (0-based) occurrence of substr on
// 1-based line of src.
func at(t *testing.T, file string, src []byte, line int, substr string, n int) Pos {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	text := lines[line-1]
	off := 0
	for i := 0; ; i++ {
		j := strings.Index(text[off:], substr)
		if j < 0 {
			t.Fatalf("%q not found %d times on line %d: %q", substr, n+1, line, text)
		}
		if i == n {
			off += j
			break
		}
		off += j + len(substr)
	}
	lineStart := 0
	for _, l := range lines[:line-1] {
		lineStart += len(l) + 1
	}
	return Pos{File: file, Offset: lineStart + off, Line: line, Col: len([]rune(text[:off])) + 1}
}

func checkPos(t *testing.T, what string, got, want Pos) {
	t.Helper()
	if got != want {
		t.Errorf("%s at %+v, want %+v", what, got, want)
	}
}

func TestParseLogisticRegression(t *testing.T) {
	f, src := mustParse(t, "logreg.ppl")
	const file = "logreg.ppl"

	var kinds []string
	for _, b := range f.Blocks {
		kinds = append(kinds, string(b.Kind))
	}
	if got := strings.Join(kinds, " "); got != "data param model predict infer" {
		t.Fatalf("blocks %s", got)
	}
	if f.Data != f.Blocks[0] || f.Param != f.Blocks[1] || f.Model != f.Blocks[2] || f.Predict != f.Blocks[3] || f.Infer != f.Blocks[4] {
		t.Error("File's block fields do not point at its blocks")
	}
	for i, line := range []int{2, 8, 13, 23, 28} {
		checkPos(t, "block", f.Blocks[i].Pos, at(t, file, src, line, string(f.Blocks[i].Kind), 0))
	}

	// Declarations and types.
	want := []string{"(N (int))", "(D (int))", "(X (real (dims N D)))", "(y (int lower=0 upper=1 (dims N)))"}
	for i, d := range f.Data.Decls {
		if got := sexpr(d); got != want[i] {
			t.Errorf("data decl %d = %s, want %s", i, got, want[i])
		}
	}
	y := f.Data.Decls[3]
	checkPos(t, "decl y", y.Pos, at(t, file, src, 6, "y", 0))
	checkPos(t, "type of y", y.Type.Pos, at(t, file, src, 6, "int", 0))
	checkPos(t, "upper bound of y", y.Type.Upper.Position(), at(t, file, src, 6, "1", 0))
	checkPos(t, "dim of y", y.Type.Dims[0].Position(), at(t, file, src, 6, "N", 0))

	// Statements.
	wantStmts := []string{
		"(~ tau gamma 2 2)",
		"(~ w normal 0 tau)",
		"(~ b normal 0 5)",
		"(plate n N (= eta (+ (call dot (index X n) w) b)) (~ (index y n) bernoulli_logit eta))",
		"(+= (* (- 0.5) (call sum (^ w 2))))",
	}
	for i, s := range f.Model.Stmts {
		if got := sexpr(s); got != wantStmts[i] {
			t.Errorf("model statement %d = %s, want %s", i, got, wantStmts[i])
		}
	}
	tau := f.Model.Stmts[0].(*Sample)
	checkPos(t, "sample", tau.Pos, at(t, file, src, 14, "tau", 0))
	checkPos(t, "distribution", tau.DistPos, at(t, file, src, 14, "gamma", 0))
	checkPos(t, "second argument", tau.Args[1].Position(), at(t, file, src, 14, "2", 1))

	plate := f.Model.Stmts[3].(*Plate)
	checkPos(t, "plate", plate.Pos, at(t, file, src, 17, "for", 0))
	checkPos(t, "plate index", plate.IndexPos, at(t, file, src, 17, "n", 0))
	checkPos(t, "plate size", plate.Size.Position(), at(t, file, src, 17, "N", 0))

	eta := plate.Body[0].(*Define)
	checkPos(t, "define", eta.Pos, at(t, file, src, 18, "eta", 0))
	sum := eta.Value.(*Binary)
	checkPos(t, "binary (its operator)", sum.Pos, at(t, file, src, 18, "+", 0))
	dot := sum.L.(*Call)
	checkPos(t, "call", dot.Pos, at(t, file, src, 18, "dot", 0))
	xn := dot.Args[0].(*Index)
	checkPos(t, "index (its bracket)", xn.Pos, at(t, file, src, 18, "[", 0))
	checkPos(t, "index item", xn.Items[0].Pos, at(t, file, src, 18, "n", 0))

	target := f.Model.Stmts[4].(*TargetAdd)
	checkPos(t, "target +=", target.Pos, at(t, file, src, 21, "target", 0))
	neg := target.Value.(*Binary).L.(*Unary)
	checkPos(t, "unary minus", neg.Pos, at(t, file, src, 21, "-", 0))
	half := neg.X.(*Number)
	if half.Value != 0.5 || half.Int || half.Text != "0.5" {
		t.Errorf("0.5 parsed as %+v", half)
	}

	pred := f.Predict.Stmts[0].(*Plate).Body[0].(*Sample)
	if got := sexpr(pred); got != "(~ (index y n) bernoulli_logit (+ (@ (index X n) w) b))" {
		t.Errorf("predict sample = %s", got)
	}
	checkPos(t, "matrix product", pred.Args[0].(*Binary).L.(*Binary).Pos, at(t, file, src, 25, "@", 0))

	// Settings.
	wantSettings := `(infer (set sampler (sampler sghmc (set lr 1e-3) (set friction 0.1))) (set iters 20000) (set chains 4) (set batch 64) (set seed 1) (set out "run1"))`
	if got := sexpr(f.Infer); got != wantSettings {
		t.Errorf("infer = %s\nwant    %s", got, wantSettings)
	}
	spec := f.Infer.Settings[0].Value.(*SamplerSpec)
	checkPos(t, "setting", f.Infer.Settings[0].Pos, at(t, file, src, 29, "sampler", 0))
	checkPos(t, "sampler spec", spec.Pos, at(t, file, src, 29, "sghmc", 0))
	checkPos(t, "option", spec.Options[1].Pos, at(t, file, src, 29, "friction", 0))
	lr := spec.Options[0].Value.(*Number)
	if lr.Value != 1e-3 || lr.Int {
		t.Errorf("1e-3 parsed as %+v", lr)
	}
	if iters := f.Infer.Settings[1].Value.(*Number); iters.Value != 20000 || !iters.Int {
		t.Errorf("20000 parsed as %+v", iters)
	}
	if out := f.Infer.Settings[5].Value.(*String); out.Value != "run1" {
		t.Errorf("out = %+v", out)
	}
}

func TestParseCosine2d(t *testing.T) {
	f, src := mustParse(t, "cosine2d.ppl")
	if f.Data != nil || f.Predict != nil || f.Infer != nil || f.Param == nil || f.Model == nil {
		t.Fatalf("blocks: %s", sexpr(f))
	}
	want := "(file (param (beta (real (dims 2)))) (model (+= (+ (* (- 0.2) (call sum (^ beta 2))) (* 2 (call sum (call cos (* (* 2 (call pi)) beta))))))))"
	if got := sexpr(f); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	pi := f.Model.Stmts[0].(*TargetAdd).Value.(*Binary).R.(*Binary).R.(*Call).Args[0].(*Call).Args[0].(*Binary).L.(*Binary).R.(*Call)
	checkPos(t, "pi()", pi.Pos, at(t, "cosine2d.ppl", src, 7, "pi", 0))
	if len(pi.Args) != 0 {
		t.Errorf("pi() has arguments %v", pi.Args)
	}
}

func TestParseMLP(t *testing.T) {
	f, src := mustParse(t, "mlp.ppl")
	plate := f.Model.Stmts[5].(*Plate)
	h := plate.Body[0].(*Define)
	if got := sexpr(h); got != "(= h (call relu (+ (@ (index X n) W1) b1)))" {
		t.Errorf("h = %s", got)
	}
	checkPos(t, "relu", h.Value.Position(), at(t, "mlp.ppl", src, 21, "relu", 0))
	// Two declarations on a line, separated by ";".
	if got := sexpr(f.Param.Decls[1]); got != "(b1 (real (dims H)))" {
		t.Errorf("b1 = %s", got)
	}
	checkPos(t, "b1", f.Param.Decls[1].Pos, at(t, "mlp.ppl", src, 12, "b1", 0))
	// Bounds in either order.
	if got := sexpr(f.Param.Decls[4]); got != "(sigma (real lower=0 upper=10))" {
		t.Errorf("sigma = %s", got)
	}
	// Three settings on a line.
	if got := sexpr(f.Infer.Settings[3]); got != "(set thin 10)" {
		t.Errorf("thin = %s", got)
	}
}

func TestParseSyntax(t *testing.T) {
	f, _ := mustParse(t, "syntax.ppl")
	for i, want := range []string{
		// -x^2 is -(x^2); ^ is right-associative and takes a negated exponent.
		"(= a (- (+ (- (^ mu 2)) (^ (- mu) 2)) (^ 2 (- (^ 1 2)))))",
		"(= b (/ (@ (index Y (: 1 3) (: _ _)) (vec 1 2 3.5e-2)) .5))",
		"(= c (index Y (: _ T) (: 2 _)))",
	} {
		if got := sexpr(f.Model.Stmts[i]); got != want {
			t.Errorf("statement %d = %s\nwant          %s", i, got, want)
		}
	}
	if got := sexpr(f.Data.Decls[3]); got != "(Y (real lower=(- 1.5) upper=2. (dims N (+ (* M 2) 1))))" {
		t.Errorf("Y = %s", got)
	}
	half := f.Model.Stmts[1].(*Define).Value.(*Binary).R.(*Number)
	if half.Value != 0.5 || half.Int {
		t.Errorf(".5 = %+v", half)
	}
}

// TestRoundTrip prints every program back to source and parses it again:
// the trees must be the same.
func TestRoundTrip(t *testing.T) {
	for name, src := range readFiles(t, "testdata/programs/*.ppl") {
		f, err := Parse(name, src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		printed := source(f)
		g, err := Parse(name+" printed", []byte(printed))
		if err != nil {
			t.Fatalf("%s printed:\n%s\n%s", name, printed, Format(err, []byte(printed)))
		}
		if a, b := sexpr(f), sexpr(g); a != b {
			t.Errorf("%s: round trip changed the tree:\n%s\n%s", name, a, b)
		}
		// And each expression alone through ExprString and ParseExpr.
		walk(f, func(n Node) {
			e, ok := n.(Expr)
			if !ok {
				return
			}
			text := ExprString(e)
			x, err := ParseExpr("expr", []byte(text))
			if err != nil {
				t.Errorf("%s: ParseExpr(%q): %v", name, text, err)
				return
			}
			if a, b := sexpr(e), sexpr(x); a != b {
				t.Errorf("%s: %q: %s became %s", name, text, a, b)
			}
		})
	}
}

func TestExprString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"-x^2", "-x ^ 2"},
		{"(-x)^2", "(-x) ^ 2"},
		{"a^b^c", "a ^ b ^ c"},
		{"(a^b)^c", "(a ^ b) ^ c"},
		{"a - (b - c)", "a - (b - c)"},
		{"(a - b) - c", "a - b - c"},
		{"a * (b + c) @ W", "a * (b + c) @ W"},
		{"2^-1", "2 ^ -1"},
		{"(a+b)[1, :, 2:, :3]", "(a + b)[1, :, 2:, :3]"},
		{"f()[0] + [1, [2]]", "f()[0] + [1, [2]]"},
		{"- -x", "--x"},
	} {
		x, err := ParseExpr("e", []byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := ExprString(x); got != c.want {
			t.Errorf("ExprString(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `e:1:1: expected an expression, found end of file`},
		{"1 2", `e:1:3: expected an operator or the end of the expression, found "2"`},
		{"f(1,", `e:1:5: expected an expression, found end of file`},
		{"x[]", `e:1:3: expected an index, found "]"`},
	} {
		_, err := ParseExpr("e", []byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseExpr(%q) error %v, want %s", c.in, err, c.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		text  string
		value float64
		isInt bool
	}{
		{"3", 3, true}, {"3.0", 3, false}, {"1e-3", 1e-3, false}, {".5", 0.5, false},
		{"2.", 2, false}, {"1E+2", 100, false}, {"007", 7, true},
	} {
		x, err := ParseExpr("n", []byte(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		n := x.(*Number)
		if n.Value != c.value || n.Int != c.isInt || n.Text != c.text {
			t.Errorf("%s parsed as %+v", c.text, n)
		}
	}
}

// TestLimits checks the size and nesting limits: each is an error at a
// position, quickly, never a stack overflow.
func TestLimits(t *testing.T) {
	deep := func(open, close string, n int) string {
		return "model { x = " + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + " }"
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"parentheses", deep("(", ")", MaxNesting+1), "nesting too deep"},
		{"brackets", deep("[", "]", MaxNesting+1), "nesting too deep"},
		{"calls", deep("f(", ")", MaxNesting+1), "nesting too deep"},
		{"minus", deep("-", "", 10*MaxNesting), "nested too deeply"},
		{"powers", "model { x = 2" + strings.Repeat("^2", 10*MaxNesting) + " }", "nested too deeply"},
		{"plates", "model {" + strings.Repeat(" for i in plate(N) {", MaxNesting+1) + strings.Repeat("}", MaxNesting+1) + "}", "nesting too deep"},
		{"sum", "model { x = 1" + strings.Repeat("+1", 100000) + " }", "expression too deep"},
		{"size", "model {}" + strings.Repeat(" ", MaxSourceSize), "source too large"},
	} {
		_, err := Parse(c.name, []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	// Just within the limits is fine.
	ok := deep("(", ")", MaxNesting-10)
	if _, err := Parse("ok", []byte(ok)); err != nil {
		t.Errorf("%d parentheses: %v", MaxNesting-10, err)
	}
	if _, err := Parse("ok", []byte("model { x = 1"+strings.Repeat("+1", maxExprDepth-1)+" }")); err != nil {
		t.Errorf("sum of %d terms: %v", maxExprDepth, err)
	}
}

func TestLexicalErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"model { x = 1 $ 2 }", `l:1:15: invalid character "$"`},
		{"model { x = 1e }", "l:1:13: exponent has no digits"},
		{"model { /* open", "l:1:9: comment not terminated"},
		{"infer { out = \"abc\n\" }", "l:1:15: string literal not terminated"},
		{"infer { out = \"a\\qb\" }", `l:1:15: invalid string literal "a\qb"`},
		{"model { x = 1 \xff }", "l:1:15: invalid UTF-8 encoding"},
		{"model { x = 1 \x00 }", "l:1:15: invalid character U+0000"},
		{"model { x = 99999999999999999999 }", "l:1:13: integer 99999999999999999999 is too large (the limit is 2^53)"},
		{"model { x = 1e999 }", "l:1:13: number 1e999 is out of range"},
	} {
		_, err := Parse("l", []byte(c.src))
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 || list[0].Error() != c.want {
			t.Errorf("Parse(%q) error %v, want %s", c.src, err, c.want)
		}
	}
	// Several lexical errors are all reported, up to a limit.
	_, err := Parse("l", []byte("model { $ # ` }"))
	if list := err.(ErrorList); len(list) != 3 {
		t.Errorf("3 bad characters gave %v", err)
	}
	_, err = Parse("l", bytes.Repeat([]byte{0xff}, 1000))
	if list := err.(ErrorList); len(list) != maxLexErrors {
		t.Errorf("1000 bad bytes gave %d errors", len(list))
	}
}

func TestUnicodeColumns(t *testing.T) {
	// Columns count runes: σ is one column, two bytes.
	src := "param {\n  σ: real\n}\nmodel {\n  σ ~ normal(0, τ)\n}\n"
	f, err := Parse("u", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(f, testEnv())
	want := `u:5:17: unknown name "τ"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if got := fmt.Sprint(err.(ErrorList)[0].Pos.Offset); got != fmt.Sprint(strings.Index(src, "τ")) {
		t.Errorf("offset %s", got)
	}
}

// TestNumberList: an infer setting takes a list of numbers (a ladder's
// levels), positioned at its bracket; anything else in it is an error at
// its place.
func TestNumberList(t *testing.T) {
	src := []byte("infer { sampler = deo_sgd(ladder_levels = [1e-4, 0.01, -2]) }")
	f, err := Parse("l", src)
	if err != nil {
		t.Fatal(err)
	}
	list, ok := f.Infer.Settings[0].Value.(*SamplerSpec).Options[0].Value.(*NumberList)
	if !ok || len(list.Values) != 3 || list.Values[0].Value != 1e-4 || list.Values[2].Value != -2 {
		t.Fatalf("ladder_levels parsed as %#v", f.Infer.Settings[0].Value.(*SamplerSpec).Options[0].Value)
	}
	checkPos(t, "list", list.Pos, at(t, "l", src, 1, "[", 0))
	for _, c := range []struct{ src, want string }{
		{"infer { levels = [1, deo] }", "l:1:22: a list holds numbers only"},
		{"infer { levels = [1, 2 }", `l:1:24: expected "," or "]", found "}"`},
		{"infer { levels = [] }", `l:1:19: expected a number, a string or a sampler, found "]"`},
	} {
		_, err := Parse("l", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}

// TestParseConstrained checks the tree of constrained types: the size in
// Size, an array's dimensions in Dims, and the rank of their values.
func TestParseConstrained(t *testing.T) {
	file := "testdata/programs/constrained.ppl"
	src := readFiles(t, file)[file]
	f, err := Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	theta, sigma := f.Param.Decls[0].Type, f.Param.Decls[7].Type
	if theta.Kind != Simplex || ExprString(theta.Size[0]) != "K" || len(theta.Dims) != 1 || ExprString(theta.Dims[0]) != "J" || theta.Rank() != 2 {
		t.Errorf("theta: %s", sexpr(theta))
	}
	if sigma.Kind != CovMatrix || sigma.Rank() != 3 || !sigma.Kind.Matrix() {
		t.Errorf("Sigma: %s", sexpr(sigma))
	}
	checkPos(t, "size of theta", theta.SizePos, at(t, file, src, 9, "[", 0))
}
