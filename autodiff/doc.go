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
// float32 has room to come: the graph and ops hold only shapes, and buffers
// live in the Program, so a float32 Program needs kernels, not a new graph.
package autodiff
