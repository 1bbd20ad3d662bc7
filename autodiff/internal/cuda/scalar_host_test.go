package cuda_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/internal/cuda"
	"github.com/temper-ppl/temper/stdlib"
)

// The device table is C that nvcc compiles; it is proved right here without
// a GPU by compiling it as C++ on the host and comparing every function with
// temper's CPU ops, which are the reference, at points that reach each
// branch (support checks, overflow guards, poles, infinities).

var inf = math.Inf(1)

// reals reach the branches of the unary functions: the softplus and
// sigmoid switch at 0, their tails (±40, ±800), poles and ±Inf.
var reals = []float64{-800, -40, -3.5, -1, -0.25, 0, 0.5, 1, 2.75, 40, 800, inf, -inf}

// extra holds more points for one-argument functions.
var extra = map[string][]float64{
	"log":     {1e-300, 1e300},
	"log1p":   {-2, -0.999, 1e-10},
	"expm1":   {1e-10, -1e-10, 700},
	"sqrt":    {1e-300, 2},
	"lgamma":  {1e-300, 2, 3, 0.1, 10.5, 171.5, 1e10, -40.5, -2.5, -1.5},
	"digamma": {1e-300, 1e-5, 2, 3, 11.99, 12, 100, 1e8, 2e8, 1e15, -0.75, -1.5, -40.5, -2.3},
	"tanh":    {1e-8, 20},
	"sigmoid": {1e-8, -1e-8, 20, -20},
}

// args lists the points of each argument of the functions of more than one
// argument (and of "not"); the test takes every combination.
var args = map[string][][]float64{
	"pow": {{-2, -0.5, 0, 0.25, 1, 2.5, 40, inf, -inf}, {-3, -1, -0.5, 0, 0.5, 1, 2, 3.3, inf, -inf}},
	"div": {{-3.5, -1, 0, 0.5, 40, inf, -inf}, {-2, -0.25, 0, 1, 800, inf, -inf}},
	"not": {{-inf, -1, -0.5, 0, 0.5, 1, inf}},
	"if_else": {{-0.5, 0, 1},
		{-inf, -2, 0, 3.5, inf},
		{-inf, -2, 0, 3.5, inf}},
	"lower_bound":           {reals, {-5, 0, 3.5, -inf, inf}},
	"upper_bound":           {reals, {-5, 0, 3.5, -inf, inf}},
	"bound_log_jacobian":    {reals, {-5, 0, 3.5}},
	"interval":              {reals, {-5, 0, 2}, {-1, 1, 2, 10}},
	"interval_log_jacobian": {reals, {-5, 0, 2}, {-1, 1, 2, 10}},

	"normal":             {{-40, -1.5, 0, 0.3, 800, inf, -inf}, {-2.5, 0, 1e3}, {-1, 0, 1e-3, 0.7, 2, 1e5, inf}},
	"student_t":          {{-40, -1.5, 0, 0.3, 800, 1e12, inf}, {-1, 0, 0.5, 3, 30}, {0, -2.5}, {-1, 0, 0.7, 2, 1e5}},
	"cauchy":             {{-40, -1.5, 0, 0.3, 800, 1e12, -inf}, {-2.5, 0, 1e3}, {-1, 0, 1e-3, 0.7, 2, 1e5, inf}},
	"double_exponential": {{-40, -1.5, 0, 0.3, 800, inf}, {-2.5, 0, 1e3}, {-1, 0, 1e-3, 0.7, 2, 1e5}},
	"logistic":           {{-40, -1.5, 0, 0.3, 800, 1e6, inf}, {-2.5, 0, 1e3}, {-1, 0, 1e-3, 0.7, 2, 1e5}},
	"exponential":        {{-1, 0, 0.5, 3, 800, inf}, {-1, 0, 1e-3, 1.5, 40, inf}},
	"gamma":              {{-1, 0, 1e-3, 0.5, 3, 800, inf}, {-1, 0, 0.5, 1, 2.5, 40}, {-1, 0, 0.5, 3, 40}},
	"inv_gamma":          {{-1, 0, 1e-3, 0.5, 3, 800, inf}, {-1, 0, 0.5, 1, 2.5, 40}, {-1, 0, 0.5, 3, 40}},
	"beta":               {{-0.5, 0, 1e-6, 0.3, 0.999, 1, 1.5}, {-1, 0, 0.5, 1, 2.5, 40}, {-1, 0, 0.5, 1, 2.5, 40}},
	"lognormal":          {{-1, 0, 1e-3, 0.5, 3, 800, inf}, {-2.5, 0, 3}, {-1, 0, 0.7, 2}},
	"uniform":            {{-3, -1, 0, 0.5, 2, 5, inf}, {-1, 0, 2, -inf}, {-1, 0, 2, 4}},
	"half_normal":        {{-1, 0, 0.5, 3, 800, inf}, {-1, 0, 0.7, 2, 1e5}},
	"half_cauchy":        {{-1, 0, 0.5, 3, 800, 1e12, inf}, {-1, 0, 0.7, 2, 1e5}},
	"bernoulli":          {{-1, 0, 0.5, 1, 2}, {-0.5, 0, 1e-6, 0.3, 1, 1.5}},
	"bernoulli_logit":    {{-1, 0, 0.5, 1, 2}, {-800, -40, -1, 0, 0.5, 40, 800, inf}},
	"binomial":           {{-1, 0, 1.5, 3, 10, 12}, {-1, 0, 3, 10, 10.5}, {-0.5, 0, 0.3, 1, 1.5}},
	"binomial_logit":     {{-1, 0, 1.5, 3, 10, 12}, {-1, 0, 3, 10, 10.5}, {-800, -40, -1, 0, 2.5, 40, 800}},
	"poisson":            {{-1, 0, 0.5, 1, 3, 40, 1000}, {-1, 0, 1e-3, 0.5, 3, 40, 1e3}},
	"poisson_log":        {{-1, 0, 0.5, 1, 3, 40, 1000}, {-800, -40, -1, 0, 0.5, 3, 40, 800}},
	"weibull":            {{-1, 0, 1e-3, 0.5, 3, 800}, {-1, 0, 0.5, 1, 2.5, 40}, {-1, 0, 0.7, 2, 1e5}},
	"neg_binomial_2":     {{-1, 0, 0.5, 1, 3, 40, 1000}, {-1, 0, 1e-3, 0.5, 3, 1e3}, {-1, 0, 0.1, 1, 20, 500}},
	"neg_binomial_2_log": {{-1, 0, 0.5, 1, 3, 40, 1000}, {-800, -40, -1, 0.3, 2.5, 40, 800}, {-1, 0, 0.1, 1, 20, 500}},
	"beta_binomial":      {{-1, 0, 1.5, 3, 10}, {-1, 0, 3, 10}, {-1, 0, 0.5, 2.5, 40}, {-1, 0, 0.5, 2.5, 40}},
	"skew_normal":        {{-40, -1.5, 0, 0.3, 40, inf}, {0, -2.5}, {-1, 0, 0.7, 2}, {-800, -5, -1, 0, 1.5, 40}},
	"von_mises":          {{-40, -1.5, 0, 0.3, 3.14, 800}, {0, -2.5}, {-1, 0, 1e-3, 0.7, 5, 24.9, 25, 100, 1e6, inf}},
}

