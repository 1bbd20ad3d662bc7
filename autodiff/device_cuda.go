//go:build cuda

package autodiff

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/temper-ppl/temper/autodiff/internal/cuda"
)

func init() {
	deviceCompilers["cuda"] = compileCUDA
	if os.Getenv("TEMPER_CUDA_PROFILE") == "1" {
		profile.on = true
		deviceProfile = profileReport
	}
}

// The process's GPU, opened on first use and kept: opening costs the
// driver's initialisation and the PTX's JIT compile (tens of
// milliseconds), which every program of a run shares.
var gpu struct {
	once sync.Once
	dev  *cuda.Device
	err  error
}

func openGPU() (*cuda.Device, error) {
	gpu.once.Do(func() {
		ordinal := 0
		if s := os.Getenv("TEMPER_CUDA_DEVICE"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil {
				gpu.err = fmt.Errorf("TEMPER_CUDA_DEVICE=%q is not a device number", s)
				return
			}
			ordinal = v
		}
		gpu.dev, gpu.err = cuda.Open(ordinal)
	})
	return gpu.dev, gpu.err
}

// cudaProgram runs a graph's ops as CUDA kernels and cuBLAS products on
// device buffers laid out as the CPU Program's: per node, P consecutive
// replica tensors, or one for a shared node.
type cudaProgram struct {
	dev   *cuda.Device
	g     *Graph
	plan  *programPlan
	f32   bool
	elem  int        // bytes per element: 4 or 8
	vals  []cuda.Ptr // per node id
	grads []cuda.Ptr // per node id; 0 where no gradient flows
	idx   []cuda.Ptr // per Indices id, int32

	allocs       []cuda.Ptr // to free at Close
	gradArena    cuda.Ptr   // every gradient buffer, zeroed before a backward pass
	gradBytes    int
	forward      []step
	backward     [][]step  // per output
	stage32      []float32 // host staging for transfers
	stageIdx     []int32
	described    string
	steps        cuda.Ptr         // lr and temperature per replica, for Move
	stepsHost    []float64        // what steps holds
	momentum     map[int]cuda.Ptr // per parameter node id, SGHMC's v
	scratch      cuda.Ptr         // one replica of a parameter, for SwapReplicas
	scratchBytes int
	scales       map[int]deviceScale // per parameter node id, a metric's s
}

// deviceScale is a metric's scale on the device and the host slice it was
// uploaded from.
type deviceScale struct {
	ptr  cuda.Ptr
	from []float64
}

// step is one queued piece of device work.
type step interface{ run(d *cuda.Device) error }

// kernelStep launches a kernel with its argument struct, built once at
// compile time.
type kernelStep struct {
	name        string
	fn          uintptr
	grid, block [3]uint32
	args        unsafe.Pointer // to one of cuda's *Args structs, kept alive by keep
	keep        any
}

func (s *kernelStep) run(d *cuda.Device) error { return d.Launch(s.fn, s.grid, s.block, 0, s.args) }

// gemmStep is a batch of products; a, b and c are device arrays of
// per-replica pointers.
type gemmStep struct {
	f32, ta, tb   bool
	m, n, k       int
	a, b, c       cuda.Ptr
	lda, ldb, ldc int
	beta          float64
	batch         int
}

func (s *gemmStep) run(d *cuda.Device) error {
	return d.Gemm(s.f32, s.ta, s.tb, s.m, s.n, s.k, 1, s.a, s.lda, s.b, s.ldb, s.beta, s.c, s.ldc, s.batch)
}

// zeroStep clears device memory.
type zeroStep struct {
	p     cuda.Ptr
	bytes int
}

func (s *zeroStep) run(d *cuda.Device) error { return d.Zero(s.p, s.bytes) }

const blockThreads = 256

// grid1 is a one-dimensional launch over total threads; the kernels'
// grid-stride loops cover whatever a capped grid leaves.
func grid1(total int64) (grid, block [3]uint32) {
	blocks := max(1, min((total+blockThreads-1)/blockThreads, 1<<20))
	return [3]uint32{uint32(blocks), 1, 1}, [3]uint32{blockThreads, 1, 1}
}

