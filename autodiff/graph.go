package autodiff

import (
	"errors"
	"fmt"
	"sync"
)

// Graph is a symbolic computation over P replicas. It is built once, by the
// constructors of this package (Add, Matmul, ...) and by Apply for ops defined
// elsewhere, then compiled into a Program that owns the buffers and replays the
// graph every step.
//
// Building never panics on bad shapes: the first error is kept (like
// bufio.Scanner's) and returned by Err and Compile; later constructors return
// placeholder nodes so that a builder can go on and report once.
type Graph struct {
	replicas int
	hostOnly bool
	nodes    []*Node
	indices  []*Indices
	err      error
	mu       sync.Mutex // guards the nodes' float32 constants
}

// NewGraph starts a graph that evaluates the given number of replicas in one
// pass.
func NewGraph(replicas int) *Graph {
	g := &Graph{replicas: replicas}
	if replicas < 1 {
		g.err = fmt.Errorf("autodiff: a graph needs at least one replica, got %d", replicas)
		g.replicas = 1
	}
	return g
}

// SetHostOnly says the graph will be compiled for the CPU only (Compile,
// Compile32, never CompileOn), so that builders may use ops that no
// device backend has a kernel for: stdlib's fused GLM densities, which
// read the data once a pass where the ops they stand for read it twice.
func (g *Graph) SetHostOnly() { g.hostOnly = true }

// HostOnly reports SetHostOnly.
func (g *Graph) HostOnly() bool { return g.hostOnly }

// Replicas is the number of replicas P every replicated node holds.
func (g *Graph) Replicas() int { return g.replicas }

// Err returns the first error met while building, or nil.
func (g *Graph) Err() error { return g.err }

// InputKind says how an input is laid out over replicas and whether gradients
// flow to it.
type InputKind int

const (
	// Data is one copy shared by all replicas (the data set, a minibatch).
	Data InputKind = iota
	// ReplicaData has one copy per replica and gets no gradient (a per-replica
	// temperature, say).
	ReplicaData
	// Param has one copy per replica and gets a gradient: the rows of the
	// P × D parameter block.
	Param
)

func (k InputKind) String() string {
	switch k {
	case Data:
		return "data"
	case ReplicaData:
		return "replica data"
	case Param:
		return "param"
	}
	return fmt.Sprintf("InputKind(%d)", int(k))
}

// Node is one value of a graph: an input, a constant, or the output of an op.
// Its value holds one tensor of Shape per replica when Replicated, else one
// tensor shared by all replicas.
type Node struct {
	g          *Graph
	id         int
	name       string
	op         Op      // nil for inputs and constants
	ins        []*Node // the op's operands
	shape      Shape
	replicated bool
	param      bool      // an input that gets a gradient
	constant   []float64 // the value of a constant, or nil
	constant32 []float32 // constant as float32, made by the first float32 program (under g.mu), or a float32 Stored's own
	stored     Stored    // data kept in their own type (ConstStored, ConstData), or nil
	failed     bool      // a placeholder for an op that could not be built
}

// Shape is the per-replica shape of the node's value.
func (n *Node) Shape() Shape { return n.shape.Clone() }

// Size is the number of elements of one replica's value.
func (n *Node) Size() int { return n.shape.Size() }

// Replicated reports whether the node has one value per replica.
func (n *Node) Replicated() bool { return n.replicated }

// Graph is the graph the node belongs to.
func (n *Node) Graph() *Graph { return n.g }

// Op is the op that computes the node (nil for inputs and constants): what
// a rewrite that fuses ops reads, with Inputs.
func (n *Node) Op() Op { return n.op }

// Inputs are the operands of the node's op (a copy).
func (n *Node) Inputs() []*Node { return append([]*Node(nil), n.ins...) }

// Name is the name of an input, or the name of the op that computes the node.
func (n *Node) Name() string {
	if n.op != nil {
		return n.op.Name()
	}
	return n.name
}

func (n *Node) String() string {
	rep := "shared"
	if n.replicated {
		rep = "replicated"
	}
	return fmt.Sprintf("%s%v (%s)", n.Name(), n.shape, rep)
}

// Input declares a value the caller fills before each Forward (Program.Set or
// Program.Value). Its shape is per replica.
func (g *Graph) Input(name string, kind InputKind, shape ...int) *Node {
	s := Shape(shape).Clone()
	if err := validShape(s); err != nil {
		return g.fail(s, "input %q: %v", name, err)
	}
	return g.add(&Node{name: name, shape: s, replicated: kind != Data, param: kind == Param})
}

// Const adds a constant shared by all replicas. values has shape.Size()
// elements in row-major order; a single value is repeated.
func (g *Graph) Const(shape Shape, values ...float64) *Node {
	s := shape.Clone()
	if err := validShape(s); err != nil {
		return g.fail(s, "constant: %v", err)
	}
	data := make([]float64, s.Size())
	switch len(values) {
	case 1:
		for i := range data {
			data[i] = values[0]
		}
	case len(data):
		copy(data, values)
	default:
		return g.fail(s, "constant of shape %v needs %d values, got %d", s, len(data), len(values))
	}
	return g.add(&Node{name: "const", shape: s, constant: data})
}

