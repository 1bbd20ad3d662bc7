package compile

import (
	"runtime"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/infer"
)

// deviceEvaluator is the evaluator of a model compiled for an accelerator
// (autodiff.DeviceProgram): each Evaluate sends θ and the minibatch's rows
// to the device and brings back the energies, gradients and per-row
// log-likelihoods; the graph's values stay on the device.
type deviceEvaluator struct {
	*built
	prog    ad.DeviceProgram
	p, d, n int
	exact   bool
	block   []float64 // one parameter block of every replica, in transit
	ll      []float64
}

func newDeviceEvaluator(m *Model, b *built, prog ad.DeviceProgram, replicas int) (*deviceEvaluator, error) {
	e := &deviceEvaluator{built: b, prog: prog, p: replicas, d: m.dim, n: m.n}
	// A run makes several evaluators (warm-up, sampling, full-data
	// passes) and a REPL session many runs: each gives its device memory
	// back when it is collected.
	runtime.AddCleanup(e, func(p ad.DeviceProgram) { p.Close() }, prog)
	var err error
	if e.exact, err = b.useAllRows(prog, replicas, m.n); err != nil {
		return nil, err
	}
	if b.rowLL != nil {
		e.ll = make([]float64, replicas*b.rowLL.Size())
	}
	return e, nil
}

// BatchSize implements infer.Evaluator.
func (e *deviceEvaluator) BatchSize() int { return e.batchSize(e.exact) }

// Device describes where the evaluator computes.
func (e *deviceEvaluator) Device() string { return e.prog.Device() }

// Evaluate implements infer.Evaluator.
func (e *deviceEvaluator) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	if err := e.send(theta, e.prog.Set); err != nil {
		return err
	}
	return e.evaluate(rows, energy, grad, variance)
}

// send gives set each parameter block of the P × D array src (θ, a
// gradient, momenta), as P consecutive replica blocks.
func (e *deviceEvaluator) send(src []float64, set func(*ad.Node, []float64) error) error {
	for _, bl := range e.blocks {
		e.block = grow(e.block, e.p*bl.size)
		for r := range e.p {
			copy(e.block[r*bl.size:(r+1)*bl.size], src[r*e.d+bl.offset:][:bl.size])
		}
		if err := set(bl.node, e.block); err != nil {
			return err
		}
	}
	return nil
}

// fetch is send's inverse: each parameter block read places its replicas'
// values in the P × D array dst.
func (e *deviceEvaluator) fetch(dst []float64, read func(*ad.Node, []float64) error) error {
	for _, bl := range e.blocks {
		e.block = grow(e.block, e.p*bl.size)
		if err := read(bl.node, e.block); err != nil {
			return err
		}
		for r := range e.p {
			copy(dst[r*e.d+bl.offset:][:bl.size], e.block[r*bl.size:(r+1)*bl.size])
		}
	}
	return nil
}

// evaluate runs the energy on rows at the point on the device and brings
// back the energies, the variances and, unless grad is nil, the gradients.
func (e *deviceEvaluator) evaluate(rows []int, energy, grad, variance []float64) error {
	if err := e.setRows(e.prog, rows, e.exact); err != nil {
		return err
	}
	if err := e.prog.ForwardBackward(e.energy); err != nil {
		return err
	}
	if err := e.prog.Read(e.energy, energy); err != nil {
		return err
	}
	if grad != nil {
		if err := e.fetch(grad, e.prog.ReadGrad); err != nil {
			return err
		}
	}
	clear(variance)
	if e.rowLL == nil || e.exact {
		return nil
	}
	if err := e.prog.Read(e.rowLL, e.ll); err != nil {
		return err
	}
	batchVariance(variance, e.ll, e.batch, e.n)
	return nil
}

// DeviceStep implements infer.DeviceStepper: each parameter block takes
// its move where the last evaluation left it, then the energy is evaluated
// at the new point.
func (e *deviceEvaluator) DeviceStep(m *infer.DeviceMove, rows []int, energy, variance []float64) error {
	for _, bl := range e.blocks {
		mv := ad.DeviceMove{LR: m.LR, Temperature: m.Temperature, Friction: m.Friction, Seed: m.Seed, Step: m.Step, Offset: bl.offset}
		if m.Scale != nil {
			mv.Scale = m.Scale[bl.offset : bl.offset+bl.size]
		}
		if err := e.prog.Move(bl.node, &mv); err != nil {
			return err
		}
	}
	return e.evaluate(rows, energy, nil, variance)
}

// Positions implements infer.DeviceStepper.
func (e *deviceEvaluator) Positions(theta, grad, momentum []float64) error {
	for _, x := range []struct {
		dst  []float64
		read func(*ad.Node, []float64) error
	}{{theta, e.prog.Read}, {grad, e.prog.ReadGrad}, {momentum, e.prog.Momentum}} {
		if x.dst == nil {
			continue
		}
		if err := e.fetch(x.dst, x.read); err != nil {
			return err
		}
	}
	return nil
}

// SetPositions implements infer.DeviceStepper.
func (e *deviceEvaluator) SetPositions(theta, grad []float64) error {
	if err := e.send(theta, e.prog.Set); err != nil {
		return err
	}
	return e.send(grad, e.prog.SetGrad)
}

// SetMomentum implements infer.DeviceStepper.
func (e *deviceEvaluator) SetMomentum(momentum []float64) error {
	return e.send(momentum, e.prog.SetMomentum)
}

// SwapRows implements infer.DeviceStepper.
func (e *deviceEvaluator) SwapRows(a, b int) error {
	for _, bl := range e.blocks {
		if err := e.prog.SwapReplicas(bl.node, a, b); err != nil {
			return err
		}
	}
	return nil
}

// CopyRow implements infer.DeviceStepper.
func (e *deviceEvaluator) CopyRow(dst, src int) error {
	for _, bl := range e.blocks {
		if err := e.prog.CopyReplica(bl.node, dst, src); err != nil {
			return err
		}
	}
	return nil
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
