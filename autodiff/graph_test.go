package autodiff_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
)

func TestBuildErrorsAreKeptAndReported(t *testing.T) {
	cases := []struct {
		name  string
		build func(g *ad.Graph)
		want  string
	}{
		{"broadcast", func(g *ad.Graph) {
			ad.Add(g.Input("a", ad.Param, 2, 3), g.Input("b", ad.Param, 4))
		}, "shapes [2, 3] and [4] cannot be broadcast together"},
		{"matmul", func(g *ad.Graph) {
			ad.Matmul(g.Input("a", ad.Param, 2, 3), g.Input("b", ad.Param, 4, 5))
		}, "inner dimensions 3 and 4 differ"},
		{"axis", func(g *ad.Graph) { ad.Sum(g.Input("a", ad.Param, 2), 1) }, "axis 1 out of range for rank 1"},
		{"reshape", func(g *ad.Graph) { ad.Reshape(g.Input("a", ad.Param, 2, 3), 4, -1) }, "not a multiple"},
		{"slice", func(g *ad.Graph) { ad.Slice(g.Input("a", ad.Param, 5), 0, 3, 7) }, "slice [3:7]"},
		{"concat", func(g *ad.Graph) {
			ad.Concat(0, g.Input("a", ad.Param, 2, 3), g.Input("b", ad.Param, 2, 4))
		}, "differ off that axis"},
		{"transpose", func(g *ad.Graph) { ad.Transpose(g.Input("a", ad.Param, 2, 3), 0, 0) }, "not a permutation"},
		{"input", func(g *ad.Graph) { g.Input("a", ad.Param, 2, 0) }, "every dimension must be positive"},
		{"const", func(g *ad.Graph) { g.Const(ad.Shape{3}, 1, 2) }, "needs 3 values, got 2"},
		{"first error wins", func(g *ad.Graph) {
			bad := ad.Add(g.Input("a", ad.Param, 2), g.Input("b", ad.Param, 3))
			ad.Matmul(bad, g.Input("c", ad.Param, 9, 9)) // not reported: its operand already failed
		}, "[2] and [3]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := ad.NewGraph(2)
			c.build(g)
			if g.Err() == nil || !strings.Contains(g.Err().Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", g.Err(), c.want)
			}
			if _, err := g.Compile(g.Scalar(1)); err != g.Err() {
				t.Fatalf("Compile returned %v, want the build error", err)
			}
		})
	}
}

func TestOperandsFromAnotherGraph(t *testing.T) {
	g, h := ad.NewGraph(1), ad.NewGraph(1)
	ad.Add(g.Input("a", ad.Param), h.Input("b", ad.Param))
	if g.Err() == nil || !strings.Contains(g.Err().Error(), "another graph") {
		t.Fatalf("got %v", g.Err())
	}
}

func TestProgramInputChecks(t *testing.T) {
	g := ad.NewGraph(2)
	x := g.Input("x", ad.Data, 4, 2)
	w := g.Input("w", ad.Param, 2)
	rows := g.Indices("rows", false, 3)
	y := ad.SumAll(ad.Dot(ad.Gather(x, rows), w))
	p, err := g.Compile(y)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{p.Set(w, []float64{1, 2, 3}), `input "w" needs 4 values (2 replicas × [2]), got 3`},
		{p.Set(x, []float64{1, 2, 3, 4, 5, 6, 7, math.NaN()}), `input "x": value 7 is NaN`},
		{p.SetIndices(rows, []int{0, 4, 1}), `indices "rows": value 1 is 4, outside [0, 4)`},
		{p.SetIndices(rows, []int{0, 1}), `indices "rows" need 3 values, got 2`},
		{p.Set(y, []float64{0, 0}), "is not an input"},
		{p.Set(g.Input("late", ad.Data), []float64{0}), "is not an input of this program"},
		{p.SetIndices(g.Indices("late", false, 1), []int{0}), `indices "late" do not belong to this program`},
		{p.Backward(w), "not an output"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want %q", c.err, c.want)
		}
	}
}

