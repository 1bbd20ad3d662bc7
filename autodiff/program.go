package autodiff

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// ProgramOf is a compiled graph: the ops needed for its outputs in
// topological order, with every value and gradient buffer, of element type
// T, allocated once. Forward and Backward replay it and allocate nothing.
// Program computes in float64, Program32 in float32 (Graph.Compile32).
//
// A program evaluates its replicas on up to Threads goroutines (SetThreads):
// each replica's values depend only on its own inputs and the shared ones,
// so the results do not depend on the number of goroutines. A Program is
// not safe for concurrent use by its callers; compile one per goroutine
// (they share the read-only graph and ops).
type ProgramOf[T Float] struct {
	g       *Graph
	order   []*Node // nodes to evaluate, inputs first, in topological order
	shared  []*Node // the ops of order computed once for all replicas
	repl    []*Node // the ops of order computed per replica
	vals    [][]T   // per node id: P*size values if replicated, else size
	grads   [][]T   // per node id: P*size, or nil when no gradient flows
	idx     [][]int // per Indices id
	saved   [][]T   // per node id: a Workspace op's saved memory, P*SavedLen or SavedLen
	scratch []int   // per node id: a Workspace op's ScratchLen
	outputs []*Node
	reverse [][]*Node    // per output: its ancestors that carry gradients, reverse topological order
	assign  []assignment // per output: the gradients its backward pass assigns
	params  []*Node

	arity   int         // the most operands of an op
	work    int         // the longest ScratchLen, each goroutine's
	threads int         // goroutines (SetThreads)
	args    []ArgsOf[T] // one per goroutine
	pass    pass        // what RunPart does
}

// Program is a float64 program; Program32 a float32 one.
type (
	Program   = ProgramOf[float64]
	Program32 = ProgramOf[float32]
)

// Compile checks the graph and allocates a float64 Program that computes
// outputs. A scalar output can be differentiated by Backward.
func (g *Graph) Compile(outputs ...*Node) (*Program, error) {
	return compileProgram[float64](g, outputs)
}

// Compile32 is Compile for a float32 program: values and gradients are
// float32, every op must implement Op32, and constants (data) are converted
// once per graph. Reductions accumulate in float64.
func (g *Graph) Compile32(outputs ...*Node) (*Program32, error) {
	return compileProgram[float32](g, outputs)
}

func compileProgram[T Float](g *Graph, outputs []*Node) (*ProgramOf[T], error) {
	_, is32 := any(T(0)).(float32)
	pl, err := planProgram(g, outputs, is32)
	if err != nil {
		return nil, err
	}
	pl.fuse()
	p := &ProgramOf[T]{g: g, outputs: pl.outputs, threads: 1, order: pl.order, shared: pl.shared,
		repl: pl.repl, params: pl.params, reverse: pl.reverse, arity: pl.arity}
	valSize, gradSize := 0, 0
	for _, n := range p.order {
		if aliasOf(n) != nil {
			continue
		}
		if !n.isConst() { // constants are read in place
			valSize += p.reps(n) * n.shape.Size()
		}
		if pl.needGrad[n.id] {
			gradSize += p.reps(n) * n.shape.Size()
		}
	}
	valArena := make([]T, valSize)
	gradArena := make([]T, gradSize)
	p.vals = make([][]T, len(g.nodes))
	p.grads = make([][]T, len(g.nodes))
	for _, n := range p.order {
		size := p.reps(n) * n.shape.Size()
		if in := aliasOf(n); in != nil {
			p.vals[n.id], p.grads[n.id] = p.vals[in.id], p.grads[in.id]
			continue
		}
		if n.isConst() && native[T](n) == nil && n.stored != nil && gatheredOnly(n, p.order) {
			// the gathers convert their rows from n.stored: no copy of the data in T
		} else if n.isConst() {
			p.vals[n.id] = constantOf[T](n)[:size:size]
		} else {
			p.vals[n.id], valArena = valArena[:size:size], valArena[size:]
		}
		if pl.needGrad[n.id] {
			p.grads[n.id], gradArena = gradArena[:size:size], gradArena[size:]
		}
	}

	p.allocateWorkspaces()
	p.planAssignments()
	p.idx = make([][]int, len(g.indices))
	for _, ix := range g.indices {
		size := ix.n
		if ix.replicated {
			size *= g.replicas
		}
		p.idx[ix.id] = make([]int, size) // all zeros: valid for any gathered tensor
	}
	p.SetThreads(1)
	return p, nil
}