func compileCUDA(g *Graph, f32 bool, outputs []*Node) (DeviceProgram, error) {
	pl, err := planProgram(g, outputs, f32)
	if err != nil && f32 {
		// An op without a float32 kernel may have no CUDA kernel either
		// (the CPU's linear algebra): say that, which float64 would not
		// cure, rather than send the user to float64 first.
		if pl64, err64 := planProgram(g, outputs, false); err64 == nil {
			if err := checkLowerings(pl64); err != nil {
				return nil, err
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := checkLowerings(pl); err != nil {
		return nil, err
	}
	dev, err := openGPU()
	if err != nil {
		return nil, err
	}
	if err := dev.Enter(); err != nil {
		return nil, err
	}
	defer dev.Exit()
	p := &cudaProgram{dev: dev, g: g, plan: pl, f32: f32, elem: 8,
		described: fmt.Sprintf("cuda: %s (compute capability %d.%d)", dev.Name, dev.Capability[0], dev.Capability[1])}
	if f32 {
		p.elem = 4
	}
	if err := p.allocate(); err != nil {
		p.Close()
		return nil, err
	}
	if err := p.lower(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *cudaProgram) reps(n *Node) int {
	if n.replicated {
		return p.g.replicas
	}
	return 1
}

// rstride is the elements between replicas of n's buffer: 0 when shared.
func (p *cudaProgram) rstride(n *Node) int64 {
	if n.replicated {
		return int64(n.shape.Size())
	}
	return 0
}

// align rounds a byte offset up to cuBLAS's and the loads' preferred 256.
func align(b int) int { return (b + 255) &^ 255 }

func (p *cudaProgram) alloc(bytes int) (cuda.Ptr, error) {
	ptr, err := p.dev.Alloc(bytes)
	if err == nil && ptr != 0 {
		p.allocs = append(p.allocs, ptr)
	}
	return ptr, err
}

// allocate lays every value in one allocation and every gradient in
// another, uploads the constants and allocates the indices.
func (p *cudaProgram) allocate() error {
	p.vals = make([]cuda.Ptr, len(p.g.nodes))
	p.grads = make([]cuda.Ptr, len(p.g.nodes))
	valOff := make([]int, len(p.g.nodes))
	gradOff := make([]int, len(p.g.nodes))
	valBytes, gradBytes := 0, 0
	for _, n := range p.plan.order {
		if aliasOf(n) != nil {
			continue
		}
		bytes := p.reps(n) * n.shape.Size() * p.elem
		valOff[n.id], valBytes = valBytes, valBytes+align(bytes)
		if p.plan.needGrad[n.id] {
			gradOff[n.id], gradBytes = gradBytes, gradBytes+align(bytes)
		}
	}
	vals, err := p.alloc(valBytes)
	if err != nil {
		return err
	}
	p.gradArena, err = p.alloc(gradBytes)
	if err != nil {
		return err
	}
	p.gradBytes = gradBytes
	for _, n := range p.plan.order {
		if in := aliasOf(n); in != nil {
			p.vals[n.id], p.grads[n.id] = p.vals[in.id], p.grads[in.id]
			continue
		}
		p.vals[n.id] = vals + cuda.Ptr(valOff[n.id])
		if p.plan.needGrad[n.id] {
			p.grads[n.id] = p.gradArena + cuda.Ptr(gradOff[n.id])
		}
		if n.isConst() {
			if err := p.upload(p.vals[n.id], constantOf[float64](n)); err != nil {
				return err
			}
		}
	}
	p.idx = make([]cuda.Ptr, len(p.g.indices))
	for _, ix := range p.g.indices {
		size := ix.n
		if ix.replicated {
			size *= p.g.replicas
		}
		if p.idx[ix.id], err = p.alloc(4 * size); err != nil {
			return err
		}
		if err := p.dev.Zero(p.idx[ix.id], 4*size); err != nil { // row 0: valid for any gathered tensor
			return err
		}
	}
	return nil
}

// upload converts float64 host values to the program's type and copies
// them to dst.
func (p *cudaProgram) upload(dst cuda.Ptr, data []float64) error {
	if p.f32 {
		p.stage32 = grow(p.stage32, len(data))
		for i, v := range data {
			p.stage32[i] = float32(v)
		}
		return p.dev.Upload(dst, unsafe.Pointer(unsafe.SliceData(p.stage32)), 4*len(data))
	}
	return p.dev.Upload(dst, unsafe.Pointer(unsafe.SliceData(data)), 8*len(data))
}

func (p *cudaProgram) download(dst []float64, src cuda.Ptr) error {
	if !p.f32 {
		return p.dev.Download(unsafe.Pointer(unsafe.SliceData(dst)), src, 8*len(dst))
	}
	p.stage32 = grow(p.stage32, len(dst))
	if err := p.dev.Download(unsafe.Pointer(unsafe.SliceData(p.stage32)), src, 4*len(dst)); err != nil {
		return err
	}
	for i, v := range p.stage32[:len(dst)] {
		dst[i] = float64(v)
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// kernel returns the launch of the named kernel family in the program's
// type, over total threads, with args (a pointer to a cuda *Args struct).
func (p *cudaProgram) kernel(name string, total int64, args unsafe.Pointer, keep any) (*kernelStep, error) {
	suffix := "_f64"
	if p.f32 {
		suffix = "_f32"
	}
	fn, err := p.dev.Kernel(name + suffix)
	if err != nil {
		return nil, err
	}
	grid, block := grid1(total)
	return &kernelStep{name: name, fn: fn, grid: grid, block: block, args: args, keep: keep}, nil
}

// lower turns every op of the plan into device steps: the forward pass,
// shared ops first, and per output the backward pass.
func (p *cudaProgram) lower() error {
	for _, list := range [][]*Node{p.plan.shared, p.plan.repl} {
		for _, n := range list {
			steps, err := p.lowerOp(n, true)
			if err != nil {
				return err
			}
			p.forward = append(p.forward, steps...)
		}
	}
	p.backward = make([][]step, len(p.plan.outputs))
	for i, rev := range p.plan.reverse {
		for _, n := range rev {
			steps, err := p.lowerOp(n, false)
			if err != nil {
				return err
			}
			p.backward[i] = append(p.backward[i], steps...)
		}
	}
	return nil
}

// checkLowerings names the first op of a plan the backend has no kernel
// for.
func checkLowerings(pl *programPlan) error {
	for _, n := range pl.order {
		if n.op != nil && aliasOf(n) == nil && lowering(n) == nil {
			return noKernel(n)
		}
	}
	return nil
}

// noKernel is the error for an op the CUDA backend cannot run.
func noKernel(n *Node) error {
	return fmt.Errorf("autodiff: %s has no CUDA kernel yet; run this model on the CPU (--device cpu)", n.op.Name())
}

// lowerOp returns the steps of node n's op, forward or backward.
func (p *cudaProgram) lowerOp(n *Node, fwd bool) ([]step, error) {
	lower := lowering(n)
	if lower == nil {
		return nil, noKernel(n)
	}
	return lower(p, fwd)
}

// lowering is how the backend lowers node n's op, or nil where it has no
// kernel for it. It is decided from the op alone, so that compileCUDA
// names an op it cannot run (stdlib's layers, say) before it opens the
// GPU or allocates anything.
func lowering(n *Node) func(p *cudaProgram, fwd bool) ([]step, error) {
	scalar := func(f *ScalarFunc) bool {
		if f == nil {
			return false
		}
		_, ok := cuda.ScalarFuncs[f.Name]
		return ok
	}
	switch op := n.op.(type) {
	case *elementwiseOp:
		if scalar(op.f) {
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerElementwise(n, op.f, op.plan, fwd) }
		}
	case unaryOp:
		f := &ScalarFunc{Name: op.f.Name, Arity: 1}
		if scalar(f) {
			return func(p *cudaProgram, fwd bool) ([]step, error) {
				plan, err := newBcastPlan(n.shape, []Shape{n.shape})
				if err != nil {
					return nil, err
				}
				return p.lowerElementwise(n, f, plan, fwd)
			}
		}
	case *dotOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerDot(n, op, fwd) }
	case *matmulOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerMatmul(n, op, fwd) }
	case *reduceOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerReduce(n, op, fwd) }
	case *gatherOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerRows(n, op.row, op.ix, fwd) }
	case *takeRowsOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerRows(n, op.row, nil, fwd) }
	case *softmaxOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerSoftmax(n, op, fwd) }
	case *transposeOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerTranspose(n, op, fwd) }
	case *concatOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerConcat(n, op, fwd) }
	case *sliceOp:
		return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerSlice(n, op, fwd) }
	case DeviceOp:
		k := op.DeviceKernel()
		switch k.Name {
		case "elementwise":
			if scalar(k.Func) {
				return func(p *cudaProgram, fwd bool) ([]step, error) {
					shapes := make([]Shape, len(n.ins))
					for i, in := range n.ins {
						shapes[i] = in.shape
					}
					plan, err := newBcastPlan(n.shape, shapes)
					if err != nil {
						return nil, err
					}
					return p.lowerElementwise(n, k.Func, plan, fwd)
				}
			}
		case "normal_sum":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerNormalSum(n, fwd) }
		case "categorical", "categorical_logit":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerCategorical(n, k, fwd) }
		case "lstm", "gru":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerRecurrent(n, k, fwd) }
		case "conv2d":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerConv2D(n, k, fwd) }
		case "max_pool2d", "avg_pool2d":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerPool(n, k, fwd) }
		case "layer_norm":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerLayerNorm(n, k, fwd) }
		case "dirichlet", "multi_normal_diag", "multi_normal_cholesky", "lkj_corr_cholesky",
			"simplex", "simplex_log_jacobian", "cholesky_factor_corr", "cholesky_factor_corr_log_jacobian":
			return func(p *cudaProgram, fwd bool) ([]step, error) { return p.lowerVec(n, k, fwd) }
		}
	}
	return nil
}

