package main

// The AVX-512 fast path of package noise's ziggurat normal sampler
// (infer/noise/ziggurat.go), written to zig_amd64.s and zig_stubs_amd64.go
// there when the program runs with -zig:
//
//	go run -C ../../autodiff/kernel/asm . -zig -out ../../../infer/noise/zig_amd64.s -stubs ../../../infer/noise/zig_stubs_amd64.go -pkg noise
//
// The kernel computes the fast path for a block of consecutive words,
// eight per iteration, lane l taking word mix64(x + (l+1)·g) of the stream,
// exactly as the scalar loop: layer j = u & 0xff, m = int64(u) >> 11,
// k = zk[j] and zw[j] gathered, the candidate float64(m)·zw[j] (m has at
// most 53 significant bits, so the conversion is exact and the product
// rounds once, as in Go), accepted iff uint64(m) + k < 2k. It stores every
// candidate in z and the accept bits in acc (bit p of the block in bit
// p%64 of the little-endian word acc[p/64], one byte per iteration),
// without branching on them; the Go caller walks the block, copying
// the accepted runs and doing each rejected draw with the scalar code,
// whose extra words are the block's next positions. So the output and the
// words consumed are the scalar loop's, bit for bit.

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func zigMain() {
	lanes := GLOBL("zigLanes", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		DATA(i*8, U64(uint64(i+1)))
	}

	TEXT("zigBlockAVX512", NOSPLIT, "func(z []float64, acc []uint64, x, inc uint64, zk *[256]uint64, zw *[256]float64)")
	Pragma("noescape")
	Doc("zigBlockAVX512 computes the ziggurat's fast-path candidates for the len(z) words after Weyl state x",
		"(a multiple of 8) into z and their accept bits into acc, bit p in acc[p/64] (see asm/zig.go).")
	loadZigParams()
	SHRQ(U8(3), RCX)

	weylSetup(lanes)
	// Z4: the layer mask.
	MOVQ(U32(0xff), R10)
	VPBROADCASTQ(R10, Z4)

	Label("zig_loop")
	TESTQ(RCX, RCX)
	JZ(LabelRef("zig_done"))
	mix64Lanes()
	// j in Z10, m in Z11, k = zk[j] in Z12, zw[j] in Z13.
	VPANDQ(Z4, Z8, Z10)
	VPSRAQ(U8(11), Z8, Z11)
	KXNORB(K1, K1, K1)
	VPGATHERQQ(Mem{Base: RSI, Index: Z10, Scale: 8}, K1, Z12)
	KXNORB(K2, K2, K2)
	VGATHERQPD(Mem{Base: RDX, Index: Z10, Scale: 8}, K2, Z13)
	// The candidate z = float64(m)·zw[j] in Z14.
	VCVTQQ2PD(Z11, Z14)
	VMULPD(Z13, Z14, Z14)
	// Accept lanes with uint64(m) + k < 2k.
	VPADDQ(Z12, Z11, Z15)
	VPADDQ(Z12, Z12, Z12)
	VPCMPUQ(U8(1), Z12, Z15, K3)
	KMOVB(K3, EBX)
	MOVB(BL, Mem{Base: R11})
	VMOVUPD(Z14, Mem{Base: RDI})
	ADDQ(U32(64), RDI)
	INCQ(R11)
	DECQ(RCX)
	VPADDQ(Z1, Z0, Z0)
	JMP(LabelRef("zig_loop"))

	Label("zig_done")
	VZEROUPPER()
	RET()

	zig32(lanes)
}

