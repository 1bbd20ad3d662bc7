package stdlib

import "github.com/temper-ppl/temper/autodiff"

// Dense is the fully connected layer x·W + b: x [..., in] (a minibatch of
// rows), W [in, out], b [out]. It is one matrix product per replica plus a
// broadcast bias.
func Dense(x, w, b *autodiff.Node) *autodiff.Node {
	return autodiff.Add(autodiff.Matmul(x, w), b)
}

// Activations, under the names the model language uses. Softmax and
// log-softmax act along the last axis.
var activations = map[string]func(*autodiff.Node) *autodiff.Node{
	"relu":        autodiff.Relu,
	"tanh":        autodiff.Tanh,
	"sigmoid":     autodiff.Sigmoid,
	"softplus":    autodiff.Softplus,
	"softmax":     func(x *autodiff.Node) *autodiff.Node { return autodiff.Softmax(x, -1) },
	"log_softmax": func(x *autodiff.Node) *autodiff.Node { return autodiff.LogSoftmax(x, -1) },
}

// Activation returns the activation function of that name.
func Activation(name string) (func(*autodiff.Node) *autodiff.Node, bool) {
	f, ok := activations[name]
	return f, ok
}
