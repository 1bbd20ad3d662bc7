//go:build cuda

package autodiff_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/gputest"
	"github.com/temper-ppl/temper/autodiff/internal/cuda"
	"github.com/temper-ppl/temper/stdlib"
)

func requireGPU(t *testing.T) { gputest.Require(t) }

// input is one input of a conformance case and how its values are drawn.
type input struct {
	node *ad.Node
	draw func(r *rand.Rand) float64
}

// builder makes a case's inputs and minibatch indices.
type builder struct {
	g         *ad.Graph
	ins       []input
	rows      []rowsInput
	rowValues [][]int
}

type rowsInput struct {
	ix    *ad.Indices
	bound int
}

// in adds an input whose values draw gives.
func (b *builder) in(kind ad.InputKind, draw func(*rand.Rand) float64, shape ...int) *ad.Node {
	n := b.g.Input(fmt.Sprintf("in%d", len(b.ins)), kind, shape...)
	b.ins = append(b.ins, input{n, draw})
	return n
}

// indices adds replicated indices of n rows drawn from [0, bound).
func (b *builder) indices(n, bound int) *ad.Indices {
	ix := b.g.Indices(fmt.Sprintf("rows%d", len(b.rows)), true, n)
	b.rows = append(b.rows, rowsInput{ix, bound})
	return ix
}

