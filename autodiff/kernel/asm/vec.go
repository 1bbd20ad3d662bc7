package main

// The elementwise kernels of package kernel (vec.go there), written to
// vec_amd64.s and vec_stubs_amd64.go when the program runs with -vec:
//
//	go run -C asm . -vec -out ../vec_amd64.s -stubs ../vec_stubs_amd64.go -pkg kernel
//
// They stream over slices in L1 or L2, so they are bound by loads and
// stores, not arithmetic: each loop handles four vectors per iteration (four
// independent accumulators for the reductions, so that additions do not
// wait on one another), then single vectors, then the remaining elements
// under a lane mask: a k register with AVX-512, with AVX2 a mask vector for
// VMASKMOVPS/PD loaded from vecMask. Masked loads do not fault on the lanes
// they leave out, so no kernel reads or writes past the end of a slice.
//
// Where Go's scalar loop (the portable set) rounds each operation, the
// kernels do too, with no fused multiply-add, so every instruction set
// gives the same bits. The exception is sumSqDiff, whose sums are in
// another order anyway: it adds z² into its accumulators with an FMA.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// vecMask is 32 bytes of ones, then 32 of zeros: the AVX2 mask for the
// first r lanes of e-byte elements in a vector of up to 32 bytes starts r·e
// bytes before the zeros.
var vecMask Mem

// unroll is the number of vectors per iteration of the main loops.
const unroll = 4

// vecISA is an instruction set of the elementwise kernels.
type vecISA struct {
	name   string
	bytes  int // vector width in bytes
	avx512 bool
}

var (
	vecAVX512 = vecISA{name: "AVX512", bytes: 64, avx512: true}
	vecAVX2   = vecISA{name: "AVX2", bytes: 32}
)

// v is vector register i; half(i) is its lower half (ymm of a zmm, xmm of
// a ymm), which holds the float32 side of a float64 vector.
func (s vecISA) v(i int) VecPhysical {
	if s.avx512 {
		return zmm[i]
	}
	return ymm[i]
}

func (s vecISA) half(i int) VecPhysical {
	if s.avx512 {
		return ymm[i]
	}
	return xmm[i]
}

var xmm = []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}

// vecMain emits every elementwise kernel.
func vecMain() {
	vecMask = GLOBL("vecMask", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		v := uint64(0)
		if i < 4 {
			v = ^v
		}
		DATA(i*8, U64(v))
	}
	for _, s := range []vecISA{vecAVX512, vecAVX2} {
		for _, e := range []elem{f32, f64} {
			sumSqDiff(s, e)
			axpyDiff(s, e)
			allFinite(s, e)
		}
		convert(s, f64, f32)
		convert(s, f32, f64)
		langevin(s, true)
		langevin(s, false)
		gate(s, false)
		gate(s, true)
		layerKernels(s)
	}
	gemvMain()
	bernoulliLogit()
}

// stream is a pointer that a kernel walks through, with the size of its
// elements.
type stream struct {
	reg  GPPhysical
	size int
}

// loop emits the loops over CX elements, lanes per vector: body(i, tail)
// handles vector i of an iteration, at offset i·lanes elements of each
// stream; with tail set it handles the last CX < lanes elements under the
// mask that setMask made (K1, or the vectors of the AVX2 kernel). After
// the loops CX is 0 and the streams point past the last vector handled.
func loop(name string, lanes int, streams []stream, setMask func(), body func(i int, tail bool)) {
	advance := func(n int) {
		for _, p := range streams {
			ADDQ(U32(uint32(n*lanes*p.size)), p.reg)
		}
	}
	CMPQ(RCX, U32(uint32(unroll*lanes)))
	JB(LabelRef(name + "_one"))
	Label(name + "_four")
	for i := 0; i < unroll; i++ {
		body(i, false)
	}
	advance(unroll)
	SUBQ(U32(uint32(unroll*lanes)), RCX)
	CMPQ(RCX, U32(uint32(unroll*lanes)))
	JAE(LabelRef(name + "_four"))
	Label(name + "_one")
	CMPQ(RCX, U32(uint32(lanes)))
	JB(LabelRef(name + "_tail"))
	body(0, false)
	advance(1)
	SUBQ(U32(uint32(lanes)), RCX)
	JMP(LabelRef(name + "_one"))
	Label(name + "_tail")
	TESTQ(RCX, RCX)
	JZ(LabelRef(name + "_done"))
	setMask()
	body(0, true)
	Label(name + "_done")
}

