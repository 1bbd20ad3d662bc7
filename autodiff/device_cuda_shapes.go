//go:build cuda

package autodiff

import (
	"fmt"
	"unsafe"

	"github.com/temper-ppl/temper/autodiff/internal/cuda"
)

// The lowering of softmax and the shape ops (transpose, concat, slice) to
// shapes.cuh's kernels. reshape needs none: it aliases its operand's
// buffers (aliasOf).

// lowerSoftmax runs softmax or log_softmax with one block per row along
// the axis, as reduce_forward does.
func (p *cudaProgram) lowerSoftmax(n *Node, op *softmaxOp, fwd bool) ([]step, error) {
	x := n.ins[0]
	a := &cuda.SoftmaxArgs{In: p.vals[x.id], Out: p.vals[n.id], GIn: p.grads[x.id], GOut: p.grads[n.id],
		RsIn: p.rstride(x), RsOut: p.rstride(n), Outer: int64(op.outer), N: int64(op.n), Inner: int64(op.inner)}
	if op.log {
		a.Kind = 1
	}
	a.Rows = a.Outer * a.Inner * int64(p.reps(n))
	s, err := p.kernel(kernelFor("softmax", fwd), 0, unsafe.Pointer(a), a)
	if err != nil {
		return nil, err
	}
	s.grid = [3]uint32{uint32(min(a.Rows, 1<<20)), 1, 1}
	return []step{s}, nil
}

// lowerTranspose merges the result's axes that stay contiguous in the
// operand (and drops those of extent 1), so that any rank whose merged
// form fits the kernel's MaxRank runs.
func (p *cudaProgram) lowerTranspose(n *Node, op *transposeOp, fwd bool) ([]step, error) {
	x := n.ins[0]
	var dims, strides []int
	for d, e := range op.out {
		switch {
		case e == 1:
		case len(dims) > 0 && strides[len(strides)-1] == op.strides[d]*e:
			dims[len(dims)-1] *= e
			strides[len(strides)-1] = op.strides[d]
		default:
			dims, strides = append(dims, e), append(strides, op.strides[d])
		}
	}
	if len(dims) > cuda.MaxRank {
		return nil, fmt.Errorf("autodiff: transpose of %v to %v has %d axes after merging, past the CUDA kernel's %d",
			x.shape, n.shape, len(dims), cuda.MaxRank)
	}
	a := &cuda.TransposeArgs{In: p.vals[x.id], Out: p.vals[n.id], GIn: p.grads[x.id], GOut: p.grads[n.id],
		RsIn: p.rstride(x), RsOut: p.rstride(n), N: int64(n.shape.Size()), Rank: int32(len(dims))}
	a.Total = a.N * int64(p.reps(n))
	for d := range dims {
		a.Dims[d], a.Strides[d] = int32(dims[d]), int32(strides[d])
	}
	return one(p.kernel(kernelFor("transpose", fwd), a.Total, unsafe.Pointer(a), a))
}

// blockCopy is one block_copy launch: outer rows of width elements from
// in (rows of inRow, from inOff) to out (rows of outRow, from outOff).
func (p *cudaProgram) blockCopy(in, out *Node, outer, width, inRow, inOff, outRow, outOff int, fwd bool) (*kernelStep, error) {
	a := &cuda.BlockCopyArgs{In: p.vals[in.id], Out: p.vals[out.id], GIn: p.grads[in.id], GOut: p.grads[out.id],
		RsIn: p.rstride(in), RsOut: p.rstride(out), Outer: int64(outer), Width: int64(width),
		InRow: int64(inRow), InOff: int64(inOff), OutRow: int64(outRow), OutOff: int64(outOff)}
	a.Total = a.Outer * a.Width * int64(p.reps(out))
	return p.kernel(kernelFor("block_copy", fwd), a.Total, unsafe.Pointer(a), a)
}

