package main

// The activation and pooling kernels of package kernel (layers.go there),
// emitted with the elementwise ones (-vec): the ReLU and its gradient, and
// max pooling forward and backward over channels-last images. Each is a
// pass over a network's largest activations, bound by memory; as Go loops
// they cost several times the pass (a float64 round trip per element for
// the ReLU's gradient mask, a mispredicted branch per channel for the
// pooling's first largest element).
//
// Every kernel gives the bits of its portable Go loop (layers_portable.go
// there):
//
//   - relu: dst = 0 > x ? 0 : x (MAXPS with x as the operand it returns
//     when one is NaN: NaN stays NaN, −0 stays −0);
//   - reluGrad: g masked to the lanes where x > 0 (ordered), then stored
//     (assign) or added: dst + (+0) where x ≤ 0, as the Go loop adds;
//   - maxPool: m = x₀, then m = xₖ where xₖ > m or xₖ is NaN (MAXPS, then
//     a blend of the NaN lanes), for each window position k in order;
//   - maxPoolGrad: dy goes to the first k with xₖ = y (ordered), through a
//     running remainder zeroed once taken; every other position gets +0,
//     assigned or added.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// layerKernels emits the four families for one instruction set.
func layerKernels(s vecISA) {
	for _, e := range []elem{f32, f64} {
		relu(s, e)
		reluGrad(s, e, true)
		reluGrad(s, e, false)
		maxPool(s, e)
		maxPoolGrad(s, e, true)
		maxPoolGrad(s, e, false)
		rowsKernel(s, e, false)
		rowsKernel(s, e, true)
	}
}

// tailMask sets the lane mask of the last CX elements: K1, or the AVX2
// mask vector.
func tailMask(s vecISA, e elem, mask VecPhysical) func() {
	if s.avx512 {
		return kmask
	}
	return func() { ymask(mask, e.size) }
}

// load and store a vector, whole or under the tail mask.
func loadV(s vecISA, e elem, m Mem, mask, r VecPhysical, tail bool) {
	if tail {
		loadMasked(s, e, m, mask, r)
	} else {
		vload(e, m, r)
	}
}

func storeV(s vecISA, e elem, r, mask VecPhysical, m Mem, tail bool) {
	if tail {
		storeMasked(s, e, r, mask, m)
	} else {
		vstore(e, r, m)
	}
}

func vmax(e elem, a, b, dst VecPhysical) { // dst = b > a ? b : a (a when either is NaN)
	if e.ps {
		VMAXPS(a, b, dst)
	} else {
		VMAXPD(a, b, dst)
	}
}

func vand(e elem, a, b, dst VecPhysical) {
	if e.ps {
		VANDPS(a, b, dst)
	} else {
		VANDPD(a, b, dst)
	}
}

// relu: dst[i] = 0 > x[i] ? 0 : x[i].
func relu(s vecISA, e elem) {
	name := "relu" + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, x []%s)", e.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets dst[i] = 0 > x[i] ? 0 : x[i] for i < len(x), with %s (see asm/layers.go).", name, s.name))
	lanes := s.bytes / e.size
	dst, x := stream{RDI, e.size}, stream{RSI, e.size}
	Load(Param("dst").Base(), dst.reg)
	Load(Param("x").Base(), x.reg)
	Load(Param("x").Len(), RCX)
	zv, mask := s.v(12), s.v(14)
	zero(s, zv)
	loop(name, lanes, []stream{dst, x}, tailMask(s, e, mask), func(i int, tail bool) {
		v := s.v(i)
		loadV(s, e, at(x, i, lanes), mask, v, tail)
		vmax(e, v, zv, v)
		storeV(s, e, v, mask, at(dst, i, lanes), tail)
	})
	VZEROUPPER()
	RET()
}

// gtZero sets m to the lanes of v greater than zero (ordered): K2+i with
// AVX-512, else a mask vector.
func gtZero(s vecISA, e elem, v, zv, m VecPhysical, k Register) {
	if s.avx512 {
		cmp(e, Imm(0x1e), zv, v, k) // GT_OQ: v > 0
		return
	}
	cmp(e, Imm(0x1e), zv, v, m)
}

