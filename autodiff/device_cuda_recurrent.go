//go:build cuda

package autodiff

import (
	"fmt"
	"unsafe"

	"github.com/temper-ppl/temper/autodiff/internal/cuda"
)

// The recurrent layers of stdlib (recurrent.go: lstm, gru) on the device,
// in the CPU op's time-major layout: rnn_prepare copies x [B, T, D] to xt
// [T, B, D] and fills every step's gate pre-activations z [T, B, G·H] with
// the bias; one batched product adds xt·W to all of them; then per step a
// product adds h_{t−1}·U to that step's pre-activations (the GRU's goes to
// a buffer r, since its reset gate scales the candidate's part) and a gate
// kernel activates them and sets the states. The backward pass runs the
// steps from the last to the first, a gate-gradient kernel and a product
// through Uᵀ each, then ∂U, ∂W and ∂x as products over all T·B rows and
// ∂b as column sums. Every step's gates and states live in buffers
// allocated here, per replica of the node, for the backward pass.

// rnnShape is DeviceKernel's Ints of a recurrent op: batch, steps, D, H,
// gates, seq (0 or 1).
type rnnShape struct {
	batch, steps, d, h, gates int
	seq                       bool
}

// rnnForward is a recurrent node's forward pass: its steps and the
// buffers the backward pass reads, which finds it among the program's
// forward steps.
type rnnForward struct {
	n     *Node
	s     rnnShape
	args  cuda.RnnArgs // the buffers, sizes and strides; t and seq per kernel
	steps []step
	// backward's scratch: dz (and the GRU's dzh), dh and dc; allocated by
	// the first backward lowering, shared by every output's.
	dz, dzh, dhc cuda.Ptr
}

func (f *rnnForward) run(d *cuda.Device) error {
	for _, s := range f.steps {
		if err := s.run(d); err != nil {
			return err
		}
	}
	return nil
}

// ptrTable collects the per-replica pointer arrays of a lowering's
// products in one device allocation, uploaded once.
type ptrTable struct {
	host []uint64
	fix  []func(base cuda.Ptr)
}

// gemm queues a row-major product C = op(A)·op(B) (op(A) m×k) as cuBLAS's
// column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, batched over the lists of per-batch
// addresses.
func (tb *ptrTable) gemm(f32, ta, tbt bool, m, n, k int, a []uint64, lda int, b []uint64, ldb int, beta float64, c []uint64, ldc int) *gemmStep {
	s := &gemmStep{f32: f32, ta: tbt, tb: ta, m: n, n: m, k: k, lda: ldb, ldb: lda, ldc: ldc, beta: beta, batch: len(c)}
	offs := make([]int, 3)
	for i, list := range [][]uint64{b, a, c} {
		offs[i] = len(tb.host)
		tb.host = append(tb.host, list...)
	}
	tb.fix = append(tb.fix, func(base cuda.Ptr) {
		s.a, s.b, s.c = base+cuda.Ptr(8*offs[0]), base+cuda.Ptr(8*offs[1]), base+cuda.Ptr(8*offs[2])
	})
	return s
}

func (tb *ptrTable) commit(p *cudaProgram) error {
	if len(tb.host) == 0 {
		return nil
	}
	base, err := p.alloc(8 * len(tb.host))
	if err != nil {
		return err
	}
	if err := p.dev.Upload(base, unsafe.Pointer(&tb.host[0]), 8*len(tb.host)); err != nil {
		return err
	}
	for _, f := range tb.fix {
		f(base)
	}
	return nil
}

// reps64 lists, per replica r of a batch of P, base + (r·rs + off)
// elements, as byte addresses.
func (p *cudaProgram) reps64(P int, base cuda.Ptr, rs, off int64) []uint64 {
	list := make([]uint64, P)
	for r := range list {
		list[r] = uint64(base) + uint64((int64(r)*rs+off)*int64(p.elem))
	}
	return list
}

func rnnShapeOf(k DeviceKernel) rnnShape {
	return rnnShape{batch: k.Ints[0], steps: k.Ints[1], d: k.Ints[2], h: k.Ints[3], gates: k.Ints[4], seq: k.Ints[5] != 0}
}