// operandGrad is the gradient buffer of operand i of n, 0 where none flows.
func (p *cudaProgram) operandGrad(n *Node, i int) cuda.Ptr { return p.grads[n.ins[i].id] }

func (p *cudaProgram) lowerElementwise(n *Node, f *ScalarFunc, plan *bcastPlan, fwd bool) ([]step, error) {
	id, ok := cuda.ScalarFuncs[f.Name]
	if !ok {
		return nil, noKernel(n)
	}
	a, err := p.ewArgs(n, plan)
	if err != nil {
		return nil, err
	}
	a.Func = id
	return p.ewStep(n, a, "ew", fwd)
}

// ewArgs fills the broadcast plan of n's operands into EwArgs.
func (p *cudaProgram) ewArgs(n *Node, plan *bcastPlan) (*cuda.EwArgs, error) {
	if len(n.ins) > cuda.MaxOperands || len(plan.outer)+1 > cuda.MaxRank {
		return nil, fmt.Errorf("autodiff: %s of rank %d on %d operands is past the CUDA kernel's limits (%d, %d)",
			n.op.Name(), len(plan.outer)+1, len(n.ins), cuda.MaxRank, cuda.MaxOperands)
	}
	a := &cuda.EwArgs{Out: p.vals[n.id], GOut: p.grads[n.id], N: int64(n.shape.Size()),
		Arity: int32(len(n.ins)), Rank: int32(len(plan.outer) + 1)}
	a.Total = a.N * int64(p.reps(n))
	for d, e := range plan.outer {
		a.Dims[d] = int32(e)
	}
	a.Dims[len(plan.outer)] = int32(plan.inner)
	for i, in := range n.ins {
		a.In[i], a.GIn[i], a.RStride[i] = p.vals[in.id], p.operandGrad(n, i), p.rstride(in)
		for d := range plan.outer {
			a.Strides[i][d] = int32(plan.strides[i][d])
		}
		a.Strides[i][len(plan.outer)] = int32(plan.innerStride[i])
	}
	return a, nil
}

