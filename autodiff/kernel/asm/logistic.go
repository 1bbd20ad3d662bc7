package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// bernoulliLogit: package kernel's BernoulliLogit (logistic.go there)
// eight rows at a time with AVX-512 (F and DQ): the same plain multiplies,
// adds, subtractions and division as the scalar Go, in the same order and
// with the same constants, so the same bits; the tables' entries come by
// gathers, 2^k by adding k to the exponent's bits, and the choices on the
// sign of s by masks, as there. Lanes the scalar code treats apart (|α| >
// 707 or not a number, y not 0 or 1) are computed as any other and
// reported in the result, for the caller to redo.

// Indices of logitConsts' rows of eight lanes.
const (
	lcAbs = iota
	lcSign
	lcMax
	lcZero
	lcOne
	lcScale
	lcShifter
	lcHead
	lcTail
	lcE720
	lcE120
	lcE24
	lcE6
	lcHalf
	lcLow6
	lcTableSize
	lcLow8
	lcL7
	lcLm6
	lcL5
	lcLm4
	lcL3
	lcLm2
	lcCount
)

var logitConsts Mem

func logitConst(i int) Mem { return logitConsts.Offset(64 * i) }

func bernoulliLogit() {
	values := [lcCount]uint64{
		lcAbs: 1<<63 - 1, lcSign: 1 << 63, lcMax: math.Float64bits(707), lcZero: 0, lcOne: math.Float64bits(1),
		lcScale: math.Float64bits(64 / math.Ln2), lcShifter: math.Float64bits(0x1.8p52),
		lcHead: math.Float64bits(0x1.62e42feep-7), lcTail: math.Float64bits(0x1.a39ef35793c76p-39),
		lcE720: math.Float64bits(1.0 / 720), lcE120: math.Float64bits(1.0 / 120), lcE24: math.Float64bits(1.0 / 24),
		lcE6: math.Float64bits(1.0 / 6), lcHalf: math.Float64bits(0.5), lcLow6: 63, lcTableSize: math.Float64bits(128),
		lcLow8: 255, lcL7: math.Float64bits(1.0 / 7), lcLm6: math.Float64bits(-1.0 / 6), lcL5: math.Float64bits(1.0 / 5),
		lcLm4: math.Float64bits(-1.0 / 4), lcL3: math.Float64bits(1.0 / 3), lcLm2: math.Float64bits(-1.0 / 2),
	}
	logitConsts = GLOBL("logitConsts", RODATA|NOPTR)
	for i, v := range values {
		for l := 0; l < 8; l++ {
			DATA(64*i+8*l, U64(v))
		}
	}
	const name = "bernoulliLogitF64AVX512"
	TEXT(name, NOSPLIT, "func(out, partial, y, alpha []float64, expTable, logTable *float64) bool")
	Pragma("noescape")
	Doc(name + " is BernoulliLogit for len(alpha) rows, a multiple of 8, with AVX512; it reports whether some row needs the scalar code (see asm/logistic.go).")
	out, partial, y, alpha, et, lt, n, special := RDI, RSI, RDX, R8, R9, R10, RCX, R11
	Load(Param("out").Base(), out)
	Load(Param("partial").Base(), partial)
	Load(Param("y").Base(), y)
	Load(Param("alpha").Base(), alpha)
	Load(Param("expTable"), et)
	Load(Param("logTable"), lt)
	Load(Param("alpha").Len(), n)
	XORQ(special, special)
	c := logitConst

	Label("logit_loop")
	VMOVUPD(Mem{Base: alpha}, Z0)
	VMOVUPD(Mem{Base: y}, Z1)
	// The rows the scalar code treats apart.
	VPANDQ(c(lcAbs), Z0, Z2)            // |α|
	VCMPPD(Imm(0x12), c(lcMax), Z2, K1) // |α| ≤ 707 (false for NaN)
	VCMPPD(Imm(0), c(lcZero), Z1, K2)
	VCMPPD(Imm(0), c(lcOne), Z1, K3)
	KORW(K3, K2, K2)
	KANDW(K2, K1, K1)
	KMOVW(K1, EAX)
	NOTL(EAX)
	ANDL(U32(0xff), EAX)
	ORQ(RAX, special)
	// sign = 2y − 1, s = sign·α, t = −|α|.
	VADDPD(Z1, Z1, Z3)
	VSUBPD(c(lcOne), Z3, Z3)
	VMULPD(Z0, Z3, Z4)
	VPORQ(c(lcSign), Z2, Z5)
	// e = ExpNonPos(t): n = t·scale + shifter − shifter, k = n as an
	// integer (the bits of t·scale + shifter less the shifter's), r = (t −
	// n·head) − n·tail.
	VMULPD(c(lcScale), Z5, Z6)
	VADDPD(c(lcShifter), Z6, Z6)
	VSUBPD(c(lcShifter), Z6, Z7)
	VPSUBQ(c(lcShifter), Z6, Z8)
	VMULPD(c(lcHead), Z7, Z9)
	VSUBPD(Z9, Z5, Z9)
	VMULPD(c(lcTail), Z7, Z10)
	VSUBPD(Z10, Z9, Z9) // r
	VMULPD(c(lcE720), Z9, Z10)
	for _, k := range []int{lcE120, lcE24, lcE6} {
		VADDPD(c(k), Z10, Z10)
		VMULPD(Z9, Z10, Z10)
	}
	VADDPD(c(lcHalf), Z10, Z10)
	VMULPD(Z9, Z9, Z11)
	VMULPD(Z11, Z10, Z10)
	VADDPD(Z9, Z10, Z10) // p
	VPANDQ(c(lcLow6), Z8, Z12)
	VPSLLQ(Imm(1), Z12, Z12) // entries of two float64
	KXNORW(K2, K2, K2)
	VGATHERQPD(Mem{Base: et, Index: Z12, Scale: 8}, K2, Z13) // hi
	KXNORW(K2, K2, K2)
	VGATHERQPD(Mem{Base: et, Index: Z12, Scale: 8, Disp: 8}, K2, Z14) // lo
	VMULPD(Z10, Z13, Z10)
	VADDPD(Z14, Z10, Z10)
	VADDPD(Z13, Z10, Z10) // hi + (lo + hi·p)
	VPSRAQ(Imm(6), Z8, Z8)
	VPSLLQ(Imm(52), Z8, Z8)
	VPADDQ(Z8, Z10, Z10) // e
	// L = Log1pUnit(e): u = 1 + e, i = int(e·128 + 0.5), r = (u − c_i)·inv_i.
	VADDPD(c(lcOne), Z10, Z11)
	VMULPD(c(lcTableSize), Z10, Z12)
	VADDPD(c(lcHalf), Z12, Z12)
	VCVTTPD2QQ(Z12, Z12)
	VPANDQ(c(lcLow8), Z12, Z12)
	VPSLLQ(Imm(2), Z12, Z12)                              // entries of four float64
	for i, r := range []VecPhysical{Z13, Z14, Z15, Z16} { // c, inv, hi, lo
		KXNORW(K2, K2, K2)
		VGATHERQPD(Mem{Base: lt, Index: Z12, Scale: 8, Disp: 8 * i}, K2, r)
	}
	VSUBPD(Z13, Z11, Z17)
	VMULPD(Z14, Z17, Z17) // r
	VMULPD(c(lcL7), Z17, Z18)
	for _, k := range []int{lcLm6, lcL5, lcLm4, lcL3} {
		VADDPD(c(k), Z18, Z18)
		VMULPD(Z17, Z18, Z18)
	}
	VADDPD(c(lcLm2), Z18, Z18)
	VMULPD(Z17, Z17, Z19)
	VMULPD(Z19, Z18, Z18) // p
	VSUBPD(c(lcOne), Z11, Z19)
	VSUBPD(Z19, Z10, Z19)
	VMULPD(Z14, Z19, Z19) // (e − (u − 1))·inv
	VADDPD(Z19, Z16, Z16)
	VADDPD(Z18, Z16, Z16)
	VADDPD(Z17, Z16, Z16)
	VADDPD(Z16, Z15, Z16) // L
	// lp = −(max(−s, 0) + L), ∂ = sign·(e or 1)/(1 + e) by s's sign bit.
	VPSRAQ(Imm(63), Z4, Z20)
	VPXORQ(c(lcSign), Z4, Z21)
	VPANDQ(Z20, Z21, Z21)
	VADDPD(Z16, Z21, Z21)
	VPXORQ(c(lcSign), Z21, Z21)
	VPANDNQ(Z10, Z20, Z22)
	VPANDQ(c(lcOne), Z20, Z23)
	VPORQ(Z23, Z22, Z22)
	VMULPD(Z22, Z3, Z22)
	VDIVPD(Z11, Z22, Z22)
	VMOVUPD(Z21, Mem{Base: out})
	VMOVUPD(Z22, Mem{Base: partial})
	for _, p := range []GPPhysical{out, partial, y, alpha} {
		ADDQ(U32(64), p)
	}
	SUBQ(U32(8), n)
	JNZ(LabelRef("logit_loop"))
	TESTQ(special, special)
	SETNE(AL)
	Store(AL, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