// logicPoints are the points of each operand of a comparison or a logical
// operator.
var logicPoints = []float64{-inf, -1, 0, 0.5, 1, inf}

// points returns the rows at which to test the function name of arity n.
func points(name string, n int) [][]float64 {
	sets, ok := args[name]
	switch {
	case ok:
	case n == 1:
		sets = [][]float64{append(slices.Clone(reals), extra[name]...)}
	case binaryLogic[name] != nil:
		sets = [][]float64{logicPoints, logicPoints}
	default: // add, sub, mul
		sets = [][]float64{reals, reals}
	}
	rows := [][]float64{nil}
	for _, set := range sets {
		var next [][]float64
		for _, r := range rows {
			for _, v := range set {
				next = append(next, append(slices.Clone(r), v))
			}
		}
		rows = next
	}
	return rows
}

var unary = map[string]func(*autodiff.Node) *autodiff.Node{
	"neg": autodiff.Neg, "exp": autodiff.Exp, "log": autodiff.Log,
	"log1p": autodiff.Log1p, "expm1": autodiff.Expm1, "sqrt": autodiff.Sqrt,
	"square": autodiff.Square, "abs": autodiff.Abs, "sin": autodiff.Sin,
	"cos": autodiff.Cos, "tanh": autodiff.Tanh, "sigmoid": autodiff.Sigmoid,
	"softplus": autodiff.Softplus, "log_sigmoid": autodiff.LogSigmoid,
	"relu": autodiff.Relu, "lgamma": autodiff.Lgamma, "digamma": autodiff.Digamma,
	"not": autodiff.Not,
}

var binaryArith = map[string]func(a, b *autodiff.Node) *autodiff.Node{
	"add": autodiff.Add, "sub": autodiff.Sub, "mul": autodiff.Mul,
	"div": autodiff.Div, "pow": autodiff.Pow,
}

