package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/temper-ppl/temper/cmd/temper/internal/mnist"
	"github.com/temper-ppl/temper/compile"
	example "github.com/temper-ppl/temper/examples/mnist"
)

// benchNet is a network of examples/mnist that temper bench trains: its
// model, how the images bind to it, how its parameters start, and the
// FLOPs of a replica-step. Each has a PyTorch peer in cmd/temper/peers
// that builds the same network, prior, start and SGLD update.
type benchNet struct {
	name         string         // --net
	file, source string         // the model's path in the repository and its text
	image        []int          // one image's shape as the model's X holds it
	sizes        map[string]any // data besides X, label and H
	hidden       int            // the default H (--hidden), 0 for a network without
	// constants are the parameters that start at a value rather than
	// drawn: a layer norm's gain and bias, 1 and 0 as PyTorch's.
	constants map[string]float64
	flops     func(hidden, batch int) float64
	title     func(hidden int) string
}

var benchNets = []*benchNet{
	{
		name: "mlp", file: "examples/mnist/model.ppl", source: example.Model,
		image: []int{mnist.Net.D}, sizes: map[string]any{"K": mnist.Net.K}, hidden: mnist.Net.H,
		flops: func(h, b int) float64 { return mnist.MLP{D: mnist.Net.D, H: h, K: mnist.Net.K}.StepFLOPs(b) },
		title: func(h int) string { return fmt.Sprintf("a Bayesian MLP %d-%d-%d", mnist.Net.D, h, mnist.Net.K) },
	},
	{
		name: "lstm", file: "examples/mnist/lstm.ppl", source: example.LSTM,
		image: []int{mnist.LSTMNet.T, mnist.LSTMNet.D}, hidden: mnist.LSTMNet.H,
		flops: func(h, b int) float64 { n := mnist.LSTMNet; n.H = h; return n.StepFLOPs(b) },
		title: func(h int) string {
			n := mnist.LSTMNet
			return fmt.Sprintf("a Bayesian LSTM %d→%d over %d rows, ReLU, dense %d, ReLU, %d classes", n.D, h, n.T, n.Dense, n.K)
		},
	},
	{
		name: "cnn", file: "examples/mnist/cnn.ppl", source: example.CNN,
		image: []int{mnist.CNNNet.Side, mnist.CNNNet.Side, 1}, constants: map[string]float64{"g": 1, "be": 0},
		flops: func(_, b int) float64 { return mnist.CNNNet.StepFLOPs(b) },
		title: func(int) string {
			return "a Bayesian CNN (conv 3×3×16, max pool, a residual block of two 3×3×16 convolutions and a layer norm, max pool, dense 784→10)"
		},
	},
}

// benchNetNamed is the network of that --net name, or nil.
func benchNetNamed(name string) *benchNet {
	for _, n := range benchNets {
		if n.name == name {
			return n
		}
	}
	return nil
}

// initialise sets theta to a draw of PyTorch's initialisation of nn.Linear
// and nn.Conv2d, which the peers use: each weight uniform in ±1/√fan_in,
// fan_in being the product of its dimensions but the last (a dense layer's
// inputs, a filter's KH·KW·C), each vector (a bias) with the fan-in of the
// weight before it, and the constants set. The parameters are drawn in the
// model's order, each row-major.
func (n *benchNet) initialise(theta []float64, params []compile.ParamInfo, rng *rand.Rand) {
	fanIn := 1
	for _, p := range params {
		x := theta[p.Offset : p.Offset+p.Size]
		if v, ok := n.constants[p.Name]; ok {
			for i := range x {
				x[i] = v
			}
			continue
		}
		if len(p.Shape) > 1 {
			fanIn = 1
			for _, d := range p.Shape[:len(p.Shape)-1] {
				fanIn *= d
			}
		}
		bound := 1 / math.Sqrt(float64(fanIn))
		for i := range x {
			x[i] = bound * (2*rng.Float64() - 1)
		}
	}
}