// reluGrad: dst[i] = (or +=) g[i] where x[i] > 0, +0 elsewhere.
func reluGrad(s vecISA, e elem, assign bool) {
	op := "Add"
	if assign {
		op = "Set"
	}
	name := "reluGrad" + op + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, x, g []%s)", e.gotype))
	Pragma("noescape")
	verb := "adds"
	if assign {
		verb = "sets dst[i] to"
	}
	Doc(fmt.Sprintf("%s %s g[i] where x[i] > 0, else +0, for i < len(g), with %s (see asm/layers.go).", name, verb, s.name))
	lanes := s.bytes / e.size
	dst, x, g := stream{RDI, e.size}, stream{RSI, e.size}, stream{RDX, e.size}
	Load(Param("dst").Base(), dst.reg)
	Load(Param("x").Base(), x.reg)
	Load(Param("g").Base(), g.reg)
	Load(Param("g").Len(), RCX)
	zv, mask := s.v(12), s.v(14)
	zero(s, zv)
	loop(name, lanes, []stream{dst, x, g}, tailMask(s, e, mask), func(i int, tail bool) {
		v, gv, m := s.v(i), s.v(4+i), s.v(8+i)
		k := []Register{K2, K3, K4, K5}[i]
		loadV(s, e, at(x, i, lanes), mask, v, tail)
		loadV(s, e, at(g, i, lanes), mask, gv, tail)
		gtZero(s, e, v, zv, m, k)
		if s.avx512 {
			if e.ps {
				VMOVUPS_Z(gv, k, gv)
			} else {
				VMOVUPD_Z(gv, k, gv)
			}
		} else {
			vand(e, m, gv, gv)
		}
		if !assign {
			loadV(s, e, at(dst, i, lanes), mask, v, tail)
			add(e, v, gv)
		}
		storeV(s, e, gv, mask, at(dst, i, lanes), tail)
	})
	VZEROUPPER()
	RET()
}

// poolLoop emits the loop over the channels of one output pixel, a vector
// at a time, then the last CX < lanes under the tail mask: body(tail)
// handles the vector at byte offset R8 of every operand.
func poolLoop(name string, s vecISA, e elem, mask VecPhysical, body func(tail bool)) {
	lanes := s.bytes / e.size
	XORQ(R8, R8)
	Label(name + "_one")
	CMPQ(RCX, U32(uint32(lanes)))
	JB(LabelRef(name + "_tail"))
	body(false)
	ADDQ(U32(uint32(s.bytes)), R8)
	SUBQ(U32(uint32(lanes)), RCX)
	JMP(LabelRef(name + "_one"))
	Label(name + "_tail")
	TESTQ(RCX, RCX)
	JZ(LabelRef(name + "_done"))
	tailMask(s, e, mask)()
	body(true)
	Label(name + "_done")
}

// windowLoop emits the loop over the window positions k = first, first +
// 1, … of offs (base R10, count R13; k in AX), with R9 the byte offset of
// position k's vector in x: body runs once per position. (kmask and ymask
// clobber R11 and R12.)
func windowLoop(name string, e elem, first int, body func()) {
	MOVQ(U32(uint32(first)), RAX)
	Label(name + "_k")
	CMPQ(RAX, R13)
	JAE(LabelRef(name + "_kdone"))
	MOVQ(Mem{Base: R10, Index: RAX, Scale: 8}, R9)
	SHLQ(U8(e.shift), R9)
	ADDQ(R8, R9)
	body()
	INCQ(RAX)
	JMP(LabelRef(name + "_k"))
	Label(name + "_kdone")
}

// pixelLoop emits the loop over n output pixels (R14 counts them): body
// handles one, with RCX its channels, then every pointer in byC advances by
// c elements and every one in byStep by step, the byte strides kept in the
// c and step argument slots (perPixel converts them on entry).
func pixelLoop(name string, e elem, byC, byStep []GPPhysical, body func()) {
	Load(Param("n"), R14)
	for _, p := range []string{"c", "step"} {
		Load(Param(p), R9)
		SHLQ(U8(e.shift), R9)
		Store(R9, Param(p))
	}
	Label(name + "_pixel")
	TESTQ(R14, R14)
	JZ(LabelRef(name + "_end"))
	Load(Param("c"), RCX)
	SHRQ(U8(e.shift), RCX)
	body()
	for _, r := range byC {
		ADDQ(paramAddr("c"), r)
	}
	for _, r := range byStep {
		ADDQ(paramAddr("step"), r)
	}
	DECQ(R14)
	JMP(LabelRef(name + "_pixel"))
	Label(name + "_end")
}

