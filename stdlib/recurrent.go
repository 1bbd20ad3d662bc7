package stdlib

import (
	"github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Recurrent layers over a whole sequence in one op: the forward pass runs
// the T steps and keeps each step's gates and states (autodiff.Workspace's
// saved memory), and the backward pass is backpropagation through time
// (Werbos, "Backpropagation through time: what it does and how to do it",
// 1990) over those, from the last step to the first, instead of T copies of
// a cell in the graph.
//
// Sequences are x [..., T, D], the leading axes a batch (in a plate, the
// minibatch's rows). Internally everything is time-major, [T, B, ·], so
// that the input projection of all steps is one GEMM (T·B rows of x by W),
// each step's recurrent product one GEMM of the batch's B rows by U, and
// the weight gradients one GEMM each over all T·B rows after the loop.
// The initial hidden and cell states are zero.

// seqShape is the geometry of a recurrent layer: B sequences of T steps of
// D inputs, H units, G gate blocks of H (4 for the LSTM, 3 for the GRU).
type seqShape struct {
	batch, steps, d, h, gates int
	seq                       bool // the result is every step's hidden state, else the last
}

// newSeqShape checks x [..., T, D], W [D, G·H], U [H, G·H] and b [G·H].
func newSeqShape(name string, x, w, u, b *autodiff.Node, gates int, seq bool) (seqShape, *autodiff.Node) {
	g, stop := graphOf(x, w, u, b)
	if g == nil || stop != nil {
		return seqShape{}, stop
	}
	xs, ws, us, bs := x.Shape(), w.Shape(), u.Shape(), b.Shape()
	if len(xs) < 2 {
		return seqShape{}, g.Fail(nil, "%s of %v: needs sequences [..., T, D]", name, xs)
	}
	// The messages name a sequence's shape, not x's: in a plate that is
	// the row the model wrote, without the minibatch's axis.
	d := xs[len(xs)-1]
	if len(ws) != 2 || len(us) != 2 || len(bs) != 1 {
		return seqShape{}, g.Fail(nil, "%s with W %v, U %v and b %v: needs W [D, %d·H], U [H, %d·H] and b [%d·H]",
			name, ws, us, bs, gates, gates, gates)
	}
	h := us[0]
	if ws[0] != d || ws[1] != gates*h || us[1] != gates*h || bs[0] != gates*h {
		return seqShape{}, g.Fail(nil, "%s of sequences [%d, %d] with W %v, U %v and b %v: with %d inputs and U's %d units, W must be [%d, %d], U [%d, %d] and b [%d]",
			name, xs[len(xs)-2], d, ws, us, bs, d, h, d, gates*h, h, gates*h, gates*h)
	}
	return seqShape{batch: xs[:len(xs)-2].Size(), steps: xs[len(xs)-2], d: d, h: h, gates: gates, seq: seq}, nil
}

// outShape is the result's shape: [..., T, H] or [..., H].
func (s *seqShape) outShape(xs autodiff.Shape) autodiff.Shape {
	lead := xs[: len(xs)-2 : len(xs)-2]
	if s.seq {
		return append(lead, s.steps, s.h)
	}
	return append(lead, s.h)
}

// rows is T·B, the rows of the time-major matrices.
func (s *seqShape) rows() int { return s.steps * s.batch }

// toTimeMajor copies x [B, T, D] to xt [T, B, D].
func toTimeMajor[T autodiff.Float](s *seqShape, xt, x []T) {
	for b := range s.batch {
		for t := range s.steps {
			copy(xt[(t*s.batch+b)*s.d:][:s.d], x[(b*s.steps+t)*s.d:])
		}
	}
}

// addFromTimeMajor adds dxt [T, B, D] to dx [B, T, D].
func addFromTimeMajor[T autodiff.Float](s *seqShape, dx, dxt []T) {
	for b := range s.batch {
		for t := range s.steps {
			dst := dx[(b*s.steps+t)*s.d:][:s.d]
			for j, v := range dxt[(t*s.batch+b)*s.d:][:s.d] {
				dst[j] += v
			}
		}
	}
}

// writeOut copies the hidden states of slots 1..T of hidden [T+1, B, H]
// (slot 0 is the initial zero state) to out: all of them [B, T, H], or the
// last [B, H].
func writeOut[T autodiff.Float](s *seqShape, out, hidden []T) {
	bh := s.batch * s.h
	if !s.seq {
		copy(out, hidden[s.steps*bh:])
		return
	}
	for t := range s.steps {
		for b := range s.batch {
			copy(out[(b*s.steps+t)*s.h:][:s.h], hidden[(t+1)*bh+b*s.h:])
		}
	}
}

// gradOut is the gradient of the result with respect to sequence b's
// hidden state at step t, or nil where the result does not hold it.
func gradOut[T autodiff.Float](s *seqShape, dy []T, b, t int) []T {
	switch {
	case s.seq:
		return dy[(b*s.steps+t)*s.h:][:s.h]
	case t == s.steps-1:
		return dy[b*s.h:][:s.h]
	}
	return nil
}

// project sets z [T·B, G·H] = xt·W + b, the input's part of every step's
// gates.
func project[T autodiff.Float](s *seqShape, a *autodiff.ArgsOf[T], z, xt, w, bias []T) {
	gh := s.gates * s.h
	for r := range s.rows() {
		copy(z[r*gh:(r+1)*gh], bias)
	}
	gemm(a, false, false, s.rows(), gh, s.d, xt, s.d, w, gh, 1, z, gh)
}

// weightGrads finishes the backward pass from the gradients of every
// step's gate pre-activations: ∂W += xtᵀ·dzx, ∂U += hprevᵀ·dzh, ∂b += the
// column sums of dzx, ∂x += dzx·Wᵀ (back to [B, T, D]). hprev [T·B, H] is
// each step's previous hidden state; xt is scratch holding x time-major,
// overwritten by ∂x; part is scratch of G·H. For the LSTM dzx and dzh are
// the same; the GRU's recurrent candidate term differs.
func weightGrads[T autodiff.Float](s *seqShape, a *autodiff.ArgsOf[T], xt, dzx, dzh, hprev, part []T) {
	x, w := a.In[0], a.In[1]
	dx, dw, du, db := a.GradIn[0], a.GradIn[1], a.GradIn[2], a.GradIn[3]
	gh, rows := s.gates*s.h, s.rows()
	if du != nil {
		gemm(a, true, false, s.h, gh, rows, hprev, s.h, dzh, gh, 1, du, gh)
	}
	if db != nil {
		// Column sums per step, then into db: float32 sums of T·B terms
		// in one run would lose digits.
		for t := range s.steps {
			clear(part)
			for b := range s.batch {
				for j, v := range dzx[(t*s.batch+b)*gh:][:gh] {
					part[j] += v
				}
			}
			for j, v := range part {
				db[j] += v
			}
		}
	}
	if dw != nil {
		toTimeMajor(s, xt, x)
		gemm(a, true, false, s.d, gh, rows, xt, s.d, dzx, gh, 1, dw, gh)
	}
	if dx != nil {
		gemm(a, false, true, rows, s.d, gh, dzx, gh, w, gh, 0, xt, s.d)
		addFromTimeMajor(s, dx, xt)
	}
}

// lstmOp is a long short-term memory layer (Hochreiter and Schmidhuber,
// 1997, with the forget gate of Gers et al., 2000), PyTorch's formulation:
// gates i, f, g, o = σ, σ, tanh, σ of x_t·W + h_{t−1}·U + b, cell c_t =
// f⊙c_{t−1} + i⊙g, hidden h_t = o⊙tanh(c_t).
type lstmOp struct{ seqShape }

func (op *lstmOp) Name() string { return "lstm" }

// DeviceKernel implements autodiff.DeviceOp: the sizes batch, steps, D,
// H, gates and seq (0 or 1).
func (op *lstmOp) DeviceKernel() autodiff.DeviceKernel { return op.deviceKernel("lstm") }

func (s *seqShape) deviceKernel(name string) autodiff.DeviceKernel {
	seq := 0
	if s.seq {
		seq = 1
	}
	return autodiff.DeviceKernel{Name: name, Ints: []int{s.batch, s.steps, s.d, s.h, s.gates, seq}}
}

// LSTM runs an LSTM layer over sequences x [..., T, D] with input weights
// W [D, 4H], recurrent weights U [H, 4H] and bias b [4H], the four blocks
// of H columns being the input, forget, candidate and output gates, in
// PyTorch's order (its weight_ih_l0 is Wᵀ, weight_hh_l0 is Uᵀ, and
// bias_ih_l0 + bias_hh_l0 is b). The result is the last hidden state
// [..., H], or with seq every step's [..., T, H].
func LSTM(x, w, u, b *autodiff.Node, seq bool) *autodiff.Node {
	return recurrent("lstm", 4, x, w, u, b, seq, func(s seqShape) autodiff.Op { return &lstmOp{s} })
}

// recurrent checks a recurrent layer's operands and applies the op that
// mk makes for their shape.
func recurrent(name string, gates int, x, w, u, b *autodiff.Node, seq bool, mk func(seqShape) autodiff.Op) *autodiff.Node {
	s, stop := newSeqShape(name, x, w, u, b, gates, seq)
	if stop != nil {
		return stop
	}
	return x.Graph().Apply(mk(s), s.outShape(x.Shape()), x, w, u, b)
}

// SavedLen implements autodiff.Workspace: every step's activated gates
// [T, B, 4H] and tanh(c_t) [T, B, H] (kept, not recomputed: the
// nonlinearities cost more than the products), and the cell and hidden
// states [T+1, B, H] from the initial zeros on.
func (op *lstmOp) SavedLen() int {
	bh := op.batch * op.h
	return op.steps*5*bh + 2*(op.steps+1)*bh
}

// ScratchLen implements autodiff.Workspace: x time-major [T, B, D], the
// gradients of the gate pre-activations [T, B, 4H], and the gradients of
// the hidden and cell states carried back one step [B, H] each, and the
// bias gradient's partial sums [4H].
func (op *lstmOp) ScratchLen() int {
	bh := op.batch * op.h
	return op.rows()*op.d + op.steps*4*bh + 2*bh + 4*op.h
}

// lstmBuffers slices the op's memory.
func lstmBuffers[T autodiff.Float](op *lstmOp, a *autodiff.ArgsOf[T]) (gates, tanhC, cells, hidden, xt, dz, dh, dc, part []T) {
	bh := op.batch * op.h
	sv := a.Saved
	gates, sv = sv[:op.steps*4*bh], sv[op.steps*4*bh:]
	tanhC, sv = sv[:op.steps*bh], sv[op.steps*bh:]
	cells, hidden = sv[:(op.steps+1)*bh], sv[(op.steps+1)*bh:]
	sc := a.Scratch
	xt, sc = sc[:op.rows()*op.d], sc[op.rows()*op.d:]
	dz, sc = sc[:op.steps*4*bh], sc[op.steps*4*bh:]
	return gates, tanhC, cells, hidden, xt, dz, sc[:bh], sc[bh : 2*bh], sc[2*bh:]
}

func (op *lstmOp) Forward(a *autodiff.Args)     { lstmForward(op, a) }
func (op *lstmOp) Forward32(a *autodiff.Args32) { lstmForward(op, a) }

func lstmForward[T autodiff.Float](op *lstmOp, a *autodiff.ArgsOf[T]) {
	gates, tanhC, cells, hidden, xt, _, _, _, _ := lstmBuffers(op, a)
	h, bh, gh := op.h, op.batch*op.h, 4*op.h
	toTimeMajor(&op.seqShape, xt, a.In[0])
	project(&op.seqShape, a, gates, xt, a.In[1], a.In[3])
	clear(cells[:bh])
	clear(hidden[:bh])
	for t := range op.steps {
		z := gates[t*op.batch*gh : (t+1)*op.batch*gh]
		if t > 0 {
			serialGemm(false, false, op.batch, gh, h, hidden[t*bh:], h, a.In[2], gh, 1, z, gh)
		}
		for b := range op.batch {
			zb := z[b*gh : (b+1)*gh]
			zi, zf, zg, zo := zb[:h], zb[h:2*h], zb[2*h:3*h], zb[3*h:]
			cPrev := cells[t*bh+b*h:][:h]
			c, hid := cells[(t+1)*bh+b*h:][:h], hidden[(t+1)*bh+b*h:][:h]
			tc := tanhC[t*bh+b*h:][:h]
			kernel.Sigmoid(zb[:2*h], zb[:2*h]) // i and f
			kernel.Tanh(zg, zg)
			kernel.Sigmoid(zo, zo)
			for j := range h {
				c[j] = zf[j]*cPrev[j] + zi[j]*zg[j]
			}
			kernel.Tanh(tc, c)
			for j := range h {
				hid[j] = zo[j] * tc[j]
			}
		}
	}
	writeOut(&op.seqShape, a.Out, hidden)
}

func (op *lstmOp) Backward(a *autodiff.Args)     { lstmBackward(op, a) }
func (op *lstmOp) Backward32(a *autodiff.Args32) { lstmBackward(op, a) }

// lstmBackward runs the steps backwards. With δh the gradient of h_t (from
// the result and from step t+1 through U) and δc that of c_t from step t+1:
//
//	δo = δh⊙tanh(c_t),  δc ← δc + δh⊙o⊙(1 − tanh²(c_t)),
//	δi = δc⊙g,  δg = δc⊙i,  δf = δc⊙c_{t−1},  δc_{t−1} = δc⊙f,
//
// each gate's pre-activation gradient its δ times the derivative of its
// σ or tanh, and δh_{t−1} = δz_t·Uᵀ.
func lstmBackward[T autodiff.Float](op *lstmOp, a *autodiff.ArgsOf[T]) {
	gates, tanhC, cells, hidden, xt, dz, dh, dc, part := lstmBuffers(op, a)
	h, bh, gh := op.h, op.batch*op.h, 4*op.h
	clear(dh)
	clear(dc)
	for t := op.steps - 1; t >= 0; t-- {
		z := gates[t*op.batch*gh : (t+1)*op.batch*gh]
		dzt := dz[t*op.batch*gh : (t+1)*op.batch*gh]
		for b := range op.batch {
			zb, db := z[b*gh:(b+1)*gh], dzt[b*gh:(b+1)*gh]
			dhb, dcb := dh[b*h:(b+1)*h], dc[b*h:(b+1)*h]
			if g := gradOut(&op.seqShape, a.GradOut, b, t); g != nil {
				for j, v := range g {
					dhb[j] += v
				}
			}
			cPrev, tcs := cells[t*bh+b*h:][:h], tanhC[t*bh+b*h:][:h]
			for j := range h {
				i, f, g, o := zb[j], zb[h+j], zb[2*h+j], zb[3*h+j]
				tc := tcs[j]
				dcv := dcb[j] + dhb[j]*o*(1-tc*tc)
				db[j] = dcv * g * i * (1 - i)
				db[h+j] = dcv * cPrev[j] * f * (1 - f)
				db[2*h+j] = dcv * i * (1 - g*g)
				db[3*h+j] = dhb[j] * tc * o * (1 - o)
				dcb[j] = dcv * f
			}
		}
		if t > 0 {
			serialGemm(false, true, op.batch, h, gh, dzt, gh, a.In[2], gh, 0, dh, h)
		}
	}
	weightGrads(&op.seqShape, a, xt, dz, dz, hidden[:op.steps*bh], part)
}

// gruOp is a gated recurrent unit layer (Cho et al., "Learning phrase
// representations using RNN encoder-decoder for statistical machine
// translation", 2014) in PyTorch's and cuDNN's formulation, whose reset
// gate scales the candidate's recurrent term after the product by U, so
// that one product per step serves all three gates:
//
//	r = σ(x_t·W_r + h_{t−1}·U_r + b_r),  z = σ(x_t·W_z + h_{t−1}·U_z + b_z),
//	n = tanh(x_t·W_n + b_n + r⊙(h_{t−1}·U_n)),  h_t = (1 − z)⊙n + z⊙h_{t−1}.
type gruOp struct{ seqShape }

func (op *gruOp) Name() string { return "gru" }

// DeviceKernel implements autodiff.DeviceOp, as lstmOp's.
func (op *gruOp) DeviceKernel() autodiff.DeviceKernel { return op.deviceKernel("gru") }

// GRU runs a GRU layer over sequences x [..., T, D] with W [D, 3H], U [H,
// 3H] and b [3H], the blocks of H columns being the reset gate, the update
// gate and the candidate, in PyTorch's order (weight_ih_l0 is Wᵀ,
// weight_hh_l0 is Uᵀ, bias_ih_l0 is b and bias_hh_l0 is zero). The result
// is the last hidden state [..., H], or with seq every step's [..., T, H].
func GRU(x, w, u, b *autodiff.Node, seq bool) *autodiff.Node {
	return recurrent("gru", 3, x, w, u, b, seq, func(s seqShape) autodiff.Op { return &gruOp{s} })
}

// SavedLen implements autodiff.Workspace: every step's activated gates r,
// z, n [T, B, 3H], the candidate's recurrent term h_{t−1}·U_n [T, B, H],
// and the hidden states [T+1, B, H] from the initial zeros on.
func (op *gruOp) SavedLen() int {
	bh := op.batch * op.h
	return op.steps*3*bh + op.steps*bh + (op.steps+1)*bh
}

// ScratchLen implements autodiff.Workspace: x time-major [T, B, D], the
// gradients of the gates' input and recurrent pre-activations [T, B, 3H]
// each, the hidden state's gradient carried back one step [B, H], and the
// bias gradient's partial sums [3H].
func (op *gruOp) ScratchLen() int {
	bh := op.batch * op.h
	return op.rows()*op.d + 2*op.steps*3*bh + bh + 3*op.h
}

// gruBuffers slices the op's memory.
func gruBuffers[T autodiff.Float](op *gruOp, a *autodiff.ArgsOf[T]) (gates, rec, hidden, xt, dzx, dzh, dh, part []T) {
	bh, n := op.batch*op.h, op.steps*3*op.batch*op.h
	sv := a.Saved
	gates, rec, hidden = sv[:n], sv[n:n+op.steps*bh], sv[n+op.steps*bh:]
	sc := a.Scratch
	xt, sc = sc[:op.rows()*op.d], sc[op.rows()*op.d:]
	dzx, dzh, sc = sc[:n], sc[n:2*n], sc[2*n:]
	return gates, rec, hidden, xt, dzx, dzh, sc[:bh], sc[bh:]
}

func (op *gruOp) Forward(a *autodiff.Args)     { gruForward(op, a) }
func (op *gruOp) Forward32(a *autodiff.Args32) { gruForward(op, a) }

func gruForward[T autodiff.Float](op *gruOp, a *autodiff.ArgsOf[T]) {
	gates, rec, hidden, xt, _, _, _, _ := gruBuffers(op, a)
	h, bh, gh, u := op.h, op.batch*op.h, 3*op.h, a.In[2]
	toTimeMajor(&op.seqShape, xt, a.In[0])
	project(&op.seqShape, a, gates, xt, a.In[1], a.In[3])
	clear(hidden[:bh])
	for t := range op.steps {
		z := gates[t*op.batch*gh : (t+1)*op.batch*gh]
		rt := rec[t*bh : (t+1)*bh]
		if t > 0 {
			hPrev := hidden[t*bh:]
			serialGemm(false, false, op.batch, 2*h, h, hPrev, h, u, gh, 1, z, gh)
			serialGemm(false, false, op.batch, h, h, hPrev, h, u[2*h:], gh, 0, rt, h)
		} else {
			clear(rt)
		}
		for b := range op.batch {
			zb := z[b*gh : (b+1)*gh]
			zr, zz, zn, nrec := zb[:h], zb[h:2*h], zb[2*h:], rt[b*h:(b+1)*h]
			hPrev, hid := hidden[t*bh+b*h:][:h], hidden[(t+1)*bh+b*h:][:h]
			kernel.Sigmoid(zb[:2*h], zb[:2*h]) // r and z
			for j := range h {
				zn[j] += zr[j] * nrec[j]
			}
			kernel.Tanh(zn, zn)
			for j := range h {
				hid[j] = (1-zz[j])*zn[j] + zz[j]*hPrev[j]
			}
		}
	}
	writeOut(&op.seqShape, a.Out, hidden)
}

func (op *gruOp) Backward(a *autodiff.Args)     { gruBackward(op, a) }
func (op *gruOp) Backward32(a *autodiff.Args32) { gruBackward(op, a) }

// gruBackward runs the steps backwards. With δh the gradient of h_t:
//
//	δn = δh⊙(1 − z),  δz = δh⊙(h_{t−1} − n),  δa_n = δn⊙(1 − n²),
//	δr = δa_n⊙(h_{t−1}·U_n),  δh_{t−1} = δh⊙z + δz_h·Uᵀ,
//
// where the recurrent pre-activations' gradient δz_h is the input's δz_x
// but for the candidate's block, scaled by r.
func gruBackward[T autodiff.Float](op *gruOp, a *autodiff.ArgsOf[T]) {
	gates, rec, hidden, xt, dzx, dzh, dh, part := gruBuffers(op, a)
	h, bh, gh := op.h, op.batch*op.h, 3*op.h
	clear(dh)
	for t := op.steps - 1; t >= 0; t-- {
		z := gates[t*op.batch*gh : (t+1)*op.batch*gh]
		dx, dr := dzx[t*op.batch*gh:(t+1)*op.batch*gh], dzh[t*op.batch*gh:(t+1)*op.batch*gh]
		for b := range op.batch {
			zb, dxb, drb := z[b*gh:(b+1)*gh], dx[b*gh:(b+1)*gh], dr[b*gh:(b+1)*gh]
			dhb, nrec := dh[b*h:(b+1)*h], rec[t*bh+b*h:][:h]
			if g := gradOut(&op.seqShape, a.GradOut, b, t); g != nil {
				for j, v := range g {
					dhb[j] += v
				}
			}
			hPrev := hidden[t*bh+b*h:][:h]
			for j := range h {
				r, u, n := zb[j], zb[h+j], zb[2*h+j]
				dhv := dhb[j]
				dan := dhv * (1 - u) * (1 - n*n)
				dar := dan * nrec[j] * r * (1 - r)
				dau := dhv * (hPrev[j] - n) * u * (1 - u)
				dxb[j], dxb[h+j], dxb[2*h+j] = dar, dau, dan
				drb[j], drb[h+j], drb[2*h+j] = dar, dau, dan*r
				dhb[j] = dhv * u
			}
		}
		if t > 0 {
			serialGemm(false, true, op.batch, h, gh, dr, gh, a.In[2], gh, 1, dh, h)
		}
	}
	weightGrads(&op.seqShape, a, xt, dzx, dzh, hidden[:op.steps*bh], part)
}