// assignment is which gradients one output's backward pass assigns rather
// than accumulates: a node's gradient is not cleared before the pass when
// the first of its consumers to run backward is a GradAssigner for it, and
// that consumer writes every element; the later consumers add to it.
type assignment struct {
	kept []bool   // per node id: the gradient is not cleared, its first consumer assigns it
	bits []uint64 // per node id: ArgsOf.assign for its Backward
}

// planAssignments finds, for each output, the gradients assigned by their
// first consumer in the reverse pass, through reshapes (which share their
// operand's gradient). A consumer that takes the same value twice (x·x)
// adds to it, as an op need not finish one operand's gradient before
// starting the other's. The loss's gradient is the pass's seed and
// parameters' gradients are results, so both are always cleared.
func (p *ProgramOf[T]) planAssignments() {
	p.assign = make([]assignment, len(p.outputs))
	for i, rev := range p.reverse {
		type edge struct {
			n     *Node
			input int
			twice bool // n takes the value as another operand too
		}
		first := make(map[int]*edge)
		for _, n := range rev { // consumers before producers: the backward pass's order
			for j, in := range n.ins {
				for aliasOf(in) != nil {
					in = aliasOf(in)
				}
				if p.grads[in.id] == nil {
					continue
				}
				if e := first[in.id]; e == nil {
					first[in.id] = &edge{n: n, input: j}
				} else if e.n == n {
					e.twice = true
				}
			}
		}
		a := assignment{kept: make([]bool, len(p.g.nodes)), bits: make([]uint64, len(p.g.nodes))}
		for _, n := range rev {
			e := first[n.id]
			if e == nil || e.twice || n == p.outputs[i] || n.param {
				continue
			}
			if ga, ok := e.n.op.(GradAssigner); ok && ga.AssignsGrad(e.input) {
				a.kept[n.id] = true
				a.bits[e.n.id] |= 1 << e.input
			}
		}
		p.assign[i] = a
	}
}

// allocateWorkspaces gives each Workspace op its saved memory, from one
// arena, and sizes the goroutines' scratch.
func (p *ProgramOf[T]) allocateWorkspaces() {
	size := 0
	p.saved = make([][]T, len(p.g.nodes))
	p.scratch = make([]int, len(p.g.nodes))
	for _, n := range p.order {
		if w, ok := n.op.(Workspace); ok {
			size += p.reps(n) * w.SavedLen()
			p.scratch[n.id] = w.ScratchLen()
			p.work = max(p.work, w.ScratchLen())
		}
	}
	arena := make([]T, size)
	for _, n := range p.order {
		if w, ok := n.op.(Workspace); ok {
			size := p.reps(n) * w.SavedLen()
			p.saved[n.id], arena = arena[:size:size], arena[size:]
		}
	}
}

// programPlan is what compiling a graph decides before any buffer exists,
// shared by the CPU program and the device backends: the ops to run, in
// order, and which nodes carry gradients.
type programPlan struct {
	outputs  []*Node
	order    []*Node // nodes to evaluate, inputs first, in topological order
	shared   []*Node // the ops of order computed once for all replicas
	repl     []*Node // the ops of order computed per replica
	params   []*Node
	needGrad []bool    // per node id: a gradient flows to it
	reverse  [][]*Node // per output: its ancestors that carry gradients, reverse topological order
	arity    int       // the most operands of an op
}

// planProgram checks the graph and plans a program computing outputs; is32
// requires every op to have float32 kernels.
func planProgram(g *Graph, outputs []*Node, is32 bool) (*programPlan, error) {
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
	p := &programPlan{outputs: append([]*Node(nil), outputs...), needGrad: make([]bool, len(g.nodes))}
	for _, n := range g.nodes {
		isInput := n.op == nil && !n.isConst()
		if !live[n.id] && !isInput {
			continue
		}
		if n.op != nil && is32 {
			if _, ok := n.op.(Op32); !ok {
				return nil, fmt.Errorf("autodiff: %s: %w; compute this model in float64", n.op.Name(), ErrNoFloat32Kernel)
			}
		}
		p.order = append(p.order, n)
		aliased := aliasOf(n) != nil
		if n.op != nil && !aliased && n.replicated {
			p.repl = append(p.repl, n)
		} else if n.op != nil && !aliased {
			p.shared = append(p.shared, n)
		}
		p.needGrad[n.id] = n.param
		for _, in := range n.ins {
			p.needGrad[n.id] = p.needGrad[n.id] || p.needGrad[in.id]
		}
		if n.param {
			p.params = append(p.params, n)
		}
		p.arity = max(p.arity, len(n.ins))
	}

	// Only replicated nodes carry gradients: a shared node depends on no
	// parameter.
	p.reverse = make([][]*Node, len(outputs))
	for i, o := range outputs {
		anc := make([]bool, len(g.nodes))
		markAncestors(o, anc)
		for j := len(p.order) - 1; j >= 0; j-- {
			n := p.order[j]
			if anc[n.id] && p.needGrad[n.id] && n.op != nil && aliasOf(n) == nil {
				p.reverse[i] = append(p.reverse[i], n)
			}
		}
	}
	return p, nil
}