// maxPool: for each of n output pixels q, dst[q·c + j] = max over the
// window positions k of x[q·step + offs[k] + j].
func maxPool(s vecISA, e elem) {
	name := "maxPool" + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst, x []%s, offs []int, c, n, step int)", e.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets dst[q·c+j] to the largest x[q·step+offs[k]+j] (NaN if any is) for q < n, j < c, with %s (see asm/layers.go).", name, s.name))
	Load(Param("dst").Base(), RDI)
	Load(Param("x").Base(), RSI)
	Load(Param("offs").Base(), R10)
	Load(Param("offs").Len(), R13)
	m, v, t, mask := s.v(0), s.v(1), s.v(2), s.v(14)
	xAt := func(tail bool, r VecPhysical) {
		loadV(s, e, Mem{Base: RSI, Index: R9, Scale: 1}, mask, r, tail)
	}
	pixelLoop(name, e, []GPPhysical{RDI}, []GPPhysical{RSI}, func() {
		poolLoop(name, s, e, mask, func(tail bool) {
			lbl := name
			if tail {
				lbl += "_t"
			}
			MOVQ(Mem{Base: R10}, R9)
			SHLQ(U8(e.shift), R9)
			ADDQ(R8, R9)
			xAt(tail, m)
			windowLoop(lbl, e, 1, func() {
				xAt(tail, v)
				vmax(e, m, v, m) // m = v > m ? v : m
				if s.avx512 {
					cmp(e, Imm(3), v, v, K2) // unordered: v is NaN
					if e.ps {
						VMOVAPS(v, K2, m)
					} else {
						VMOVAPD(v, K2, m)
					}
				} else {
					cmp(e, Imm(3), v, v, t)
					if e.ps {
						VBLENDVPS(t, v, m, m)
					} else {
						VBLENDVPD(t, v, m, m)
					}
				}
			})
			storeV(s, e, m, mask, Mem{Base: RDI, Index: R8, Scale: 1}, tail)
		})
	})
	VZEROUPPER()
	RET()
}

// maxPoolGrad: for each of n output pixels q and channel j < c,
// dx[q·step + offs[k] + j] gets dy[q·c + j] for the first k with
// x[q·step + offs[k] + j] = y[q·c + j] and +0 for the other positions,
// assigned or added.
func maxPoolGrad(s vecISA, e elem, assign bool) {
	op := "Add"
	if assign {
		op = "Set"
	}
	name := "maxPoolGrad" + op + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dx, x []%[1]s, offs []int, y, dy []%[1]s, c, n, step int)", e.gotype))
	Pragma("noescape")
	doc := "%s adds dy[q·c+j] to dx[q·step+offs[k]+j] for the first k with x[q·step+offs[k]+j] = y[q·c+j], for q < n, j < c, with %s (see asm/layers.go)."
	if assign {
		doc = "%s sets dx[q·step+offs[k]+j] to dy[q·c+j] for the first k with x[q·step+offs[k]+j] = y[q·c+j], and to +0 for the other k, for q < n, j < c, with %s (see asm/layers.go)."
	}
	Doc(fmt.Sprintf(doc, name, s.name))
	Load(Param("dx").Base(), RDI)
	Load(Param("x").Base(), RSI)
	Load(Param("offs").Base(), R10)
	Load(Param("offs").Len(), R13)
	Load(Param("y").Base(), RBX)
	Load(Param("dy").Base(), RDX)
	y, rem, v, t, d, mask := s.v(0), s.v(1), s.v(2), s.v(3), s.v(4), s.v(14)
	pixelLoop(name, e, []GPPhysical{RBX, RDX}, []GPPhysical{RDI, RSI}, func() {
		poolLoop(name, s, e, mask, func(tail bool) {
			lbl := name
			if tail {
				lbl += "_t"
			}
			loadV(s, e, Mem{Base: RBX, Index: R8, Scale: 1}, mask, y, tail)
			loadV(s, e, Mem{Base: RDX, Index: R8, Scale: 1}, mask, rem, tail)
			windowLoop(lbl, e, 0, func() {
				at := Mem{Base: RSI, Index: R9, Scale: 1}
				dat := Mem{Base: RDI, Index: R9, Scale: 1}
				loadV(s, e, at, mask, v, tail)
				if s.avx512 {
					cmp(e, Imm(0), y, v, K2) // EQ_OQ: v = y
					if e.ps {
						VMOVUPS_Z(rem, K2, t)
						VPXORD(rem, rem, K2, rem) // taken: zero the remainder
					} else {
						VMOVUPD_Z(rem, K2, t)
						VPXORQ(rem, rem, K2, rem)
					}
				} else {
					cmp(e, Imm(0), y, v, d)
					vand(e, d, rem, t)
					if e.ps {
						VANDNPS(rem, d, rem)
					} else {
						VANDNPD(rem, d, rem)
					}
				}
				if !assign {
					loadV(s, e, dat, mask, d, tail)
					add(e, d, t)
				}
				storeV(s, e, t, mask, dat, tail)
			})
		})
	})
	VZEROUPPER()
	RET()
}

