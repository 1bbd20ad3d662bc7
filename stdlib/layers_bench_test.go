package stdlib_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/stdlib"
)

// layerBench is one forward and backward pass of a layer's graph, the
// loss Σ tanh(layer(...)) so that every output gets a distinct gradient.
type layerBench struct {
	step       func() error
	setThreads func(int)
	flops      float64 // multiply-adds × 2 of one replica's forward and backward products
}

// newLayerBench compiles loss for P replicas in float32 or float64 and
// fills every input with small normal draws.
func newLayerBench(tb testing.TB, g *ad.Graph, loss *ad.Node, inputs []*ad.Node, f32 bool, flops float64) *layerBench {
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(v []float64) {
		for i := range v {
			v[i] = 0.1 * rng.NormFloat64()
		}
	}
	if f32 {
		p, err := g.Compile32(loss)
		if err != nil {
			tb.Fatal(err)
		}
		for _, n := range inputs {
			v := make([]float64, len(p.Value(n)))
			fill(v)
			if err := p.Set(n, v); err != nil {
				tb.Fatal(err)
			}
		}
		return &layerBench{step: func() error { return p.ForwardBackward(loss) }, setThreads: p.SetThreads, flops: flops}
	}
	p, err := g.Compile(loss)
	if err != nil {
		tb.Fatal(err)
	}
	for _, n := range inputs {
		fill(p.Value(n))
	}
	return &layerBench{step: func() error { return p.ForwardBackward(loss) }, setThreads: p.SetThreads, flops: flops}
}

// convBench is a convolution of a batch of images [B, H, W, C] by 3 × 3
// filters to F channels with padding 1, and a gradient to the images when
// they are a parameter (a layer after the first).
func convBench(tb testing.TB, p, batch, h, w, c, f int, imageGrad, f32 bool) *layerBench {
	g := ad.NewGraph(p)
	kind := ad.Data
	if imageGrad {
		kind = ad.Param
	}
	x := g.Input("x", kind, batch, h, w, c)
	wt := g.Input("w", ad.Param, 3, 3, c, f)
	b := g.Input("b", ad.Param, f)
	loss := ad.SumAll(stdlib.Conv2D(x, wt, b, 1, 1))
	products := 2.0 // forward and ∂w
	if imageGrad {
		products = 3 // and ∂x
	}
	return newLayerBench(tb, g, loss, []*ad.Node{x, wt, b}, f32, products*2*float64(batch*h*w*9*c*f))
}

// lstmBench is an LSTM over sequences [B, T, D] to H units, its last
// hidden state the result.
func lstmBench(tb testing.TB, p, batch, steps, d, h int, f32 bool) *layerBench {
	return recurrentBench(tb, stdlib.LSTM, 4, p, batch, steps, d, h, f32)
}

// gruBench is lstmBench for a GRU.
func gruBench(tb testing.TB, p, batch, steps, d, h int, f32 bool) *layerBench {
	return recurrentBench(tb, stdlib.GRU, 3, p, batch, steps, d, h, f32)
}

func recurrentBench(tb testing.TB, layer func(x, w, u, b *ad.Node, seq bool) *ad.Node, gates, p, batch, steps, d, h int, f32 bool) *layerBench {
	g := ad.NewGraph(p)
	x := g.Input("x", ad.Data, batch, steps, d)
	w := g.Input("W", ad.Param, d, gates*h)
	u := g.Input("U", ad.Param, h, gates*h)
	b := g.Input("b", ad.Param, gates*h)
	loss := ad.SumAll(layer(x, w, u, b, false))
	// Forward: X·W and h·U every step; backward: ∂W, ∂U and ∂h through U.
	fwd := float64(batch * steps * gates * h * (d + h))
	bwd := fwd + float64(batch*steps*gates*h*h)
	return newLayerBench(tb, g, loss, []*ad.Node{x, w, u, b}, f32, 2*(fwd+bwd))
}

// cnnBench is a small CNN on size × size images: a convolution to c
// channels, max pooling, a residual block of two convolutions with a layer
// norm, pooling (max or average), flatten and a dense layer: the shape of
// examples/mnist/cnn.ppl (size 28, c 16, max pooling).
func cnnBench(tb testing.TB, p, batch, size, c int, maxPool, f32 bool) *layerBench {
	g := ad.NewGraph(p)
	x := g.Input("x", ad.Data, batch, size, size, 1)
	in := []*ad.Node{x}
	param := func(shape ...int) *ad.Node {
		n := g.Input(fmt.Sprint("p", len(in)), ad.Param, shape...)
		in = append(in, n)
		return n
	}
	h := ad.Relu(stdlib.Conv2D(x, param(3, 3, 1, c), param(c), 1, 1))
	h = stdlib.MaxPool2D(h, 2, 2)
	r := ad.Relu(stdlib.Conv2D(h, param(3, 3, c, c), param(c), 1, 1))
	r = stdlib.Conv2D(r, param(3, 3, c, c), param(c), 1, 1)
	h = stdlib.LayerNorm(ad.Relu(ad.Add(h, r)), param(c), param(c))
	if maxPool {
		h = stdlib.MaxPool2D(h, 2, 2)
	} else {
		h = stdlib.AvgPool2D(h, 2, 2)
	}
	h = stdlib.Flatten(h, 1)
	side := size / 4
	loss := ad.SumAll(ad.Tanh(stdlib.Dense(h, param(side*side*c, 10), param(10))))
	// Multiply-adds of the convolutions (forward, ∂w, and ∂x after the
	// first) and of the dense layer (forward, ∂w, ∂x).
	px, half := float64(batch*size*size), float64(batch*size*size/4)
	flops := 2 * (2*px*9*float64(c) + 3*2*half*9*float64(c*c) + 3*float64(batch*side*side*c*10))
	return newLayerBench(tb, g, loss, in, f32, flops)
}

