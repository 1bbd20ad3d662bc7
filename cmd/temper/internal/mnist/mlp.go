package mnist

import "github.com/temper-ppl/temper/examples/mnist/idx"

// MLP is the shape of the benchmark's network: D inputs, a hidden layer of
// H ReLU units and K classes, with parameters W1 (D × H), b1 (H), W2
// (H × K) and b2 (K).
type MLP struct{ D, H, K int }

// Net is the network of temper bench and of the PyTorch peer: 784-100-10.
var Net = MLP{D: 784, H: 100, K: idx.Classes}

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
