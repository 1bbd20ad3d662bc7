package autodiff

import (
	"fmt"
	"math"
)

// Program is a compiled graph: the ops needed for its outputs in topological
// order, with every value and gradient buffer allocated once. Forward and
// Backward replay it and allocate nothing.
//
// A Program is not safe for concurrent use; compile one per goroutine (they
// share the read-only graph and ops).
type Program struct {
	g       *Graph
	order   []*Node     // nodes to evaluate, inputs first, in topological order
	vals    [][]float64 // per node id: P*size values if replicated, else size
	grads   [][]float64 // per node id: P*size, or nil when no gradient flows
	idx     [][]int     // per Indices id
	outputs []*Node
	reverse [][]*Node // per output: its ancestors that carry gradients, reverse topological order
	params  []*Node

	args             Args
	inBuf, gradInBuf [][]float64 // backing arrays of args.In and args.GradIn
	xs, dxs          []float64   // scratch argument vectors for elementwise kernels
}

// Compile checks the graph and allocates a Program that computes outputs. A
// scalar output can be differentiated by Backward.
func (g *Graph) Compile(outputs ...*Node) (*Program, error) {
	if g.err != nil {
		return nil, g.err
	}
	if len(outputs) == 0 {
		return nil, fmt.Errorf("autodiff: Compile needs at least one output")
	}
	for _, o := range outputs {
		if o == nil || o.g != g {
			return nil, fmt.Errorf("autodiff: output %v does not belong to this graph", o)
		}
	}

	live := make([]bool, len(g.nodes))
	for _, o := range outputs {
		markAncestors(o, live)
	}
	needGrad := make([]bool, len(g.nodes))
	p := &Program{g: g, outputs: append([]*Node(nil), outputs...)}
	maxArity := 0
	valSize, gradSize := 0, 0
	for _, n := range g.nodes {
		isInput := n.op == nil && n.constant == nil
		if !live[n.id] && !isInput {
			continue
		}
		p.order = append(p.order, n)
		if n.constant == nil { // constants are read in place
			valSize += p.reps(n) * n.shape.Size()
		}
		needGrad[n.id] = n.param
		for _, in := range n.ins {
			needGrad[n.id] = needGrad[n.id] || needGrad[in.id]
		}
		if needGrad[n.id] {
			gradSize += p.reps(n) * n.shape.Size()
		}
		if n.param {
			p.params = append(p.params, n)
		}
		maxArity = max(maxArity, len(n.ins))
	}

	valArena := make([]float64, valSize)
	gradArena := make([]float64, gradSize)
	p.vals = make([][]float64, len(g.nodes))
	p.grads = make([][]float64, len(g.nodes))
	for _, n := range p.order {
		size := p.reps(n) * n.shape.Size()
		if n.constant != nil {
			p.vals[n.id] = n.constant[:size:size]
		} else {
			p.vals[n.id], valArena = valArena[:size:size], valArena[size:]
		}
		if needGrad[n.id] {
			p.grads[n.id], gradArena = gradArena[:size:size], gradArena[size:]
		}
	}

	p.reverse = make([][]*Node, len(outputs))
	for i, o := range outputs {
		anc := make([]bool, len(g.nodes))
		markAncestors(o, anc)
		for j := len(p.order) - 1; j >= 0; j-- {
			n := p.order[j]
			if anc[n.id] && needGrad[n.id] && n.op != nil {
				p.reverse[i] = append(p.reverse[i], n)
			}
		}
	}

	p.idx = make([][]int, len(g.indices))
	for _, ix := range g.indices {
		size := ix.n
		if ix.replicated {
			size *= g.replicas
		}
		p.idx[ix.id] = make([]int, size) // all zeros: valid for any gathered tensor
	}
	p.inBuf = make([][]float64, maxArity)
	p.gradInBuf = make([][]float64, maxArity)
	p.xs, p.dxs = make([]float64, maxOperands), make([]float64, maxOperands)
	p.args = Args{prog: p}
	return p, nil
}

func markAncestors(n *Node, seen []bool) {
	if seen[n.id] {
		return
	}
	seen[n.id] = true
	for _, in := range n.ins {
		markAncestors(in, seen)
	}
}

// reps is the number of copies of a node's value: P or 1.
func (p *Program) reps(n *Node) int {
	if n.replicated {
		return p.g.replicas
	}
	return 1
}

// Replicas is the number of replicas P.
func (p *Program) Replicas() int { return p.g.replicas }

// Value returns the buffer of n: P consecutive row-major tensors when n is
// replicated, one when it is shared. Inputs are filled by writing into it;
// other values are read after Forward; a constant's buffer is its own
// values, not to be written. It is nil for nodes that the program
// does not compute (nodes added to the graph after Compile among them).
func (p *Program) Value(n *Node) []float64 {
	if !p.has(n) {
		return nil
	}
	return p.vals[n.id]
}

