package mnist

import "github.com/temper-ppl/temper/examples/mnist/idx"

// LSTM is the shape of examples/mnist/lstm.ppl's network: an LSTM of H
// units reading an image as T steps of D pixels (its rows), ReLU, a dense
// layer of Dense ReLU units and K classes.
type LSTM struct{ T, D, H, Dense, K int }

// LSTMNet is lstm.ppl's network on 28 × 28 images at H = 128.
var LSTMNet = LSTM{T: 28, D: 28, H: 128, Dense: 64, K: idx.Classes}

// StepFLOPs counts the multiply-adds (2 FLOPs each) of the matrix products
// of one replica's step on a minibatch of b sequences, those every
// implementation must do. Per step t of the LSTM: forward x_t·W [D, 4H]
// and h_{t−1}·U [H, 4H]; backward ∂W += x_tᵀ·δz_t, ∂U += h_{t−1}ᵀ·δz_t and
// δh_{t−1} = δz_t·Uᵀ. The recurrent three are products with zeros at the
// first step (h_0 = 0), so they count T − 1 times; the gradient of the
// pixels is never formed. Each dense layer counts its forward product, its
// weights' gradient and its input's gradient (which the layer below
// needs). The gates, the softmax and the update are elementwise and left
// out.
func (m LSTM) StepFLOPs(b int) float64 {
	g := 4 * m.H
	recurrent := 2*m.T*m.D*g + 3*(m.T-1)*m.H*g
	dense := 3 * (m.H*m.Dense + m.Dense*m.K)
	return 2 * float64(b) * float64(recurrent+dense)
}

// CNN is examples/mnist/cnn.ppl's network on 28 × 28 images of one
// channel: conv 3 × 3 to F channels with padding 1, max pooling 2, a
// residual block of two 3 × 3 convolutions F → F with a layer norm, max
// pooling 2 and a dense layer to K classes.
type CNN struct{ Side, F, K int }

// CNNNet is cnn.ppl's network.
var CNNNet = CNN{Side: 28, F: 16, K: idx.Classes}

// StepFLOPs counts the multiply-adds (2 FLOPs each) of the convolutions'
// and the dense layer's products for one replica's step on b images: each
// convolution's forward product and its filters' gradient, and the input
// gradient of every layer but the first (whose input is the data). Bias,
// ReLU, pooling and the layer norm are elementwise and left out.
func (m CNN) StepFLOPs(b int) float64 {
	conv1 := m.Side * m.Side * 9 * m.F           // 28·28 outputs, 9 taps, F filters
	half := m.Side / 2                           // after the first pooling
	conv2 := half * half * 9 * m.F * m.F         // each of the block's two
	dense := (half / 2) * (half / 2) * m.F * m.K // 7·7·F → K
	perImage := 2*conv1 + 2*3*conv2 + 3*dense
	return 2 * float64(b) * float64(perImage)
}