// TestReplicatedIndices gives each replica its own minibatch: replica r's
// loss and gradient are those of a single-replica program on its rows.
func TestReplicatedIndices(t *testing.T) {
	data := []float64{1, 2, 3, 4, 5, 6, 7, 8} // 4 rows of 2
	build := func(p int) (*ad.Program, *ad.Node, *ad.Node, *ad.Indices) {
		g := ad.NewGraph(p)
		x := g.Input("x", ad.Data, 4, 2)
		w := g.Input("w", ad.Param, 2)
		rows := g.Indices("rows", true, 2)
		loss := ad.SumAll(ad.Square(ad.Dot(ad.Gather(x, rows), w)))
		prog, err := g.Compile(loss)
		if err != nil {
			t.Fatal(err)
		}
		if err := prog.Set(x, data); err != nil {
			t.Fatal(err)
		}
		return prog, w, loss, rows
	}
	many, w, loss, rows := build(2)
	weights := []float64{0.5, -1, 2, 0.25}
	batches := []int{3, 0, 1, 1}
	must(t, many.Set(w, weights))
	must(t, many.SetIndices(rows, batches))
	many.Forward()
	must(t, many.Backward(loss))
	for r := range 2 {
		one, w1, loss1, rows1 := build(1)
		must(t, one.Set(w1, weights[2*r:2*r+2]))
		must(t, one.SetIndices(rows1, batches[2*r:2*r+2]))
		one.Forward()
		must(t, one.Backward(loss1))
		if got, want := many.Value(loss)[r], one.Value(loss1)[0]; got != want {
			t.Errorf("replica %d loss %v, alone %v", r, got, want)
		}
		for i := range 2 {
			if got, want := many.Grad(w)[2*r+i], one.Grad(w1)[i]; got != want {
				t.Errorf("replica %d gradient %d: %v, alone %v", r, i, got, want)
			}
		}
	}
}

// TestBackwardIsRepeatable replays a program: gradients are recomputed, not
// accumulated across calls.
func TestBackwardIsRepeatable(t *testing.T) {
	g := ad.NewGraph(1)
	w := g.Input("w", ad.Param, 3)
	loss := ad.SumAll(ad.Mul(w, w))
	p, err := g.Compile(loss)
	must(t, err)
	must(t, p.Set(w, []float64{1, 2, 3}))
	for range 3 {
		p.Forward()
		must(t, p.Backward(loss))
	}
	for i, want := range []float64{2, 4, 6} {
		if p.Grad(w)[i] != want {
			t.Fatalf("gradient %v, want [2 4 6]", p.Grad(w))
		}
	}
}

// TestSteadyStateAllocatesNothing is the allocation guarantee of Program on
// an MLP likelihood: a gather, two dense layers and a categorical log
// likelihood, in float64 and float32, on one goroutine and on two (the
// replicas split between them); the benchmarks report the same.
func TestSteadyStateAllocatesNothing(t *testing.T) {
	for _, threads := range []int{1, 2} {
		g, loss, inputs := mlpGraph(4)
		p, err := g.Compile(loss)
		must(t, err)
		p.SetThreads(threads)
		fillInputs(inputs, p)
		expectNoAllocs(t, "float64", threads, func() error {
			p.Forward()
			return p.Backward(loss)
		})
		p32, err := g.Compile32(loss)
		must(t, err)
		p32.SetThreads(threads)
		fillInputs(inputs, p32)
		expectNoAllocs(t, "float32", threads, func() error { return p32.ForwardBackward(loss) })
	}
}

