//go:build cuda

package autodiff

import (
	"fmt"
	"unsafe"

	"github.com/temper-ppl/temper/autodiff/internal/cuda"
)

// The lowering of stdlib's layers (conv.go, norm.go) to the kernels of
// layers.cuh and cuBLAS. A node that needs a gradient is replicated (it
// descends from a Param), so a gradient buffer always has a tensor per
// replica; a shared operand is read by every replica.

// layerPtrs uploads the per-replica pointers base + r·stride elements, r <
// batch: a batched GEMM's operand.
func (p *cudaProgram) layerPtrs(base cuda.Ptr, stride int64, batch int) (cuda.Ptr, error) {
	list := make([]uint64, batch)
	for r := range list {
		list[r] = uint64(base) + uint64(r)*uint64(stride*int64(p.elem))
	}
	dst, err := p.alloc(8 * batch)
	if err != nil {
		return 0, err
	}
	return dst, p.dev.Upload(dst, unsafe.Pointer(&list[0]), 8*batch)
}

// layerBlocks is a launch of one block per output (a block reduction each),
// grid-striding past 2²⁰.
func layerBlocks(s *kernelStep, outputs int64) *kernelStep {
	s.grid = [3]uint32{uint32(max(1, min(outputs, 1<<20))), 1, 1}
	return s
}