// fuse replaces each replicated op whose one operand is another replicated
// op's result, used by nothing else and not an output, by the two fused
// (Fuser), when the consumer can fuse the producer: the producer leaves
// the plan, and the consumer's node is replaced, for this plan only, by a
// copy that runs the fused op on the producer's operands. Buffers stay
// keyed by node id, so the consumer's value and gradient are where they
// were; the producer gets none.
func (pl *programPlan) fuse() {
	uses := make(map[int]int)
	for _, n := range pl.order {
		for _, in := range n.ins {
			uses[in.id]++
		}
	}
	for _, o := range pl.outputs {
		uses[o.id] += 2 // never fused away
	}
	swap := make(map[*Node]*Node) // consumer → its fused copy; producer → nil
	for _, n := range pl.repl {
		f, ok := n.op.(Fuser)
		if !ok || len(n.ins) != 1 {
			continue
		}
		prod := n.ins[0]
		if prod.op == nil || !prod.replicated || aliasOf(prod) != nil || uses[prod.id] != 1 {
			continue
		}
		if _, done := swap[prod]; done {
			continue // itself already fused with its own producer
		}
		op := f.Fuse(prod.op)
		if op == nil {
			continue
		}
		fused := *n
		fused.op, fused.ins = op, prod.ins
		swap[n], swap[prod] = &fused, nil
		pl.arity = max(pl.arity, len(prod.ins))
	}
	if len(swap) == 0 {
		return
	}
	rewrite := func(nodes []*Node) []*Node {
		var out []*Node
		for _, n := range nodes {
			m, ok := swap[n]
			switch {
			case !ok:
				out = append(out, n)
			case m != nil:
				out = append(out, m)
			}
		}
		return out
	}
	pl.order, pl.repl = rewrite(pl.order), rewrite(pl.repl)
	for i := range pl.reverse {
		pl.reverse[i] = rewrite(pl.reverse[i])
	}
}

// ErrNoFloat32Kernel is wrapped by the error of Compile32 for a graph with
// an op that implements only Op.
var ErrNoFloat32Kernel = errors.New("no float32 kernel")

// aliasOf is the operand whose buffers node n shares, or nil. A reshape
// keeps the row-major order of its operand, so its value is the same
// numbers, and its gradient can accumulate into the operand's gradient:
// gradients are sums over consumers, and the reshape's consumers are then
// simply consumers of the operand. Aliasing saves a copy forward and an
// addition backward of every reshape (the images and rows a model reshapes).
func aliasOf(n *Node) *Node {
	if _, ok := n.op.(reshapeOp); ok {
		return n.ins[0]
	}
	return nil
}

// call runs an op's forward or backward kernel on a: the Op methods in a
// float64 program, the Op32 ones (checked at Compile) in a float32 one.
func call[T Float](op Op, a *ArgsOf[T], fwd bool) {
	if a64, ok := any(a).(*Args); ok {
		if fwd {
			op.Forward(a64)
		} else {
			op.Backward(a64)
		}
		return
	}
	a32 := any(a).(*Args32)
	if fwd {
		op.(Op32).Forward32(a32)
	} else {
		op.(Op32).Backward32(a32)
	}
}

