package lang

import (
	"testing"
)

// Comparisons, logic and if_else: how they parse (C's and Stan's
// precedence), print, and type-check.

func TestParseComparisonsAndLogic(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Comparisons bind looser than arithmetic.
		{"a + b < c * d", "(< (+ a b) (* c d))"},
		{"a <= b", "(<= a b)"},
		{"a >= -b", "(>= a (- b))"},
		// Equality looser than the relations.
		{"a < b == c > d", "(== (< a b) (> c d))"},
		{"a != 2", "(!= a 2)"},
		// && looser than equality, || looser than &&.
		{"a == 1 && b == 2", "(&& (== a 1) (== b 2))"},
		{"a || b && c", "(|| a (&& b c))"},
		{"a && b || c && d", "(|| (&& a b) (&& c d))"},
		{"a || b || c", "(|| (|| a b) c)"},
		// ! is a prefix operator like unary minus: tighter than everything
		// but ^, indexing and calls.
		{"!a && b", "(&& (! a) b)"},
		{"!a^2", "(! (^ a 2))"},
		{"!(a < b)", "(! (< a b))"},
		{"!!a", "(! (! a))"},
		{"-!a", "(- (! a))"},
		// In indices, arguments and vectors.
		{"x[g[n] == 2]", "(index x (== (index g n) 2))"},
		{"if_else(x > 0, log(x), 0)", "(call if_else (> x 0) (call log x) 0)"},
		{"b * (age[n] == 2)", "(* b (== (index age n) 2))"},
		{"[a < b, a >= b]", "(vec (< a b) (>= a b))"},
	} {
		x, err := ParseExpr("e", []byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := sexpr(x); got != c.want {
			t.Errorf("%s parsed as %s, want %s", c.in, got, c.want)
		}
	}
}

func TestComparisonErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a < b < c", `e:1:7: comparisons do not chain: write a < b && b < c, or use parentheses`},
		{"a == b != c", `e:1:8: comparisons do not chain: write a == b && b != c, or use parentheses`},
		{"a <", `e:1:4: expected an expression after "<", found end of file`},
		{"a && ", `e:1:6: expected an expression after "&&", found end of file`},
		{"!", `e:1:2: expected an expression after "!", found end of file`},
		{"a & b", `e:1:3: invalid character "&"; the logical operators are && and ||`},
		{"a | b", `e:1:3: invalid operator "|": the logical or is ||, and a single | only follows a density's first argument, as in normal_lpdf(y | mu, sigma)`},
	} {
		_, err := ParseExpr("e", []byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseExpr(%q) error %v, want %s", c.in, err, c.want)
		}
	}
	// Parenthesised, a chain is what it says.
	if _, err := ParseExpr("e", []byte("(a < b) < c")); err != nil {
		t.Error(err)
	}
}

func TestLogicExprString(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a+b<c", "a + b < c"},
		{"(a<b)<c", "(a < b) < c"},
		{"a<(b<c)", "a < (b < c)"},
		{"(a==b)!=c", "(a == b) != c"},
		{"(a||b)&&c", "(a || b) && c"},
		{"a||b&&c", "a || b && c"},
		{"!(a&&b)", "!(a && b)"},
		{"-(a<b)", "-(a < b)"},
		{"x[a<b, c==d:e]", "x[a < b, c == d:e]"},
		{"f(a||b)", "f(a || b)"},
	} {
		x, err := ParseExpr("e", []byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := ExprString(x)
		if got != c.want {
			t.Errorf("ExprString(%s) = %s, want %s", c.in, got, c.want)
		}
		y, err := ParseExpr("e", []byte(got))
		if err != nil || sexpr(y) != sexpr(x) {
			t.Errorf("%s does not read back as %s (%v)", got, sexpr(x), err)
		}
	}
}

// TestBoundsStopAtTheBracket checks that the ">" closing a constraint is not
// read as a comparison.
func TestBoundsStopAtTheBracket(t *testing.T) {
	src := "data { N: int  lo: real }\nparam { s: real<lower=lo + 1>[N]  p: real<lower=0, upper=1> }\n"
	f, err := Parse("b.ppl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := sexpr(f.Param.Decls[0]); got != "(s (real lower=(+ lo 1) (dims N)))" {
		t.Errorf("decl %s", got)
	}
}

func TestLogicIsInt(t *testing.T) {
	src := `
data { N: int  x: real[N]  g: int[N] }
param { mu: real  sigma: real<lower=0> }
model {
  for n in plate(N) {
    a = x[n] < mu
    b = !x[n]
    c = x[n] > 0 && mu > 0 || g[n] == 2
    d = if_else(a, g[n], 1)
    e = if_else(a, x[n], 1)
    f = if_else(mu, 1, 2) + a
    x[n] ~ normal(mu + 0.5 * (g[n] == 2), sigma)
  }
}`
	f, err := Parse("t.ppl", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	info, err := Check(f, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": false, "f": true}
	for _, st := range f.Model.Stmts[0].(*Plate).Body {
		if d, ok := st.(*Define); ok {
			if got := info.IsInt[d.Value]; got != want[d.Name] {
				t.Errorf("%s = %s: IsInt %v, want %v", d.Name, ExprString(d.Value), got, want[d.Name])
			}
		}
	}
}
