//go:build cuda

package autodiff_test

import (
	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/stdlib"
)

// layerCases are TestDeviceOps's cases for stdlib's layers (conv.go,
// norm.go): convolutions at strides 1 and 2, padding 0 and 1, one and
// several channels, data and parameter images; pooling with ties (integer
// images, where the first maximal element of a window must get the
// gradient) and overlapping windows; layer norm with each operand shared
// or replicated; and examples/fashion-mnist/cnn.ppl's layer stack.
func layerCases() []struct {
	name  string
	build func(b *builder) *ad.Node
} {
	real, ties := uniform(-2, 2), integers(-2, 2)
	conv := func(xKind ad.InputKind, x []int, w []int, stride, pad int) func(b *builder) *ad.Node {
		return func(b *builder) *ad.Node {
			return stdlib.Conv2D(b.in(xKind, real, x...), b.in(ad.Param, real, w...), b.in(ad.Param, real, w[3]), stride, pad)
		}
	}
	return []struct {
		name  string
		build func(b *builder) *ad.Node
	}{
		{"conv2d 3×3 pad 1", conv(ad.Param, []int{2, 5, 5, 1}, []int{3, 3, 1, 2}, 1, 1)},
		{"conv2d data, stride 2", conv(ad.Data, []int{2, 7, 6, 3}, []int{3, 2, 3, 4}, 2, 0)},
		{"conv2d stride 2 pad 1, 3 channels", conv(ad.Param, []int{3, 6, 5, 3}, []int{3, 3, 3, 2}, 2, 1)},
		{"conv2d 2 channels, one image", conv(ad.Param, []int{5, 4, 2}, []int{2, 3, 2, 3}, 1, 1)},
		{"conv2d pointwise", conv(ad.Param, []int{2, 3, 4, 3}, []int{1, 1, 3, 5}, 1, 0)},
		{"conv2d pointwise data", conv(ad.Data, []int{2, 3, 4, 3}, []int{1, 1, 3, 5}, 1, 0)},
		{"conv2d 1×1 stride 2", conv(ad.Param, []int{2, 5, 5, 2}, []int{1, 1, 2, 3}, 2, 0)},
		{"conv2d data filters", func(b *builder) *ad.Node {
			return stdlib.Conv2D(b.in(ad.Param, real, 2, 5, 4, 2), b.in(ad.Data, real, 3, 3, 2, 3), b.in(ad.Data, real, 3), 1, 1)
		}},
		{"conv2d gathered images", func(b *builder) *ad.Node {
			x := ad.Gather(b.in(ad.Data, real, 6, 5, 5, 2), b.indices(4, 6))
			return stdlib.Conv2D(x, b.in(ad.Param, real, 3, 3, 2, 3), b.in(ad.Param, real, 3), 1, 1)
		}},
		{"max_pool2d ties", func(b *builder) *ad.Node { return stdlib.MaxPool2D(b.in(ad.Param, ties, 2, 5, 5, 3), 2, 2) }},
		{"max_pool2d overlapping ties", func(b *builder) *ad.Node { return stdlib.MaxPool2D(b.in(ad.Param, ties, 2, 7, 6, 2), 3, 2) }},
		{"max_pool2d stride 1", func(b *builder) *ad.Node { return stdlib.MaxPool2D(b.in(ad.Param, real, 5, 4, 3), 2, 1) }},
		{"max_pool2d data", func(b *builder) *ad.Node {
			return ad.Mul(stdlib.MaxPool2D(b.in(ad.Data, ties, 2, 4, 4, 3), 2, 2), b.in(ad.Param, real, 3))
		}},
		{"avg_pool2d", func(b *builder) *ad.Node { return stdlib.AvgPool2D(b.in(ad.Param, real, 2, 5, 5, 3), 2, 2) }},
		{"avg_pool2d overlapping", func(b *builder) *ad.Node { return stdlib.AvgPool2D(b.in(ad.Param, real, 2, 7, 6, 2), 3, 2) }},
		{"avg_pool2d stride 1", func(b *builder) *ad.Node { return stdlib.AvgPool2D(b.in(ad.Param, real, 6, 5, 2), 3, 1) }},
		{"layer_norm", func(b *builder) *ad.Node {
			return stdlib.LayerNorm(b.in(ad.Param, real, 4, 7), b.in(ad.Param, real, 7), b.in(ad.Param, real, 7))
		}},
		{"layer_norm data rows", func(b *builder) *ad.Node {
			return stdlib.LayerNorm(b.in(ad.Data, real, 3, 5), b.in(ad.Param, real, 5), b.in(ad.Param, real, 5))
		}},
		{"layer_norm data gain, images", func(b *builder) *ad.Node {
			return stdlib.LayerNorm(b.in(ad.Param, real, 2, 3, 3, 6), b.in(ad.Data, real, 6), b.in(ad.Param, real, 6))
		}},
		{"layer_norm long rows", func(b *builder) *ad.Node {
			return stdlib.LayerNorm(b.in(ad.Param, uniform(3, 5), 3, 300), b.in(ad.Param, real, 300), b.in(ad.Data, real, 300))
		}},
		{"cnn layers", func(b *builder) *ad.Node {
			// cnn.ppl's model block on four 8 × 8 images of 10, C = 3.
			const N, B, C = 10, 4, 3
			ix := b.indices(B, N)
			x := ad.Gather(b.in(ad.Data, uniform(0, 1), N, 8, 8, 1), ix)
			h := stdlib.MaxPool2D(ad.Relu(stdlib.Conv2D(x, b.in(ad.Param, real, 3, 3, 1, C), b.in(ad.Param, real, C), 1, 1)), 2, 2)
			z := stdlib.MaxPool2D(ad.Relu(stdlib.Conv2D(h, b.in(ad.Param, real, 3, 3, C, C), b.in(ad.Param, real, C), 1, 1)), 2, 2)
			logits := ad.Add(ad.Matmul(stdlib.Flatten(z, 1), b.in(ad.Param, real, 4*C, 10)), b.in(ad.Param, real, 10))
			return stdlib.CategoricalLogitLPMF(ad.Gather(b.in(ad.Data, integers(1, 10), N), ix), logits)
		}},
	}
}