// lowerRecurrent lowers an lstm or gru node.
func (p *cudaProgram) lowerRecurrent(n *Node, k DeviceKernel, fwd bool) ([]step, error) {
	if len(k.Ints) != 6 || len(n.ins) != 4 {
		return nil, fmt.Errorf("autodiff: %s: a recurrent kernel needs 4 operands and 6 sizes", k.Name)
	}
	s := rnnShapeOf(k)
	if fwd {
		f, err := p.rnnForward(n, k.Name, s)
		if err != nil {
			return nil, err
		}
		return []step{f}, nil
	}
	for _, st := range p.forward {
		if f, ok := st.(*rnnForward); ok && f.n == n {
			return p.rnnBackward(f, k.Name)
		}
	}
	return nil, fmt.Errorf("autodiff: %s: backward lowered before its forward pass", k.Name)
}

func (p *cudaProgram) rnnForward(n *Node, name string, s rnnShape) (*rnnForward, error) {
	x, w, u, b := n.ins[0], n.ins[1], n.ins[2], n.ins[3]
	P := p.reps(n)
	B, T, D, H, G := s.batch, s.steps, s.d, s.h, s.gates
	bh, gh, rows := B*H, G*H, T*B
	f := &rnnForward{n: n, s: s}
	a := &f.args
	a.X, a.Bias, a.Out = p.vals[x.id], p.vals[b.id], p.vals[n.id]
	a.RsX, a.RsBias, a.RsOut = p.rstride(x), p.rstride(b), p.rstride(n)
	a.Batch, a.Steps, a.D, a.H, a.Gates = int64(B), int64(T), int64(D), int64(H), int64(G)
	a.Replicas, a.XReps = int64(P), int64(p.reps(x))
	if s.seq {
		a.Seq = 1
	}
	buf := func(elems int) (cuda.Ptr, error) { return p.alloc(align(elems * p.elem)) }
	var err error
	if a.Xt, err = buf(p.reps(x) * rows * D); err != nil {
		return nil, err
	}
	a.RsXt = int64(rows * D)
	if p.reps(x) == 1 {
		a.RsXt = 0
	}
	if a.Z, err = buf(P * rows * gh); err != nil {
		return nil, err
	}
	if a.Rec, err = buf(P * rows * H); err != nil {
		return nil, err
	}
	if a.Hidden, err = buf(P * (T + 1) * bh); err != nil {
		return nil, err
	}
	if name == "lstm" {
		if a.Cells, err = buf(P * (T + 1) * bh); err != nil {
			return nil, err
		}
	} else if a.R, err = buf(P * bh * gh); err != nil {
		return nil, err
	}
	rsZ, rsH := int64(rows*gh), int64((T+1)*bh)
	var tab ptrTable
	prep, err := p.kernel("rnn_prepare", int64(P*rows*gh), unsafe.Pointer(a), f)
	if err != nil {
		return nil, err
	}
	f.steps = append(f.steps, prep,
		tab.gemm(p.f32, false, false, rows, gh, D, p.reps64(P, a.Xt, a.RsXt, 0), D,
			p.reps64(P, p.vals[w.id], p.rstride(w), 0), gh, 1, p.reps64(P, a.Z, rsZ, 0), gh))
	U := p.reps64(P, p.vals[u.id], p.rstride(u), 0)
	for t := range T {
		if t > 0 {
			hPrev := p.reps64(P, a.Hidden, rsH, int64(t*bh))
			if name == "lstm" {
				f.steps = append(f.steps, tab.gemm(p.f32, false, false, B, gh, H, hPrev, H, U, gh, 1,
					p.reps64(P, a.Z, rsZ, int64(t*B*gh)), gh))
			} else {
				f.steps = append(f.steps, tab.gemm(p.f32, false, false, B, gh, H, hPrev, H, U, gh, 0,
					p.reps64(P, a.R, int64(bh*gh), 0), gh))
			}
		}
		at := new(cuda.RnnArgs)
		*at = *a
		at.T = int32(t)
		ks, err := p.kernel(name+"_step_forward", int64(P*bh), unsafe.Pointer(at), at)
		if err != nil {
			return nil, err
		}
		f.steps = append(f.steps, ks)
	}
	return f, tab.commit(p)
}

