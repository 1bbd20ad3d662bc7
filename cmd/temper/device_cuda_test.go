//go:build cuda

package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/autodiff/gputest"
	"github.com/temper-ppl/temper/cmd/temper/internal/mnist"
	"github.com/temper-ppl/temper/compile"
)

// TestGermanCreditOnGPU is the README's first command with --device cuda:
// the same defaults, the same bars against Stan's posterior.
func TestGermanCreditOnGPU(t *testing.T) {
	gputest.Require(t)
	germanCreditAgainstStan(t, "--device", "cuda")
}

// TestMLPOnGPU evaluates the bench's network on the shipped MNIST subset in
// float32 on the GPU and the CPU: energies within 1e-5 relative, each
// parameter's gradient within 1e-4 in norm (the cuBLAS and temper
// products round in different orders over 784 terms).
func TestMLPOnGPU(t *testing.T) {
	gputest.Require(t)
	netOnGPU(t, &benchConfig{batch: 128, epochs: 1, net: benchNetNamed("mlp"), hidden: mnist.Net.H}, 128, false)
}

// TestLSTMOnGPU is TestMLPOnGPU's check for the bench's LSTM network (28
// steps of 28 pixels), with 16 units and minibatches of 16 so that the
// CPU emulator runs it in seconds.
func TestLSTMOnGPU(t *testing.T) {
	gputest.Require(t)
	netOnGPU(t, &benchConfig{batch: 16, epochs: 1, net: benchNetNamed("lstm"), hidden: 16}, 16, false)
}

// TestCNNOnGPU is TestMLPOnGPU for the bench's CNN (examples/mnist/cnn.ppl:
// convolutions, max pooling, a residual block with a layer norm) on 16
// images, from PyTorch's initialisation moved a little (so that the layer
// norm's gain and bias are not 1 and 0).
func TestCNNOnGPU(t *testing.T) {
	gputest.Require(t)
	netOnGPU(t, &benchConfig{batch: 16, epochs: 1, net: benchNetNamed("cnn")}, 16, true)
}

// netOnGPU compares the energy and gradient of c's network on a minibatch
// of B rows per replica, float32, on the GPU and the CPU.
func netOnGPU(t *testing.T, c *benchConfig, B int, initialise bool) {
	t.Helper()
	if err := c.loadData(); err != nil {
		t.Fatal(err)
	}
	m, err := c.compileOn(c.train)
	if err != nil {
		t.Fatal(err)
	}
	const P = 3
	cpu, err := m.Compiled().EvaluatorWith(P, B, compile.EvalOptions{Float32: true, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := m.Compiled().EvaluatorWith(P, B, compile.EvalOptions{Float32: true, Device: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	r := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, P*d)
	for i := range theta {
		theta[i] = r.NormFloat64() * 0.05
	}
	if initialise {
		for p := range P {
			point := theta[p*d : (p+1)*d]
			c.net.initialise(point, m.Params(), r)
			for i := range point {
				point[i] += 0.1 * r.NormFloat64()
			}
		}
	}
	rows := make([]int, P*B)
	for i := range rows {
		rows[i] = r.IntN(m.NumData())
	}
	eval := func(e interface {
		Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error
	}) ([]float64, []float64) {
		energy, grad, variance := make([]float64, P), make([]float64, P*d), make([]float64, P)
		if err := e.Evaluate(theta, rows, energy, grad, variance); err != nil {
			t.Fatal(err)
		}
		return energy, grad
	}
	we, wg := eval(cpu)
	ge, gg := eval(gpu)
	for p := range P {
		if math.Abs(ge[p]-we[p]) > 1e-5*math.Abs(we[p]) {
			t.Errorf("replica %d: energy %.9g on the GPU, %.9g on the CPU", p, ge[p], we[p])
		}
		// Per parameter: the dense layers' and priors' gradients would
		// hide an error in a small one (the LSTM's).
		for _, prm := range m.Params() {
			diff, norm := 0.0, 0.0
			for i := p*d + prm.Offset; i < p*d+prm.Offset+prm.Size; i++ {
				diff += (gg[i] - wg[i]) * (gg[i] - wg[i])
				norm += wg[i] * wg[i]
			}
			if math.Sqrt(diff) > 1e-4*math.Sqrt(norm) {
				t.Errorf("replica %d: the gradients of %s differ by %.3g in norm (of %.3g)", p, prm.Name, math.Sqrt(diff), math.Sqrt(norm))
			}
		}
	}
}