// ConstData adds a constant shared by all replicas that refers to values
// without copying them: a data set is held once however many programs are
// compiled from the graph. values must not change while a program uses it.
func (g *Graph) ConstData(name string, shape Shape, values []float64) *Node {
	s := shape.Clone()
	if err := validShape(s); err != nil {
		return g.fail(s, "data %q: %v", name, err)
	}
	if len(values) != s.Size() {
		return g.fail(s, "data %q of shape %v needs %d values, got %d", name, s, s.Size(), len(values))
	}
	return g.add(&Node{name: name, shape: s, constant: values})
}

// ConstMapped is ConstData for values that lie in a memory-mapped file: a
// float32 program whose only readers of it are gathers converts the rows
// each gather takes (Stored) rather than copying the array whole into
// float32 on its first use, which would read the whole file into memory.
// In-memory data take ConstData's copy instead: a minibatch gather of
// float32 rows moves half the bytes and converts nothing (converting each
// gather made the MLP of temper bench 10-15% slower).
func (g *Graph) ConstMapped(name string, shape Shape, values []float64) *Node {
	n := g.ConstData(name, shape, values)
	if n.constant != nil {
		n.stored = StoredSlice[float64](values)
	}
	return n
}

// Scalar adds a scalar constant.
func (g *Graph) Scalar(v float64) *Node { return g.Const(Shape{}, v) }

// Apply adds a node that computes op on ins; shape is the per-replica shape
// of the result, which the op's constructor has checked. The node is
// replicated when any operand is. This is how ops outside this package
// (stdlib's densities and layers) join a graph.
func (g *Graph) Apply(op Op, shape Shape, ins ...*Node) *Node {
	return g.apply(op, shape, false, ins...)
}

// apply is Apply with a way to force replication (a gather by per-replica
// indices from shared data).
func (g *Graph) apply(op Op, shape Shape, replicated bool, ins ...*Node) *Node {
	for _, in := range ins {
		if in == nil {
			return g.fail(shape, "%s: nil operand", op.Name())
		}
		if in.g != g {
			return g.fail(shape, "%s: operand %s belongs to another graph", op.Name(), in)
		}
		if in.failed {
			return g.placeholder(shape)
		}
		replicated = replicated || in.replicated
	}
	if err := validShape(shape); err != nil {
		return g.fail(shape, "%s: %v", op.Name(), err)
	}
	return g.add(&Node{op: op, ins: append([]*Node(nil), ins...), shape: shape.Clone(), replicated: replicated})
}

func (g *Graph) add(n *Node) *Node {
	n.g = g
	n.id = len(g.nodes)
	g.nodes = append(g.nodes, n)
	return n
}

// Fail records a build error (the first one is kept) and returns a
// placeholder node of the given shape, for op constructors outside this
// package that find their operands' shapes wrong.
func (g *Graph) Fail(shape Shape, format string, args ...any) *Node {
	return g.fail(shape, format, args...)
}

// Failed reports whether n is a placeholder for an op that could not be
// built; constructors return a placeholder for it without a new error.
func (n *Node) Failed() bool { return n.failed }

// Placeholder returns a node standing for a result that cannot be built
// because an operand failed; the graph already holds the error.
func (g *Graph) Placeholder(shape Shape) *Node { return g.placeholder(shape) }

// fail records the first error and returns a placeholder node.
func (g *Graph) fail(shape Shape, format string, args ...any) *Node {
	if g.err == nil {
		g.err = fmt.Errorf("autodiff: "+format, args...)
	}
	return g.placeholder(shape)
}

func (g *Graph) placeholder(shape Shape) *Node {
	if g.err == nil {
		g.err = errors.New("autodiff: operand failed to build")
	}
	return &Node{g: g, id: -1, name: "error", shape: shape, failed: true}
}

// graphOf returns the graph of the first non-nil node.
func graphOf(ins ...*Node) *Graph {
	for _, n := range ins {
		if n != nil {
			return n.g
		}
	}
	return nil
}

// anyFailed reports whether an operand is missing or a placeholder, in which
// case a constructor returns a placeholder without checking shapes again.
func anyFailed(ins ...*Node) bool {
	for _, n := range ins {
		if n == nil || n.failed {
			return true
		}
	}
	return false
}

// Indices is a vector of row indices filled before each Forward: the minibatch.
// Shared indices select the same rows for every replica; replicated ones let
// each replica draw its own minibatch.
type Indices struct {
	g          *Graph
	id         int
	name       string
	n          int
	replicated bool
	bound      int // indices must lie in [0, bound): the fewest rows of any gathered tensor
}

// Indices declares an index vector of length n.
func (g *Graph) Indices(name string, replicated bool, n int) *Indices {
	ix := &Indices{g: g, id: len(g.indices), name: name, n: n, replicated: replicated, bound: -1}
	if n <= 0 {
		g.fail(Shape{}, "indices %q: length must be positive, got %d", name, n)
	}
	g.indices = append(g.indices, ix)
	return ix
}

// Len is the number of indices.
func (ix *Indices) Len() int { return ix.n }

func (ix *Indices) String() string {
	if ix == nil {
		return "nil indices"
	}
	return fmt.Sprintf("indices %q", ix.name)
}