// constantOf is a constant's values as T: its own slice where it holds T
// (float64 constants, float32 data), else a conversion made once per node
// (of a float64 constant for a float32 program, of narrow data for
// either).
func constantOf[T Float](n *Node) []T {
	if c := native[T](n); c != nil {
		return c
	}
	n.g.mu.Lock()
	defer n.g.mu.Unlock()
	if _, ok := any(T(0)).(float64); ok {
		if n.constant == nil {
			n.constant = make([]float64, n.stored.Len())
			n.stored.Float64s(n.constant, 0)
		}
		return any(n.constant).([]T)
	}
	if n.constant32 == nil {
		n.constant32 = make([]float32, n.shape.Size())
		if n.stored != nil {
			n.stored.Float32s(n.constant32, 0)
		} else {
			for i, v := range n.constant {
				n.constant32[i] = float32(v)
			}
		}
	}
	return any(n.constant32).([]T)
}

// SetThreads sets the number of goroutines that evaluate the program: with
// P ≥ n replicas each goroutine runs whole replicas; with fewer replicas
// they share each large matrix product. n ≤ 0 means GOMAXPROCS.
func (p *ProgramOf[T]) SetThreads(n int) {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	p.threads = n
	p.args = make([]ArgsOf[T], min(n, p.g.replicas))
	for i := range p.args {
		p.args[i] = ArgsOf[T]{idx: p.idx, xs: make([]float64, maxOperands), dxs: make([]float64, maxOperands),
			In: make([][]T, p.arity), GradIn: make([][]T, p.arity), work: make([]T, p.work)}
	}
}

// Threads is the number of goroutines set by SetThreads.
func (p *ProgramOf[T]) Threads() int { return p.threads }

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
func (p *ProgramOf[T]) reps(n *Node) int {
	if n.replicated {
		return p.g.replicas
	}
	return 1
}

// Replicas is the number of replicas P.
func (p *ProgramOf[T]) Replicas() int { return p.g.replicas }

// Value returns the buffer of n: P consecutive row-major tensors when n is
// replicated, one when it is shared. Inputs are filled by writing into it;
// other values are read after Forward; a constant's buffer is its own
// values, not to be written. It is nil for nodes that the program
// does not compute (nodes added to the graph after Compile among them).
func (p *ProgramOf[T]) Value(n *Node) []T {
	if !p.has(n) {
		return nil
	}
	return p.vals[n.id]
}

// Grad returns the gradient buffer of n after Backward, laid out as Value, or
// nil when no gradient flows to n.
func (p *ProgramOf[T]) Grad(n *Node) []T {
	if !p.has(n) {
		return nil
	}
	return p.grads[n.id]
}

// PoisonGradients fills every gradient buffer with NaN. Backward clears
// the gradients it adds into and assigns the others (GradAssigner), so
// the gradients of a correct program do not change; a GradAssigner that
// leaves part of a gradient unwritten shows as NaN. For tests: adtest runs
// every op after it.
func (p *ProgramOf[T]) PoisonGradients() {
	nan := T(math.NaN())
	for _, g := range p.grads {
		for i := range g {
			g[i] = nan
		}
	}
}

// has reports whether n is a node of the program's graph that existed at
// Compile.
func (p *ProgramOf[T]) has(n *Node) bool {
	return n != nil && n.g == p.g && n.id >= 0 && n.id < len(p.vals)
}

