package infer_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// deviceGaussian is gaussian behind the DeviceStepper interface, its
// "device" a copy of the positions and gradients the driver cannot see:
// what it records must come from Positions, not from its own state.
type deviceGaussian struct {
	gaussian
	theta, grad  []float64
	steps, pulls int
}

func (g *deviceGaussian) Evaluator(p, _ int) (infer.Evaluator, error) {
	g.theta, g.grad = make([]float64, p*len(g.h)), make([]float64, p*len(g.h))
	return g, nil
}

func (g *deviceGaussian) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	copy(g.theta, theta)
	err := g.gaussian.Evaluate(theta, rows, energy, grad, variance)
	copy(g.grad, grad)
	return err
}

func (g *deviceGaussian) LangevinStep(lr, temperature []float64, seed uint64, step int, rows []int, energy, variance []float64) error {
	d := len(g.h)
	r := rand.New(rand.NewPCG(seed, uint64(step)))
	for p := range lr {
		scale := math.Sqrt(2 * lr[p] * temperature[p])
		for i := range d {
			g.theta[p*d+i] += -lr[p]*g.grad[p*d+i] + scale*r.NormFloat64()
		}
	}
	g.steps++
	return g.gaussian.Evaluate(g.theta, rows, energy, g.grad, variance)
}

func (g *deviceGaussian) Positions(theta, grad []float64) error {
	g.pulls++
	copy(theta, g.theta)
	copy(grad, g.grad)
	return nil
}

// TestDeviceStepper runs SGLD through a DeviceStepper: every step moves on
// the "device", the positions come back only for the kept draws, each
// draw's lp__ is the energy at the point recorded with it (so the point
// was brought back, not a stale one), and the moments are Langevin's on a
// Gaussian at this step: variance 1/(h(1 - ηh/2)). A ladder, whose swaps
// need the positions on the host, moves on the host instead.
func TestDeviceStepper(t *testing.T) {
	const lr, iters, thin = 0.05, 20000, 10
	g := &deviceGaussian{gaussian: gaussian{h: []float64{1, 4}}}
	s, err := infer.NewSampler("sgld", map[string]string{"lr": "0.05", "temperature": "1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), g, s, infer.Options{Chains: 4, Burn: 1000, Iters: iters, Thin: thin, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.steps != 1000+iters-1 {
		t.Errorf("%d steps on the device, want %d", g.steps, 1000+iters-1)
	}
	if kept := iters / thin; g.pulls > kept+2 {
		t.Errorf("the positions came back %d times for %d kept draws", g.pulls, kept)
	}
	for c, chain := range res.Draws {
		for i, d := range chain {
			if u := (d[1]*d[1] + 4*d[2]*d[2]) / 2; d[0] != -u {
				t.Fatalf("chain %d draw %d: lp__ %v, but the energy at its point is %v", c, i, d[0], u)
			}
		}
	}
	for i, h := range g.h {
		_, v := moments(res, 1+i)
		want := 1 / (h * (1 - lr*h/2))
		// 4 chains × 2,000 thinned draws, autocorrelation time below
		// 1/(ηh) = 20 steps = 2 draws: the variance's relative standard
		// error is about √(2·2/8000) = 2.2%; 10% is over 4 of them.
		if math.Abs(v/want-1) > 0.1 {
			t.Errorf("x.%d: variance %.4f, Langevin's at this step %.4f", i+1, v, want)
		}
	}

	ladder := &deviceGaussian{gaussian: gaussian{h: []float64{1, 4}}}
	s, err = infer.NewSampler("resgld", map[string]string{"lr": "0.05", "replicas": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := infer.Run(context.Background(), ladder, s, infer.Options{Chains: 2, Iters: 100, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if ladder.steps != 0 {
		t.Errorf("a replica-exchange run stepped %d times on the device", ladder.steps)
	}
}
