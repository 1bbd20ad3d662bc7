package autodiff_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
)

// BenchmarkMLPStep is one gradient evaluation of the Bayesian MLP of
// temper bench (784-100-10, ReLU, a minibatch of 128 rows gathered from the
// data, categorical log likelihood) for P replicas, in float64 and float32,
// on one goroutine. The time per replica-step and its allocations are what
// the sampler pays per step before the noise and update.
func BenchmarkMLPStep(b *testing.B) {
	for _, prec := range []string{"float64", "float32"} {
		for _, p := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/P=%d", prec, p), func(b *testing.B) {
				g, loss, params, rows := mlp784(p)
				if prec == "float32" {
					prog, err := g.Compile32(loss)
					if err != nil {
						b.Fatal(err)
					}
					benchStep(b, prog, loss, params, rows, p)
				} else {
					prog, err := g.Compile(loss)
					if err != nil {
						b.Fatal(err)
					}
					benchStep(b, prog, loss, params, rows, p)
				}
			})
		}
	}
}

func benchStep[T ad.Float](b *testing.B, prog *ad.ProgramOf[T], loss *ad.Node, params []*ad.Node, rows *ad.Indices, p int) {
	prog.SetThreads(1)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range params {
		v := prog.Value(n)
		for i := range v {
			v[i] = T(0.05 * rng.NormFloat64())
		}
	}
	idx := make([]int, p*128)
	for i := range idx {
		idx[i] = rng.IntN(1000)
	}
	if err := prog.SetIndices(rows, idx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := prog.ForwardBackward(loss); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p)/1e3, "µs/replica-step")
}

// mlp784 is the MLP likelihood over 1,000 random rows.
func mlp784(p int) (*ad.Graph, *ad.Node, []*ad.Node, *ad.Indices) {
	const n, d, h, k = 1000, 784, 100, 10
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n*d)
	for i := range xs {
		xs[i] = rng.Float64()
	}
	ys := make([]float64, n*k)
	for i := range n {
		ys[i*k+rng.IntN(k)] = 1
	}
	g := ad.NewGraph(p)
	x := g.ConstData("X", ad.Shape{n, d}, xs)
	y := g.ConstData("Y", ad.Shape{n, k}, ys)
	rows := g.Indices("rows", true, 128)
	w1 := g.Input("W1", ad.Param, d, h)
	b1 := g.Input("b1", ad.Param, h)
	w2 := g.Input("W2", ad.Param, h, k)
	b2 := g.Input("b2", ad.Param, k)
	hid := ad.Relu(ad.Add(ad.Matmul(ad.Gather(x, rows), w1), b1))
	logp := ad.LogSoftmax(ad.Add(ad.Matmul(hid, w2), b2), -1)
	loss := ad.Neg(ad.SumAll(ad.Mul(logp, ad.Gather(y, rows))))
	return g, loss, []*ad.Node{w1, b1, w2, b2}, rows
}