// lowerConv2D runs conv2d (k.Ints: batch, H, W, C, KH, KW, F, stride,
// padding, OH, OW) as im2col and a batched GEMM per replica, the result
// set to the bias first: out = cols·W + b, row-major, which is cuBLAS's
// column-major outᵀ = Wᵀ·colsᵀ. Backward, ∂W += colsᵀ·∂out, ∂cols =
// ∂out·Wᵀ gathered back to ∂x by conv_col2im, ∂b += ∂out's column sums.
// Pointwise filters (1 × 1, stride 1, no padding) use x as the columns.
// The backward pass rebuilds the columns in a buffer of its own (as the
// CPU's does), which then holds ∂cols.
func (p *cudaProgram) lowerConv2D(n *Node, k DeviceKernel, fwd bool) ([]step, error) {
	if len(k.Ints) != 11 {
		return nil, fmt.Errorf("autodiff: conv2d's device kernel needs 11 sizes, got %v", k.Ints)
	}
	v := k.Ints
	x, w, b := n.ins[0], n.ins[1], n.ins[2]
	a := cuda.ConvArgs{X: p.vals[x.id], B: p.vals[b.id], Out: p.vals[n.id],
		GX: p.grads[x.id], GB: p.grads[b.id], GOut: p.grads[n.id],
		RsX: p.rstride(x), RsB: p.rstride(b), RsOut: p.rstride(n), Batch: int64(v[0]),
		Height: int32(v[1]), Width: int32(v[2]), Channels: int32(v[3]), KH: int32(v[4]), KW: int32(v[5]),
		Filters: int32(v[6]), Stride: int32(v[7]), Padding: int32(v[8]), OH: int32(v[9]), OW: int32(v[10])}
	rows, patch, f := v[0]*v[9]*v[10], v[4]*v[5]*v[3], v[6]
	pointwise := v[4] == 1 && v[5] == 1 && v[7] == 1 && v[8] == 0
	reps := p.reps(n)
	launch := func(name string, total int64, a cuda.ConvArgs) (*kernelStep, error) {
		a.Total = total
		return p.kernel(name, total, unsafe.Pointer(&a), &a)
	}

	var steps []step
	gx, gw, gb := p.grads[x.id], p.grads[w.id], p.grads[b.id]
	// The columns: x itself for pointwise filters, else an im2col buffer
	// with a matrix per replica of x.
	cols, colsStride := p.vals[x.id], p.rstride(x)
	if !pointwise && (fwd || gw != 0 || gx != 0) {
		var err error
		if cols, err = p.alloc(p.reps(x) * rows * patch * p.elem); err != nil {
			return nil, err
		}
		colsStride = 0
		if x.replicated {
			colsStride = int64(rows * patch)
		}
		if fwd || gw != 0 {
			c := a
			c.Cols = cols
			s, err := launch("conv_im2col", int64(p.reps(x)*rows*patch), c)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s)
		}
	}
	colsPtrs, err := p.layerPtrs(cols, colsStride, reps)
	if err != nil {
		return nil, err
	}
	W, err := p.layerPtrs(p.vals[w.id], p.rstride(w), reps)
	if err != nil {
		return nil, err
	}
	if fwd {
		s, err := launch("conv_bias", int64(reps*rows*f), a)
		if err != nil {
			return nil, err
		}
		out, err := p.layerPtrs(p.vals[n.id], p.rstride(n), reps)
		if err != nil {
			return nil, err
		}
		return append(steps, s, &gemmStep{f32: p.f32, m: f, n: rows, k: patch, a: W, lda: f, b: colsPtrs, ldb: patch,
			beta: 1, c: out, ldc: f, batch: reps}), nil
	}
	dOut, err := p.layerPtrs(p.grads[n.id], p.rstride(n), reps)
	if err != nil {
		return nil, err
	}
	if gb != 0 {
		s, err := launch("conv_bias_backward", int64(reps*f), a)
		if err != nil {
			return nil, err
		}
		steps = append(steps, layerBlocks(s, int64(reps*f)))
	}
	if gw != 0 {
		dW, err := p.layerPtrs(gw, p.rstride(w), reps)
		if err != nil {
			return nil, err
		}
		steps = append(steps, &gemmStep{f32: p.f32, tb: true, m: f, n: patch, k: rows, a: dOut, lda: f, b: colsPtrs, ldb: patch,
			beta: 1, c: dW, ldc: f, batch: reps})
	}
	if gx != 0 {
		if pointwise {
			dX, err := p.layerPtrs(gx, p.rstride(x), reps)
			if err != nil {
				return nil, err
			}
			return append(steps, &gemmStep{f32: p.f32, ta: true, m: patch, n: rows, k: f, a: W, lda: f, b: dOut, ldb: f,
				beta: 1, c: dX, ldc: patch, batch: reps}), nil
		}
		// x is replicated (it has a gradient), so cols has a matrix per
		// replica, which ∂cols now overwrites.
		steps = append(steps, &gemmStep{f32: p.f32, ta: true, m: patch, n: rows, k: f, a: W, lda: f, b: dOut, ldb: f,
			c: colsPtrs, ldc: patch, batch: reps})
		c := a
		c.Cols, c.RsCols = cols, colsStride
		s, err := launch("conv_col2im", int64(reps*v[0]*v[1]*v[2]*v[3]), c)
		if err != nil {
			return nil, err
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// lowerPool runs max_pool2d and avg_pool2d (k.Ints: batch, H, W, C, size,
// stride, OH, OW): one thread per result element forward and for max's
// backward, one per element of x for avg's.
func (p *cudaProgram) lowerPool(n *Node, k DeviceKernel, fwd bool) ([]step, error) {
	if len(k.Ints) != 8 {
		return nil, fmt.Errorf("autodiff: %s's device kernel needs 8 sizes, got %v", k.Name, k.Ints)
	}
	v := k.Ints
	x := n.ins[0]
	a := &cuda.PoolArgs{In: p.vals[x.id], Out: p.vals[n.id], GIn: p.grads[x.id], GOut: p.grads[n.id],
		Batch: int64(v[0]), Height: int32(v[1]), Width: int32(v[2]), Channels: int32(v[3]),
		Window: int32(v[4]), Stride: int32(v[5]), OH: int32(v[6]), OW: int32(v[7])}
	if k.Name == "max_pool2d" {
		a.IsMax = 1
	}
	reps := int64(p.reps(n))
	a.Total = reps * int64(n.shape.Size())
	name := "pool_forward"
	switch {
	case fwd:
	case a.GIn == 0:
		return nil, nil
	case a.IsMax == 1:
		name = "max_pool_backward"
	default:
		name = "avg_pool_backward"
		a.Total = reps * int64(x.shape.Size())
	}
	return one(p.kernel(name, a.Total, unsafe.Pointer(a), a))
}

// lowerLayerNorm runs layer_norm over rows of k.Ints[0]: a block per row
// forward; backward, a block per row for ∂x (which keeps each row's
// moments in a buffer of this lowering) and then a block per (replica,
// column) for ∂γ and ∂β, one writer each.
func (p *cudaProgram) lowerLayerNorm(n *Node, k DeviceKernel, fwd bool) ([]step, error) {
	if len(k.Ints) != 1 || k.Ints[0] < 1 {
		return nil, fmt.Errorf("autodiff: layer_norm's device kernel needs the row length, got %v", k.Ints)
	}
	x, gamma, beta := n.ins[0], n.ins[1], n.ins[2]
	d := int64(k.Ints[0])
	a := &cuda.LayerNormArgs{X: p.vals[x.id], Gamma: p.vals[gamma.id], Beta: p.vals[beta.id], Out: p.vals[n.id],
		GX: p.grads[x.id], GGamma: p.grads[gamma.id], GBeta: p.grads[beta.id], GOut: p.grads[n.id],
		RsX: p.rstride(x), RsGamma: p.rstride(gamma), RsBeta: p.rstride(beta), RsOut: p.rstride(n),
		Rows: int64(n.shape.Size()) / d, D: d, Replicas: int64(p.reps(n))}
	rowBlocks := a.Rows * a.Replicas
	if fwd {
		s, err := p.kernel("layer_norm_forward", 0, unsafe.Pointer(a), a)
		if err != nil {
			return nil, err
		}
		return []step{layerBlocks(s, rowBlocks)}, nil
	}
	if a.GX == 0 && a.GGamma == 0 && a.GBeta == 0 {
		return nil, nil
	}
	if a.GGamma != 0 || a.GBeta != 0 {
		var err error
		if a.Stats, err = p.alloc(int(16 * rowBlocks)); err != nil {
			return nil, err
		}
	}
	s, err := p.kernel("layer_norm_backward", 0, unsafe.Pointer(a), a)
	if err != nil {
		return nil, err
	}
	steps := []step{layerBlocks(s, rowBlocks)}
	if a.Stats != 0 {
		s, err := p.kernel("layer_norm_params", 0, unsafe.Pointer(a), a)
		if err != nil {
			return nil, err
		}
		steps = append(steps, layerBlocks(s, a.Replicas*d))
	}
	return steps, nil
}
