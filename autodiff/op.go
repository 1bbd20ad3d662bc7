package autodiff

// Op is one differentiable operation. An op value is built by a constructor
// that checks shapes and keeps what its kernels need (extents, axes); the
// kernels then work on flat row-major slices of one replica at a time, so an
// op never sees the replica axis and P replicas give bit-identical results to
// P single-replica passes.
//
// New ops (convolutions, recurrent cells) implement Op and join a graph with
// Graph.Apply; those that also implement Op32 run in float32 programs, and
// those that need memory of their own implement Workspace.
type Op interface {
	// Name is used in errors and when printing a graph.
	Name() string
	// Forward sets a.Out from a.In. It must overwrite every element of Out.
	Forward(a *Args)
	// Backward adds the vector-Jacobian product of a.GradOut into each non-nil
	// a.GradIn[i]; a nil entry is an operand that needs no gradient. a.Out holds
	// the forward result.
	Backward(a *Args)
}

// Op32 is an Op with float32 kernels, which a program compiled by
// Graph.Compile32 needs for every op it runs. The ops of this package write
// each kernel once, generic in the element type (ArgsOf), and implement
// both interfaces with it.
type Op32 interface {
	Forward32(a *Args32)
	Backward32(a *Args32)
}

// Workspace is an Op whose kernels need memory besides its operands and
// result: what a recurrent layer's backward pass through time reads of its
// forward pass (the gates and cell states of every step), and the buffers
// of a convolution's im2col. The program allocates both once, at Compile,
// so a step allocates nothing; saved memory is per replica and scratch per
// goroutine, so replicas on separate goroutines never share either, and
// programs compiled from one graph share neither.
type Workspace interface {
	// SavedLen is the number of elements each replica keeps from Forward
	// to Backward (ArgsOf.Saved).
	SavedLen() int
	// ScratchLen is the number of elements one call may use and forget
	// (ArgsOf.Scratch).
	ScratchLen() int
}

// GradAssigner is an Op whose Backward can assign the gradient of an
// operand, writing every element of GradIn[i], instead of adding to it. The
// program asks it to (ArgsOf.Assign) where the op is the first consumer of
// that operand's value to run backward, and then skips clearing the
// operand's gradient before the pass: for the large activations of a
// network, that clearing is a pass over memory as long as the op's own.
type GradAssigner interface {
	// AssignsGrad reports whether Backward can assign operand i's
	// gradient.
	AssignsGrad(i int) bool
}

// Fuser is an Op that can take over the op producing its one operand:
// Fuse returns an op that computes both from the producer's operands (its
// In and GradIn are the producer's, its Out and GradOut the consumer's),
// or nil. A CPU program fuses such a pair where the producer's result has
// no other use, so that the intermediate is never stored: a convolution's
// result before its pooling is a network's largest activation, written
// and read back forward and backward. Device programs run the two ops.
type Fuser interface {
	Fuse(producer Op) Op
}

// Float is the element type of a program: float64, or float32 for models
// (neural networks) whose products gain from twice the vector width.
type Float interface{ float32 | float64 }

// ArgsOf carries one replica's buffers to an op's kernels. The Program
// reuses one per goroutine, so kernels must not keep it.
type ArgsOf[T Float] struct {
	// Replica is the index of the replica being computed (0 for shared nodes).
	Replica int
	In      [][]T
	Out     []T
	GradOut []T
	GradIn  [][]T
	// Saved is this replica's memory of a Workspace op, SavedLen long,
	// kept from Forward to Backward (nil for other ops).
	Saved []T
	// Scratch is the running goroutine's memory for one call of a
	// Workspace op, ScratchLen long; nothing in it survives the call.
	Scratch []T

	assign  uint64    // bit i: assign GradIn[i] rather than add to it (GradAssigner)
	idx     [][]int   // the program's indices, per Indices id
	xs, dxs []float64 // scratch argument vectors (maxOperands long)
	threads int       // goroutines the op may use for one large product
	work    []T       // this goroutine's scratch (Scratch is a prefix)
}

// Args are the buffers of a float64 program; Args32 of a float32 one.
type (
	Args   = ArgsOf[float64]
	Args32 = ArgsOf[float32]
)

// Indices returns this replica's values of ix.
func (a *ArgsOf[T]) Indices(ix *Indices) []int {
	v := a.idx[ix.id]
	if !ix.replicated {
		return v
	}
	return v[a.Replica*ix.n : (a.Replica+1)*ix.n]
}

// Assign reports whether the running Backward must assign GradIn[i],
// writing every element, instead of adding to it: only ever true for a
// GradAssigner op and an operand it assigns.
func (a *ArgsOf[T]) Assign(i int) bool { return a.assign&(1<<i) != 0 }

// Threads is the number of goroutines the op may split one large product
// over (1 when the program runs replicas on separate goroutines).
func (a *ArgsOf[T]) Threads() int { return max(1, a.threads) }

// scratch and scratch2 lend an op two small float64 buffers (maxOperands
// long) for argument vectors, so that kernels calling a func value allocate
// nothing.
func (a *ArgsOf[T]) scratch(n int) []float64  { return a.xs[:n] }
func (a *ArgsOf[T]) scratch2(n int) []float64 { return a.dxs[:n] }
