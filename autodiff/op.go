package autodiff

// Op is one differentiable operation. An op value is built by a constructor
// that checks shapes and keeps what its kernels need (extents, axes); the
// kernels then work on flat row-major slices of one replica at a time, so an
// op never sees the replica axis and P replicas give bit-identical results to
// P single-replica passes.
//
// New ops (convolutions, recurrent cells) implement Op and join a graph with
// Graph.Apply.
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

// Args carries one replica's buffers to an op's kernels. The Program reuses a
// single Args, so kernels must not keep it.
type Args struct {
	// Replica is the index of the replica being computed (0 for shared nodes).
	Replica int
	In      [][]float64
	Out     []float64
	GradOut []float64
	GradIn  [][]float64

	prog *Program
}

// Indices returns this replica's values of ix.
func (a *Args) Indices(ix *Indices) []int {
	v := a.prog.idx[ix.id]
	if !ix.replicated {
		return v
	}
	return v[a.Replica*ix.n : (a.Replica+1)*ix.n]
}