var binaryLogic = map[string]func(a, b *autodiff.Node) *autodiff.Node{
	"less": autodiff.Less, "less_equal": autodiff.LessEqual,
	"greater": autodiff.Greater, "greater_equal": autodiff.GreaterEqual,
	"equal": autodiff.Equal, "not_equal": autodiff.NotEqual,
	"and": autodiff.And, "or": autodiff.Or,
}

// build applies the Go function of that name to in, each a vector of n
// values, through temper's public constructors; stdlib's densities by
// their name (stdlib.Lookup).
func build(t *testing.T, name string, in []*autodiff.Node, n int) *autodiff.Node {
	t.Helper()
	if f, ok := unary[name]; ok {
		return f(in[0])
	}
	if f, ok := binaryArith[name]; ok {
		return f(in[0], in[1])
	}
	if f, ok := binaryLogic[name]; ok {
		return f(in[0], in[1])
	}
	switch name {
	case "if_else":
		return autodiff.IfElse(in[0], in[1], in[2])
	case "broadcast":
		return autodiff.BroadcastTo(in[0], n)
	case "lower_bound":
		x, _ := stdlib.LowerBound(in[0], in[1])
		return x
	case "upper_bound":
		x, _ := stdlib.UpperBound(in[0], in[1])
		return x
	case "bound_log_jacobian":
		_, j := stdlib.LowerBound(in[0], in[1])
		return j
	case "interval":
		x, _ := stdlib.Interval(in[0], in[1], in[2])
		return x
	case "interval_log_jacobian":
		_, j := stdlib.Interval(in[0], in[1], in[2])
		return j
	}
	d, ok := stdlib.Lookup(name)
	if !ok || d.Layout != stdlib.Elementwise {
		t.Fatalf("%s: no Go function of that name", name)
	}
	return d.LogDensity(in...)
}

// reference evaluates name at rows on the CPU: the values and, by the
// backward pass of their sum, each element's partials (grads[i][r] is
// ∂f/∂x_i at row r).
func reference(t *testing.T, name string, rows [][]float64) (vals []float64, grads [][]float64) {
	t.Helper()
	n, arity := len(rows), cuda.ScalarArity[name]
	g := autodiff.NewGraph(1)
	in := make([]*autodiff.Node, arity)
	for i := range in {
		in[i] = g.Input(fmt.Sprintf("x%d", i), autodiff.Param, n)
	}
	out := build(t, name, in, n)
	if err := g.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// The elementwise op of that name, or a fused stand-in that gives its
	// bits and says so to the device (stdlib's bernoulli_logit, checked
	// bit for bit against the elementwise density in stdlib's tests); not
	// one that rounds differently (stdlib's normal with scalar μ, σ has its
	// own op, also called "normal", but the harness gives it vectors).
	op := fmt.Sprintf("%T", out.Op())
	elementwise := strings.HasSuffix(op, ".elementwiseOp") || strings.HasSuffix(op, ".unaryOp")
	if d, ok := out.Op().(autodiff.DeviceOp); ok {
		k := d.DeviceKernel()
		elementwise = elementwise || k.Name == "elementwise" && k.Func != nil && k.Func.Name == name
	}
	if out.Op().Name() != name || !elementwise {
		t.Fatalf("%s: built %s op %q", name, op, out.Op().Name())
	}
	loss := autodiff.SumAll(out)
	prog, err := g.Compile(out, loss)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i := range in {
		col := make([]float64, n)
		for r, x := range rows {
			col[r] = x[i]
		}
		if err := prog.Set(in[i], col); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	prog.Forward()
	if err := prog.Backward(loss); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	vals = slices.Clone(prog.Value(out))
	for i := range in {
		gi := prog.Grad(in[i])
		if gi == nil {
			t.Fatalf("%s: no gradient for argument %d", name, i)
		}
		grads = append(grads, slices.Clone(gi))
	}
	return vals, grads
}

// harness reads lines "A f" (print sf_arity(f)) and "E f n x_1 … x_n y"
// (the arguments and y as the hex bits of doubles) and prints sf_arity, or
// sf_value(f, x) followed by the n partials of sf_grad(f, dx, x, y).
const harness = `#include <cstdio>
#include <cstdint>
#include <cstring>
#include "scalar.cuh"

static double bits(unsigned long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

static void put(double v) {
  if (v != v) {
    std::printf(" nan");  // no sign: Go parses "nan", not "-nan"
  } else {
    std::printf(" %.17g", v);
  }
}

int main() {
  char kind[2];
  while (std::scanf("%1s", kind) == 1) {
    int f, n;
    if (kind[0] == 'A') {
      if (std::scanf("%d", &f) != 1) return 2;
      std::printf("%d\n", sf_arity(f));
      continue;
    }
    if (std::scanf("%d %d", &f, &n) != 2 || n < 1 || n > 8) return 2;
    double x[8], dx[8];
    unsigned long long b;
    for (int i = 0; i < n; i++) {
      if (std::scanf("%llx", &b) != 1) return 2;
      x[i] = bits(b);
      dx[i] = -7.25e77;  // a partial sf_grad leaves unset shows as this
    }
    if (std::scanf("%llx", &b) != 1) return 2;
    double y = bits(b);
    put(sf_value(f, x));
    sf_grad(f, dx, x, y);
    for (int i = 0; i < n; i++) put(dx[i]);
    std::printf("\n");
  }
  return 0;
}
`

// compileHarness builds the harness against scalar.cuh in this directory,
// skipping the test where there is no C++ compiler (failing under CI).
func compileHarness(t *testing.T) string {
	t.Helper()
	var cxx string
	for _, c := range []string{"c++", "g++", "clang++"} {
		if p, err := exec.LookPath(c); err == nil {
			cxx = p
			break
		}
	}
	if cxx == "" {
		msg := "no C++ compiler (c++, g++ or clang++) on PATH: scalar.cuh is not checked against the CPU"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "harness.cc"), filepath.Join(dir, "harness")
	if err := os.WriteFile(src, []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	// -ffp-contract=off: no fused multiply-adds, which Go does not make on
	// amd64 either, so that the host results are the CPU's to the last bit
	// where the libm agrees.
	cmd := exec.Command(cxx, "-O0", "-std=c++17", "-ffp-contract=off", "-Wall", "-Wextra",
		"-I", here, "-o", bin, src)
	outb, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, outb)
	}
	if len(outb) > 0 {
		t.Errorf("scalar.cuh compiles with warnings:\n%s", outb)
	}
	return bin
}

