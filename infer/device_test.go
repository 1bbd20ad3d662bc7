package infer_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// deviceGaussian is gaussian behind the DeviceStepper interface, its
// "device" a copy of the positions and gradients the driver cannot see:
// what it records must come from Positions, not from its own state.
// Each evaluator the run makes (the warm-up makes several) is a
// "device" of its own; they count into the target's counters.
type deviceGaussian struct {
	gaussian
	theta, grad, momentum []float64
	*counters
}

type counters struct {
	steps, pulls, scaled, swaps int
	copies                      [][2]int // CopyRow's (dst, src)
	// failStep, when positive, makes row failRow's energy +Inf after that
	// many steps, as a diverging replica's would be.
	failStep, failRow int
}

func (g *deviceGaussian) SwapRows(a, b int) error {
	d := len(g.h)
	for i := range d {
		g.theta[a*d+i], g.theta[b*d+i] = g.theta[b*d+i], g.theta[a*d+i]
		g.grad[a*d+i], g.grad[b*d+i] = g.grad[b*d+i], g.grad[a*d+i]
	}
	g.swaps++
	return nil
}

func (g *deviceGaussian) CopyRow(dst, src int) error {
	d := len(g.h)
	copy(g.theta[dst*d:(dst+1)*d], g.theta[src*d:(src+1)*d])
	copy(g.grad[dst*d:(dst+1)*d], g.grad[src*d:(src+1)*d])
	if g.momentum != nil {
		clear(g.momentum[dst*d : (dst+1)*d])
	}
	g.copies = append(g.copies, [2]int{dst, src})
	return nil
}

func (g *deviceGaussian) Evaluator(p, _ int) (infer.Evaluator, error) {
	if g.counters == nil { // one for the target and the evaluators it makes
		g.counters = &counters{}
	}
	return &deviceGaussian{gaussian: g.gaussian, theta: make([]float64, p*len(g.h)), grad: make([]float64, p*len(g.h)), counters: g.counters}, nil
}

func (g *deviceGaussian) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	copy(g.theta, theta)
	err := g.gaussian.Evaluate(theta, rows, energy, grad, variance)
	copy(g.grad, grad)
	return err
}

func (g *deviceGaussian) DeviceStep(m *infer.DeviceMove, rows []int, energy, variance []float64) error {
	d := len(g.h)
	r := rand.New(rand.NewPCG(m.Seed, uint64(m.Step)))
	if m.Friction > 0 && g.momentum == nil {
		g.momentum = make([]float64, len(g.theta))
	}
	if m.Scale != nil {
		g.scaled++
	}
	for p := range m.LR {
		if m.LR[p] == 0 {
			continue
		}
		noise := 2 * m.LR[p] * m.Temperature[p]
		if m.Friction > 0 {
			noise *= m.Friction
		}
		for i := range d {
			s := 1.0
			if m.Scale != nil {
				s = m.Scale[i]
			}
			u := -m.LR[p]*s*g.grad[p*d+i] + math.Sqrt(noise)*r.NormFloat64()
			if m.Friction > 0 {
				u += (1 - m.Friction) * g.momentum[p*d+i]
				g.momentum[p*d+i] = u
			}
			g.theta[p*d+i] += s * u
		}
	}
	g.steps++
	err := g.gaussian.Evaluate(g.theta, rows, energy, g.grad, variance)
	if g.failStep > 0 && g.steps == g.failStep {
		energy[g.failRow] = math.Inf(1)
	}
	return err
}

func (g *deviceGaussian) Positions(theta, grad, momentum []float64) error {
	g.pulls++
	copy(theta, g.theta)
	copy(grad, g.grad)
	if momentum != nil {
		if g.momentum == nil {
			clear(momentum)
		} else {
			copy(momentum, g.momentum)
		}
	}
	return nil
}

func (g *deviceGaussian) SetPositions(theta, grad []float64) error {
	copy(g.theta, theta)
	copy(g.grad, grad)
	return nil
}

func (g *deviceGaussian) SetMomentum(momentum []float64) error {
	g.momentum = append(g.momentum[:0], momentum...)
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

}

