package stdlib

import (
	"fmt"
	"math"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// convReference is the convolution by its definition, a loop over every
// output element and every filter tap: the independent reference of
// Conv2D's im2col and GEMM.
func convReference(x, w, b []float64, n, h, wd, c, kh, kw, f, stride, pad int) []float64 {
	oh, ow := (h+2*pad-kh)/stride+1, (wd+2*pad-kw)/stride+1
	out := make([]float64, n*oh*ow*f)
	for i := range n {
		for y := range oh {
			for x0 := range ow {
				for o := range f {
					s := b[o]
					for u := range kh {
						for v := range kw {
							iy, ix := y*stride+u-pad, x0*stride+v-pad
							if iy < 0 || iy >= h || ix < 0 || ix >= wd {
								continue
							}
							for ch := range c {
								s += x[((i*h+iy)*wd+ix)*c+ch] * w[((u*kw+v)*c+ch)*f+o]
							}
						}
					}
					out[((i*oh+y)*ow+x0)*f+o] = s
				}
			}
		}
	}
	return out
}

// poolReference is max or average pooling by its definition.
func poolReference(x []float64, n, h, w, c, size, stride int, isMax bool) []float64 {
	oh, ow := (h-size)/stride+1, (w-size)/stride+1
	out := make([]float64, n*oh*ow*c)
	for i := range n {
		for y := range oh {
			for x0 := range ow {
				for ch := range c {
					s := math.Inf(-1)
					if !isMax {
						s = 0
					}
					for u := range size {
						for v := range size {
							e := x[((i*h+y*stride+u)*w+x0*stride+v)*c+ch]
							if isMax {
								s = math.Max(s, e)
							} else {
								s += e / float64(size*size)
							}
						}
					}
					out[((i*oh+y)*ow+x0)*c+ch] = s
				}
			}
		}
	}
	return out
}

// TestConv2D runs convolutions through the harness: values against the
// definition, gradients of images, filters and bias against finite
// differences, replicas, float32. The cases cover padding, strides that
// leave columns unread, a rectangular filter, images without a batch axis
// and with two batch axes, a 1 × 1 convolution (the GEMM on the images
// themselves), data images (no gradient), and im2col in blocks of one image.
func TestConv2D(t *testing.T) {
	cases := []struct {
		name               string
		batch              []int
		h, w, c, kh, kw, f int
		stride, pad, chunk int
		dataImages         bool
	}{
		{name: "3x3", batch: []int{2}, h: 5, w: 5, c: 2, kh: 3, kw: 3, f: 3, stride: 1},
		{name: "padded", batch: []int{2}, h: 4, w: 5, c: 2, kh: 3, kw: 3, f: 2, stride: 1, pad: 1},
		{name: "strided", batch: []int{1}, h: 7, w: 6, c: 1, kh: 3, kw: 2, f: 2, stride: 2, pad: 1},
		{name: "strided channels", batch: []int{2}, h: 7, w: 8, c: 3, kh: 3, kw: 3, f: 2, stride: 2, pad: 1},
		{name: "window wider than the image", batch: []int{2}, h: 3, w: 2, c: 3, kh: 3, kw: 3, f: 2, stride: 1, pad: 1},
		{name: "one image", h: 4, w: 4, c: 3, kh: 2, kw: 2, f: 2, stride: 1},
		{name: "two batch axes", batch: []int{2, 2}, h: 3, w: 3, c: 1, kh: 2, kw: 2, f: 2, stride: 1, pad: 1},
		{name: "pointwise", batch: []int{3}, h: 3, w: 2, c: 3, kh: 1, kw: 1, f: 2, stride: 1},
		{name: "data images", batch: []int{3}, h: 5, w: 4, c: 2, kh: 3, kw: 3, f: 2, stride: 1, pad: 1, dataImages: true},
		{name: "blocks of one image", batch: []int{3}, h: 4, w: 4, c: 2, kh: 3, kw: 3, f: 2, stride: 1, pad: 1, chunk: 1},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			n := ad.Shape(k.batch).Size()
			xs := append(append(ad.Shape{}, k.batch...), k.h, k.w, k.c)
			adtest.Run(t, adtest.Case{
				Name: "conv2d " + k.name,
				Inputs: []adtest.Input{
					{Shape: xs, Draw: adtest.Real, Data: k.dataImages},
					{Shape: ad.Shape{k.kh, k.kw, k.c, k.f}, Draw: adtest.Real},
					{Shape: ad.Shape{k.f}, Draw: adtest.Real},
				},
				Build: func(x []*ad.Node) *ad.Node {
					out := Conv2D(x[0], x[1], x[2], k.stride, k.pad)
					if op, ok := out.Op().(*conv2dOp); ok && k.chunk > 0 {
						op.chunk = k.chunk
					}
					return out
				},
				Reference: func(x [][]float64) []float64 {
					return convReference(x[0], x[1], x[2], n, k.h, k.w, k.c, k.kh, k.kw, k.f, k.stride, k.pad)
				},
			})
		})
	}
}