// ewStep is the forward or backward launch of an ew or dot kernel; in
// the backward pass an operand smaller than the result (broadcast to it)
// takes its gradient by atomic adds.
func (p *cudaProgram) ewStep(n *Node, a *cuda.EwArgs, family string, fwd bool) ([]step, error) {
	total := a.Total
	if !fwd {
		elems := a.N
		if a.K > 0 {
			elems *= a.K
			total *= a.K
		}
		for i, in := range n.ins {
			if int64(in.shape.Size()) < elems {
				a.AtomicMask |= 1 << i
			}
		}
	}
	return one(p.kernel(kernelFor(family, fwd), total, unsafe.Pointer(a), a))
}

// kernelFor is the kernel of a family for the forward or backward pass.
func kernelFor(family string, fwd bool) string {
	if fwd {
		return family + "_forward"
	}
	return family + "_backward"
}

// one is a lowering of one kernel launch.
func one(s *kernelStep, err error) ([]step, error) {
	if err != nil {
		return nil, err
	}
	return []step{s}, nil
}

func (p *cudaProgram) lowerDot(n *Node, op *dotOp, fwd bool) ([]step, error) {
	a, err := p.ewArgs(n, op.plan)
	if err != nil {
		return nil, err
	}
	// The plan counts rows of k; so must the replica strides.
	a.K = int64(op.k)
	for i := range n.ins {
		a.RStride[i] /= a.K
	}
	return p.ewStep(n, a, "dot", fwd)
}