// kmask sets K1 to the low CX lanes.
func kmask() {
	MOVQ(U32(1), R11)
	SHLQ(CL, R11)
	DECQ(R11)
	KMOVW(R11L, K1)
}

// ymask loads into r the AVX2 mask of the low CX lanes of size-byte
// elements.
func ymask(r VecPhysical, size int) {
	LEAQ(vecMask, R11)
	MOVQ(U32(uint32(32/size)), R12)
	SUBQ(RCX, R12)
	VMOVDQU(Mem{Base: R11, Index: R12, Scale: uint8(size)}, r)
}

// at is element i·lanes of stream p.
func at(p stream, i, lanes int) Mem { return Mem{Base: p.reg, Disp: i * lanes * p.size} }

func bcast(e elem, m Mem, r VecPhysical) { broadcast(e, m, r) }

func zero(s vecISA, r VecPhysical) {
	if s.avx512 {
		VPXORQ(r, r, r)
	} else {
		VXORPD(r, r, r)
	}
}

// loadMasked loads the lanes of m under the tail mask (K1, or AVX2 mask
// vector mask), zeroing the others.
func loadMasked(s vecISA, e elem, m Mem, mask, r VecPhysical) {
	switch {
	case s.avx512 && e.ps:
		VMOVUPS_Z(m, K1, r)
	case s.avx512:
		VMOVUPD_Z(m, K1, r)
	case e.ps:
		VMASKMOVPS(m, mask, r)
	default:
		VMASKMOVPD(m, mask, r)
	}
}

func storeMasked(s vecISA, e elem, r, mask VecPhysical, m Mem) {
	switch {
	case s.avx512 && e.ps:
		VMOVUPS(r, K1, m)
	case s.avx512:
		VMOVUPD(r, K1, m)
	case e.ps:
		VMASKMOVPS(r, mask, m)
	default:
		VMASKMOVPD(r, mask, m)
	}
}

func sub(e elem, x Op, y, dst VecPhysical) { // dst = y - x
	if e.ps {
		VSUBPS(x, y, dst)
	} else {
		VSUBPD(x, y, dst)
	}
}

func vmul(e elem, x Op, y, dst VecPhysical) { // dst = y·x
	if e.ps {
		VMULPS(x, y, dst)
	} else {
		VMULPD(x, y, dst)
	}
}

// hsum adds the float64 lanes of r (Z0 or Y0 with its halves), leaving the
// sum in X0 and clobbering X1.
func hsum(s vecISA, r int) {
	if s.avx512 {
		VEXTRACTF64X4(Imm(1), zmm[r], Y1)
		VADDPD(Y1, ymm[r], Y0)
	} else if r != 0 {
		VMOVAPD(ymm[r], Y0)
	}
	VEXTRACTF128(Imm(1), Y0, X1)
	VADDPD(X1, X0, X0)
	VPERMILPD(Imm(1), X0, X1)
	VADDSD(X1, X0, X0)
}