// TestPool2D: max and average pooling, overlapping windows and windows
// that leave the last row and column unread, against the definition.
func TestPool2D(t *testing.T) {
	for _, isMax := range []bool{true, false} {
		for _, k := range []struct{ n, h, w, c, size, stride int }{
			{2, 4, 4, 2, 2, 2},
			{1, 5, 5, 3, 3, 1},
			{2, 5, 4, 1, 2, 2},
		} {
			f, name := AvgPool2D, "avg_pool2d"
			if isMax {
				f, name = MaxPool2D, "max_pool2d"
			}
			adtest.Run(t, adtest.Case{
				Name:   name,
				Inputs: []adtest.Input{{Shape: ad.Shape{k.n, k.h, k.w, k.c}, Draw: adtest.Real}},
				Build:  func(x []*ad.Node) *ad.Node { return f(x[0], k.size, k.stride) },
				Reference: func(x [][]float64) []float64 {
					return poolReference(x[0], k.n, k.h, k.w, k.c, k.size, k.stride, isMax)
				},
			})
		}
	}
}

// TestConvPool: pooling of a convolution, which a program runs fused
// (convPoolOp, a block of images at a time), against the two references
// composed: max and average, one channel (im2colT blocks) and three, a
// pooling that tiles the result and one that overlaps and leaves its last
// column unread, blocks of every image and of one.
func TestConvPool(t *testing.T) {
	for _, isMax := range []bool{true, false} {
		for _, c := range []int{1, 3} {
			for _, k := range []struct{ size, stride, chunk int }{{2, 2, 0}, {3, 2, 0}, {2, 2, 1}, {3, 2, 1}} {
				pool, name := AvgPool2D, "avg_pool2d"
				if isMax {
					pool, name = MaxPool2D, "max_pool2d"
				}
				const n, h, w, f = 3, 6, 4, 2
				adtest.Run(t, adtest.Case{
					Name: fmt.Sprintf("%s of conv2d, %d channels, %+v", name, c, k),
					Inputs: []adtest.Input{
						{Shape: ad.Shape{n, h, w, c}, Draw: adtest.Real},
						{Shape: ad.Shape{3, 3, c, f}, Draw: adtest.Real},
						{Shape: ad.Shape{f}, Draw: adtest.Real},
					},
					Build: func(x []*ad.Node) *ad.Node {
						conv := Conv2D(x[0], x[1], x[2], 1, 1)
						if k.chunk > 0 {
							conv.Op().(*conv2dOp).chunk = k.chunk
						}
						return pool(conv, k.size, k.stride)
					},
					Reference: func(x [][]float64) []float64 {
						return poolReference(convReference(x[0], x[1], x[2], n, h, w, c, 3, 3, f, 1, 1), n, h, w, f, k.size, k.stride, isMax)
					},
				})
			}
		}
	}
}

// TestConvPoolIsFused: a program fuses a pooling with the convolution
// before it (no value of the convolution's own) and gives the unfused
// program's values and gradients bit for bit; a convolution that is also
// an output is not fused.
func TestConvPoolIsFused(t *testing.T) {
	run := func(alsoConv bool) (*ad.Program, *ad.Node, []*ad.Node, *ad.Node) {
		g := ad.NewGraph(2)
		x := g.Input("x", ad.Param, 4, 6, 6, 3)
		w := g.Input("w", ad.Param, 3, 3, 3, 4)
		b := g.Input("b", ad.Param, 4)
		conv := Conv2D(x, w, b, 1, 1)
		loss := ad.SumAll(ad.Tanh(MaxPool2D(ad.Relu(conv), 2, 2)))
		outs := []*ad.Node{loss}
		if alsoConv {
			outs = append(outs, conv)
		}
		p, err := g.Compile(outs...)
		if err != nil {
			t.Fatal(err)
		}
		for i, in := range []*ad.Node{x, w, b} {
			v := p.Value(in)
			for j := range v {
				v[j] = math.Sin(float64(7*j + i)) // a point with every sign
			}
		}
		p.Forward()
		if err := p.Backward(loss); err != nil {
			t.Fatal(err)
		}
		return p, conv, []*ad.Node{x, w, b}, loss
	}
	fused, conv, ins, loss := run(false)
	if fused.Value(conv) != nil {
		t.Fatal("the convolution has a value of its own: not fused")
	}
	plain, conv2, ins2, loss2 := run(true)
	if plain.Value(conv2) == nil {
		t.Fatal("a convolution that is an output was fused")
	}
	if a, b := fused.Value(loss), plain.Value(loss2); math.Float64bits(a[0]) != math.Float64bits(b[0]) || math.Float64bits(a[1]) != math.Float64bits(b[1]) {
		t.Errorf("loss %v fused, %v not", a, b)
	}
	for i := range ins {
		a, b := fused.Grad(ins[i]), plain.Grad(ins2[i])
		for j := range a {
			if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
				t.Errorf("operand %d gradient %d: %v fused, %v not", i, j, a[j], b[j])
				break
			}
		}
	}
}