// lowerMatmul runs C = A·B, row-major, as cuBLAS's column-major Cᵀ = Bᵀ·Aᵀ,
// batched over replicas; backward, ∂A += ∂C·Bᵀ and ∂B += Aᵀ·∂C.
func (p *cudaProgram) lowerMatmul(n *Node, op *matmulOp, fwd bool) ([]step, error) {
	a, b := n.ins[0], n.ins[1]
	batch := p.reps(n)
	ptrs := func(base cuda.Ptr, node *Node) (cuda.Ptr, error) {
		list := make([]uint64, batch)
		for r := range list {
			list[r] = uint64(base) + uint64(r)*uint64(p.rstride(node)*int64(p.elem))
		}
		dst, err := p.alloc(8 * batch)
		if err != nil {
			return 0, err
		}
		return dst, p.dev.Upload(dst, unsafe.Pointer(&list[0]), 8*batch)
	}
	A, err := ptrs(p.vals[a.id], a)
	if err != nil {
		return nil, err
	}
	B, err := ptrs(p.vals[b.id], b)
	if err != nil {
		return nil, err
	}
	m, k, nn := op.m, op.k, op.n
	if fwd {
		C, err := ptrs(p.vals[n.id], n)
		if err != nil {
			return nil, err
		}
		return []step{&gemmStep{f32: p.f32, m: nn, n: m, k: k, a: B, lda: nn, b: A, ldb: k, c: C, ldc: nn, batch: batch}}, nil
	}
	dC, err := ptrs(p.grads[n.id], n)
	if err != nil {
		return nil, err
	}
	var steps []step
	if ga := p.grads[a.id]; ga != 0 {
		dA, err := ptrs(ga, a)
		if err != nil {
			return nil, err
		}
		steps = append(steps, &gemmStep{f32: p.f32, ta: true, m: k, n: m, k: nn, a: B, lda: nn, b: dC, ldb: nn, beta: 1, c: dA, ldc: k, batch: batch})
	}
	if gb := p.grads[b.id]; gb != 0 {
		dB, err := ptrs(gb, b)
		if err != nil {
			return nil, err
		}
		steps = append(steps, &gemmStep{f32: p.f32, tb: true, m: nn, n: k, k: m, a: dC, lda: nn, b: A, ldb: k, beta: 1, c: dB, ldc: nn, batch: batch})
	}
	return steps, nil
}

func (p *cudaProgram) lowerReduce(n *Node, op *reduceOp, fwd bool) ([]step, error) {
	x := n.ins[0]
	a := &cuda.ReduceArgs{In: p.vals[x.id], Out: p.vals[n.id], GIn: p.grads[x.id], GOut: p.grads[n.id],
		RsIn: p.rstride(x), RsOut: p.rstride(n), Outer: int64(op.outer), N: int64(op.n), Inner: int64(op.inner),
		Kind: int32(op.kind)}
	a.Outputs = a.Outer * a.Inner * int64(p.reps(n))
	if fwd {
		// One block per output element (the kernel's shared memory holds
		// 256 partial sums).
		s, err := p.kernel("reduce_forward", 0, unsafe.Pointer(a), a)
		if err != nil {
			return nil, err
		}
		s.grid = [3]uint32{uint32(min(a.Outputs, 1<<20)), 1, 1}
		return []step{s}, nil
	}
	total := a.Outputs * a.N
	if op.kind == reduceMax {
		total = a.Outputs
	}
	return one(p.kernel("reduce_backward", total, unsafe.Pointer(a), a))
}

// lowerRows gathers rows of operand 0 by the indices ix or, with ix nil,
// by the values of operand 1 (take_rows).
func (p *cudaProgram) lowerRows(n *Node, row int, ix *Indices, fwd bool) ([]step, error) {
	x := n.ins[0]
	a := &cuda.RowsArgs{In: p.vals[x.id], Out: p.vals[n.id], GIn: p.grads[x.id], GOut: p.grads[n.id],
		RsIn: p.rstride(x), RsOut: p.rstride(n), Row: int64(row), RowsIn: int64(x.shape[0])}
	if ix != nil {
		a.Idx, a.RowsOut = p.idx[ix.id], int64(ix.n)
		if ix.replicated {
			a.RsIdx = int64(ix.n)
		}
	} else {
		v := n.ins[1]
		a.Vals, a.RsIdx, a.RowsOut = p.vals[v.id], p.rstride(v), int64(v.shape.Size())
	}
	a.Total = a.RowsOut * a.Row * int64(p.reps(n))
	return one(p.kernel(kernelFor("rows", fwd), a.Total, unsafe.Pointer(a), a))
}

func (p *cudaProgram) lowerNormalSum(n *Node, fwd bool) ([]step, error) {
	y, mu, sigma := n.ins[0], n.ins[1], n.ins[2]
	a := &cuda.NormalSumArgs{Y: p.vals[y.id], Mu: p.vals[mu.id], Sigma: p.vals[sigma.id], Out: p.vals[n.id],
		GY: p.grads[y.id], GMu: p.grads[mu.id], GSigma: p.grads[sigma.id], GOut: p.grads[n.id],
		RsY: p.rstride(y), RsMu: p.rstride(mu), RsSigma: p.rstride(sigma), N: int64(y.shape.Size()),
		Replicas: int32(p.reps(n))}
	// Chunks of about 8,192 elements, 32 per thread of a block.
	a.Blocks = int32(min(max(1, (a.N+8191)/8192), 256))
	var err error
	if a.Partial, err = p.alloc(16 * int(a.Replicas) * int(a.Blocks)); err != nil {
		return nil, err
	}
	s, err := p.kernel(kernelFor("normal_sum", fwd), 0, unsafe.Pointer(a), a)
	if err != nil {
		return nil, err
	}
	s.grid = [3]uint32{uint32(min(int64(a.Replicas)*int64(a.Blocks), 1<<20)), 1, 1} // one block per chunk
	finish, err := p.kernel(kernelFor("normal_sum", fwd)+"_finish", int64(a.Replicas), unsafe.Pointer(a), a)
	if err != nil {
		return nil, err
	}
	return []step{s, finish}, nil
}