// Grad returns the gradient buffer of n after Backward, laid out as Value, or
// nil when no gradient flows to n.
func (p *Program) Grad(n *Node) []float64 {
	if !p.has(n) {
		return nil
	}
	return p.grads[n.id]
}

// has reports whether n is a node of the program's graph that existed at
// Compile.
func (p *Program) has(n *Node) bool {
	return n != nil && n.g == p.g && n.id >= 0 && n.id < len(p.vals)
}

// Set copies data into the input n. data holds one tensor per replica for a
// replicated input (P × size values), or one tensor for a shared one. NaN is
// rejected so that a bad value is reported where it enters.
func (p *Program) Set(n *Node, data []float64) error {
	if !p.has(n) || n.op != nil || n.constant != nil {
		return fmt.Errorf("autodiff: Set: %v is not an input of this program", n)
	}
	dst := p.vals[n.id]
	if len(data) != len(dst) {
		return fmt.Errorf("autodiff: input %q needs %d values (%d replicas × %v), got %d",
			n.name, len(dst), p.reps(n), n.shape, len(data))
	}
	for i, v := range data {
		if math.IsNaN(v) {
			return fmt.Errorf("autodiff: input %q: value %d is NaN", n.name, i)
		}
	}
	copy(dst, data)
	return nil
}

// SetIndices sets the rows ix selects: ix.Len() values, times P when ix is
// replicated. Each must index a row of every tensor gathered with ix.
func (p *Program) SetIndices(ix *Indices, rows []int) error {
	if ix == nil || ix.g != p.g || ix.id >= len(p.idx) {
		return fmt.Errorf("autodiff: SetIndices: %v do not belong to this program", ix)
	}
	dst := p.idx[ix.id]
	if len(rows) != len(dst) {
		return fmt.Errorf("autodiff: indices %q need %d values, got %d", ix.name, len(dst), len(rows))
	}
	for i, r := range rows {
		if r < 0 || (ix.bound >= 0 && r >= ix.bound) {
			return fmt.Errorf("autodiff: indices %q: value %d is %d, outside [0, %d)", ix.name, i, r, ix.bound)
		}
	}
	copy(dst, rows)
	return nil
}

// Forward evaluates every op. Shared nodes are computed once, replicated nodes
// once per replica.
func (p *Program) Forward() {
	a := &p.args
	for _, n := range p.order {
		if n.op == nil {
			continue
		}
		size := n.shape.Size()
		a.In = p.inBuf[:len(n.ins)]
		for r := range p.reps(n) {
			a.Replica = r
			a.Out = p.vals[n.id][r*size : (r+1)*size]
			for i, in := range n.ins {
				a.In[i] = p.slice(p.vals[in.id], in, r)
			}
			n.op.Forward(a)
		}
	}
	a.clear()
}

// Backward computes the gradient of loss, a scalar output, with respect to
// every Param input, for all replicas at once: replica r's gradient is that of
// replica r's loss. It must follow Forward.
func (p *Program) Backward(loss *Node) error {
	out := -1
	for i, o := range p.outputs {
		if o == loss {
			out = i
		}
	}
	if out < 0 {
		return fmt.Errorf("autodiff: Backward: %v is not an output of the program", loss)
	}
	if loss.shape.Size() != 1 {
		return fmt.Errorf("autodiff: Backward: loss must be a scalar per replica, has shape %v", loss.shape)
	}
	for _, n := range p.params {
		clear(p.grads[n.id])
	}
	for _, n := range p.reverse[out] {
		clear(p.grads[n.id])
	}
	seed := p.grads[loss.id]
	if seed == nil {
		return nil // the loss does not depend on any parameter
	}
	for i := range seed {
		seed[i] = 1
	}

	a := &p.args
	for _, n := range p.reverse[out] {
		size := n.shape.Size()
		a.In, a.GradIn = p.inBuf[:len(n.ins)], p.gradInBuf[:len(n.ins)]
		for r := range p.reps(n) {
			a.Replica = r
			a.Out = p.vals[n.id][r*size : (r+1)*size]
			a.GradOut = p.grads[n.id][r*size : (r+1)*size]
			for i, in := range n.ins {
				a.In[i] = p.slice(p.vals[in.id], in, r)
				a.GradIn[i] = p.slice(p.grads[in.id], in, r)
			}
			n.op.Backward(a)
		}
	}
	a.clear()
	return nil
}

// slice is replica r's part of a buffer of node n: all of it when n is shared.
func (p *Program) slice(buf []float64, n *Node, r int) []float64 {
	if buf == nil {
		return nil
	}
	if !n.replicated {
		return buf
	}
	size := n.shape.Size()
	return buf[r*size : (r+1)*size]
}

// clear drops references so that a finished pass pins no buffer slices.
func (a *Args) clear() {
	clear(a.In)
	clear(a.GradIn)
	a.Out, a.GradOut, a.In, a.GradIn = nil, nil, nil, nil
}
