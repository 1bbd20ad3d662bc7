package lang_test

import (
	"strings"
	"testing"

	"github.com/temper-ppl/temper/lang"
)

// TestDensityCallSyntax: NAME_lpdf(y | θ) parses as the call with y first
// and prints back as written; a density call without its bar, or a bar
// elsewhere, is an error that says where the bar goes.
func TestDensityCallSyntax(t *testing.T) {
	for _, src := range []string{"normal_lpdf(y[n] | mu, sigma)", "poisson_log_lpmf(k | a + b * x)", "std_normal_lpdf(z)", "log(exp(normal_lpdf(y | m, 1)) + 1)"} {
		x, err := lang.ParseExpr("e", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := lang.ExprString(x); got != src {
			t.Errorf("%s printed back as %s", src, got)
		}
	}
	x, _ := lang.ParseExpr("e", []byte("normal_lpdf(y | mu, sigma)"))
	if c, ok := x.(*lang.Call); !ok || len(c.Args) != 3 || lang.ExprString(c.Args[0]) != "y" {
		t.Errorf("normal_lpdf(y | mu, sigma) parsed as %#v", x)
	}
	for _, c := range []struct{ src, want string }{
		{"normal_lpdf(y, mu, sigma)", `expected "|" after normal_lpdf's first argument`},
		{"f(a | b)", `invalid operator "|"`},
	} {
		if _, err := lang.ParseExpr("e", []byte(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}
