package autodiff

import (
	"fmt"
	"sync"
)

// A scan runs one step of a loop, a small graph of its own, once per
// iteration, and is one node of the graph that holds the loop: a
// recursion sigma[t] = f(sigma[t-1], y[t-1]) over T steps costs a graph
// of constant size, not T copies of the step's nodes, and its gradient is
// the step's reverse pass run backward over the steps (backpropagation
// through time). The forward pass keeps only what carries from one step
// to the next (the state at each step's start, and the rows a step
// writes, which are the op's output); the backward pass computes each
// step again from them before its reverse pass, so memory is O(T × the
// carried state), not O(T × the step's nodes).
//
// What a step reads and writes:
//   - Invariant inputs: values of the outer graph that do not change over
//     the loop (the parameters, a local computed before it).
//   - Carries: state that one step leaves to the next (a local vector
//     assigned whole, la = next in the forward algorithm), In at the step's
//     start and Out at its end, Init before the first step; a carry without
//     In is written by every step before it is read, and only its last
//     value leaves the loop.
//   - Sequences: a row written at every step (sigma[t]) and read by later
//     steps at fixed lags (sigma[t - 1]); the first steps' lags read the
//     rows of Init, those before the loop.
//   - Step inputs: numbers that change from step to step but not with the
//     parameters (the loop index, y[t - 1], an index into a parameter),
//     from a table made when the graph is built.
//   - Target: a scalar the steps add up (the log-density terms of the body).

// ScanCarry is one carried state of a scan: In and Out are nodes of the
// step's graph, Init a node of the outer graph (nil when In is).
type ScanCarry struct{ In, Out, Init *Node }

// ScanSeq is a sequence of a scan: Out, a node of the step's graph, is the
// row the step writes; LagIn[i], an input of it, reads the row written
// Lags[i] ≥ 1 steps before, or a row of Init, a node of the outer graph
// holding the K = max(Lags) rows before the first step, oldest first (nil
// when Lags is empty).
type ScanSeq struct {
	Out   *Node
	Lags  []int
	LagIn []*Node
	Init  *Node
}

// ScanBody is a loop for Scan: the step's graph (one replica) and what its
// inputs and outputs are.
type ScanBody struct {
	Graph *Graph
	Steps int
	// StepIn are scalar Data inputs of the step's graph; Table holds their
	// values, Table[s*len(StepIn)+i] that of StepIn[i] at step s.
	StepIn []*Node
	Table  []float64
	// Invariant are inputs of the step's graph that take the values of
	// Outer, nodes of the outer graph, at every step.
	Invariant, Outer []*Node
	Carries          []ScanCarry
	Seqs             []ScanSeq
	// Target is a scalar node of the step's graph summed over the steps,
	// or nil.
	Target *Node
}

// Scan adds a scan of body to g. Its value is one vector: the sum of the
// steps' Target, then each carry's last Out, then each sequence's rows,
// one per step (Steps × the row's size), in the order of body's slices.
func Scan(g *Graph, body ScanBody) *Node {
	operands := func(b ScanBody) []*Node {
		ins := append([]*Node(nil), b.Outer...)
		for _, c := range b.Carries {
			if c.Init != nil {
				ins = append(ins, c.Init)
			}
		}
		for _, s := range b.Seqs {
			if s.Init != nil {
				ins = append(ins, s.Init)
			}
		}
		return ins
	}
	if anyFailed(operands(body)...) || body.Graph == nil {
		return g.placeholder(nil)
	}
	if err := body.Graph.Err(); err != nil {
		return g.fail(nil, "scan: the step's graph: %v", err)
	}
	body = hoist(g, body)
	op, err := newScanOp(body)
	if err != nil {
		return g.fail(nil, "scan: %v", err)
	}
	return g.Apply(op, Shape{op.size}, operands(body)...)
}

// scanOp is the op of Scan. Its operands are Outer, then the carries'
// Inits, then the sequences' Inits (those that are not nil).
type scanOp struct {
	body        ScanBody
	target      *Node   // body.Target, or a zero
	wTarget     *Node   // the loss's weight of target
	wCarry      []*Node // the loss's weights of the carries' Outs
	wSeq        []*Node // and of the sequences' rows
	loss        *Node   // Σ w·out: its gradient is a vector-Jacobian product of the step
	outputs     []*Node
	carryIn     int   // the carried elements with an In: saved at each step
	carryInOff  []int // each carry's offset in a saved step (-1: no In)
	carryOut    []int // each carry's offset in the output
	seqOut      []int // each sequence's offset in the output
	initOperand []int // each carry's operand index of Init (-1: none)
	seqOperand  []int // each sequence's operand index of Init (-1: none)
	seqLag      []int // each sequence's K
	size        int   // the output's length
	scratch     int

	programs freeList[*scanPrograms]
}