// sumSqDiff: Σ z and Σ z² for z = (y - mu)·scale, in float64 lanes.
func sumSqDiff(s vecISA, e elem) {
	name := "sumSqDiff" + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(y []%s, mu, scale float64) (sum, sumSq float64)", e.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s returns Σ z and Σ z² over z = (y[i] - mu)·scale, in float64, with %s (see asm/vec.go).", name, s.name))
	lanes := s.bytes / 8
	y := stream{RSI, e.size}
	Load(Param("y").Base(), y.reg)
	Load(Param("y").Len(), RCX)
	mu, scale, mask := s.v(8), s.v(9), s.v(14)
	VBROADCASTSD(paramAddr("mu"), mu)
	VBROADCASTSD(paramAddr("scale"), scale)
	for i := 0; i < 2*unroll; i++ {
		zero(s, s.v(i))
	}
	setMask := kmask
	if !s.avx512 {
		setMask = func() { ymask(mask, 8) }
	}
	loop(name, lanes, []stream{y}, setMask, func(i int, tail bool) {
		z := s.v(10 + i)
		m := at(y, i, lanes)
		switch {
		case e.ps && tail && s.avx512:
			VCVTPS2PD_Z(m, K1, z)
		case e.ps && tail: // the float32 mask is the float64 one narrowed
			ymask(s.half(15), 4)
			VMASKMOVPS(m, s.half(15), s.half(13))
			VCVTPS2PD(s.half(13), z)
		case e.ps:
			VCVTPS2PD(m, z)
		case tail:
			loadMasked(s, e, m, mask, z)
		default:
			VMOVUPD(m, z)
		}
		VSUBPD(mu, z, z)
		switch {
		case tail && s.avx512: // zero the lanes past the end, whatever mu and scale
			VMULPD_Z(scale, z, K1, z)
		case tail:
			VMULPD(scale, z, z)
			VANDPD(mask, z, z)
		default:
			VMULPD(scale, z, z)
		}
		VADDPD(z, s.v(i), s.v(i))
		VFMADD231PD(z, z, s.v(unroll+i))
	})
	for _, base := range []int{0, unroll} {
		VADDPD(s.v(base+1), s.v(base), s.v(base))
		VADDPD(s.v(base+3), s.v(base+2), s.v(base+2))
		VADDPD(s.v(base+2), s.v(base), s.v(base))
	}
	hsum(s, 0)
	Store(X0, ReturnIndex(0))
	hsum(s, unroll)
	Store(X0, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// axpyDiff: dst[i] -= k·(y[i] - mu) where y[i] - mu is finite, as the
// scalar loop: the product rounded, then the difference.
func axpyDiff(s vecISA, e elem) {
	name := "axpyDiff" + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, y []%[1]s, mu, k %[1]s)", e.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s does dst[i] -= k·(y[i] - mu) for i < len(y) where y[i] - mu is finite, with %s (see asm/vec.go).", name, s.name))
	lanes := s.bytes / e.size
	dst, y := stream{RDI, e.size}, stream{RSI, e.size}
	Load(Param("dst").Base(), dst.reg)
	Load(Param("y").Base(), y.reg)
	Load(Param("y").Len(), RCX)
	mu, k, mask := s.v(12), s.v(13), s.v(14)
	bcast(e, paramAddr("mu"), mu)
	bcast(e, paramAddr("k"), k)
	setMask := kmask
	if !s.avx512 {
		setMask = func() { ymask(mask, e.size) }
	}
	loop(name, lanes, []stream{dst, y}, setMask, func(i int, tail bool) {
		d, t, g := s.v(i), s.v(4+i), s.v(8+i)
		my, md := at(y, i, lanes), at(dst, i, lanes)
		if tail {
			loadMasked(s, e, my, mask, d)
			loadMasked(s, e, md, mask, g)
		} else {
			vload(e, my, d)
			vload(e, md, g)
		}
		sub(e, mu, d, d) // d = y - mu
		sub(e, d, d, t)  // t = d - d: 0, or NaN where d is ±Inf or NaN
		vmul(e, k, d, d) // d = k·d
		if s.avx512 {
			// kf: the lanes where d is finite (in the tail, the store
			// leaves out those past the end).
			kf := []Register{K2, K3, K4, K5}[i]
			cmp(e, Imm(7), t, t, kf) // 7: ordered
			if e.ps {
				VSUBPS(d, g, kf, g)
			} else {
				VSUBPD(d, g, kf, g)
			}
		} else {
			cmp(e, Imm(7), t, t, t)
			sub(e, d, g, d) // d = g - k·d
			if e.ps {
				VBLENDVPS(t, d, g, g)
			} else {
				VBLENDVPD(t, d, g, g)
			}
		}
		if tail {
			storeMasked(s, e, g, mask, md)
		} else {
			vstore(e, g, md)
		}
	})
	VZEROUPPER()
	RET()
}