// BenchmarkCNN is one forward and backward pass of examples/mnist/cnn.ppl's
// network (28 × 28 images, 16 channels, batch 128) without its likelihood,
// per replica: the layers temper bench --net cnn spends its time in.
func BenchmarkCNN(b *testing.B) {
	for _, p := range []int{1, 8} {
		b.Run(fmt.Sprintf("float32/P=%d", p), func(b *testing.B) {
			runLayerBench(b, cnnBench(b, p, 128, 28, 16, true, true), p)
		})
	}
}

func runLayerBench(b *testing.B, l *layerBench, p int) {
	if err := l.step(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := l.step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(l.flops*float64(p)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkConv2D is one forward and backward pass of the first
// convolution of a small MNIST CNN (28 × 28 × 1 → 32 channels, 3 × 3,
// batch 128, images as data) and of a second one (14 × 14 × 32 → 64, with
// the gradient to its images), per replica.
func BenchmarkConv2D(b *testing.B) {
	for _, f32 := range []bool{true, false} {
		prec := map[bool]string{true: "float32", false: "float64"}[f32]
		for _, p := range []int{1, 4} {
			b.Run(fmt.Sprintf("28x28x1-32/%s/P=%d", prec, p), func(b *testing.B) {
				runLayerBench(b, convBench(b, p, 128, 28, 28, 1, 32, false, f32), p)
			})
			b.Run(fmt.Sprintf("14x14x32-64/%s/P=%d", prec, p), func(b *testing.B) {
				runLayerBench(b, convBench(b, p, 128, 14, 14, 32, 64, true, f32), p)
			})
		}
	}
}

// BenchmarkMaxPool2D is one forward and backward pass of the first max
// pooling of examples/mnist/cnn.ppl, after its ReLU (so that, as there,
// about half of the windows' values are tied zeros): [128, 28, 28, 16] to
// [128, 14, 14, 16], per replica.
func BenchmarkMaxPool2D(b *testing.B) {
	for _, p := range []int{1, 4} {
		b.Run(fmt.Sprintf("float32/P=%d", p), func(b *testing.B) {
			g := ad.NewGraph(p)
			x := g.Input("x", ad.Param, 128, 28, 28, 16)
			loss := ad.SumAll(stdlib.MaxPool2D(ad.Relu(x), 2, 2))
			runLayerBench(b, newLayerBench(b, g, loss, []*ad.Node{x}, true, 0), p)
		})
	}
}

// BenchmarkLSTM is one forward and backward pass of the LSTM of seed 001's
// Fashion-MNIST experiment: 28 steps (the image's rows), 28 → 128, batch
// 128, per replica.
func BenchmarkLSTM(b *testing.B) {
	for _, f32 := range []bool{true, false} {
		prec := map[bool]string{true: "float32", false: "float64"}[f32]
		for _, p := range []int{1, 4} {
			b.Run(fmt.Sprintf("%s/P=%d", prec, p), func(b *testing.B) {
				runLayerBench(b, lstmBench(b, p, 128, 28, 28, 128, f32), p)
			})
		}
	}
}

// TestLayersAllocateNothing: a step of a convolution, a pooling, a layer
// norm and an LSTM allocates nothing once compiled, on one goroutine and
// on two.
func TestLayersAllocateNothing(t *testing.T) {
	for _, threads := range []int{1, 2} {
		for _, f32 := range []bool{false, true} {
			for name, l := range map[string]*layerBench{
				"conv2d": convBench(t, 2, 4, 8, 8, 2, 3, true, f32),
				"lstm":   lstmBench(t, 2, 4, 5, 3, 4, f32),
				"gru":    gruBench(t, 2, 4, 5, 3, 4, f32),
				"cnn":    cnnBench(t, 2, 4, 12, 4, false, f32),
			} {
				l.setThreads(threads)
				if err := l.step(); err != nil {
					t.Fatal(err)
				}
				if allocs := testing.AllocsPerRun(5, func() { l.step() }); allocs != 0 {
					t.Errorf("%s (float32 %v): a step allocates %v times, want 0", name, f32, allocs)
				}
			}
		}
	}
}