// conformance builds a case's graph for P replicas, runs it on the CPU
// (Program or Program32) and on the GPU with the same inputs, and compares
// the output and every input's gradient. The loss is Σ w·out with fixed
// random weights, so that each element's gradient is distinct.
func conformance(t *testing.T, name string, f32 bool, build func(b *builder) *ad.Node) {
	t.Helper()
	const P = 3
	g := ad.NewGraph(P)
	b := &builder{g: g}
	out := build(b)
	ins := b.ins
	if g.Err() != nil {
		t.Fatalf("%s: %v", name, g.Err())
	}
	r := rand.New(rand.NewPCG(1, uint64(len(name))))
	w := make([]float64, out.Size())
	for i := range w {
		w[i] = 0.5 + r.Float64()
	}
	loss := ad.SumAll(ad.Mul(out, g.Const(out.Shape(), w...)))
	values := make([][]float64, len(ins))
	for i, in := range ins {
		n := in.node.Size()
		if in.node.Replicated() {
			n *= P
		}
		values[i] = make([]float64, n)
		for j := range values[i] {
			values[i][j] = in.draw(r)
		}
	}

	rowValues := make([][]int, len(b.rows))
	for i, ix := range b.rows {
		rowValues[i] = make([]int, P*ix.ix.Len())
		for j := range rowValues[i] {
			rowValues[i][j] = r.IntN(ix.bound)
		}
	}
	b.rowValues = rowValues

	dev, err := g.CompileOn("cuda", f32, out, loss)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer dev.Close()
	var cpuOut []float64
	cpuGrads := make([][]float64, len(ins))
	if f32 {
		prog, err := g.Compile32(out, loss)
		if err != nil {
			t.Fatal(err)
		}
		cpuOut, cpuGrads = runCPU(t, prog, b, values, out, loss)
	} else {
		prog, err := g.Compile(out, loss)
		if err != nil {
			t.Fatal(err)
		}
		cpuOut, cpuGrads = runCPU(t, prog, b, values, out, loss)
	}
	for i, ix := range b.rows {
		if err := dev.SetIndices(ix.ix, rowValues[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i, in := range ins {
		if err := dev.Set(in.node, values[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := dev.ForwardBackward(loss); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	gotOut := make([]float64, len(cpuOut))
	if err := dev.Read(out, gotOut); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// float64: the CPU's Go math and the GPU's libdevice differ by an ulp or
	// two per function, sums by their order. float32: both compute in
	// float64 and round, so the 1e-5 relative holds with room.
	tol := 1e-10
	if f32 {
		tol = 1e-5
	}
	compare(t, name+" value", gotOut, cpuOut, tol)
	for i, in := range ins {
		if !in.node.Replicated() || cpuGrads[i] == nil {
			continue
		}
		got := make([]float64, len(cpuGrads[i]))
		if err := dev.ReadGrad(in.node, got); err != nil {
			t.Fatal(err)
		}
		compare(t, fmt.Sprintf("%s gradient of input %d", name, i), got, cpuGrads[i], tol)
	}
}

func runCPU[T ad.Float](t *testing.T, prog *ad.ProgramOf[T], b *builder, values [][]float64, out, loss *ad.Node) ([]float64, [][]float64) {
	ins := b.ins
	for i, ix := range b.rows {
		if err := prog.SetIndices(ix.ix, b.rowValues[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i, in := range ins {
		if err := prog.Set(in.node, values[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := prog.ForwardBackward(loss); err != nil {
		t.Fatal(err)
	}
	toF64 := func(s []T) []float64 {
		if s == nil {
			return nil
		}
		r := make([]float64, len(s))
		for i, v := range s {
			r[i] = float64(v)
		}
		return r
	}
	grads := make([][]float64, len(ins))
	for i, in := range ins {
		if in.node.Replicated() {
			grads[i] = toF64(prog.Grad(in.node))
		}
	}
	return toF64(prog.Value(out)), grads
}

// compare checks each element within tol relative to the larger of its
// own size and the tensor's root mean square: an element that is a sum
// with cancellation (a product's entry, a softmax gradient) carries the
// rounding of its terms, which are of the tensor's size.
func compare(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	bad, ss, finite := 0, 0.0, 0
	for _, w := range want {
		if !math.IsInf(w, 0) && !math.IsNaN(w) {
			ss += w * w
			finite++
		}
	}
	rms := math.Sqrt(ss / float64(max(1, finite)))
	for i := range want {
		g, w := got[i], want[i]
		same := g == w || (math.IsNaN(g) && math.IsNaN(w)) || math.Abs(g-w) <= tol*math.Max(1e-3, math.Max(math.Abs(w), rms))
		if !same {
			if bad < 5 {
				t.Errorf("%s [%d]: GPU %.17g, CPU %.17g", what, i, g, w)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", what, bad, len(want))
	}
}

func uniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

func integers(lo, hi int) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return float64(lo + r.IntN(hi-lo+1)) }
}

// autodiffFuncs builds each scalar function of package autodiff by name.
var autodiffFuncs = map[string]func(x ...*ad.Node) *ad.Node{
	"add": func(x ...*ad.Node) *ad.Node { return ad.Add(x[0], x[1]) },
	"sub": func(x ...*ad.Node) *ad.Node { return ad.Sub(x[0], x[1]) },
	"mul": func(x ...*ad.Node) *ad.Node { return ad.Mul(x[0], x[1]) },
	"div": func(x ...*ad.Node) *ad.Node { return ad.Div(x[0], x[1]) },
	"pow": func(x ...*ad.Node) *ad.Node { return ad.Pow(x[0], x[1]) },
	"neg": func(x ...*ad.Node) *ad.Node { return ad.Neg(x[0]) }, "exp": func(x ...*ad.Node) *ad.Node { return ad.Exp(x[0]) },
	"log": func(x ...*ad.Node) *ad.Node { return ad.Log(x[0]) }, "log1p": func(x ...*ad.Node) *ad.Node { return ad.Log1p(x[0]) },
	"expm1": func(x ...*ad.Node) *ad.Node { return ad.Expm1(x[0]) }, "sqrt": func(x ...*ad.Node) *ad.Node { return ad.Sqrt(x[0]) },
	"square": func(x ...*ad.Node) *ad.Node { return ad.Square(x[0]) }, "abs": func(x ...*ad.Node) *ad.Node { return ad.Abs(x[0]) },
	"sin": func(x ...*ad.Node) *ad.Node { return ad.Sin(x[0]) }, "cos": func(x ...*ad.Node) *ad.Node { return ad.Cos(x[0]) },
	"tanh": func(x ...*ad.Node) *ad.Node { return ad.Tanh(x[0]) }, "sigmoid": func(x ...*ad.Node) *ad.Node { return ad.Sigmoid(x[0]) },
	"softplus":    func(x ...*ad.Node) *ad.Node { return ad.Softplus(x[0]) },
	"log_sigmoid": func(x ...*ad.Node) *ad.Node { return ad.LogSigmoid(x[0]) },
	"relu":        func(x ...*ad.Node) *ad.Node { return ad.Relu(x[0]) },
	"lgamma":      func(x ...*ad.Node) *ad.Node { return ad.Lgamma(x[0]) },
	"digamma":     func(x ...*ad.Node) *ad.Node { return ad.Digamma(x[0]) },
	"less":        func(x ...*ad.Node) *ad.Node { return ad.Less(x[0], x[1]) },
	"if_else":     func(x ...*ad.Node) *ad.Node { return ad.IfElse(ad.Less(x[0], x[1]), x[1], x[2]) },
	"lower_bound": func(x ...*ad.Node) *ad.Node { v, j := stdlib.LowerBound(x[0], x[1]); return ad.Add(v, j) },
	"interval":    func(x ...*ad.Node) *ad.Node { v, j := stdlib.Interval(x[0], x[1], x[2]); return ad.Add(v, j) },
}

// TestDeviceScalarFuncs runs every scalar function the kernels know, as
// autodiff or stdlib builds it, with broadcasting operands: a [4, 5]
// parameter against a [5] one and a scalar, integer arguments as shared
// data.
func TestDeviceScalarFuncs(t *testing.T) {
	requireGPU(t)
	names := make([]string, 0, len(cuda.ScalarFuncs))
	for n := range cuda.ScalarFuncs {
		names = append(names, n)
	}
	slices.Sort(names)
	var unchecked []string
	for _, name := range names {
		build, arity, draws := scalarCase(name)
		if build == nil {
			unchecked = append(unchecked, name)
			continue
		}
		shapes := [][]int{{4, 5}, {5}, {}, {4, 1}}
		for _, f32 := range []bool{false, true} {
			conformance(t, fmt.Sprintf("%s f32=%v", name, f32), f32, func(b *builder) *ad.Node {
				args := make([]*ad.Node, arity)
				for i := range args {
					kind := ad.Param
					if draws[i].data {
						kind = ad.Data
					}
					args[i] = b.in(kind, draws[i].draw, shapes[i%len(shapes)]...)
				}
				return build(args...)
			})
		}
	}
	if len(unchecked) > 0 {
		t.Logf("no constructor in this test for %d functions (the host test checks their formulas): %s", len(unchecked), strings.Join(unchecked, ", "))
	}
}

type argDraw struct {
	draw func(*rand.Rand) float64
	data bool
}

// scalarCase returns how to build the function called name, its arity and
// how each argument is drawn: inside the support of a density's argument
// (positive scales, counts), mostly; reals elsewhere.
func scalarCase(name string) (func(...*ad.Node) *ad.Node, int, []argDraw) {
	if d, ok := stdlib.Lookup(name); ok && d.Layout == stdlib.Elementwise {
		draws := make([]argDraw, d.Arity())
		for i := range draws {
			draws[i] = argDraw{draw: uniform(-2, 2)}
			if i < len(d.Int) && d.Int[i] {
				draws[i] = argDraw{draw: integers(0, 6), data: true}
			} else if i < len(d.Support) && d.Support[i].Holds != nil {
				if d.Support[i].Holds(0.5) && !d.Support[i].Holds(1.5) {
					draws[i].draw = uniform(0.02, 0.98) // a probability
				} else if !d.Support[i].Holds(-1) {
					draws[i].draw = uniform(0.1, 3)
				}
			}
		}
		if name == "beta" || name == "uniform" || name == "von_mises" {
			draws[0].draw = uniform(0.05, 0.95)
		}
		return d.LogDensity, d.Arity(), draws
	}
	f, ok := autodiffFuncs[name]
	if !ok {
		return nil, 0, nil
	}
	arity := map[string]int{"add": 2, "sub": 2, "mul": 2, "div": 2, "pow": 2, "less": 2, "if_else": 3, "lower_bound": 2, "interval": 3}[name]
	if arity == 0 {
		arity = 1
	}
	draws := make([]argDraw, arity)
	for i := range draws {
		draws[i] = argDraw{draw: uniform(-3, 3)}
	}
	switch name {
	case "log", "sqrt", "lgamma", "digamma", "pow":
		draws[0].draw = uniform(0.1, 4)
	case "interval":
		draws[1].draw, draws[2].draw = uniform(-5, -4), uniform(4, 5)
	}
	return f, arity, draws
}

// TestDeviceOps checks the ops that are not scalar functions: products,
// reductions, softmax, shape ops, gathers and stdlib's fused densities.
func TestDeviceOps(t *testing.T) {
	requireGPU(t)
	real := uniform(-2, 2)
	cases := []struct {
		name  string
		build func(b *builder) *ad.Node
	}{
		{"matmul", func(b *builder) *ad.Node { return ad.Matmul(b.in(ad.Param, real, 5, 7), b.in(ad.Param, real, 7, 4)) }},
		{"matmul data·param", func(b *builder) *ad.Node { return ad.Matmul(b.in(ad.Data, real, 6, 7), b.in(ad.Param, real, 7, 3)) }},
		{"matmul vector", func(b *builder) *ad.Node { return ad.Matmul(b.in(ad.Param, real, 7), b.in(ad.Param, real, 7)) }},
		{"matmul batch", func(b *builder) *ad.Node { return ad.Matmul(b.in(ad.Param, real, 2, 3, 7), b.in(ad.Param, real, 7, 5)) }},
		{"dot data·param", func(b *builder) *ad.Node { return ad.Dot(b.in(ad.Data, real, 6, 8), b.in(ad.Param, real, 8)) }},
		{"dot broadcast", func(b *builder) *ad.Node { return ad.Dot(b.in(ad.Param, real, 4, 1, 5), b.in(ad.Param, real, 3, 5)) }},
		{"sum axis 0", func(b *builder) *ad.Node { return ad.Sum(b.in(ad.Param, real, 5, 6, 3), 0) }},
		{"sum axis 1", func(b *builder) *ad.Node { return ad.Sum(b.in(ad.Param, real, 5, 6, 3), 1) }},
		{"mean axis 2", func(b *builder) *ad.Node { return ad.Mean(b.in(ad.Param, real, 5, 6, 3), 2) }},
		{"max axis 1", func(b *builder) *ad.Node { return ad.Max(b.in(ad.Param, real, 5, 6, 3), 1) }},
		{"log_sum_exp axis 0", func(b *builder) *ad.Node { return ad.LogSumExp(b.in(ad.Param, real, 5, 6, 3), 0) }},
		{"sum all, large", func(b *builder) *ad.Node { return ad.SumAll(b.in(ad.Param, real, 3000)) }},
		{"gather data", func(b *builder) *ad.Node {
			ix := b.indices(6, 10)
			return ad.Mul(ad.Gather(b.in(ad.Data, real, 10, 4), ix), b.in(ad.Param, real, 4))
		}},
		{"gather param", func(b *builder) *ad.Node {
			return ad.Gather(b.in(ad.Param, real, 10, 4), b.indices(8, 10))
		}},
		{"take_rows", func(b *builder) *ad.Node {
			return ad.TakeRows(b.in(ad.Param, real, 5, 3), b.in(ad.Data, integers(0, 4), 8))
		}},
		{"categorical_logit", func(b *builder) *ad.Node {
			return stdlib.CategoricalLogitLPMF(b.in(ad.Data, integers(1, 4), 6), b.in(ad.Param, real, 6, 4))
		}},
		{"categorical_logit broadcast", func(b *builder) *ad.Node {
			return stdlib.CategoricalLogitLPMF(b.in(ad.Data, integers(1, 4), 3, 6), b.in(ad.Param, real, 6, 4))
		}},
		{"normal, scalar parameters", func(b *builder) *ad.Node {
			d, _ := stdlib.Lookup("normal")
			return d.LogDensity(b.in(ad.Param, real, 40, 3), b.in(ad.Param, real), b.in(ad.Param, uniform(0.5, 2)))
		}},
		{"normal summed", func(b *builder) *ad.Node {
			d, _ := stdlib.Lookup("normal")
			return stdlib.SumAll(d.LogDensity(b.in(ad.Param, real, 2000), b.in(ad.Param, real), b.in(ad.Param, uniform(0.5, 2))))
		}},
		{"normal summed, in chunks", func(b *builder) *ad.Node { // 3 chunks of 8,192, the last short
			d, _ := stdlib.Lookup("normal")
			return stdlib.SumAll(d.LogDensity(b.in(ad.Param, real, 20001), b.in(ad.Param, real), b.in(ad.Param, uniform(0.5, 2))))
		}},
		{"normal summed, data scale", func(b *builder) *ad.Node {
			d, _ := stdlib.Lookup("normal")
			return stdlib.SumAll(d.LogDensity(b.in(ad.Param, real, 500), b.g.Scalar(0), b.g.Scalar(1)))
		}},
		// Softmax on every axis, both kinds, replicated and shared operands,
		// and a row longer than a block.
		{"softmax axis 0", func(b *builder) *ad.Node { return ad.Softmax(b.in(ad.Param, real, 4, 5, 3), 0) }},
		{"softmax axis 1", func(b *builder) *ad.Node { return ad.Softmax(b.in(ad.Param, real, 4, 5, 3), 1) }},
		{"softmax axis 2", func(b *builder) *ad.Node { return ad.Softmax(b.in(ad.Param, real, 4, 5, 3), 2) }},
		{"softmax axis -1, vector", func(b *builder) *ad.Node { return ad.Softmax(b.in(ad.Param, uniform(-20, 20), 7), -1) }},
		{"log_softmax axis 0", func(b *builder) *ad.Node { return ad.LogSoftmax(b.in(ad.Param, real, 4, 5, 3), 0) }},
		{"log_softmax axis 1", func(b *builder) *ad.Node { return ad.LogSoftmax(b.in(ad.Param, real, 4, 5, 3), 1) }},
		{"log_softmax axis 2", func(b *builder) *ad.Node { return ad.LogSoftmax(b.in(ad.Param, real, 4, 5, 3), 2) }},
		{"softmax long rows", func(b *builder) *ad.Node { return ad.Softmax(b.in(ad.Param, real, 3, 601), 1) }},
		{"log_softmax long rows", func(b *builder) *ad.Node { return ad.LogSoftmax(b.in(ad.Param, real, 601, 2), 0) }},
		{"softmax of data", func(b *builder) *ad.Node {
			return ad.Mul(ad.Softmax(b.in(ad.Data, real, 6, 5), 1), b.in(ad.Param, real, 5))
		}},
		// Along axis 1, where the parameter varies: along axis 0 its
		// gradient is zero by the shift invariance of log_softmax, and the
		// two sides' float32 rounding noise (1e-7) is all there is to compare.
		{"log_softmax of param + data", func(b *builder) *ad.Node {
			return ad.LogSoftmax(ad.Add(b.in(ad.Data, real, 6, 5), b.in(ad.Param, real, 5)), 1)
		}},
		// Shape ops, and reshape (an alias of its operand's buffers).
		{"transpose matrix", func(b *builder) *ad.Node { return ad.Transpose(b.in(ad.Param, real, 5, 7)) }},
		{"transpose 3-d", func(b *builder) *ad.Node { return ad.Transpose(b.in(ad.Param, real, 3, 4, 5), 2, 0, 1) }},
		{"transpose inner pair", func(b *builder) *ad.Node { return ad.Transpose(b.in(ad.Param, real, 2, 3, 4), 0, 2, 1) }},
		{"transpose with unit axes", func(b *builder) *ad.Node {
			return ad.Transpose(b.in(ad.Param, real, 3, 1, 5, 2, 1), 4, 2, 0, 3, 1)
		}},
		{"transpose identity", func(b *builder) *ad.Node { return ad.Transpose(b.in(ad.Param, real, 3, 4), 0, 1) }},
		{"transpose of data", func(b *builder) *ad.Node {
			return ad.Mul(ad.Transpose(b.in(ad.Data, real, 4, 6)), b.in(ad.Param, real, 4))
		}},
		{"concat axis 0", func(b *builder) *ad.Node {
			return ad.Concat(0, b.in(ad.Param, real, 2, 3), b.in(ad.Param, real, 5, 3), b.in(ad.Param, real, 1, 3))
		}},
		{"concat axis 1, data and param", func(b *builder) *ad.Node {
			return ad.Concat(1, b.in(ad.Param, real, 4, 3, 2), b.in(ad.Data, real, 4, 1, 2), b.in(ad.Param, real, 4, 5, 2))
		}},
		{"concat last axis", func(b *builder) *ad.Node {
			return ad.Concat(-1, b.in(ad.Param, real, 3, 2), b.in(ad.Param, real, 3, 7))
		}},
		{"concat of data", func(b *builder) *ad.Node {
			return ad.Mul(ad.Concat(0, b.in(ad.Data, real, 3), b.in(ad.Data, real, 4)), b.in(ad.Param, real, 7))
		}},
		{"concat of one operand twice", func(b *builder) *ad.Node {
			x := b.in(ad.Param, real, 3, 2)
			return ad.Concat(0, x, ad.Exp(x), x)
		}},
		{"slice axis 0", func(b *builder) *ad.Node { return ad.Slice(b.in(ad.Param, real, 7, 3), 0, 2, 5) }},
		{"slice axis 1", func(b *builder) *ad.Node { return ad.Slice(b.in(ad.Param, real, 4, 7, 3), 1, 1, 6) }},
		{"slice last axis", func(b *builder) *ad.Node { return ad.Slice(b.in(ad.Param, real, 4, 9), -1, 0, 4) }},
		{"slices that overlap", func(b *builder) *ad.Node {
			x := b.in(ad.Param, real, 5, 6)
			return ad.Add(ad.Slice(x, 1, 0, 4), ad.Slice(x, 1, 2, 6))
		}},
		{"index", func(b *builder) *ad.Node { return ad.Index(b.in(ad.Param, real, 4, 5, 3), 1, 2) }},
		{"slice of data", func(b *builder) *ad.Node {
			return ad.Mul(ad.Slice(b.in(ad.Data, real, 6, 5), 0, 1, 4), b.in(ad.Param, real, 5))
		}},
		{"reshape", func(b *builder) *ad.Node { return ad.Reshape(b.in(ad.Param, real, 4, 6), 3, -1) }},
		{"reshape then softmax", func(b *builder) *ad.Node {
			return ad.Softmax(ad.Reshape(ad.Exp(b.in(ad.Param, real, 4, 6)), 8, 3), 0)
		}},
		{"reshape of data", func(b *builder) *ad.Node {
			return ad.Mul(ad.Reshape(b.in(ad.Data, real, 2, 6), 3, 4), b.in(ad.Param, real, 4))
		}},
		{"shape ops chained", func(b *builder) *ad.Node {
			x := ad.Transpose(b.in(ad.Param, real, 3, 4, 5), 1, 2, 0)
			y := ad.Concat(1, ad.Slice(x, 1, 1, 4), b.in(ad.Param, real, 4, 2, 3))
			return ad.LogSoftmax(ad.Reshape(y, 4, 15), 1)
		}},
		// stdlib's Dirichlet on simplexes made by softmax and by the simplex
		// transform, and the transform itself.
		{"dirichlet", func(b *builder) *ad.Node {
			return stdlib.DirichletLPDF(ad.Softmax(b.in(ad.Param, real, 5, 4), 1), b.in(ad.Param, uniform(0.5, 3), 5, 4))
		}},
		{"dirichlet, data alpha broadcast", func(b *builder) *ad.Node {
			theta, _ := stdlib.Simplex(b.in(ad.Param, real, 2, 3, 5))
			return stdlib.DirichletLPDF(theta, b.in(ad.Data, uniform(0.5, 3), 6))
		}},
		{"dirichlet, theta broadcast", func(b *builder) *ad.Node {
			return stdlib.DirichletLPDF(ad.Softmax(b.in(ad.Param, real, 3), 0), b.in(ad.Param, uniform(0.5, 3), 4, 3))
		}},
		{"simplex", func(b *builder) *ad.Node { x, _ := stdlib.Simplex(b.in(ad.Param, real, 4, 5)); return x }},
		{"simplex, one vector", func(b *builder) *ad.Node { x, _ := stdlib.Simplex(b.in(ad.Param, uniform(-6, 6), 1)); return x }},
		{"simplex log-Jacobian", func(b *builder) *ad.Node { _, j := stdlib.Simplex(b.in(ad.Param, real, 4, 5)); return j }},
		{"simplex, long", func(b *builder) *ad.Node {
			x, j := stdlib.Simplex(b.in(ad.Param, real, 2, 90))
			return ad.Mul(x, ad.Reshape(j, 2, 1))
		}},
		{"cholesky_factor_corr", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			x, _ := c.Apply(b.in(ad.Param, real, 3, 6), 4)
			return x
		}},
		{"cholesky_factor_corr, one matrix", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			x, _ := c.Apply(b.in(ad.Param, real, 10), 5)
			return x
		}},
		{"cholesky_factor_corr log-Jacobian", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			_, j := c.Apply(b.in(ad.Param, real, 2, 3), 3)
			return j
		}},
		{"lkj_corr_cholesky", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			l, _ := c.Apply(b.in(ad.Param, real, 3, 3), 3)
			return stdlib.LKJCorrCholeskyLPDF(l, b.in(ad.Param, uniform(0.5, 3)))
		}},
		{"lkj_corr_cholesky, data eta per matrix", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			l, _ := c.Apply(b.in(ad.Param, real, 2, 6), 4)
			return stdlib.LKJCorrCholeskyLPDF(l, b.in(ad.Data, uniform(0.5, 3), 2))
		}},
		{"lkj_corr_cholesky, one factor, etas", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			l, _ := c.Apply(b.in(ad.Param, real, 3), 3)
			return stdlib.LKJCorrCholeskyLPDF(l, b.in(ad.Param, uniform(0.5, 3), 4))
		}},
		// stdlib's GLMs: α + x·β (a matrix-vector product) and the density.
		{"bernoulli_logit_glm", func(b *builder) *ad.Node {
			return stdlib.BernoulliLogitGLMLPMF(b.in(ad.Data, integers(0, 1), 9), b.in(ad.Data, real, 9, 4), b.in(ad.Param, real), b.in(ad.Param, real, 4))
		}},
		{"bernoulli_logit_glm, per-row alpha, param x", func(b *builder) *ad.Node {
			return stdlib.BernoulliLogitGLMLPMF(b.in(ad.Data, integers(0, 1), 7), b.in(ad.Param, real, 7, 3), b.in(ad.Param, real, 7), b.in(ad.Param, real, 3))
		}},
		{"poisson_log_glm", func(b *builder) *ad.Node {
			return stdlib.PoissonLogGLMLPMF(b.in(ad.Data, integers(0, 6), 11), b.in(ad.Data, uniform(-1, 1), 11, 5), b.in(ad.Param, real), b.in(ad.Param, uniform(-0.5, 0.5), 5))
		}},
		{"poisson_log_glm, batch of rows", func(b *builder) *ad.Node {
			return stdlib.PoissonLogGLMLPMF(b.in(ad.Data, integers(0, 6), 2, 3), b.in(ad.Param, uniform(-1, 1), 2, 3, 4), b.in(ad.Param, real, 3), b.in(ad.Param, uniform(-0.5, 0.5), 4))
		}},
		{"normal_id_glm", func(b *builder) *ad.Node {
			return stdlib.NormalIDGLMLPDF(b.in(ad.Data, real, 10), b.in(ad.Data, real, 10, 3), b.in(ad.Param, real), b.in(ad.Param, real, 3), b.in(ad.Param, uniform(0.5, 2)))
		}},
		{"normal_id_glm, per-row sigma", func(b *builder) *ad.Node {
			return stdlib.NormalIDGLMLPDF(b.in(ad.Param, real, 6), b.in(ad.Param, real, 6, 5), b.in(ad.Data, real, 6), b.in(ad.Param, real, 5), b.in(ad.Param, uniform(0.5, 2), 6))
		}},
		{"normal_id_glm summed", func(b *builder) *ad.Node {
			return stdlib.SumAll(stdlib.NormalIDGLMLPDF(b.in(ad.Data, real, 300), b.in(ad.Data, real, 300, 3), b.in(ad.Param, real), b.in(ad.Param, real, 3), b.in(ad.Param, uniform(0.5, 2))))
		}},
		{"mlp layer", func(b *builder) *ad.Node {
			ix := b.indices(16, 50)
			x := ad.Gather(b.in(ad.Data, uniform(0, 1), 50, 12), ix)
			h := ad.Relu(ad.Add(ad.Matmul(x, b.in(ad.Param, real, 12, 8)), b.in(ad.Param, real, 8)))
			logits := ad.Add(ad.Matmul(h, b.in(ad.Param, real, 8, 3)), b.in(ad.Param, real, 3))
			return stdlib.CategoricalLogitLPMF(b.in(ad.Data, integers(1, 3), 16), logits)
		}},
	}
	cases = append(cases, recurrentCases(real)...)
	cases = append(cases, layerCases()...)
	for _, c := range cases {
		for _, f32 := range []bool{false, true} {
			conformance(t, fmt.Sprintf("%s f32=%v", c.name, f32), f32, c.build)
		}
	}
	// The multivariate normals have float64 kernels only, on the CPU too.
	lower := func(b *builder, k int) *ad.Node { // a Cholesky factor; its upper triangle is ignored
		return b.in(ad.Param, uniform(0.5, 1.5), k, k)
	}
	for _, c := range []struct {
		name  string
		build func(b *builder) *ad.Node
	}{
		{"multi_normal_diag", func(b *builder) *ad.Node {
			return stdlib.MultiNormalDiagLPDF(b.in(ad.Param, real, 5, 4), b.in(ad.Param, real, 4), b.in(ad.Param, uniform(0.5, 2), 5, 4))
		}},
		{"multi_normal_diag, data y, scalar sigma", func(b *builder) *ad.Node {
			return stdlib.MultiNormalDiagLPDF(b.in(ad.Data, real, 2, 3, 5), b.in(ad.Param, real, 3, 5), b.in(ad.Param, uniform(0.5, 2)))
		}},
		{"multi_normal_diag, one row", func(b *builder) *ad.Node {
			return stdlib.MultiNormalDiagLPDF(b.in(ad.Param, real, 7), b.in(ad.Data, real, 7), b.in(ad.Param, uniform(0.5, 2), 7))
		}},
		{"multi_normal_cholesky", func(b *builder) *ad.Node {
			return stdlib.MultiNormalCholeskyLPDF(b.in(ad.Param, real, 6, 4), b.in(ad.Param, real, 4), lower(b, 4))
		}},
		{"multi_normal_cholesky, broadcast y, data mu", func(b *builder) *ad.Node {
			return stdlib.MultiNormalCholeskyLPDF(b.in(ad.Param, real, 3), b.in(ad.Data, real, 2, 5, 3), lower(b, 3))
		}},
		{"multi_normal_cholesky of a correlation factor, scaled", func(b *builder) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_corr")
			l, _ := c.Apply(b.in(ad.Param, real, 3), 3)
			tau := ad.Reshape(b.in(ad.Param, uniform(0.5, 2), 3), 3, 1)
			return stdlib.MultiNormalCholeskyLPDF(b.in(ad.Param, real, 8, 3), b.in(ad.Param, real, 3), ad.Mul(tau, l))
		}},
		{"multi_normal_cholesky, data factor", func(b *builder) *ad.Node {
			return stdlib.MultiNormalCholeskyLPDF(b.in(ad.Param, real, 5, 5), b.in(ad.Param, real, 5, 5), b.in(ad.Data, uniform(0.5, 1.5), 5, 5))
		}},
	} {
		conformance(t, c.name, false, c.build)
	}
}

// recurrentCases are stdlib's lstm and gru: the last state and every
// step's, x shared data or a parameter, odd sizes (B 3, T 5, D 3, H 5,
// and a lone sequence without batch axes), and the Fashion-MNIST example's
// stack.
func recurrentCases(real func(*rand.Rand) float64) []struct {
	name  string
	build func(b *builder) *ad.Node
} {
	var cases []struct {
		name  string
		build func(b *builder) *ad.Node
	}
	layers := []struct {
		name  string
		gates int
		f     func(x, w, u, b *ad.Node, seq bool) *ad.Node
	}{{"lstm", 4, stdlib.LSTM}, {"gru", 3, stdlib.GRU}}
	small := uniform(-0.7, 0.7)
	for _, l := range layers {
		for _, seq := range []bool{false, true} {
			for _, kind := range []ad.InputKind{ad.Data, ad.Param} {
				for _, xs := range [][]int{{3, 5, 3}, {5, 3}, {2, 1, 5, 3}} {
					name := fmt.Sprintf("%s seq=%v x %v %v", l.name, seq, kind, xs)
					d, gh := xs[len(xs)-1], l.gates*5
					cases = append(cases, struct {
						name  string
						build func(b *builder) *ad.Node
					}{name, func(b *builder) *ad.Node {
						return l.f(b.in(kind, real, xs...), b.in(ad.Param, small, d, gh), b.in(ad.Param, small, 5, gh),
							b.in(ad.Param, small, gh), seq)
					}})
				}
			}
		}
	}
	// Shared input weights and bias, the recurrent weights a parameter.
	cases = append(cases, struct {
		name  string
		build func(b *builder) *ad.Node
	}{"lstm shared W and b", func(b *builder) *ad.Node {
		return stdlib.LSTM(b.in(ad.Param, real, 2, 4, 3), b.in(ad.Data, small, 3, 12), b.in(ad.Param, small, 3, 12),
			b.in(ad.Data, small, 12), true)
	}})
	cases = append(cases, struct {
		name  string
		build func(b *builder) *ad.Node
	}{"gru shared W and b", func(b *builder) *ad.Node {
		return stdlib.GRU(b.in(ad.Param, real, 2, 4, 3), b.in(ad.Data, small, 3, 9), b.in(ad.Param, small, 3, 9),
			b.in(ad.Data, small, 9), false)
	}})
	// examples/fashion-mnist/lstm.ppl's network on 4 images of 7 rows of 6
	// pixels, H 5: lstm → relu → dense relu → dense → categorical_logit.
	cases = append(cases, struct {
		name  string
		build func(b *builder) *ad.Node
	}{"lstm fashion-mnist stack", func(b *builder) *ad.Node {
		ix := b.indices(4, 9)
		x := ad.Gather(b.in(ad.Data, uniform(0, 1), 9, 7, 6), ix)
		h := ad.Relu(stdlib.LSTM(x, b.in(ad.Param, small, 6, 20), b.in(ad.Param, small, 5, 20), b.in(ad.Param, small, 20), false))
		h1 := ad.Relu(ad.Add(ad.Matmul(h, b.in(ad.Param, real, 5, 8)), b.in(ad.Param, real, 8)))
		logits := ad.Add(ad.Matmul(h1, b.in(ad.Param, real, 8, 3)), b.in(ad.Param, real, 3))
		return stdlib.CategoricalLogitLPMF(b.in(ad.Data, integers(1, 3), 4), logits)
	}})
	return cases
}

// TestDeviceRefusesUnknownOps: an op without a kernel is an error that
// names it and says what to do, not a wrong answer. The error comes
// before the GPU is opened, so this runs on any machine.
func TestDeviceRefusesUnknownOps(t *testing.T) {
	for name, build := range map[string]func(g *ad.Graph) *ad.Node{
		"cholesky_factor_cov": func(g *ad.Graph) *ad.Node {
			c, _ := stdlib.Constrained("cholesky_factor_cov")
			x, _ := c.Apply(g.Input("u", ad.Param, 6), 3)
			return x
		},
		"ordered": func(g *ad.Graph) *ad.Node {
			c, _ := stdlib.Constrained("ordered")
			x, _ := c.Apply(g.Input("u", ad.Param, 2, 3), 3)
			return x
		},
		// The linear algebra of GPs, the CPU's alone (linalg.go).
		"cholesky_decompose": func(g *ad.Graph) *ad.Node { return ad.CholeskyDecompose(g.Input("A", ad.Param, 3, 3)) },
		"inverse":            func(g *ad.Graph) *ad.Node { return ad.Inverse(g.Input("A", ad.Param, 3, 3)) },
		"log_determinant":    func(g *ad.Graph) *ad.Node { return ad.LogDeterminant(g.Input("A", ad.Param, 3, 3)) },
		"mdivide_left_tri_low": func(g *ad.Graph) *ad.Node {
			return ad.MdivideLeftTriLow(g.Input("L", ad.Param, 3, 3), g.Input("b", ad.Param, 3))
		},
		"cumulative_sum": func(g *ad.Graph) *ad.Node { return ad.CumulativeSum(g.Input("v", ad.Param, 3)) },
	} {
		g := ad.NewGraph(2)
		out := ad.SumAll(ad.Exp(build(g)))
		if g.Err() != nil {
			t.Fatal(g.Err())
		}
		for _, f32 := range []bool{false, true} {
			_, err := g.CompileOn("cuda", f32, out)
			if err == nil || !strings.Contains(err.Error(), name+" has no CUDA kernel yet") || !strings.Contains(err.Error(), "--device cpu") {
				t.Errorf("compiling %s for cuda: got %v, want an error naming %s and --device cpu", name, err, name)
			}
		}
	}
}