func (p *cudaProgram) lowerCategorical(n *Node, k DeviceKernel, fwd bool) ([]step, error) {
	y, theta := n.ins[0], n.ins[1]
	a := &cuda.CategoricalArgs{Y: p.vals[y.id], Theta: p.vals[theta.id], Out: p.vals[n.id],
		GTheta: p.grads[theta.id], GOut: p.grads[n.id], RsY: p.rstride(y), RsTheta: p.rstride(theta),
		RsOut: p.rstride(n), N: int64(n.shape.Size()), K: int32(k.Ints[0])}
	if k.Name == "categorical_logit" {
		a.Logit = 1
	}
	a.Total = a.N * int64(p.reps(n))
	for i, dst := range []*cuda.Addr{&a.YAt, &a.RowAt} {
		if i >= len(k.Tables) || k.Tables[i] == nil {
			continue
		}
		table := make([]int32, len(k.Tables[i]))
		for j, v := range k.Tables[i] {
			table[j] = int32(v)
		}
		ptr, err := p.alloc(4 * len(table))
		if err != nil {
			return nil, err
		}
		if err := p.dev.Upload(ptr, unsafe.Pointer(&table[0]), 4*len(table)); err != nil {
			return nil, err
		}
		*dst = ptr
	}
	return one(p.kernel(kernelFor("categorical", fwd), a.Total, unsafe.Pointer(a), a))
}