// near reports whether got is want within rel (relative) plus abs, with
// infinities and NaN alike.
func near(got, want, rel, abs float64) bool {
	if math.IsNaN(got) || math.IsNaN(want) {
		return math.IsNaN(got) && math.IsNaN(want)
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= rel*max(math.Abs(got), math.Abs(want))+abs
}

type testCase struct {
	name  string
	rows  [][]float64
	vals  []float64
	grads [][]float64
}

// TestScalarHost checks sf_value and sf_grad against the CPU ops for every
// function of ScalarFuncs.
func TestScalarHost(t *testing.T) {
	bin := compileHarness(t)

	names := make([]string, 0, len(cuda.ScalarFuncs))
	for name := range cuda.ScalarFuncs {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return int(cuda.ScalarFuncs[a] - cuda.ScalarFuncs[b]) })

	var in bytes.Buffer
	var cases []testCase
	for _, name := range names {
		fmt.Fprintf(&in, "A %d\n", cuda.ScalarFuncs[name])
	}
	for _, name := range names {
		id, arity := cuda.ScalarFuncs[name], cuda.ScalarArity[name]
		rows := points(name, arity)
		vals, grads := reference(t, name, rows)
		cases = append(cases, testCase{name, rows, vals, grads})
		for r, x := range rows {
			fmt.Fprintf(&in, "E %d %d", id, arity)
			for _, v := range x {
				fmt.Fprintf(&in, " %x", math.Float64bits(v))
			}
			fmt.Fprintf(&in, " %x\n", math.Float64bits(vals[r]))
		}
	}

	cmd := exec.Command(bin)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("harness: %v\n%s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	next := func() []float64 {
		if !sc.Scan() {
			t.Fatalf("harness output ends early")
		}
		var f []float64
		for _, s := range strings.Fields(sc.Text()) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("harness output %q: %v", sc.Text(), err)
			}
			f = append(f, v)
		}
		return f
	}

	for _, name := range names {
		if got := next(); len(got) != 1 || int(got[0]) != cuda.ScalarArity[name] {
			t.Errorf("%s: sf_arity is %v, ScalarArity %d", name, got, cuda.ScalarArity[name])
		}
	}
	bad, checked := 0, 0
	worst := func(w *float64, got, want float64) {
		if d := math.Abs(got - want); d > 0 && !math.IsInf(want, 0) {
			*w = max(*w, d/max(math.Abs(got), math.Abs(want)))
		}
	}
	var worstVal, worstGrad float64
	for _, c := range cases {
		for r, x := range c.rows {
			got := next()
			if len(got) != 1+len(x) {
				t.Fatalf("%s%v: harness printed %v", c.name, x, got)
			}
			checked++
			worst(&worstVal, got[0], c.vals[r])
			if !near(got[0], c.vals[r], 1e-13, 0) {
				bad++
				t.Errorf("%s%v: sf_value %.17g, Go %.17g", c.name, x, got[0], c.vals[r])
			}
			for i := range x {
				worst(&worstGrad, got[1+i], c.grads[i][r])
				if !near(got[1+i], c.grads[i][r], 1e-12, 1e-300) {
					bad++
					t.Errorf("%s%v: ∂/∂x%d: sf_grad %.17g, Go %.17g", c.name, x, i, got[1+i], c.grads[i][r])
				}
			}
		}
	}
	if sc.Scan() {
		t.Errorf("harness printed more lines than asked: %q", sc.Text())
	}
	t.Logf("%d functions at %d points, %d mismatches; largest relative differences: values %.2g, partials %.2g",
		len(names), checked, bad, worstVal, worstGrad)
}