func cmp(e elem, ops ...Op) {
	if e.ps {
		VCMPPS(ops...)
	} else {
		VCMPPD(ops...)
	}
}

// allFinite: whether no element is NaN or ±Inf. For finite x, x - x is +0,
// all bits zero; for the others it is NaN. The kernel ORs x - x into four
// accumulators and tests the result for zero.
func allFinite(s vecISA, e elem) {
	name := "allFinite" + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(x []%s) bool", e.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s reports whether no x[i] is NaN or ±Inf, with %s (see asm/vec.go).", name, s.name))
	lanes := s.bytes / e.size
	x := stream{RSI, e.size}
	Load(Param("x").Base(), x.reg)
	Load(Param("x").Len(), RCX)
	mask := s.v(14)
	for i := 0; i < unroll; i++ {
		zero(s, s.v(i))
	}
	setMask := kmask
	if !s.avx512 {
		setMask = func() { ymask(mask, e.size) }
	}
	or := func(x, acc VecPhysical) {
		if s.avx512 {
			VPORQ(x, acc, acc)
		} else {
			VPOR(x, acc, acc)
		}
	}
	loop(name, lanes, []stream{x}, setMask, func(i int, tail bool) {
		t := s.v(4 + i)
		if tail {
			loadMasked(s, e, at(x, i, lanes), mask, t) // zeros past the end
		} else {
			vload(e, at(x, i, lanes), t)
		}
		sub(e, t, t, t)
		or(t, s.v(i))
	})
	or(s.v(1), s.v(0))
	or(s.v(3), s.v(2))
	or(s.v(2), s.v(0))
	if s.avx512 {
		VPTESTMQ(Z0, Z0, K2)
		KORTESTW(K2, K2)
	} else {
		VPTEST(Y0, Y0)
	}
	SETEQ(AL)
	Store(AL, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// convert: dst[i] = D(src[i]) for i < len(src), with VCVTPD2PS or
// VCVTPS2PD, which round as Go's conversions do (to nearest even, NaN kept
// quiet). A vector holds lanes float64 elements and as many float32.
func convert(s vecISA, to, from elem) {
	name := "convert" + to.name + from.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst []%s, src []%s)", to.gotype, from.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets dst[i] = %s(src[i]) for i < len(src), with %s (see asm/vec.go).", name, to.gotype, s.name))
	lanes := s.bytes / 8
	dst, src := stream{RDI, to.size}, stream{RSI, from.size}
	Load(Param("dst").Base(), dst.reg)
	Load(Param("src").Base(), src.reg)
	Load(Param("src").Len(), RCX)
	m64, m32 := s.v(14), s.half(15) // AVX2 masks of the float64 and float32 sides
	setMask := kmask
	if !s.avx512 {
		setMask = func() {
			ymask(m64, 8)
			ymask(m32, 4)
		}
	}
	loop(name, lanes, []stream{dst, src}, setMask, func(i int, tail bool) {
		wide, narrow := s.v(i), s.half(i)
		ms, md := at(src, i, lanes), at(dst, i, lanes)
		if from.ps { // float32 → float64
			switch {
			case tail && s.avx512:
				VCVTPS2PD_Z(ms, K1, wide)
			case tail:
				VMASKMOVPS(ms, m32, narrow)
				VCVTPS2PD(narrow, wide)
			default:
				VCVTPS2PD(ms, wide)
			}
			if tail {
				storeMasked(s, to, wide, m64, md)
			} else {
				VMOVUPD(wide, md)
			}
			return
		}
		// float64 → float32
		switch {
		case tail && s.avx512:
			VCVTPD2PS_Z(ms, K1, narrow)
		case tail:
			VMASKMOVPD(ms, m64, wide)
			VCVTPD2PSY(wide, narrow)
		case s.avx512:
			VCVTPD2PS(ms, narrow)
		default:
			VCVTPD2PSY(ms, narrow)
		}
		if tail {
			storeMasked(s, to, narrow, m32, md)
		} else {
			VMOVUPS(narrow, md)
		}
	})
	VZEROUPPER()
	RET()
}

