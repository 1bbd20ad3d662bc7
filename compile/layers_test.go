package compile_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

// imageData is N random images of H × W × C with labels in 1..K, as
// compile.Data, and the same for sequences [N, T, D].
func imageData(n, h, w, c, k int, seed uint64) compile.Data {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*h*w*c)
	for i := range x {
		x[i] = r.Float64()
	}
	s := make([]float64, n*5*3)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = float64(1 + r.IntN(k))
	}
	return compile.Data{
		"X": {Shape: []int{n, h, w, c}, Values: x, Source: "test"},
		"S": {Shape: []int{n, 5, 3}, Values: s, Source: "test"},
		"y": {Shape: []int{n}, Values: y, Source: "test"},
	}
}

// layersPrelude declares the data of imageData and a few weights that the
// models below share.
const layersPrelude = `
data { N: int  X: real[N, 6, 6, 2]  S: real[N, 5, 3]  y: int<lower=1, upper=3>[N] }
param {
  W1: real[3, 3, 2, 3];  b1: real[3]
  P: real[1, 1, 2, 3]
  g: real[3];  be: real[3]
  Wx: real[3, 8];  U: real[2, 8];  bl: real[8]
  D: real[27, 3];  d: real[3]
}
`

// TestLayersMatchTheLanguage: each layer equals the same function written
// with the language's other operations, energy and gradient, on a
// minibatch (the plate's batch axis is the layer's batch): a 1 × 1
// convolution is a product over the channel axis, a 1 × 1 average pooling
// the identity, layer_norm the standardised row, flatten of an image its
// reshaped values (a dot with a flattened weight), and an LSTM of one step
// its gates written out.
func TestLayersMatchTheLanguage(t *testing.T) {
	data := imageData(7, 6, 6, 2, 3, 1)
	cases := []struct{ name, layer, plain string }{
		{"1x1 conv2d", `target += sum(conv2d(X[n], P, b1))`, `target += sum(X[n] @ P[1, 1] + b1)`},
		{"1x1 avg_pool2d", `target += sum(avg_pool2d(X[n], 1) * X[n])`, `target += sum(X[n] * X[n])`},
		{"layer_norm", `target += sum(layer_norm(X[n, 1, 1] @ P[1, 1], g, be) * b1)`,
			`h = X[n, 1, 1] @ P[1, 1]
    target += sum(((h - mean(h)) / sqrt(variance(h) * 2.0 / 3.0 + 1e-5) * g + be) * b1)`},
		{"flatten", `target += sum(flatten(conv2d(X[n], W1, b1, 2)) @ D[1:12])`,
			`c = conv2d(X[n], W1, b1, 2)
    target += sum(c[1, 1] @ D[1:3] + c[1, 2] @ D[4:6] + c[2, 1] @ D[7:9] + c[2, 2] @ D[10:12])`},
		{"lstm of one step", `target += sum(lstm(S[n, 1:1], Wx, U, bl) * d[1:2])`,
			`z = S[n, 1] @ Wx + bl
    c = sigmoid(z[1:2]) * tanh(z[5:6])
    target += sum(sigmoid(z[7:8]) * tanh(c) * d[1:2])`},
	}
	r := rand.New(rand.NewPCG(2, 2))
	for _, c := range cases {
		body := func(s string) string {
			return layersPrelude + "model {\n  for n in plate(N) {\n    " + s + "\n  }\n}\n"
		}
		layer, err := tryCompileData(body(c.layer), data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		plain, err := tryCompileData(body(c.plain), data)
		if err != nil {
			t.Fatalf("%s written out: %v", c.name, err)
		}
		theta := make([]float64, layer.Dim())
		for i := range theta {
			theta[i] = r.NormFloat64() * 0.5
		}
		e1, g1 := evaluateAt(t, layer, theta, 4)
		e2, g2 := evaluateAt(t, plain, theta, 4)
		if math.Abs(e1-e2) > 1e-9*math.Max(1, math.Abs(e2)) {
			t.Errorf("%s: energy %v, written out %v", c.name, e1, e2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-9*math.Max(1, math.Abs(g2[i])) {
				t.Errorf("%s: gradient %d = %v, written out %v", c.name, i, g1[i], g2[i])
				break
			}
		}
	}
}

// cnnSrc is a small CNN with a residual block, in the language.
const cnnSrc = `
data { N: int  X: real[N, 6, 6, 2]  y: int<lower=1, upper=3>[N] }
param {
  W1: real[3, 3, 2, 3];  b1: real[3]
  W2: real[3, 3, 3, 3];  b2: real[3]
  W3: real[3, 3, 3, 3];  b3: real[3]
  g: real[3];  be: real[3]
  D: real[12, 3];  d: real[3]
}
model {
  W1 ~ normal(0, 1); W2 ~ normal(0, 1); W3 ~ normal(0, 1); D ~ normal(0, 1)
  for n in plate(N) {
    h = relu(conv2d(X[n], W1, b1, 1, 1))                      // [6, 6, 3]
    r = conv2d(relu(conv2d(h, W2, b2, 1, 1)), W3, b3, 1, 1)    // the residual branch
    p = max_pool2d(layer_norm(relu(h + r), g, be), 2)           // [3, 3, 3]
    y[n] ~ categorical_logit(flatten(avg_pool2d(p, 2, 1)) @ D + d)
  }
}
`

// TestCNNGradient: the energy's gradient of a CNN with every image layer
// agrees with central differences of the energy, on a minibatch.
func TestCNNGradient(t *testing.T) {
	data := imageData(6, 6, 6, 2, 3, 3)
	delete(data, "S")
	m, err := tryCompileData(cnnSrc, data)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = r.NormFloat64() * 0.5
	}
	_, grad := evaluateAt(t, m, theta, 3)
	const h = 1e-5
	for i := range theta {
		x := theta[i]
		theta[i] = x + h
		up, _ := evaluateAt(t, m, theta, 3)
		theta[i] = x - h
		down, _ := evaluateAt(t, m, theta, 3)
		theta[i] = x
		// Central differences: error O(h²·f''') plus rounding ε·|f|/h,
		// both below 1e-5 here; the kinks of relu and max are crossed
		// with probability of order h.
		if fd := (up - down) / (2 * h); math.Abs(fd-grad[i]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂U/∂θ_%d = %v, central difference %v", i, grad[i], fd)
		}
	}
}

// TestLayerErrors: a layer given the wrong shapes is an error at the call,
// naming one row's shapes (never the minibatch's axis), and a setting that
// is not a constant is an error at the setting.
func TestLayerErrors(t *testing.T) {
	data := imageData(4, 6, 6, 2, 3, 5)
	cases := []struct{ stmt, want string }{
		{`target += sum(conv2d(X[n, 1], W1, b1))`, "conv2d takes images [H, W, C] (channels last), and x has shape [6, 2]; an image of one channel is [H, W, 1]"},
		{`target += sum(conv2d(X[n], W1, bl))`, "test.ppl:12:19: conv2d with filters [3, 3, 2, 3] and bias [8]: the filters make 3 channels and the bias has 8"},
		{`target += sum(conv2d(X[n, :, :, 1:1], W1, b1))`, "conv2d of images [6, 6, 1] with filters [3, 3, 2, 3]: the images have 1 channels and the filters take 2"},
		{`target += sum(conv2d(X[n], W1, b1, 1, 3))`, "padding 3 leaves windows of 3 × 3 that see only zeros"},
		{`target += sum(conv2d(X[n], W1, b1, y[1]))`, "the stride of conv2d must be a constant"},
		{`target += sum(max_pool2d(X[n], 7))`, "max_pool2d of images [6, 6, 2]: a 7 × 7 window does not fit in a 6 × 6 image with padding 0"},
		{`target += sum(max_pool2d(X[n, 1], 2))`, "max_pool2d takes images [H, W, C] (channels last), and x has shape [6, 2]"},
		{`target += sum(layer_norm(X[n], g, be))`, "layer_norm with gain [3] and bias [3]: the gain and bias must be vectors as long as the last axis of x ([2])"},
		{`target += sum(lstm(X[n, 1], Wx, U, bl))`, "lstm of sequences [6, 2] with W [3, 8], U [2, 8] and b [8]: with 2 inputs and U's 2 units, W must be [2, 8], U [2, 8] and b [8]"},
		{`target += sum(lstm(X[n, 1, 1], Wx, U, bl))`, "lstm takes sequences [T, D], and x has shape [2]"},
		{`target += sum(gru(S[n], Wx, U, bl))`, "gru of sequences [5, 3] with W [3, 8], U [2, 8] and b [8]: with 3 inputs and U's 2 units, W must be [3, 6], U [2, 6] and b [6]"},
		{`target += sum(conv2d(X[n], W1, X[n, 1, 1, 1] * b1))`, "the filters and bias of conv2d cannot depend on the plate index"},
	}
	for _, c := range cases {
		src := layersPrelude + "model {\n  for n in plate(N) {\n    " + c.stmt + "\n  }\n}\n"
		_, err := tryCompileData(src, data)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "[4, ") {
			t.Errorf("%s: error %v, want one containing %q", c.stmt, err, c.want)
		}
	}
}