// TestMaxPoolTies: of equal elements in a window the first gets the
// gradient, once.
func TestMaxPoolTies(t *testing.T) {
	g := ad.NewGraph(1)
	x := g.Input("x", ad.Param, 2, 2, 1)
	loss := ad.SumAll(MaxPool2D(x, 2, 2))
	p, err := g.Compile(loss)
	if err != nil {
		t.Fatal(err)
	}
	copy(p.Value(x), []float64{1, 3, 3, 2})
	p.Forward()
	if err := p.Backward(loss); err != nil {
		t.Fatal(err)
	}
	if got := p.Grad(x); got[0] != 0 || got[1] != 1 || got[2] != 0 || got[3] != 0 {
		t.Fatalf("gradient %v, want [0 1 0 0]", got)
	}
}

// TestMaxPoolOfRelu: MaxPool2D moves a ReLU before it to after it; the
// values and gradients are those of pooling the ReLU's result, bit for
// bit, with windows all negative, tied at zero and mixed.
func TestMaxPoolOfRelu(t *testing.T) {
	images := []float64{
		-1, -2, -3, -0.5, // all negative: relu gives tied zeros
		0, -1, 2, 2, // a zero, a tie among positives
		3, 1, -4, 5,
		0, 0, -1, 0.25,
	}
	run := func(build func(x *ad.Node) *ad.Node) (value, grad []float64) {
		g := ad.NewGraph(1)
		x := g.Input("x", ad.Param, 4, 4, 1)
		y := build(x)
		w := g.Const(y.Shape(), 1, 2, 3, 4)
		loss := ad.SumAll(ad.Mul(y, w))
		p, err := g.Compile(y, loss)
		if err != nil {
			t.Fatal(err)
		}
		copy(p.Value(x), images)
		p.Forward()
		if err := p.Backward(loss); err != nil {
			t.Fatal(err)
		}
		return p.Value(y), p.Grad(x)
	}
	commuted, direct := 0, 0
	gotV, gotG := run(func(x *ad.Node) *ad.Node {
		y := MaxPool2D(ad.Relu(x), 2, 2)
		if ad.ReluOf(y) != nil {
			commuted++
		}
		return y
	})
	wantV, wantG := run(func(x *ad.Node) *ad.Node {
		y := pool(ad.Relu(x), 2, 2, true)
		if ad.ReluOf(y) == nil {
			direct++
		}
		return y
	})
	if commuted != 1 || direct != 1 {
		t.Fatal("MaxPool2D did not move the ReLU after the pooling")
	}
	for i := range wantV {
		if math.Float64bits(gotV[i]) != math.Float64bits(wantV[i]) {
			t.Errorf("value %d: %v, pooling the ReLU gives %v", i, gotV[i], wantV[i])
		}
	}
	for i := range wantG {
		if math.Float64bits(gotG[i]) != math.Float64bits(wantG[i]) {
			t.Errorf("gradient %d: %v, pooling the ReLU gives %v", i, gotG[i], wantG[i])
		}
	}
}

func TestFlatten(t *testing.T) {
	g := ad.NewGraph(1)
	x := g.Input("x", ad.Param, 2, 3, 4, 5)
	for keep, want := range []ad.Shape{{120}, {2, 60}, {2, 3, 20}, {2, 3, 4, 5}, {2, 3, 4, 5, 1}} {
		if got := Flatten(x, keep).Shape(); !got.Equal(want) {
			t.Errorf("keep %d: shape %v, want %v", keep, got, want)
		}
	}
	if Flatten(x, 5); g.Err() == nil {
		t.Error("keeping 5 axes of 4 accepted")
	}
}

