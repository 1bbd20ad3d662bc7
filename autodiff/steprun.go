package autodiff

// stepRun runs a float64 program of one replica with each op's arguments
// laid out once: a scan's step is a small graph run twice per iteration, a
// few thousand times a gradient, where laying out the arguments node by
// node (runNode: the operands' slices, the workspace, the gradients) costs
// as much as the ops themselves.
type stepRun struct {
	fwd   []frozenOp  // every op, shared then replicated, in order
	bwd   []frozenOp  // the loss's reverse pass, nil without a loss
	clear [][]float64 // the gradients the reverse pass clears first
	seed  []float64   // the loss's gradient
}

// frozenOp is an op with its arguments.
type frozenOp struct {
	op Op
	a  *Args
}

// newStepRun lays out p's ops; with a loss (an output of p), its reverse
// pass too. p must have one replica.
func newStepRun(p *Program, loss *Node) *stepRun {
	s := &stepRun{}
	xs, dxs := make([]float64, maxOperands), make([]float64, maxOperands)
	work := make([]float64, p.work)
	frozen := func(n *Node, fwd bool, assign uint64) frozenOp {
		a := &Args{idx: p.idx, xs: xs, dxs: dxs, threads: 1, work: work, assign: assign,
			Out: p.vals[n.id], Saved: p.saved[n.id]}
		if k := p.scratch[n.id]; k > 0 {
			a.Scratch = work[:k:k]
		}
		for _, in := range n.ins {
			a.In = append(a.In, p.vals[in.id])
		}
		if !fwd {
			a.GradOut = p.grads[n.id]
			for _, in := range n.ins {
				a.GradIn = append(a.GradIn, p.grads[in.id])
			}
		}
		return frozenOp{n.op, a}
	}
	for _, list := range [][]*Node{p.shared, p.repl} {
		for _, n := range list {
			s.fwd = append(s.fwd, frozen(n, true, 0))
		}
	}
	if loss == nil {
		return s
	}
	out, err := p.lossIndex(loss)
	if err != nil {
		panic(err) // the caller compiled p with loss as an output
	}
	rev, assign := p.reverse[out], &p.assign[out]
	for _, n := range p.params {
		if g := p.grads[n.id]; g != nil {
			s.clear = append(s.clear, g)
		}
	}
	for _, n := range rev {
		if g := p.grads[n.id]; g != nil && !assign.kept[n.id] {
			s.clear = append(s.clear, g)
		}
		s.bwd = append(s.bwd, frozen(n, false, assign.bits[n.id]))
	}
	s.seed = p.grads[loss.id]
	return s
}

// forward runs every op.
func (s *stepRun) forward() {
	for _, f := range s.fwd {
		f.op.Forward(f.a)
	}
}

// backward runs the loss's reverse pass, after forward.
func (s *stepRun) backward() {
	if s.seed == nil {
		return // the loss depends on no parameter
	}
	for _, g := range s.clear {
		clear(g)
	}
	s.seed[0] = 1
	for _, f := range s.bwd {
		f.op.Backward(f.a)
	}
}