func (p *cudaProgram) run(steps []step) error {
	for _, s := range steps {
		var err error
		if profile.on {
			err = p.timed(s)
		} else {
			err = s.run(p.dev)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *cudaProgram) has(n *Node) bool {
	return n != nil && n.g == p.g && n.id >= 0 && n.id < len(p.vals) && p.vals[n.id] != 0
}

// Set implements DeviceProgram.
func (p *cudaProgram) Set(n *Node, data []float64) error {
	if !p.has(n) || n.op != nil || n.isConst() {
		return fmt.Errorf("autodiff: Set: %v is not an input of this program", n)
	}
	if want := p.reps(n) * n.shape.Size(); len(data) != want {
		return fmt.Errorf("autodiff: input %q needs %d values (%d replicas × %v), got %d",
			n.name, want, p.reps(n), n.shape, len(data))
	}
	for i, v := range data {
		if math.IsNaN(v) {
			return fmt.Errorf("autodiff: input %q: value %d is NaN", n.name, i)
		}
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	return p.upload(p.vals[n.id], data)
}

// SetIndices implements DeviceProgram.
func (p *cudaProgram) SetIndices(ix *Indices, rows []int) error {
	if ix == nil || ix.g != p.g || ix.id >= len(p.idx) {
		return fmt.Errorf("autodiff: SetIndices: %v do not belong to this program", ix)
	}
	size := ix.n
	if ix.replicated {
		size *= p.g.replicas
	}
	if len(rows) != size {
		return fmt.Errorf("autodiff: indices %q need %d values, got %d", ix.name, size, len(rows))
	}
	p.stageIdx = grow(p.stageIdx, size)
	for i, r := range rows {
		if r < 0 || (ix.bound >= 0 && r >= ix.bound) {
			return fmt.Errorf("autodiff: indices %q: value %d is %d, outside [0, %d)", ix.name, i, r, ix.bound)
		}
		p.stageIdx[i] = int32(r)
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	return p.dev.Upload(p.idx[ix.id], unsafe.Pointer(unsafe.SliceData(p.stageIdx)), 4*size)
}

// Forward implements DeviceProgram.
func (p *cudaProgram) Forward() error {
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	return p.run(p.forward)
}

// ForwardBackward implements DeviceProgram.
func (p *cudaProgram) ForwardBackward(loss *Node) error {
	out := -1
	for i, o := range p.plan.outputs {
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
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	if err := p.run(p.forward); err != nil {
		return err
	}
	if err := p.dev.Zero(p.gradArena, p.gradBytes); err != nil {
		return err
	}
	if seed := p.grads[loss.id]; seed != 0 {
		a := &cuda.FillArgs{P: seed, N: int64(p.reps(loss)), V: 1}
		s, err := p.kernel("fill", a.N, unsafe.Pointer(a), a)
		if err != nil {
			return err
		}
		if err := s.run(p.dev); err != nil {
			return err
		}
	}
	return p.run(p.backward[out])
}

// Read implements DeviceProgram.
func (p *cudaProgram) Read(n *Node, dst []float64) error {
	if !p.has(n) {
		return fmt.Errorf("autodiff: Read: %v is not computed by this program", n)
	}
	return p.read(n, p.vals[n.id], dst)
}

// ReadGrad implements DeviceProgram.
func (p *cudaProgram) ReadGrad(n *Node, dst []float64) error {
	if !p.has(n) {
		return fmt.Errorf("autodiff: ReadGrad: %v is not computed by this program", n)
	}
	if p.grads[n.id] == 0 {
		clear(dst)
		return nil
	}
	return p.read(n, p.grads[n.id], dst)
}

func (p *cudaProgram) read(n *Node, src cuda.Ptr, dst []float64) error {
	if want := p.reps(n) * n.shape.Size(); len(dst) != want {
		return fmt.Errorf("autodiff: reading %v needs %d values, got room for %d", n, want, len(dst))
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	return p.download(dst, src)
}

// Move implements DeviceProgram.
func (p *cudaProgram) Move(n *Node, m *DeviceMove) error {
	if err := p.isParam(n, "Move"); err != nil {
		return err
	}
	P, size := p.g.replicas, n.shape.Size()
	if len(m.LR) != P || len(m.Temperature) != P {
		return fmt.Errorf("autodiff: Move: %d step sizes and %d temperatures for %d replicas", len(m.LR), len(m.Temperature), P)
	}
	if m.Scale != nil && len(m.Scale) != size {
		return fmt.Errorf("autodiff: Move: %d scales for %v's %d elements", len(m.Scale), n, size)
	}
	if !(m.Friction >= 0 && m.Friction <= 1) {
		return fmt.Errorf("autodiff: Move: friction %v is outside [0, 1]", m.Friction)
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	if p.steps == 0 {
		var err error
		if p.steps, err = p.alloc(16 * P); err != nil {
			return err
		}
		p.stepsHost = make([]float64, 2*P)
	}
	// The parameters of one point share their step sizes: upload them
	// when they change, not once per parameter.
	if !slices.Equal(p.stepsHost[:P], m.LR) || !slices.Equal(p.stepsHost[P:], m.Temperature) {
		copy(p.stepsHost, m.LR)
		copy(p.stepsHost[P:], m.Temperature)
		if err := p.dev.Upload(p.steps, unsafe.Pointer(&p.stepsHost[0]), 16*P); err != nil {
			return err
		}
	}
	a := &cuda.MoveArgs{Theta: p.vals[n.id], Grad: p.grads[n.id], LR: p.steps, Temp: p.steps + cuda.Ptr(8*P),
		N: int64(size), Offset: int64(m.Offset), Replicas: int64(P), Seed: m.Seed, Step: uint64(m.Step), Friction: m.Friction}
	if m.Scale != nil {
		sc, err := p.scaleOf(n, m.Scale)
		if err != nil {
			return err
		}
		a.Scale = sc
	}
	if m.Friction > 0 {
		v, err := p.momentumOf(n)
		if err != nil {
			return err
		}
		a.Momentum = v
	}
	s, err := p.kernel("move", (a.N+3)/4*a.Replicas, unsafe.Pointer(a), a)
	if err != nil {
		return err
	}
	return p.run([]step{s})
}

// scaleOf is n's metric scale on the device, uploaded (in double, as the
// kernel reads it) when the slice differs from the last one's.
func (p *cudaProgram) scaleOf(n *Node, scale []float64) (cuda.Ptr, error) {
	if p.scales == nil {
		p.scales = map[int]deviceScale{}
	}
	sc, ok := p.scales[n.id]
	if ok && unsafe.SliceData(sc.from) == unsafe.SliceData(scale) && len(sc.from) == len(scale) {
		return sc.ptr, nil
	}
	if !ok {
		ptr, err := p.alloc(8 * len(scale))
		if err != nil {
			return 0, err
		}
		sc.ptr = ptr
	}
	if err := p.dev.Upload(sc.ptr, unsafe.Pointer(unsafe.SliceData(scale)), 8*len(scale)); err != nil {
		return 0, err
	}
	sc.from = scale
	p.scales[n.id] = sc
	return sc.ptr, nil
}

// momentumOf is n's SGHMC momentum on the device, allocated as zeros on
// first use.
func (p *cudaProgram) momentumOf(n *Node) (cuda.Ptr, error) {
	if v, ok := p.momentum[n.id]; ok {
		return v, nil
	}
	bytes := p.reps(n) * n.shape.Size() * p.elem
	v, err := p.alloc(bytes)
	if err != nil {
		return 0, err
	}
	if err := p.dev.Zero(v, bytes); err != nil {
		return 0, err
	}
	if p.momentum == nil {
		p.momentum = map[int]cuda.Ptr{}
	}
	p.momentum[n.id] = v
	return v, nil
}

// SetGrad implements DeviceProgram.
func (p *cudaProgram) SetGrad(n *Node, data []float64) error {
	if err := p.paramData(n, "SetGrad", data); err != nil {
		return err
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	return p.upload(p.grads[n.id], data)
}

// Momentum implements DeviceProgram.
func (p *cudaProgram) Momentum(n *Node, dst []float64) error {
	if err := p.paramData(n, "Momentum", dst); err != nil {
		return err
	}
	v, ok := p.momentum[n.id]
	if !ok {
		clear(dst)
		return nil
	}
	return p.read(n, v, dst)
}

// SetMomentum implements DeviceProgram.
func (p *cudaProgram) SetMomentum(n *Node, src []float64) error {
	if err := p.paramData(n, "SetMomentum", src); err != nil {
		return err
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	v, err := p.momentumOf(n)
	if err != nil {
		return err
	}
	return p.upload(v, src)
}

// SwapReplicas implements DeviceProgram.
func (p *cudaProgram) SwapReplicas(n *Node, a, b int) error {
	if err := p.checkReplicas(n, "SwapReplicas", a, b); err != nil || a == b {
		return err
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	bytes := n.shape.Size() * p.elem
	if p.scratch == 0 || p.scratchBytes < bytes {
		var err error
		if p.scratch, err = p.alloc(bytes); err != nil {
			return err
		}
		p.scratchBytes = bytes
	}
	for _, buf := range []cuda.Ptr{p.vals[n.id], p.grads[n.id]} {
		ra, rb := buf+cuda.Ptr(a*bytes), buf+cuda.Ptr(b*bytes)
		for _, c := range [][2]cuda.Ptr{{p.scratch, ra}, {ra, rb}, {rb, p.scratch}} {
			if err := p.dev.Copy(c[0], c[1], bytes); err != nil {
				return err
			}
		}
	}
	return nil
}

// CopyReplica implements DeviceProgram.
func (p *cudaProgram) CopyReplica(n *Node, dst, src int) error {
	if err := p.checkReplicas(n, "CopyReplica", dst, src); err != nil || dst == src {
		return err
	}
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	bytes := n.shape.Size() * p.elem
	for _, buf := range []cuda.Ptr{p.vals[n.id], p.grads[n.id]} {
		if err := p.dev.Copy(buf+cuda.Ptr(dst*bytes), buf+cuda.Ptr(src*bytes), bytes); err != nil {
			return err
		}
	}
	if v, ok := p.momentum[n.id]; ok {
		return p.dev.Zero(v+cuda.Ptr(dst*bytes), bytes)
	}
	return nil
}

// isParam checks that n is a parameter of this program, one the
// samplers' moves can take: replicated, with a gradient.
func (p *cudaProgram) isParam(n *Node, what string) error {
	if !p.has(n) || !n.param || !n.replicated || p.grads[n.id] == 0 {
		return fmt.Errorf("autodiff: %s: %v is not a parameter of this program", what, n)
	}
	return nil
}

// paramData checks that n is a parameter and data holds a value for each
// of its elements in every replica.
func (p *cudaProgram) paramData(n *Node, what string, data []float64) error {
	if err := p.isParam(n, what); err != nil {
		return err
	}
	if want := p.g.replicas * n.shape.Size(); len(data) != want {
		return fmt.Errorf("autodiff: %s of %v: %d values, for %d", what, n, len(data), want)
	}
	return nil
}

// checkReplicas checks that n is a parameter and that replicas a and b
// exist.
func (p *cudaProgram) checkReplicas(n *Node, what string, a, b int) error {
	if err := p.isParam(n, what); err != nil {
		return err
	}
	if P := p.g.replicas; a < 0 || a >= P || b < 0 || b >= P {
		return fmt.Errorf("autodiff: %s: replicas %d and %d of %d", what, a, b, P)
	}
	return nil
}

// Device implements DeviceProgram.
func (p *cudaProgram) Device() string { return p.described }

// Close implements DeviceProgram.
func (p *cudaProgram) Close() error {
	if err := p.dev.Enter(); err != nil {
		return err
	}
	defer p.dev.Exit()
	for _, ptr := range p.allocs {
		p.dev.Free(ptr)
	}
	p.allocs = nil
	return nil
}
