package mnist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// MLP is the shape of the benchmark's network: D inputs, a hidden layer of
// H ReLU units and K classes, with parameters W1 (D × H), b1 (H), W2
// (H × K) and b2 (K).
type MLP struct{ D, H, K int }

// Net is the network of temper bench and of the PyTorch peer: 784-100-10.
var Net = MLP{D: 784, H: 100, K: Classes}

// Params is the number of parameters of one replica.
func (m MLP) Params() int { return m.D*m.H + m.H + m.H*m.K + m.K }

// StepFLOPs counts the floating-point operations of the matrix products of
// one replica's step on a minibatch of b rows, 2 per multiply-add: forward
// X·W1 and H·W2, backward ∂Y·W2ᵀ, Hᵀ·∂Y and Xᵀ·∂H. The first layer's input
// gradient is never formed. The elementwise work (bias, ReLU, softmax, the
// update) is left out: it is O(b·(H+K) + Params), under 1% here, so the
// count is the one every implementation of this model must do.
func (m MLP) StepFLOPs(b int) float64 {
	forward := 2 * b * (m.D*m.H + m.H*m.K)
	backward := 2 * b * (2*m.H*m.K + m.D*m.H)
	return float64(forward + backward)
}

// Layout is where W1, b1, W2 and b2 start in a parameter vector, each
// row-major.
type Layout struct{ W1, B1, W2, B2 int }

// Param is a parameter as the compiler lays it out: its name, shape and
// offset in the unconstrained vector.
type Param struct {
	Name   string
	Shape  []int
	Offset int
}

// LayoutOf checks that params are W1, b1, W2 and b2 with the shapes of m,
// in this order, with nothing else, and returns where they start.
func (m MLP) LayoutOf(params []Param) (Layout, error) {
	want := []Param{{"W1", []int{m.D, m.H}, 0}, {"b1", []int{m.H}, 0}, {"W2", []int{m.H, m.K}, 0}, {"b2", []int{m.K}, 0}}
	if len(params) != len(want) {
		return Layout{}, fmt.Errorf("the model has %d parameters, want W1, b1, W2, b2", len(params))
	}
	var at [4]int
	next := 0
	for i, p := range params {
		if p.Name != want[i].Name || !slices.Equal(p.Shape, want[i].Shape) || p.Offset != next {
			return Layout{}, fmt.Errorf("parameter %d is %s%v at %d, want %s%v at %d", i+1, p.Name, p.Shape, p.Offset, want[i].Name, want[i].Shape, next)
		}
		at[i] = p.Offset
		next += size(p.Shape)
	}
	return Layout{W1: at[0], B1: at[1], W2: at[2], B2: at[3]}, nil
}

func size(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Init sets theta (laid out as at says) to a draw of PyTorch's nn.Linear
// initialisation, which the peer uses: every weight and bias of a layer
// uniform in ±1/√fan_in, fan_in being D for the first layer and H for the
// second.
func (m MLP) Init(theta []float64, at Layout, rng *rand.Rand) {
	fill := func(x []float64, fanIn int) {
		bound := 1 / math.Sqrt(float64(fanIn))
		for i := range x {
			x[i] = bound * (2*rng.Float64() - 1)
		}
	}
	fill(theta[at.W1:at.W1+m.D*m.H], m.D)
	fill(theta[at.B1:at.B1+m.H], m.D)
	fill(theta[at.W2:at.W2+m.H*m.K], m.H)
	fill(theta[at.B2:at.B2+m.K], m.H)
}