// Set copies data into the input n, converted to T. data holds one tensor
// per replica for a replicated input (P × size values), or one tensor for a
// shared one. NaN is rejected so that a bad value is reported where it
// enters.
func (p *ProgramOf[T]) Set(n *Node, data []float64) error {
	if !p.has(n) || n.op != nil || n.isConst() {
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
	for i, v := range data {
		dst[i] = T(v)
	}
	return nil
}

// SetIndices sets the rows ix selects: ix.Len() values, times P when ix is
// replicated. Each must index a row of every tensor gathered with ix.
func (p *ProgramOf[T]) SetIndices(ix *Indices, rows []int) error {
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
func (p *ProgramOf[T]) Forward() {
	p.runShared()
	p.runReplicas(pass{forward: true, out: -1})
}

// Backward computes the gradient of loss, a scalar output, with respect to
// every Param input, for all replicas at once: replica r's gradient is that of
// replica r's loss. It must follow Forward.
func (p *ProgramOf[T]) Backward(loss *Node) error {
	out, err := p.lossIndex(loss)
	if err != nil {
		return err
	}
	p.runReplicas(pass{backward: true, out: out})
	return nil
}

// ForwardBackward is Forward then Backward(loss) in one pass over the
// replicas: each goroutine takes a replica through both while its values
// are in cache.
func (p *ProgramOf[T]) ForwardBackward(loss *Node) error {
	out, err := p.lossIndex(loss)
	if err != nil {
		return err
	}
	p.runShared()
	p.runReplicas(pass{forward: true, backward: true, out: out})
	return nil
}

func (p *ProgramOf[T]) lossIndex(loss *Node) (int, error) {
	for i, o := range p.outputs {
		if o == loss {
			if loss.shape.Size() != 1 {
				return 0, fmt.Errorf("autodiff: Backward: loss must be a scalar per replica, has shape %v", loss.shape)
			}
			return i, nil
		}
	}
	return 0, fmt.Errorf("autodiff: Backward: %v is not an output of the program", loss)
}

// pass is what one run over the replicas does.
type pass struct {
	forward, backward bool
	out               int // the output differentiated by backward
}

// runShared computes the shared nodes, on the caller, with every thread
// available to each op.
func (p *ProgramOf[T]) runShared() {
	a := &p.args[0]
	a.threads = p.threads
	for _, n := range p.shared {
		a.Replica = 0
		p.runNode(a, n, 0, true)
	}
	a.clear()
}

// runReplicas runs pass over every replica: whole replicas per goroutine
// when there are enough of them, else one after another with each op free
// to split its products over the threads.
func (p *ProgramOf[T]) runReplicas(ps pass) {
	p.pass = ps
	if len(p.args) > 1 {
		kernel.ParallelFor(len(p.args), len(p.args), p)
		return
	}
	p.args[0].threads = p.threads
	for r := range p.g.replicas {
		p.replica(&p.args[0], r)
	}
	p.args[0].clear()
}

// RunPart runs the current pass, for kernel.ParallelFor, on the replicas
// w, w + W, w + 2W, ... of the W goroutines' part w, with Args of its own.
func (p *ProgramOf[T]) RunPart(w int) {
	a := &p.args[w]
	a.threads = 1
	for r := w; r < p.g.replicas; r += len(p.args) {
		p.replica(a, r)
	}
	a.clear()
}

// replica runs the current pass on replica r with a.
func (p *ProgramOf[T]) replica(a *ArgsOf[T], r int) {
	a.Replica = r
	if p.pass.forward {
		for _, n := range p.repl {
			p.runNode(a, n, r, true)
		}
	}
	if !p.pass.backward {
		return
	}
	rev, assign := p.reverse[p.pass.out], &p.assign[p.pass.out]
	for _, n := range p.params {
		clear(p.slice(p.grads[n.id], n, r))
	}
	for _, n := range rev {
		if !assign.kept[n.id] {
			clear(p.slice(p.grads[n.id], n, r))
		}
	}
	loss := p.outputs[p.pass.out]
	seed := p.slice(p.grads[loss.id], loss, r)
	if seed == nil {
		return // the loss does not depend on any parameter
	}
	seed[0] = 1
	for _, n := range rev {
		a.assign = assign.bits[n.id]
		p.runNode(a, n, r, false)
	}
	a.assign = 0
}

// runNode runs node n's op for replica r (0 for a shared node).
func (p *ProgramOf[T]) runNode(a *ArgsOf[T], n *Node, r int, fwd bool) {
	a.In = a.In[:len(n.ins)]
	a.Out = p.slice(p.vals[n.id], n, r)
	a.Saved, a.Scratch = nil, nil
	if saved := p.saved[n.id]; saved != nil {
		size := len(saved) / p.reps(n)
		a.Saved = saved[r*size : (r+1)*size : (r+1)*size]
	}
	if size := p.scratch[n.id]; size > 0 {
		a.Scratch = a.work[:size:size]
	}
	for i, in := range n.ins {
		a.In[i] = p.slice(p.vals[in.id], in, r)
	}
	if !fwd {
		a.GradIn = a.GradIn[:len(n.ins)]
		a.GradOut = p.slice(p.grads[n.id], n, r)
		for i, in := range n.ins {
			a.GradIn[i] = p.slice(p.grads[in.id], in, r)
		}
	}
	call(n.op, a, fwd)
}

// slice is replica r's part of a buffer of node n: all of it when n is shared.
func (p *ProgramOf[T]) slice(buf []T, n *Node, r int) []T {
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
func (a *ArgsOf[T]) clear() {
	clear(a.In[:cap(a.In)])
	clear(a.GradIn[:cap(a.GradIn)])
	a.Out, a.GradOut = nil, nil
	a.Saved, a.Scratch = nil, nil
}
