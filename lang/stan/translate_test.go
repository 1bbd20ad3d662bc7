package stan_test

import (
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/lang/stan"
)

var update = flag.Bool("update", false, "rewrite the golden .ppl files of testdata")

// translateGolden translates testdata/NAME.stan and compares the result
// with testdata/NAME.ppl (rewritten with -update).
func translateGolden(t *testing.T, name string, compare ...bool) *stan.Result {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name+".stan"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := stan.TranslateSource(string(src), stan.Options{Env: compile.Env(), Name: name + ".stan"})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", name+".ppl")
	if len(compare) > 0 && !compare[0] {
		return res
	}
	if *update {
		if err := os.WriteFile(golden, []byte(res.PPL), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if res.PPL != string(want) {
		t.Errorf("translation of %s.stan differs from %s (go test -update rewrites it):\n%s", name, golden, res.PPL)
	}
	return res
}

// TestConstructs translates a program of every construct with a
// counterpart: no gaps, and the result compiles with data.
func TestConstructs(t *testing.T) {
	res := translateGolden(t, "constructs")
	if len(res.Gaps) > 0 {
		t.Fatalf("gaps: %v", res.Gaps)
	}
	if n := strings.Count(res.PPL, "\n"); len(res.Origins) != n {
		t.Errorf("%d origins for %d lines", len(res.Origins), n)
	}
	// the plate's line comes from the Stan loop at 61:3
	for i, l := range strings.Split(res.PPL, "\n") {
		if strings.Contains(l, "for n in plate(N)") && res.Origins[i].String() != "61:3" {
			t.Errorf("the plate's line comes from %v, want 61:3", res.Origins[i])
		}
	}
	m := compileWith(t, "constructs.stan.ppl", []byte(res.PPL), filepath.Join("testdata", "constructs.json"))
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = 0.1 * float64(i%5)
	}
	if lp := logDensity(t, m, theta); lp != lp {
		t.Fatalf("log density %v", lp)
	}
}

// TestGaps lists each construct without counterpart at its line:col of
// the Stan program, and keeps a TODO comment at each in the translation.
func TestGaps(t *testing.T) {
	// The .ppl has truncation and while loops, so T[,] and while are no
	// gaps: they translate as they are.
	if !stan.HasTruncation(compile.Env()) {
		t.Fatal("the .ppl's environment has no truncation")
	}
	res := translateGolden(t, "gaps")
	want := []string{
		"25:24: integrate_ode_rk45 (a solver, integrator or parallel map) has no counterpart in the .ppl",
		"34:9: the integer operator % has no counterpart",
		"34:19: reject has no counterpart",
	}
	var got []string
	for _, g := range res.Gaps {
		got = append(got, g.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("gaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := strings.Count(res.PPL, "// TODO(translate): "); n != len(want) {
		t.Errorf("%d TODO comments for %d gaps:\n%s", n, len(want), res.PPL)
	}
}

// TestSyntaxErrors: a program that does not parse is an error positioned
// in the Stan source.
func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"parameters { real x }", `1:21: expected ";", found "}"`},
		{"model { x ~ normal(0, 1) }", `1:26: expected ";", found "}"`},
		{"modle { }", "1:1: expected a block"},
		{"model { x = (1 + ; }", `1:18: expected an expression, found ";"`},
		{"data { int N; ", "expected \"}\", found the end of the file"},
		{"/* open", "1:1: unterminated comment"},
		{"parameters { simplex<lower=0> p; }", `1:31: expected "[", found "p"`},
	} {
		_, err := stan.Parse(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// FuzzTranslate: no input makes the parser or the translator panic, and
// every syntax error is positioned inside the input.
func FuzzTranslate(f *testing.F) {
	for _, name := range []string{"constructs", "gaps"} {
		src, err := os.ReadFile(filepath.Join("testdata", name+".stan"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Add("model { y ~ normal(mu, sigma) T[, 1]; }")
	f.Fuzz(func(t *testing.T, src string) {
		_, err := stan.TranslateSource(src, stan.Options{Env: compile.Env()})
		var se *stan.SyntaxError
		if errors.As(err, &se) {
			lines := strings.Count(src, "\n") + 1
			if se.Pos.Line < 1 || se.Pos.Line > lines || se.Pos.Col < 1 {
				t.Fatalf("error %v outside the input of %d lines", err, lines)
			}
		}
	})
}

// TestPlateEqualsLoop: the mixture's loop over the observations becomes a
// plate, whose log density is that of the same body in a plain loop.
func TestPlateEqualsLoop(t *testing.T) {
	res := translateGolden(t, "mixture")
	if len(res.Gaps) > 0 || !strings.Contains(res.PPL, "for n in plate(N) {") {
		t.Fatalf("gaps %v, or no plate:\n%s", res.Gaps, res.PPL)
	}
	data := filepath.Join("testdata", "mixture.json")
	plate := compileWith(t, "mixture.ppl", []byte(res.PPL), data)
	loop := compileWith(t, "mixture-loop.ppl", []byte(strings.Replace(res.PPL, "plate(N)", "1:N", 1)), data)
	if plate.NumData() != 5 {
		t.Errorf("the plate has %d rows, want 5", plate.NumData())
	}
	theta := make([]float64, plate.Dim())
	for i := range theta {
		theta[i] = 0.3*float64(i) - 0.5
	}
	a, b := logDensity(t, plate, theta), logDensity(t, loop, theta)
	if math.Abs(a-b) > 1e-10*(1+math.Abs(b)) {
		t.Fatalf("plate %.15g, loop %.15g", a, b)
	}
}

// TestPrefixes: every prefix of the test programs (most of them cut in
// the middle of a construct) gives a translation or a positioned syntax
// error, never a panic.
func TestPrefixes(t *testing.T) {
	env := compile.Env()
	for _, name := range []string{"constructs", "gaps", "mixture", "functions"} {
		src, err := os.ReadFile(filepath.Join("testdata", name+".stan"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range len(src) {
			s := string(src[:i])
			_, err := stan.TranslateSource(s, stan.Options{Env: env})
			var se *stan.SyntaxError
			if err != nil && (!errors.As(err, &se) || se.Pos.Line < 1 || se.Pos.Line > strings.Count(s, "\n")+1) {
				t.Fatalf("%s cut at byte %d: error %v", name, i, err)
			}
		}
	}
}

// TestMoreGaps: the other kinds of gap, each at its line:col; Stan's old
// increment_log_prob(e) is target += e, no gap.
func TestMoreGaps(t *testing.T) {
	res := translateGolden(t, "gaps_more")
	want := []string{
		"6:3: a function returning void has no counterpart (a .ppl function returns a value)",
		"6:35: reject has no counterpart",
		"7:3: f_lp: a function that adds to target (_lp) has no counterpart; return the value and add it in the model block",
		"7:23: target += outside the model block has no counterpart",
		"12:3: the type complex has no counterpart (no complex numbers or tuples in the .ppl)",
		"22:3: an int parameter has no counterpart (the samplers move reals)",
		"33:13: reading target() has no counterpart",
		"35:3: a call as a statement (a void function) has no counterpart",
		"36:3: a loop over the elements of a container (for (x in xs)) has no counterpart; loop over the indices",
		"38:11: the distribution foo has no counterpart in the .ppl",
	}
	var got []string
	for _, g := range res.Gaps {
		got = append(got, g.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("gaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(res.PPL, "  target += -sigma\n") || !strings.Contains(res.PPL, "for i in plate(N) {") {
		t.Errorf("increment_log_prob or the plate of a profile block:\n%s", res.PPL)
	}
}

// TestComments: the Stan program's comments are carried over, a comment
// on a line of its own above the statement after it, a trailing one at
// the end of its statement's first line.
func TestComments(t *testing.T) {
	src := "// header\ndata {\n  int N;  // rows\n  /* a block\n     comment */\n  vector[N] y;\n  # old style\n}\nparameters { real mu; }\nmodel {\n  y ~ normal(mu, 1);  // likelihood\n  // the end\n}\n"
	res, err := stan.TranslateSource(src, stan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "// header\ndata {\n  N: int  // rows\n  // a block\n  // comment\n  y: real[N]\n  // old style\n}\nparam {\n  mu: real\n}\nmodel {\n  y ~ normal(mu, 1)  // likelihood\n  // the end\n}\n"
	if got := res.PPL[strings.Index(res.PPL, "\n")+1:]; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