func expectNoAllocs(t *testing.T, what string, threads int, f func() error) {
	t.Helper()
	allocs := testing.AllocsPerRun(20, func() {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%s on %d goroutines: Forward+Backward allocates %v times per run, want 0", what, threads, allocs)
	}
}

// mlpGraph is a small MLP likelihood over P replicas.
func mlpGraph(p int) (*ad.Graph, *ad.Node, []*ad.Node) {
	g := ad.NewGraph(p)
	x := g.Input("x", ad.Data, 50, 8)
	labels := g.Input("labels", ad.Data, 50, 3)
	rows := g.Indices("rows", true, 16)
	w1 := g.Input("w1", ad.Param, 8, 5)
	b1 := g.Input("b1", ad.Param, 5)
	w2 := g.Input("w2", ad.Param, 5, 3)
	h := ad.Tanh(ad.Add(ad.Matmul(ad.Gather(x, rows), w1), b1))
	logp := ad.LogSoftmax(ad.Matmul(h, w2), -1)
	return g, ad.Neg(ad.SumAll(ad.Mul(logp, ad.Gather(labels, rows)))), []*ad.Node{x, labels, w1, b1, w2}
}

// fillInputs sets every input of the program to standard normal draws.
func fillInputs[T ad.Float](inputs []*ad.Node, p *ad.ProgramOf[T]) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range inputs {
		v := p.Value(n)
		for i := range v {
			v[i] = T(rng.NormFloat64())
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTensorViews(t *testing.T) {
	g := ad.NewGraph(2)
	w := g.Input("w", ad.Param, 2, 3)
	c, err := ad.NewTensor(ad.Shape{3}, []float64{1, 2, 3})
	must(t, err)
	out := ad.Mul(w, g.ConstTensor(c))
	p, err := g.Compile(out)
	must(t, err)
	w1 := p.Tensor(w, 1)
	w1.Set(5, 1, 2) // replica 1, element [1, 2]
	p.Forward()
	if got := p.Tensor(out, 1).At(1, 2); got != 15 {
		t.Fatalf("replica 1 out[1,2] = %v, want 15", got)
	}
	if got := p.Value(out)[6+5]; got != 15 {
		t.Fatalf("flat buffer has %v, want 15", got)
	}
	if _, err := ad.NewTensor(ad.Shape{2, 2}, []float64{1}); err == nil {
		t.Fatal("NewTensor accepted 1 value for shape [2, 2]")
	}
}

func TestConstDataIsNotCopied(t *testing.T) {
	data := []float64{1, 2, 3}
	g := ad.NewGraph(3)
	x := g.ConstData("x", ad.Shape{3}, data)
	w := g.Input("w", ad.Param)
	y := ad.SumAll(ad.Mul(x, w))
	p, err := g.Compile(y)
	must(t, err)
	must(t, p.Set(w, []float64{1, 2, 3}))
	p.Forward()
	if got := p.Value(y); got[0] != 6 || got[2] != 18 {
		t.Fatalf("values %v, want [6 12 18]", got)
	}
	if &p.Value(x)[0] != &data[0] {
		t.Fatal("the program copied the data")
	}
	g.ConstData("bad", ad.Shape{2}, data)
	if g.Err() == nil {
		t.Fatal("3 values accepted for shape [2]")
	}
}

// TestGradientAssignedByFirstConsumer: a value with two consumers has its
// gradient assigned by the first to run backward (add, a GradAssigner) and
// added to by the second (tanh); one taken twice by a single op (h·h) is
// accumulated. The buffers are poisoned with NaN before the pass, so a
// gradient that was neither cleared nor wholly assigned shows.
func TestGradientAssignedByFirstConsumer(t *testing.T) {
	g := ad.NewGraph(1)
	x := g.Input("x", ad.Param, 4)
	h := ad.Relu(x)
	sq := ad.Relu(ad.Neg(x))
	loss := ad.SumAll(ad.Add(ad.Add(h, ad.Tanh(h)), ad.Mul(sq, sq)))
	p, err := g.Compile(loss)
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{-1.5, 0.3, 2, -0.2}
	copy(p.Value(x), xs)
	p.Forward()
	p.PoisonGradients()
	if err := p.Backward(loss); err != nil {
		t.Fatal(err)
	}
	for i, v := range xs {
		want := -2 * max(-v, 0) // ∂(relu(−x))²
		if v > 0 {
			th := math.Tanh(v)
			want = 1 + (1 - th*th)
		}
		if got := p.Grad(x)[i]; math.Abs(got-want) > 1e-12 {
			t.Errorf("∂/∂x[%d] = %v, want %v", i, got, want)
		}
	}
}
