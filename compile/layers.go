package compile

import (
	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/stdlib"
)

// The layers of the model language: stdlib's convolution, pooling,
// flatten, layer norm and recurrent layers. Each takes one row's value in
// a plate (an image [H, W, C], a sequence [T, D]), which the lowering
// gives a leading batch axis as it does every value that depends on the
// plate index: the minibatch's rows are the layer's batch. Outside a plate
// a value's leading axes are the batch (a data set of images [N, H, W, C]).
// Weights cannot depend on the plate index, and settings (a stride, a
// window's size) are integer constants. Shape errors name one row's shapes,
// never the minibatch's axis, at the call.

func init() {
	functions["conv2d"] = function{params: []string{"x", "W", "b", "stride", "padding"},
		settings: 2, optional: 2, ranks: []int{-1, 4, 1}, layer: conv2dLayer}
	functions["max_pool2d"] = function{params: []string{"x", "size", "stride"},
		settings: 2, optional: 1, layer: poolLayer("max_pool2d", stdlib.MaxPool2D)}
	functions["avg_pool2d"] = function{params: []string{"x", "size", "stride"},
		settings: 2, optional: 1, layer: poolLayer("avg_pool2d", stdlib.AvgPool2D)}
	functions["flatten"] = function{params: []string{"x"}, build: func(_ *builder, a []value) value {
		keep := 0
		if a[0].batched {
			keep = 1
		}
		return value{node: stdlib.Flatten(a[0].node, keep), batched: a[0].batched}
	}}
	functions["layer_norm"] = function{params: []string{"x", "gamma", "beta"}, ranks: []int{-1, 1, 1},
		build: func(b *builder, a []value) value {
			if !b.rowsOf("layer_norm", a[0], 1, "an array whose last axis it normalises", "") || !b.weights("layer_norm", "gain and bias", a[1:]) {
				return value{node: b.g.Placeholder(nil)}
			}
			return value{node: stdlib.LayerNorm(a[0].node, a[1].node, a[2].node), batched: a[0].batched}
		}}
	for name, l := range map[string]struct {
		f   func(x, w, u, b *ad.Node, seq bool) *ad.Node
		seq bool
	}{
		"lstm": {stdlib.LSTM, false}, "lstm_seq": {stdlib.LSTM, true},
		"gru": {stdlib.GRU, false}, "gru_seq": {stdlib.GRU, true},
	} {
		functions[name] = function{params: []string{"x", "W", "U", "b"}, ranks: []int{-1, 2, 2, 1},
			build: func(b *builder, a []value) value {
				if !b.rowsOf(name, a[0], 2, "sequences [T, D]", "") || !b.weights(name, "weights and bias", a[1:]) {
					return value{node: b.g.Placeholder(nil)}
				}
				return value{node: l.f(a[0].node, a[1].node, a[2].node, a[3].node, l.seq), batched: a[0].batched}
			}}
	}
}

// imageHint is what an image of the wrong rank is told.
const imageHint = "; an image of one channel is [H, W, 1]"

func conv2dLayer(b *builder, a []value, settings []int) value {
	stride, padding := setting(settings, 0, 1), setting(settings, 1, 0)
	if !b.rowsOf("conv2d", a[0], 3, "images [H, W, C] (channels last)", imageHint) || !b.weights("conv2d", "filters and bias", a[1:]) {
		return value{node: b.g.Placeholder(nil)}
	}
	return value{node: stdlib.Conv2D(a[0].node, a[1].node, a[2].node, stride, padding), batched: a[0].batched}
}

// poolLayer lowers max_pool2d or avg_pool2d: windows of size × size,
// stride apart (size when left out, as PyTorch's default).
func poolLayer(name string, f func(x *ad.Node, size, stride int) *ad.Node) func(*builder, []value, []int) value {
	return func(b *builder, a []value, settings []int) value {
		size := settings[0]
		if !b.rowsOf(name, a[0], 3, "images [H, W, C] (channels last)", imageHint) {
			return value{node: b.g.Placeholder(nil)}
		}
		return value{node: f(a[0].node, size, setting(settings, 1, size)), batched: a[0].batched}
	}
}

// setting is settings[i], or def where the call left it out.
func setting(settings []int, i, def int) int {
	if i < len(settings) {
		return settings[i]
	}
	return def
}

// rowsOf checks that x (one row's value, in a plate) has at least rank
// axes, recording an error that names its shape otherwise.
func (b *builder) rowsOf(name string, x value, rank int, what, hint string) bool {
	if x.rowRank() >= rank {
		return true
	}
	b.g.Fail(nil, "%s takes %s, and x has shape %s%s", name, what, shapeString(rowShape(x.node.Shape(), x.batched)), hint)
	return false
}

// weights checks that a layer's weights do not depend on the plate index:
// every row of the minibatch goes through the same layer.
func (b *builder) weights(name, what string, ws []value) bool {
	for _, w := range ws {
		if w.batched {
			b.g.Fail(nil, "the %s of %s cannot depend on the plate index", what, name)
			return false
		}
	}
	return true
}