// TestScalarIDs checks that scalar.cuh's #defines are ScalarFuncs and that
// the ids are dense.
func TestScalarIDs(t *testing.T) {
	src, err := os.ReadFile(cuda.ScalarHeader)
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != cuda.ScalarSource {
		t.Errorf("ScalarSource is not the text of %s", cuda.ScalarHeader)
	}
	defines := map[string]int32{}
	for _, m := range regexp.MustCompile(`(?m)^#define SF_([A-Z0-9_]+) (\d+)\s*$`).FindAllStringSubmatch(string(src), -1) {
		v, _ := strconv.Atoi(m[2])
		if _, dup := defines[m[1]]; dup {
			t.Errorf("SF_%s defined twice", m[1])
		}
		defines[m[1]] = int32(v)
	}
	if got, ok := defines["COUNT"]; !ok || int(got) != len(cuda.ScalarFuncs) {
		t.Errorf("SF_COUNT is %d, ScalarFuncs has %d functions", got, len(cuda.ScalarFuncs))
	}
	delete(defines, "COUNT")
	seen := make([]string, len(cuda.ScalarFuncs))
	for name, id := range cuda.ScalarFuncs {
		macro := strings.ToUpper(name)
		if d, ok := defines[macro]; !ok || d != id {
			t.Errorf("%s: ScalarFuncs id %d, scalar.cuh SF_%s %d (defined %v)", name, id, macro, d, ok)
		}
		delete(defines, macro)
		if id < 0 || int(id) >= len(seen) {
			t.Errorf("%s: id %d outside [0, %d)", name, id, len(seen))
			continue
		}
		if seen[id] != "" {
			t.Errorf("id %d is both %s and %s", id, seen[id], name)
		}
		seen[id] = name
		if _, ok := cuda.ScalarArity[name]; !ok {
			t.Errorf("%s: no ScalarArity", name)
		}
	}
	for macro, id := range defines {
		t.Errorf("SF_%s %d is not in ScalarFuncs", macro, id)
	}
	for name := range cuda.ScalarArity {
		if _, ok := cuda.ScalarFuncs[name]; !ok {
			t.Errorf("ScalarArity has %s, ScalarFuncs does not", name)
		}
	}
}

// TestScalarCoverage checks that every elementwise function of the Go
// sources and every elementwise density of stdlib has a device id, so that
// one added on the Go side is not forgotten here, unless stdlib.HostOnly
// says it is the CPU's alone.
func TestScalarCoverage(t *testing.T) {
	for _, name := range stdlib.Names() {
		if d, _ := stdlib.Lookup(name); d.Layout == stdlib.Elementwise && !slices.Contains(stdlib.HostOnly(), name) {
			if _, ok := cuda.ScalarFuncs[name]; !ok {
				t.Errorf("stdlib's density %s has no id in scalar.cuh", name)
			}
		}
	}
	// The ScalarFunc and UnaryFunc literals and comparisons of autodiff
	// and stdlib, read from their sources.
	decl := regexp.MustCompile(`(?:ScalarFunc|UnaryFunc)\{Name: "([a-z0-9_]+)"|comparison\("([a-z0-9_]+)"`)
	files, err := filepath.Glob("../../*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../../../stdlib/*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range append(files, more...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			name := m[1] + m[2]
			found++
			if slices.Contains(stdlib.HostOnly(), name) { // the CPU's alone, said and refused on a device
				continue
			}
			if _, ok := cuda.ScalarFuncs[name]; !ok {
				t.Errorf("%s: function %q has no id in scalar.cuh", f, name)
			}
		}
	}
	if found < 30 {
		t.Errorf("found only %d function declarations in the Go sources; has their form changed?", found)
	}
}