// scanPrograms are the step's programs for one goroutine: fwd computes
// the step's outputs, bwd also the loss and its gradient.
type scanPrograms struct {
	fwd, bwd       *Program
	runFwd, runBwd *stepRun
}

func newScanOp(b ScanBody) (*scanOp, error) {
	g := b.Graph
	if g == nil || b.Steps < 1 {
		return nil, fmt.Errorf("a scan needs a step graph and at least one step")
	}
	if len(b.Table) != b.Steps*len(b.StepIn) || len(b.Invariant) != len(b.Outer) {
		return nil, fmt.Errorf("the step table or the invariant inputs do not match")
	}
	op := &scanOp{body: b, target: b.Target, size: 1}
	if op.target == nil {
		op.target = g.Scalar(0)
	}
	op.wTarget = g.Input("scan.w.target", Data)
	op.loss = Mul(op.target, op.wTarget)
	op.outputs = []*Node{op.target}
	operand := len(b.Outer)
	for i, c := range b.Carries {
		if (c.In == nil) != (c.Init == nil) || c.In != nil && !c.In.shape.Equal(c.Out.shape) || c.Init != nil && c.Init.shape.Size() != c.Out.shape.Size() {
			return nil, fmt.Errorf("carry %d: In, Out and Init must be set together and have one size", i)
		}
		w := g.Input(fmt.Sprintf("scan.w.carry%d", i), Data, c.Out.shape...)
		op.wCarry = append(op.wCarry, w)
		op.loss = Add(op.loss, SumAll(Mul(c.Out, w)))
		op.outputs = append(op.outputs, c.Out)
		op.carryOut = append(op.carryOut, op.size)
		op.size += c.Out.shape.Size()
		op.carryInOff = append(op.carryInOff, -1)
		op.initOperand = append(op.initOperand, -1)
		if c.In != nil {
			op.carryInOff[i], op.initOperand[i] = op.carryIn, operand
			op.carryIn += c.In.shape.Size()
			operand++
		}
		op.scratch += c.Out.shape.Size()
	}
	for i, s := range b.Seqs {
		row := s.Out.shape.Size()
		if len(s.Lags) != len(s.LagIn) {
			return nil, fmt.Errorf("sequence %d: %d lags and %d lag inputs", i, len(s.Lags), len(s.LagIn))
		}
		k := 0
		for j, l := range s.Lags {
			if l < 1 || s.LagIn[j].shape.Size() != row {
				return nil, fmt.Errorf("sequence %d: lag %d must be at least 1 and read a row of %d", i, l, row)
			}
			k = max(k, l)
		}
		if (k > 0) != (s.Init != nil) || s.Init != nil && s.Init.shape.Size() != k*row {
			return nil, fmt.Errorf("sequence %d: Init must hold the %d rows before the first step", i, k)
		}
		w := g.Input(fmt.Sprintf("scan.w.seq%d", i), Data, s.Out.shape...)
		op.wSeq = append(op.wSeq, w)
		op.loss = Add(op.loss, SumAll(Mul(s.Out, w)))
		op.outputs = append(op.outputs, s.Out)
		op.seqOut = append(op.seqOut, op.size)
		op.size += b.Steps * row
		op.seqLag = append(op.seqLag, k)
		op.seqOperand = append(op.seqOperand, -1)
		if s.Init != nil {
			op.seqOperand[i] = operand
			operand++
		}
		op.scratch += (b.Steps + k) * row
	}
	p, err := op.compile()
	if err != nil {
		return nil, err
	}
	op.programs = freeList[*scanPrograms]{free: []*scanPrograms{p}, make: func() *scanPrograms {
		p, err := op.compile()
		if err != nil { // compiled once already, above
			panic(err)
		}
		return p
	}}
	return op, nil
}

func (op *scanOp) compile() (*scanPrograms, error) {
	fwd, err := op.body.Graph.Compile(op.outputs...)
	if err != nil {
		return nil, err
	}
	bwd, err := op.body.Graph.Compile(append(op.outputs, op.loss)...)
	if err != nil {
		return nil, err
	}
	return &scanPrograms{fwd, bwd, newStepRun(fwd, nil), newStepRun(bwd, op.loss)}, nil
}

func (op *scanOp) Name() string { return "scan" }

// SavedLen: the carried state at each step's start.
func (op *scanOp) SavedLen() int { return op.body.Steps * op.carryIn }

// ScratchLen: the backward pass's gradients of the carries, of the
// sequences' rows and of their Inits.
func (op *scanOp) ScratchLen() int { return op.scratch }

