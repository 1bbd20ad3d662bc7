package autodiff_test

import (
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// cubeOp is x³ elementwise, with 3x² kept in Saved by Forward for Backward
// to read, and its scratch written full of garbage on every call: an op
// that gives wrong gradients if saved memory were shared between replicas
// (a goroutine runs the forward pass of several replicas before their
// backward passes) or scratch were kept between calls.
type cubeOp struct{ n int }

func (op cubeOp) Name() string    { return "cube" }
func (op cubeOp) SavedLen() int   { return op.n }
func (op cubeOp) ScratchLen() int { return 2 * op.n }

func (op cubeOp) Forward(a *ad.Args)     { cubeForward(a) }
func (op cubeOp) Forward32(a *ad.Args32) { cubeForward(a) }

func cubeForward[T ad.Float](a *ad.ArgsOf[T]) {
	for i := range a.Scratch {
		a.Scratch[i] = T(i + a.Replica)
	}
	for i, x := range a.In[0] {
		a.Out[i] = x * x * x
		a.Saved[i] = 3 * x * x
	}
}

func (op cubeOp) Backward(a *ad.Args)     { cubeBackward(a) }
func (op cubeOp) Backward32(a *ad.Args32) { cubeBackward(a) }

func cubeBackward[T ad.Float](a *ad.ArgsOf[T]) {
	clear(a.Scratch)
	for i, d := range a.Saved {
		a.GradIn[0][i] += d * a.GradOut[i]
	}
}

func cube(x *ad.Node) *ad.Node {
	return x.Graph().Apply(cubeOp{x.Size()}, x.Shape(), x)
}

// TestWorkspace runs an op with saved memory and scratch through the
// harness (three replicas on two goroutines against single passes) and
// through separate Forward and Backward calls on four replicas and two
// goroutines, and checks that neither allocates.
func TestWorkspace(t *testing.T) {
	adtest.Run(t, adtest.Case{
		Name:   "cube",
		Inputs: []adtest.Input{{Shape: ad.Shape{2, 3}, Draw: adtest.Real}},
		Build:  func(x []*ad.Node) *ad.Node { return cube(x[0]) },
		Reference: func(x [][]float64) []float64 {
			out := make([]float64, len(x[0]))
			for i, v := range x[0] {
				out[i] = v * v * v
			}
			return out
		},
	})
	const P = 4
	g := ad.NewGraph(P)
	x := g.Input("x", ad.Param, 5)
	loss := ad.SumAll(cube(x))
	p, err := g.Compile(loss)
	must(t, err)
	p.SetThreads(2)
	for i := range p.Value(x) {
		p.Value(x)[i] = float64(i)
	}
	expectNoAllocs(t, "workspace op", 2, func() error {
		p.Forward()
		return p.Backward(loss)
	})
	for i, g := range p.Grad(x) {
		if want := 3 * float64(i*i); g != want {
			t.Fatalf("gradient %d = %v, want %v", i, g, want)
		}
	}
}