// TestLayerShapeErrors: every malformed call is an error that says what
// was expected, never a panic.
func TestLayerShapeErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(g *ad.Graph) *ad.Node
		want  string
	}{
		{"conv2d of a matrix", func(g *ad.Graph) *ad.Node {
			return Conv2D(g.Input("x", ad.Data, 5, 5), g.Input("w", ad.Param, 3, 3, 1, 2), g.Input("b", ad.Param, 2), 1, 0)
		}, "needs images [..., H, W, C]"},
		{"conv2d channels", func(g *ad.Graph) *ad.Node {
			return Conv2D(g.Input("x", ad.Data, 5, 5, 3), g.Input("w", ad.Param, 3, 3, 1, 2), g.Input("b", ad.Param, 2), 1, 0)
		}, "the images have 3 channels and the filters take 1"},
		{"conv2d bias", func(g *ad.Graph) *ad.Node {
			return Conv2D(g.Input("x", ad.Data, 5, 5, 1), g.Input("w", ad.Param, 3, 3, 1, 2), g.Input("b", ad.Param, 3), 1, 0)
		}, "the filters make 2 channels and the bias has 3"},
		{"conv2d too large", func(g *ad.Graph) *ad.Node {
			return Conv2D(g.Input("x", ad.Data, 2, 2, 1), g.Input("w", ad.Param, 3, 3, 1, 2), g.Input("b", ad.Param, 2), 1, 0)
		}, "a 3 × 3 window does not fit in a 2 × 2 image with padding 0"},
		{"conv2d stride", func(g *ad.Graph) *ad.Node {
			return Conv2D(g.Input("x", ad.Data, 5, 5, 1), g.Input("w", ad.Param, 3, 3, 1, 2), g.Input("b", ad.Param, 2), 0, 0)
		}, "the stride must be at least 1, got 0"},
		{"conv2d padding", func(g *ad.Graph) *ad.Node {
			return Conv2D(g.Input("x", ad.Data, 5, 5, 1), g.Input("w", ad.Param, 3, 3, 1, 2), g.Input("b", ad.Param, 2), 1, 3)
		}, "padding 3 leaves windows of 3 × 3 that see only zeros"},
		{"pool of a vector", func(g *ad.Graph) *ad.Node { return MaxPool2D(g.Input("x", ad.Param, 5), 2, 2) }, "max_pool2d of [5]: needs images"},
		{"pool window", func(g *ad.Graph) *ad.Node { return AvgPool2D(g.Input("x", ad.Param, 3, 3, 1), 4, 4) }, "a 4 × 4 window does not fit"},
	} {
		g := ad.NewGraph(1)
		c.build(g)
		if err := g.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestLayerNorm: rows of a matrix and the pixels of images, against the
// definition; a row's gradient sums to zero along the normalised axis, so
// the finite differences check the mean's and the variance's terms.
func TestLayerNorm(t *testing.T) {
	for _, shape := range []ad.Shape{{3, 5}, {2, 2, 3, 4}, {4}} {
		d := shape[len(shape)-1]
		adtest.Run(t, adtest.Case{
			Name: "layer_norm",
			Inputs: []adtest.Input{
				{Shape: shape, Draw: adtest.Real},
				{Shape: ad.Shape{d}, Draw: adtest.Real},
				{Shape: ad.Shape{d}, Draw: adtest.Real},
			},
			Build: func(x []*ad.Node) *ad.Node { return LayerNorm(x[0], x[1], x[2]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, len(x[0]))
				for r := 0; r < len(out); r += d {
					mean, v := 0.0, 0.0
					for _, e := range x[0][r : r+d] {
						mean += e / float64(d)
					}
					for _, e := range x[0][r : r+d] {
						v += (e - mean) * (e - mean) / float64(d)
					}
					for j := range d {
						out[r+j] = (x[0][r+j]-mean)/math.Sqrt(v+1e-5)*x[1][j] + x[2][j]
					}
				}
				return out
			},
		})
	}
	g := ad.NewGraph(1)
	LayerNorm(g.Input("x", ad.Param, 3, 4), g.Input("g", ad.Param, 3), g.Input("b", ad.Param, 3))
	if err := g.Err(); err == nil || !strings.Contains(err.Error(), "vectors as long as the last axis") {
		t.Errorf("gain [3] for rows of 4: %v", err)
	}
}

func TestLayerNormOfScalar(t *testing.T) {
	g := ad.NewGraph(1)
	LayerNorm(g.Input("x", ad.Param), g.Input("g", ad.Param, 1), g.Input("b", ad.Param, 1))
	if err := g.Err(); err == nil || !strings.Contains(err.Error(), "layer_norm of a scalar") {
		t.Errorf("layer_norm of a scalar: %v", err)
	}
}