// langevin: theta[i] = theta[i] - lr·grad[i] + scale·xi[i], or with noise
// unset theta[i] -= lr·grad[i], each product and sum rounded as Go's
// scalar loop rounds them.
func langevin(s vecISA, noise bool) {
	name, sig := "descent"+s.name, "func(theta, grad []float64, lr float64)"
	if noise {
		name, sig = "langevin"+s.name, "func(theta, grad, xi []float64, lr, scale float64)"
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	if noise {
		Doc(fmt.Sprintf("%s does theta[i] = theta[i] - lr·grad[i] + scale·xi[i] for i < len(grad), with %s (see asm/vec.go).", name, s.name))
	} else {
		Doc(fmt.Sprintf("%s does theta[i] -= lr·grad[i] for i < len(grad), with %s (see asm/vec.go).", name, s.name))
	}
	lanes := s.bytes / 8
	th, gr, xi := stream{RDI, 8}, stream{RSI, 8}, stream{RDX, 8}
	streams := []stream{th, gr}
	Load(Param("theta").Base(), th.reg)
	Load(Param("grad").Base(), gr.reg)
	Load(Param("grad").Len(), RCX)
	lr, scale, mask := s.v(12), s.v(13), s.v(14)
	VBROADCASTSD(paramAddr("lr"), lr)
	if noise {
		Load(Param("xi").Base(), xi.reg)
		streams = append(streams, xi)
		VBROADCASTSD(paramAddr("scale"), scale)
	}
	setMask := kmask
	if !s.avx512 {
		setMask = func() { ymask(mask, 8) }
	}
	loop(name, lanes, streams, setMask, func(i int, tail bool) {
		t, a, b := s.v(i), s.v(4+i), s.v(8+i)
		mt := at(th, i, lanes)
		if tail {
			loadMasked(s, f64, at(gr, i, lanes), mask, a)
			VMULPD(lr, a, a)
			loadMasked(s, f64, mt, mask, t)
		} else {
			VMULPD(at(gr, i, lanes), lr, a)
			VMOVUPD(mt, t)
		}
		VSUBPD(a, t, t)
		if noise {
			if tail {
				loadMasked(s, f64, at(xi, i, lanes), mask, b)
				VMULPD(scale, b, b)
			} else {
				VMULPD(at(xi, i, lanes), scale, b)
			}
			VADDPD(b, t, t)
		}
		if tail {
			storeMasked(s, f64, t, mask, mt)
		} else {
			VMOVUPD(t, mt)
		}
	})
	VZEROUPPER()
	RET()
}

// gateConsts are the constants of the gate kernels, each in 16 float32
// lanes (an AVX2 load reads the first 8): gateConst names their order.
var gateConsts Mem

const (
	gLo, gHi, gLog2e, gRound, gLn2hi, gLn2lo = 0, 1, 2, 3, 4, 5
	gP0, gOne, gMinusOne, gTwo, gMinusTwo    = 6, 12, 13, 14, 15
)

var gateValues = []float32{
	-86, 88, 1.44269504088896341, 0x1.8p23, 0.693359375, -2.12194440e-4,
	1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1,
	1, -1, 2, -2,
}

func gateConst(i int) Mem { return gateConsts.Offset(64 * i) }

// gate: dst[i] = σ(x[i]) = 1/(1 + e^−x), or with tanh set tanh(x[i]) = 1 −
// 2/(1 + e^{2x}), in float32 for the recurrent layers' gates. e^t is
// Cephes' expf (Moshier, 1989): t clamped to [−86, 88] (NaN kept), n =
// round(t·log2 e) by adding 1.5·2^23, r = t − n·ln 2 in two parts, e^r =
// 1 + r + r²·P(r) with P of degree 5 (relative error 1e-7), and 2^n by
// VSCALEFPS or added to the exponent's bits; then one division. The result
// is within a few ulp of σ (tanh: 2e-7 absolute near 0).
func gate(s vecISA, tanh bool) {
	name := "sigmoidF32" + s.name
	if tanh {
		name = "tanhF32" + s.name
	}
	if s.avx512 && !tanh {
		gateConsts = GLOBL("gateConsts", RODATA|NOPTR)
		for i, v := range gateValues {
			for l := 0; l < 16; l++ {
				DATA(64*i+4*l, F32(v))
			}
		}
	}
	TEXT(name, NOSPLIT, "func(dst, x []float32)")
	Pragma("noescape")
	if tanh {
		Doc(fmt.Sprintf("%s sets dst[i] = tanh(x[i]) for i < len(x), with %s (see asm/vec.go).", name, s.name))
	} else {
		Doc(fmt.Sprintf("%s sets dst[i] = 1/(1 + e^-x[i]) for i < len(x), with %s (see asm/vec.go).", name, s.name))
	}
	lanes := s.bytes / 4
	dst, x := stream{RDI, 4}, stream{RSI, 4}
	Load(Param("dst").Base(), dst.reg)
	Load(Param("x").Base(), x.reg)
	Load(Param("x").Len(), RCX)
	mask := s.v(14)
	setMask := kmask
	if !s.avx512 {
		setMask = func() { ymask(mask, 4) }
	}
	loop(name, lanes, []stream{dst, x}, setMask, func(i int, tail bool) {
		t, k, n := s.v(i), s.v(4+i), s.v(8+i)
		p := n // AVX2 has 16 registers: the polynomial reuses n's once r is made
		if s.avx512 {
			p = s.v(16 + i)
		}
		mx, md := at(x, i, lanes), at(dst, i, lanes)
		if tail {
			loadMasked(s, f32, mx, mask, t)
		} else {
			VMOVUPS(mx, t)
		}
		scale := gMinusOne
		if tanh {
			scale = gTwo
		}
		VMULPS(gateConst(scale), t, t)
		// Clamp with t as the second source, which MAXPS and MINPS return
		// when an operand is NaN.
		VMOVUPS(gateConst(gLo), k)
		VMAXPS(t, k, t)
		VMOVUPS(gateConst(gHi), k)
		VMINPS(t, k, t)
		VMOVUPS(gateConst(gRound), k)
		VFMADD231PS(gateConst(gLog2e), t, k) // k = t·log2 e + 1.5·2^23
		VSUBPS(gateConst(gRound), k, n)      // n = round(t·log2 e)
		VFNMADD231PS(gateConst(gLn2hi), n, t)
		VFNMADD231PS(gateConst(gLn2lo), n, t) // t = r
		VMOVUPS(gateConst(gP0), p)            // with AVX2, n's last use was above
		for c := 1; c <= 5; c++ {
			VFMADD213PS(gateConst(gP0+c), t, p) // p = p·r + P_c
		}
		VMULPS(t, p, p)
		VFMADD213PS(t, t, p) // p = r²·P(r) + r
		VADDPS(gateConst(gOne), p, p)
		if s.avx512 {
			VSCALEFPS(n, p, p) // p·2^n
		} else {
			VPSUBD(gateConst(gRound), k, k)
			VPSLLD(Imm(23), k, k)
			VPADDD(k, p, p)
		}
		VADDPS(gateConst(gOne), p, p)
		VMOVUPS(gateConst(gOne), k)
		VDIVPS(p, k, p) // 1/(1 + e^t)
		if tanh {
			VMOVUPS(gateConst(gMinusTwo), k)
			VFMADD213PS(gateConst(gOne), k, p) // 1 − 2/(1 + e^{2x})
		}
		if tail {
			storeMasked(s, f32, p, mask, md)
		} else {
			VMOVUPS(p, md)
		}
	})
	VZEROUPPER()
	RET()
}