// zig32 is the float32 sampler's fast path (FillNormal32): each word gives
// two candidates, its low 32-bit half first, so the eight words of an
// iteration are sixteen dword lanes in output order. For half h: layer
// j = h & 0xff, m = int32(h) >> 8, k = zk32[j] (one dword gather for all
// sixteen), the candidate float64(m)·zw32[j] rounded to float32 (exact
// conversion, one rounding of the product in float64 and one to float32,
// as in Go), accepted iff uint32(m) + k < 2k in 32-bit arithmetic. The
// accept bits of an iteration are two bytes of acc.
func zig32(lanes Mem) {
	TEXT("zigBlock32AVX512", NOSPLIT, "func(z []float32, acc []uint64, x, inc uint64, zk *[256]uint32, zw *[256]float64)")
	Pragma("noescape")
	Doc("zigBlock32AVX512 computes the float32 ziggurat's fast-path candidates, two per word, for the len(z)/2 words",
		"after Weyl state x (len(z) a multiple of 16) into z and their accept bits into acc, bit p in acc[p/64] (see asm/zig.go).")
	loadZigParams()
	SHRQ(U8(4), RCX)

	weylSetup(lanes)
	MOVL(U32(0xff), R10L)
	VPBROADCASTD(R10L, Z4)

	Label("zig32_loop")
	TESTQ(RCX, RCX)
	JZ(LabelRef("zig32_done"))
	mix64Lanes()
	// j in Z10 and m in Z11, sixteen dwords; k = zk32[j] in Z12.
	VPANDD(Z4, Z8, Z10)
	VPSRAD(U8(8), Z8, Z11)
	KXNORW(K1, K1, K1)
	VPGATHERDD(Mem{Base: RSI, Index: Z10, Scale: 4}, K1, Z12)
	// zw32[j] for the low and the high eight lanes in Z13, Z14.
	VEXTRACTI32X8(U8(1), Z10, Y16)
	KXNORB(K2, K2, K2)
	VGATHERDPD(Mem{Base: RDX, Index: Y10, Scale: 8}, K2, Z13)
	KXNORB(K4, K4, K4)
	VGATHERDPD(Mem{Base: RDX, Index: Y16, Scale: 8}, K4, Z14)
	// The candidates: float64(m)·zw32[j], then float32.
	VEXTRACTI32X8(U8(1), Z11, Y17)
	VCVTDQ2PD(Y11, Z18)
	VCVTDQ2PD(Y17, Z19)
	VMULPD(Z13, Z18, Z18)
	VMULPD(Z14, Z19, Z19)
	VCVTPD2PS(Z18, Y20)
	VCVTPD2PS(Z19, Y21)
	VINSERTF32X8(U8(1), Y21, Z20, Z20)
	// Accept lanes with uint32(m) + k < 2k.
	VPADDD(Z12, Z11, Z15)
	VPADDD(Z12, Z12, Z12)
	VPCMPUD(U8(1), Z12, Z15, K3)
	KMOVW(K3, EBX)
	MOVW(BX, Mem{Base: R11})
	VMOVUPS(Z20, Mem{Base: RDI})
	ADDQ(U32(64), RDI)
	ADDQ(U32(2), R11)
	DECQ(RCX)
	VPADDQ(Z1, Z0, Z0)
	JMP(LabelRef("zig32_loop"))

	Label("zig32_done")
	VZEROUPPER()
	RET()
}

// loadZigParams loads both kernels' arguments: z's base and length in RDI
// and RCX, acc in R11, the Weyl state x and increment in R8 and R9, the
// tables in RSI and RDX.
func loadZigParams() {
	Load(Param("z").Base(), RDI)
	Load(Param("z").Len(), RCX)
	Load(Param("acc").Base(), R11)
	Load(Param("x"), R8)
	Load(Param("inc"), R9)
	Load(Param("zk"), RSI)
	Load(Param("zw"), RDX)
}

// weylSetup sets Z0 to the Weyl states of the eight lanes, x + (l+1)·inc,
// Z1 to 8·inc, and Z2, Z3 to the multipliers of mix64.
func weylSetup(lanes Mem) {
	VPBROADCASTQ(R9, Z5)
	VPMULLQ(lanes, Z5, Z5)
	VPBROADCASTQ(R8, Z0)
	VPADDQ(Z5, Z0, Z0)
	SHLQ(U8(3), R9)
	VPBROADCASTQ(R9, Z1)
	MOVQ(U64(0xbf58476d1ce4e5b9), R10)
	VPBROADCASTQ(R10, Z2)
	MOVQ(U64(0x94d049bb133111eb), R10)
	VPBROADCASTQ(R10, Z3)
}

// mix64Lanes sets Z8 to mix64 of the lanes' states Z0 (Z9 is scratch).
func mix64Lanes() {
	VPSRLQ(U8(30), Z0, Z8)
	VPXORQ(Z0, Z8, Z8)
	VPMULLQ(Z2, Z8, Z8)
	VPSRLQ(U8(27), Z8, Z9)
	VPXORQ(Z9, Z8, Z8)
	VPMULLQ(Z3, Z8, Z8)
	VPSRLQ(U8(31), Z8, Z9)
	VPXORQ(Z9, Z8, Z8)
}