// setStep fills the step's inputs for step s: its numbers, its carries'
// Ins (from saved) and its sequences' lags (from the rows written, out, or
// those before the loop).
func (op *scanOp) setStep(p *Program, a *Args, s int) {
	b := &op.body
	if k := len(b.StepIn); k > 0 {
		row := b.Table[s*k : (s+1)*k]
		for i, n := range b.StepIn {
			if v := p.Value(n); v != nil { // nil: no output needs it
				v[0] = row[i]
			}
		}
	}
	for i, c := range b.Carries {
		if off := op.carryInOff[i]; off >= 0 {
			copy(p.Value(c.In), a.Saved[s*op.carryIn+off:])
		}
	}
	for i, q := range b.Seqs {
		row := q.Out.shape.Size()
		for j, lag := range q.Lags {
			r := s - lag
			var src []float64
			if r >= 0 {
				src = a.Out[op.seqOut[i]+r*row : op.seqOut[i]+(r+1)*row]
			} else {
				k := op.seqLag[i]
				src = a.In[op.seqOperand[i]][(k+r)*row : (k+r+1)*row]
			}
			copy(p.Value(q.LagIn[j]), src)
		}
	}
}

func (op *scanOp) Forward(a *Args) {
	b := &op.body
	ps := op.programs.get()
	defer op.programs.put(ps)
	p := ps.fwd
	for i, n := range b.Invariant {
		copy(p.Value(n), a.In[i])
	}
	for i, c := range b.Carries {
		if off := op.carryInOff[i]; off >= 0 && b.Steps > 0 {
			copy(a.Saved[off:off+c.In.shape.Size()], a.In[op.initOperand[i]])
		}
	}
	total := 0.0
	for s := range b.Steps {
		op.setStep(p, a, s)
		ps.runFwd.forward()
		total += p.Value(op.target)[0]
		for i, c := range b.Carries {
			if off := op.carryInOff[i]; off >= 0 && s+1 < b.Steps {
				copy(a.Saved[(s+1)*op.carryIn+off:], p.Value(c.Out))
			}
		}
		for i, q := range b.Seqs {
			row := q.Out.shape.Size()
			copy(a.Out[op.seqOut[i]+s*row:op.seqOut[i]+(s+1)*row], p.Value(q.Out))
		}
	}
	a.Out[0] = total
	for i, c := range b.Carries {
		copy(a.Out[op.carryOut[i]:], p.Value(c.Out))
	}
}

func (op *scanOp) Backward(a *Args) {
	b := &op.body
	needed := false
	for _, g := range a.GradIn {
		needed = needed || g != nil
	}
	if !needed {
		return
	}
	ps := op.programs.get()
	defer op.programs.put(ps)
	p := ps.bwd
	for i, n := range b.Invariant {
		copy(p.Value(n), a.In[i])
	}
	// The gradients that flow backward over the steps: of each carry's
	// value after the step, of each sequence's rows (those of the loop,
	// complete for row s once the steps after s are done, then those of
	// Init).
	sc := a.Scratch
	gCarry := make([][]float64, len(b.Carries))
	for i, c := range b.Carries {
		n := c.Out.shape.Size()
		gCarry[i], sc = sc[:n], sc[n:]
		copy(gCarry[i], a.GradOut[op.carryOut[i]:])
	}
	gRows := make([][]float64, len(b.Seqs))
	for i, q := range b.Seqs {
		n := (b.Steps + op.seqLag[i]) * q.Out.shape.Size()
		gRows[i], sc = sc[:n], sc[n:]
		k := op.seqLag[i] * q.Out.shape.Size()
		clear(gRows[i][:k]) // Init's rows first, then the loop's
		copy(gRows[i][k:], a.GradOut[op.seqOut[i]:op.seqOut[i]+b.Steps*q.Out.shape.Size()])
	}
	p.Value(op.wTarget)[0] = a.GradOut[0]
	for s := b.Steps - 1; s >= 0; s-- {
		op.setStep(p, a, s)
		for i := range b.Carries {
			copy(p.Value(op.wCarry[i]), gCarry[i])
		}
		for i, q := range b.Seqs {
			row := q.Out.shape.Size()
			r := op.seqLag[i] + s
			copy(p.Value(op.wSeq[i]), gRows[i][r*row:(r+1)*row])
		}
		ps.runBwd.forward()
		ps.runBwd.backward()
		for i, n := range b.Invariant {
			addGrad(a.GradIn[i], p.Grad(n))
		}
		for i, q := range b.Seqs {
			row := q.Out.shape.Size()
			for j, lag := range q.Lags {
				r := op.seqLag[i] + s - lag
				addGrad(gRows[i][r*row:(r+1)*row], p.Grad(q.LagIn[j]))
			}
		}
		for i, c := range b.Carries {
			clear(gCarry[i])
			if c.In != nil {
				addGrad(gCarry[i], p.Grad(c.In))
			}
		}
	}
	for i := range b.Carries {
		if k := op.initOperand[i]; k >= 0 {
			addGrad(a.GradIn[k], gCarry[i])
		}
	}
	for i, q := range b.Seqs {
		if k := op.seqOperand[i]; k >= 0 {
			addGrad(a.GradIn[k], gRows[i][:op.seqLag[i]*q.Out.shape.Size()])
		}
	}
}

