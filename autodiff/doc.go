// Package autodiff is temper's reverse-mode automatic differentiation: dense
// row-major float64 tensors, a symbolic graph built once, and a compiled
// Program that replays it every sampler step without allocating.
//
// # Replicas
//
// A graph evaluates P replicas in one pass: every node has a per-replica
// Shape and is either replicated (one value per replica: parameters and what
// depends on them) or shared (one value for all: data). Parameters are the
// rows of a P × D block, declared with Graph.Input(name, Param, shape...).
// Ops are written for one replica and the Program runs them per replica, so
// P replicas give the same bits as P single-replica passes.
//
// # Building and running
//
//	g := autodiff.NewGraph(P)
//	x := g.Input("x", autodiff.Data, N, D)       // filled once
//	w := g.Input("w", autodiff.Param, D)         // P rows, differentiated
//	rows := g.Indices("batch", false, B)         // the minibatch, set each step
//	eta := autodiff.Dot(autodiff.Gather(x, rows), w)
//	loss := autodiff.SumAll(autodiff.Square(eta))
//	prog, err := g.Compile(loss)                 // first build error, if any
//	prog.SetIndices(rows, batch)
//	prog.Forward()
//	prog.Backward(loss)                          // prog.Grad(w): P × D
//
// Constructors never panic on bad shapes: the first error is kept by the
// graph (Graph.Err) and returned by Compile.
//
// # Ops
//
// Elementwise functions broadcast by NumPy's rules (ScalarFunc, Elementwise);
// reductions and softmax act along an axis; Matmul and Dot contract axes;
// Reshape, Transpose, Concat, Slice, Index, BroadcastTo and Gather move
// elements. Every op's vector-Jacobian product is checked against finite
// differences by the shared harness in package adtest. New ops implement Op
// and join a graph with Graph.Apply; stdlib's densities do.
//
// # Precision and goroutines
//
// The graph and its ops hold only shapes; buffers live in the program. So
// one graph compiles to a float64 Program (Compile) or a float32 Program32
// (Compile32): the ops of this package write each kernel once, generic in
// the element type (ArgsOf[T]), and implement Op and Op32 with it. float32
// halves memory traffic and doubles the vector width of the matrix
// products, which run on package kernel's assembly GEMM; full reductions,
// log-sum-exp and the scalar functions still compute in float64. An op
// without float32 kernels makes Compile32 fail (ErrNoFloat32Kernel).
//
// SetThreads spreads a pass over goroutines: whole replicas per goroutine
// when there are enough replicas, else one replica at a time with its
// matrix products split. Each replica's values depend only on its own
// inputs, so the results do not depend on the number of goroutines.
package autodiff