func (p *cudaProgram) rnnBackward(f *rnnForward, name string) ([]step, error) {
	n, s := f.n, f.s
	x, w, u, b := n.ins[0], n.ins[1], n.ins[2], n.ins[3]
	if p.grads[n.id] == 0 {
		return nil, nil
	}
	P := p.reps(n)
	B, T, D, H, G := s.batch, s.steps, s.d, s.h, s.gates
	bh, gh, rows := B*H, G*H, T*B
	rsZ, rsH := int64(rows*gh), int64((T+1)*bh)
	var err error
	if f.dz == 0 {
		if f.dz, err = p.alloc(align(P * rows * gh * p.elem)); err != nil {
			return nil, err
		}
		if name == "gru" {
			if f.dzh, err = p.alloc(align(P * rows * gh * p.elem)); err != nil {
				return nil, err
			}
		}
		if f.dhc, err = p.alloc(2 * P * bh * p.elem); err != nil {
			return nil, err
		}
	}
	a := f.args
	a.GOut, a.Dz, a.Dzh, a.Dh = p.grads[n.id], f.dz, f.dzh, f.dhc
	if name == "lstm" {
		a.Dc = f.dhc + cuda.Ptr(P*bh*p.elem)
	}
	a.GBias, a.RsGBias = p.grads[b.id], p.rstride(b)
	// dzh is what flows through U: the LSTM's dz itself.
	dzh := a.Dz
	if name == "gru" {
		dzh = a.Dzh
	}
	var tab ptrTable
	steps := []step{&zeroStep{p: f.dhc, bytes: 2 * P * bh * p.elem}}
	U := p.reps64(P, p.vals[u.id], p.rstride(u), 0)
	dh := p.reps64(P, a.Dh, int64(bh), 0)
	for t := T - 1; t >= 0; t-- {
		at := new(cuda.RnnArgs)
		*at = a
		at.T = int32(t)
		ks, err := p.kernel(name+"_step_backward", int64(P*bh), unsafe.Pointer(at), at)
		if err != nil {
			return nil, err
		}
		steps = append(steps, ks)
		if t > 0 {
			// δh_{t−1} = δz_t·Uᵀ (the GRU's kernel left δh⊙z in dh to add to).
			beta := 0.0
			if name == "gru" {
				beta = 1
			}
			steps = append(steps, tab.gemm(p.f32, false, true, B, H, gh, p.reps64(P, dzh, rsZ, int64(t*B*gh)), gh, U, gh, beta, dh, H))
		}
	}
	if gu := p.grads[u.id]; gu != 0 {
		steps = append(steps, tab.gemm(p.f32, true, false, H, gh, rows, p.reps64(P, a.Hidden, rsH, 0), H,
			p.reps64(P, dzh, rsZ, 0), gh, 1, p.reps64(P, gu, p.rstride(u), 0), gh))
	}
	if a.GBias != 0 {
		ks, err := p.kernel("rnn_bias_grad", int64(P*gh), unsafe.Pointer(&a), &a)
		if err != nil {
			return nil, err
		}
		steps = append(steps, ks)
	}
	if gw := p.grads[w.id]; gw != 0 {
		steps = append(steps, tab.gemm(p.f32, true, false, D, gh, rows, p.reps64(P, a.Xt, a.RsXt, 0), D,
			p.reps64(P, a.Dz, rsZ, 0), gh, 1, p.reps64(P, gw, p.rstride(w), 0), gh))
	}
	if gx := p.grads[x.id]; gx != 0 {
		// ∂x [B, T, D] += δz·Wᵀ, one product per replica and step, each
		// step's rows T·D apart in ∂x.
		var A, W, C []uint64
		for r := range P {
			for t := range T {
				A = append(A, p.reps64(1, a.Dz, 0, int64(r)*rsZ+int64(t*B*gh))...)
				W = append(W, p.reps64(1, p.vals[w.id], 0, int64(r)*p.rstride(w))...)
				C = append(C, p.reps64(1, gx, 0, int64(r)*p.rstride(x)+int64(t*D))...)
			}
		}
		steps = append(steps, tab.gemm(p.f32, false, true, B, D, gh, A, gh, W, gh, 1, C, T*D))
	}
	return steps, tab.commit(p)
}