// TestDeviceStepperLadder runs reSGLD (4 temperatures up to 10) through a
// DeviceStepper: every step moves on the "device", the accepted swaps
// exchange the device's rows, and the target level's variances are
// Langevin's at this step within 10% (4 chains × 2,000 thinned draws, as
// TestDeviceStepper).
// Then the hottest level of chain 1 diverges once: it restarts from its
// neighbour's row on the device, and the run goes on.
func TestDeviceStepperLadder(t *testing.T) {
	const lr, iters, thin = 0.05, 20000, 10
	s, err := infer.NewSampler("resgld", map[string]string{"lr": "0.05", "replicas": "4", "t_max": "10"})
	if err != nil {
		t.Fatal(err)
	}
	g := &deviceGaussian{gaussian: gaussian{h: []float64{1, 4}}}
	res, err := infer.Run(context.Background(), g, s, infer.Options{Chains: 4, Burn: 1000, Iters: iters, Thin: thin, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.MovedOnDevice || g.steps != 1000+iters-1 {
		t.Errorf("%d steps on the device (MovedOnDevice %v), want %d", g.steps, res.MovedOnDevice, 1000+iters-1)
	}
	accepted := 0
	for _, ex := range res.Exchange {
		for _, a := range ex.Accepts {
			accepted += a
		}
	}
	// The last round's swaps are pending when the run ends (the State
	// keeps them for a resume): at most 4 chains × 3 pairs.
	if accepted == 0 || g.swaps > accepted || g.swaps < accepted-12 {
		t.Errorf("%d swaps accepted, %d made on the device", accepted, g.swaps)
	}
	for i, h := range g.h {
		_, v := moments(res, 1+i)
		want := 1 / (h * (1 - lr*h/2))
		if math.Abs(v/want-1) > 0.1 {
			t.Errorf("x.%d: variance %.4f at the target level, Langevin's at this step %.4f", i+1, v, want)
		}
	}

	restart := &deviceGaussian{gaussian: gaussian{h: []float64{1, 4}}, counters: &counters{failStep: 50, failRow: 3}}
	res, err = infer.Run(context.Background(), restart, s, infer.Options{Chains: 2, Iters: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restarts) != 1 || len(restart.copies) != 1 || restart.copies[0] != [2]int{3, 2} {
		t.Errorf("restarts %v; rows copied on the device %v, want [[3 2]]", res.Restarts, restart.copies)
	}
}

// TestDeviceStepperSGHMC runs the default sampler, SGHMC with its
// step size and metric from the warm-up, and SGHMC at a given step,
// through a DeviceStepper, against the same runs moving on the host, on a
// Gaussian of D = 80 (above denseLimit, so the warm-up's metric is
// diagonal, the one a device moves in) with curvatures 1 to 25. Both move
// every sampling step on the "device" (the tuned run in the metric's
// coordinates, its scale passed down), and the variances agree with the
// host runs': on average over the coordinates within 3%, each within 20%
// (4 chains × 2,000 draws: one variance's relative standard error is near
// 3%, so a ratio's is near 4.5% and the mean of 80 ratios' under 1%).
func TestDeviceStepperSGHMC(t *testing.T) {
	const d = 80
	h := make([]float64, d)
	for i := range h {
		h[i] = 1 + 24*float64(i)/(d-1)
	}
	for _, settings := range []map[string]string{{"lr": "auto"}, {"lr": "0.01", "friction": "0.1"}} {
		dev := &deviceGaussian{gaussian: gaussian{h: h}}
		run := func(target infer.Target) *infer.Result {
			s, err := infer.NewSampler("sghmc", settings)
			if err != nil {
				t.Fatal(err)
			}
			res, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 4, Iters: 10000, Thin: 5, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		dres, hres := run(dev), run(gaussian{h: h})
		if dev.steps < 10000-1 {
			t.Errorf("%v: %d steps on the device, want at least %d", settings, dev.steps, 10000-1)
		}
		if tuned := settings["lr"] == "auto"; tuned != (dev.scaled > 0) {
			t.Errorf("%v: %d of the device's steps had a metric's scale", settings, dev.scaled)
		}
		sum, worst := 0.0, 0.0
		for i := range h {
			_, dv := moments(dres, 1+i)
			_, hv := moments(hres, 1+i)
			sum += dv / hv
			worst = max(worst, math.Abs(dv/hv-1))
		}
		t.Logf("%v: variance on the device / on the host: mean %.4f, worst |ratio - 1| %.3f", settings, sum/d, worst)
		if math.Abs(sum/d-1) > 0.03 || worst > 0.2 {
			t.Errorf("%v: variances moving on the device are %.4f of the host's on average, %.3f off at worst", settings, sum/d, worst)
		}
	}
}

// TestDeviceStepperResume: a run resumed from its State moves on the
// "device" from the State's points, gradients and momenta, which the device
// has not evaluated, so 100 + 100 iterations give the straight 200's draws
// exactly (the mock's noise depends only on the seed and the step), for
// SGLD and for SGHMC.
func TestDeviceStepperResume(t *testing.T) {
	for _, name := range []string{"sgld", "sghmc"} {
		s, err := infer.NewSampler(name, map[string]string{"lr": "0.05"})
		if err != nil {
			t.Fatal(err)
		}
		run := func(iters int, resume *infer.State) *infer.Result {
			res, err := infer.Run(context.Background(), &deviceGaussian{gaussian: gaussian{h: []float64{1, 4}}}, s,
				infer.Options{Chains: 2, Iters: iters, Seed: 1, Resume: resume})
			if err != nil {
				t.Fatal(err)
			}
			if !res.MovedOnDevice {
				t.Fatalf("%s did not move on the device", name)
			}
			return res
		}
		straight, first := run(200, nil), run(100, nil)
		second := run(100, first.State)
		for c := range straight.Draws {
			for i, d := range second.Draws[c] {
				if want := straight.Draws[c][100+i]; !slices.Equal(d, want) {
					t.Fatalf("%s chain %d: the resumed run's draw %d is %v, the straight run's %v", name, c, i, d, want)
				}
			}
		}
	}
}