// rowsKernel emits copy2D or add2D: for r < rows, the cols elements of
// src at r·lds are copied (or added) to dst at r·ldd: the runs of an
// im2col matrix (a window's row across channels, one per output pixel)
// and their sum back into the image (col2im), a call per image row rather
// than a memmove per run. Runs are handled in order, so overlapping runs
// of dst (col2im's) add up as the Go loop adds them.
func rowsKernel(s vecISA, e elem, isAdd bool) {
	op, verb := "copy2D", "copies"
	if isAdd {
		op, verb = "add2D", "adds"
	}
	name := op + e.name + s.name
	TEXT(name, NOSPLIT, fmt.Sprintf("func(dst []%[1]s, ldd int, src []%[1]s, lds int, rows, cols int)", e.gotype))
	Pragma("noescape")
	Doc(fmt.Sprintf("%s %s src[r·lds+j] to dst[r·ldd+j] for r < rows, j < cols, run by run, with %s (see asm/layers.go).", name, verb, s.name))
	lanes := s.bytes / e.size
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("ldd"), R8)
	Load(Param("lds"), R9)
	Load(Param("rows"), R10)
	Load(Param("cols"), R13)
	SHLQ(U8(e.shift), R8)
	SHLQ(U8(e.shift), R9)
	v, d, mask := s.v(0), s.v(1), s.v(14)
	// The tail mask is the same for every run: cols mod lanes.
	MOVQ(R13, RCX)
	ANDQ(U32(uint32(lanes-1)), RCX)
	JZ(LabelRef(name + "_nomask"))
	tailMask(s, e, mask)()
	Label(name + "_nomask")
	Label(name + "_row")
	TESTQ(R10, R10)
	JZ(LabelRef(name + "_done"))
	XORQ(RDX, RDX) // byte offset in the run
	MOVQ(R13, RCX)
	Label(name + "_vec")
	CMPQ(RCX, U32(uint32(lanes)))
	JB(LabelRef(name + "_tail"))
	body := func(tail bool) {
		loadV(s, e, Mem{Base: RSI, Index: RDX, Scale: 1}, mask, v, tail)
		if isAdd {
			loadV(s, e, Mem{Base: RDI, Index: RDX, Scale: 1}, mask, d, tail)
			add(e, d, v)
		}
		storeV(s, e, v, mask, Mem{Base: RDI, Index: RDX, Scale: 1}, tail)
	}
	body(false)
	ADDQ(U32(uint32(s.bytes)), RDX)
	SUBQ(U32(uint32(lanes)), RCX)
	JMP(LabelRef(name + "_vec"))
	Label(name + "_tail")
	TESTQ(RCX, RCX)
	JZ(LabelRef(name + "_next"))
	body(true)
	Label(name + "_next")
	ADDQ(R8, RDI)
	ADDQ(R9, RSI)
	DECQ(R10)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}