func (p *cudaProgram) lowerSlice(n *Node, op *sliceOp, fwd bool) ([]step, error) {
	w := (op.end - op.start) * op.inner
	return one(p.blockCopy(n.ins[0], n, op.outer, w, op.n*op.inner, op.start*op.inner, w, 0, fwd))
}

// lowerConcat copies each operand into its columns of the result, one
// launch per operand; backward, each takes its columns of the gradient.
func (p *cudaProgram) lowerConcat(n *Node, op *concatOp, fwd bool) ([]step, error) {
	total := 0
	for _, k := range op.ns {
		total += k
	}
	var steps []step
	pos := 0
	for i, in := range n.ins {
		w := op.ns[i] * op.inner
		if fwd || p.grads[in.id] != 0 {
			s, err := p.blockCopy(in, n, op.outer, w, w, 0, total*op.inner, pos, fwd)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s)
		}
		pos += w
	}
	return steps, nil
}

// lowerVec lowers stdlib's vector densities and the simplex transform
// (DeviceKernel names "dirichlet", "multi_normal_diag",
// "multi_normal_cholesky", "lkj_corr_cholesky", and the transforms
// "simplex" and "cholesky_factor_corr" with their "_log_jacobian"): one
// thread per result row (per vector, or per matrix), k the kernel's
// Ints[0].
func (p *cudaProgram) lowerVec(n *Node, k DeviceKernel, fwd bool) ([]step, error) {
	if len(n.ins) > 4 || len(k.Ints) == 0 {
		return nil, noKernel(n)
	}
	a := &cuda.VecArgs{Out: p.vals[n.id], GOut: p.grads[n.id], RsOut: p.rstride(n), K: int32(k.Ints[0]),
		N: int64(n.shape.Size())}
	for i, in := range n.ins {
		a.In[i], a.GIn[i], a.Rs[i] = p.vals[in.id], p.grads[in.id], p.rstride(in)
	}
	for i, t := range k.Tables {
		if t == nil {
			continue
		}
		ptr, err := p.table(t)
		if err != nil {
			return nil, err
		}
		a.At[i] = ptr
	}
	family, scratch := "", 0
	switch k.Name {
	case "dirichlet":
		family = "dirichlet"
	case "multi_normal_diag":
		family = "mvn_diag"
	case "multi_normal_cholesky":
		family, scratch = "mvn_cholesky", 2*k.Ints[0]
	case "simplex", "simplex_log_jacobian":
		family = "simplex"
		if k.Name == "simplex_log_jacobian" {
			a.Kind = 1
		}
		if !fwd {
			scratch = k.Ints[0]
		}
		a.N = int64(k.Ints[1]) // rows: the value has k per row
	case "cholesky_factor_corr", "cholesky_factor_corr_log_jacobian":
		family = "corr_cholesky"
		if k.Name == "cholesky_factor_corr_log_jacobian" {
			a.Kind = 1
		} else if !fwd {
			scratch = k.Ints[0]
		}
		a.N = int64(k.Ints[1])
	case "lkj_corr_cholesky":
		family = "lkj"
	default:
		return nil, noKernel(n)
	}
	a.Total = a.N * int64(p.reps(n))
	if scratch > 0 {
		ptr, err := p.alloc(8 * scratch * int(a.Total))
		if err != nil {
			return nil, err
		}
		a.Scratch = ptr
	}
	return one(p.kernel(kernelFor(family, fwd), a.Total, unsafe.Pointer(a), a))
}

// table uploads an index table as int32.
func (p *cudaProgram) table(t []int) (cuda.Ptr, error) {
	v := make([]int32, len(t))
	for i, x := range t {
		v[i] = int32(x)
	}
	ptr, err := p.alloc(4 * len(v))
	if err != nil || len(v) == 0 {
		return ptr, err
	}
	return ptr, p.dev.Upload(ptr, unsafe.Pointer(&v[0]), 4*len(v))
}
