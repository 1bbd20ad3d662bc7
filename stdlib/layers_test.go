package stdlib_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

func TestDense(t *testing.T) {
	adtest.Run(t, adtest.Case{
		Name: "dense",
		Inputs: []adtest.Input{
			{Shape: ad.Shape{5, 4}, Draw: adtest.Real, Data: true},
			{Shape: ad.Shape{4, 3}, Draw: adtest.Real},
			{Shape: ad.Shape{3}, Draw: adtest.Real},
		},
		Build: func(x []*ad.Node) *ad.Node { return stdlib.Dense(x[0], x[1], x[2]) },
		Reference: func(x [][]float64) []float64 {
			out := make([]float64, 15)
			for i := range 5 {
				for j := range 3 {
					out[i*3+j] = x[2][j]
					for k := range 4 {
						out[i*3+j] += x[0][i*4+k] * x[1][k*3+j]
					}
				}
			}
			return out
		},
	})
}

func TestActivations(t *testing.T) {
	for _, name := range []string{"relu", "tanh", "sigmoid", "softplus", "softmax", "log_softmax"} {
		f, ok := stdlib.Activation(name)
		if !ok {
			t.Fatalf("activation %q missing", name)
		}
		g := ad.NewGraph(1)
		out := f(g.Input("x", ad.Param, 2, 3))
		if g.Err() != nil || !out.Shape().Equal(ad.Shape{2, 3}) {
			t.Errorf("%s: %v, shape %v", name, g.Err(), out.Shape())
		}
	}
	if _, ok := stdlib.Activation("swish"); ok {
		t.Error("unknown activation found")
	}
}

// denseBench is one step of a dense layer's gradient: forward x·W + b, tanh,
// a sum, and backward to W and b, for P replicas sharing a data minibatch.
type denseBench struct {
	prog *ad.Program
	loss *ad.Node
}

const (
	benchBatch, benchIn, benchOut = 128, 784, 100
	// One forward product and one for ∂W (x is data, so no ∂x): 2·(2·B·in·out).
	denseFlops = 4 * benchBatch * benchIn * benchOut
)

func newDenseBench(tb testing.TB, replicas int) *denseBench {
	g := ad.NewGraph(replicas)
	x := g.Input("x", ad.Data, benchBatch, benchIn)
	w := g.Input("W", ad.Param, benchIn, benchOut)
	b := g.Input("b", ad.Param, benchOut)
	loss := ad.SumAll(ad.Tanh(stdlib.Dense(x, w, b)))
	prog, err := g.Compile(loss)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []*ad.Node{x, w, b} {
		v := prog.Value(n)
		for i := range v {
			v[i] = rng.NormFloat64() / math.Sqrt(benchIn)
		}
	}
	return &denseBench{prog: prog, loss: loss}
}

func (d *denseBench) step(tb testing.TB) {
	d.prog.Forward()
	if err := d.prog.Backward(d.loss); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkDense measures a dense layer's forward and backward pass at
// batch 128, 784 → 100, for P replicas in one pass. Achieved GFLOP/s counts
// the two matrix products per replica.
func BenchmarkDense(b *testing.B) {
	for _, p := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			d := newDenseBench(b, p)
			d.step(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				d.step(b)
			}
			b.ReportMetric(float64(denseFlops)*float64(p)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func TestDenseStepAllocatesNothing(t *testing.T) {
	d := newDenseBench(t, 2)
	if allocs := testing.AllocsPerRun(3, func() { d.step(t) }); allocs != 0 {
		t.Fatalf("a dense step allocates %v times, want 0", allocs)
	}
}