// addGrad adds g into dst; either may be nil (no gradient wanted, none
// flowing).
func addGrad(dst, g []float64) {
	if dst == nil || g == nil {
		return
	}
	for i, v := range g {
		dst[i] += v
	}
}

// hoist moves the step's loop-invariant work to the outer graph: each op
// of the step whose operands do not change from step to step (log(Gamma[j,
// k]) in the forward algorithm, a parameter's element) is computed there,
// once per evaluation, and the step reads its value as an invariant input;
// its gradient, summed over the steps as an invariant's is, flows back
// through the outer graph. The step's graph is built again, of the ops
// that vary and the inputs and constants they read.
func hoist(g *Graph, b ScanBody) ScanBody {
	sg := b.Graph
	varying := make([]bool, len(sg.nodes))
	for _, n := range b.StepIn {
		varying[n.id] = true
	}
	for _, c := range b.Carries {
		if c.In != nil {
			varying[c.In.id] = true
		}
	}
	for _, q := range b.Seqs {
		for _, in := range q.LagIn {
			varying[in.id] = true
		}
	}
	for _, n := range sg.nodes {
		for _, in := range n.ins {
			varying[n.id] = varying[n.id] || varying[in.id]
		}
	}
	outerIn := map[*Node]*Node{}
	for i, n := range b.Invariant {
		outerIn[n] = b.Outer[i]
	}
	ng := NewGraph(1)
	out := ScanBody{Graph: ng, Steps: b.Steps, Table: b.Table}
	inOuter := make([]*Node, len(sg.nodes))
	var outer func(n *Node) *Node
	outer = func(n *Node) *Node { // n's value in the outer graph
		if m := inOuter[n.id]; m != nil {
			return m
		}
		var m *Node
		switch {
		case n.constant != nil:
			m = g.ConstData(n.name, n.shape, n.constant)
		case n.op == nil:
			m = outerIn[n]
		default:
			ins := make([]*Node, len(n.ins))
			for i, in := range n.ins {
				ins[i] = outer(in)
			}
			m = g.Apply(n.op, n.shape, ins...)
		}
		inOuter[n.id] = m
		return m
	}
	inStep := make([]*Node, len(sg.nodes))
	var step func(n *Node) *Node
	step = func(n *Node) *Node { // n's value in the new step graph
		if m := inStep[n.id]; m != nil {
			return m
		}
		var m *Node
		switch {
		case n.constant != nil:
			m = ng.ConstData(n.name, n.shape, n.constant)
		case !varying[n.id]: // an input of the outer graph's value
			o := outer(n)
			kind := Data
			if o.replicated {
				kind = Param
			}
			m = ng.Input(n.name, kind, n.shape...)
			out.Invariant, out.Outer = append(out.Invariant, m), append(out.Outer, o)
		case n.op == nil:
			kind := Data
			switch {
			case n.param:
				kind = Param
			case n.replicated:
				kind = ReplicaData
			}
			m = ng.Input(n.name, kind, n.shape...)
		default:
			ins := make([]*Node, len(n.ins))
			for i, in := range n.ins {
				ins[i] = step(in)
			}
			m = ng.Apply(n.op, n.shape, ins...)
		}
		inStep[n.id] = m
		return m
	}
	if b.Target != nil {
		out.Target = step(b.Target)
	}
	for _, c := range b.Carries {
		nc := ScanCarry{Out: step(c.Out), Init: c.Init}
		if c.In != nil {
			nc.In = step(c.In)
		}
		out.Carries = append(out.Carries, nc)
	}
	for _, q := range b.Seqs {
		nq := ScanSeq{Out: step(q.Out), Lags: q.Lags, Init: q.Init}
		for _, in := range q.LagIn {
			nq.LagIn = append(nq.LagIn, step(in))
		}
		out.Seqs = append(out.Seqs, nq)
	}
	for _, n := range b.StepIn {
		out.StepIn = append(out.StepIn, step(n))
	}
	return out
}

// freeList holds what an op's kernels use one goroutine at a time (the
// compiled programs of a graph of its own), making one when none is free:
// a free list, not a sync.Pool, which a garbage collection empties.
type freeList[T any] struct {
	mu   sync.Mutex
	free []T
	make func() T
}

func (l *freeList[T]) get() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	if k := len(l.free); k > 0 {
		x := l.free[k-1]
		l.free = l.free[:k-1]
		return x
	}
	return l.make()
}

func (l *freeList[T]) put(x T) {
	l.mu.Lock()
	l.free = append(l.free, x)
	l.mu.Unlock()
}
