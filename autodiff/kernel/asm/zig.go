package main

// The AVX-512 fast path of package noise's ziggurat normal sampler
// (infer/noise/ziggurat.go), written to zig_amd64.s and zig_stubs_amd64.go
// there when the program runs with -zig:
//
//	go run -C ../../autodiff/kernel/asm . -zig -out ../../../infer/noise/zig_amd64.s -stubs ../../../infer/noise/zig_stubs_amd64.go -pkg noise
//
// The kernel does eight consecutive draws per iteration, lane l taking word
// mix64(x + (l+1)·g) of the stream, exactly as the scalar loop: layer
// j = u & 0xff, m = int64(u) >> 11, k = zk[j] and zw[j] gathered, the
// candidate float64(m)·zw[j] (m has at most 53 significant bits, so the
// conversion is exact and the product rounds once, as in Go), accepted iff
// uint64(m) + k < 2k. It stores the accepted lanes before the first
// rejected one and returns how many draws it wrote in all; the caller does
// the rejected draw with the scalar code, which consumes further words,
// and calls again. So the output and the words consumed are the scalar
// loop's, bit for bit.

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

	TEXT("zigFastAVX512", NOSPLIT, "func(dst []float64, x, inc uint64, zk *[256]uint64, zw *[256]float64) int")
	Pragma("noescape")
	Doc("zigFastAVX512 fills dst with the ziggurat's fast-path draws from Weyl state x and increment inc",
		"up to the first draw that the fast path rejects, and returns how many it wrote (see asm/zig.go).")
	Load(Param("dst").Base(), RDI)
	Load(Param("dst").Len(), RCX)
	Load(Param("x"), R8)
	Load(Param("inc"), R9)
	Load(Param("zk"), RSI)
	Load(Param("zw"), RDX)

	// Z0: the Weyl states of the eight lanes, x + (l+1)·inc; Z1: 8·inc.
	// (Passing the lane steps in from Go is slower: loading them as one
	// vector right after the caller stored them defeats store forwarding.)
	VPBROADCASTQ(R9, Z5)
	VPMULLQ(lanes, Z5, Z5)
	VPBROADCASTQ(R8, Z0)
	VPADDQ(Z5, Z0, Z0)
	SHLQ(U8(3), R9)
	VPBROADCASTQ(R9, Z1)
	// Z2, Z3: the multipliers of mix64; Z4: the layer mask.
	MOVQ(U64(0xbf58476d1ce4e5b9), R10)
	VPBROADCASTQ(R10, Z2)
	MOVQ(U64(0x94d049bb133111eb), R10)
	VPBROADCASTQ(R10, Z3)
	MOVQ(U32(0xff), R10)
	VPBROADCASTQ(R10, Z4)
	XORQ(RAX, RAX)

	Label("zig_loop")
	TESTQ(RCX, RCX)
	JZ(LabelRef("zig_done"))
	// u = mix64(state) in Z8.
	VPSRLQ(U8(30), Z0, Z8)
	VPXORQ(Z0, Z8, Z8)
	VPMULLQ(Z2, Z8, Z8)
	VPSRLQ(U8(27), Z8, Z9)
	VPXORQ(Z9, Z8, Z8)
	VPMULLQ(Z3, Z8, Z8)
	VPSRLQ(U8(31), Z8, Z9)
	VPXORQ(Z9, Z8, Z8)
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
	// Accept lanes with uint64(m) + k < 2k: mask in BX.
	VPADDQ(Z12, Z11, Z15)
	VPADDQ(Z12, Z12, Z12)
	VPCMPUQ(U8(1), Z12, Z15, K3)
	KMOVB(K3, EBX)
	CMPQ(RCX, U32(8))
	JB(LabelRef("zig_tail"))
	CMPL(EBX, U32(0xff))
	JNE(LabelRef("zig_partial"))
	VMOVUPD(Z14, Mem{Base: RDI})
	ADDQ(U32(64), RDI)
	ADDQ(U32(8), RAX)
	SUBQ(U32(8), RCX)
	VPADDQ(Z1, Z0, Z0)
	JMP(LabelRef("zig_loop"))

	// Fewer than eight draws left: keep the low CX lanes.
	Label("zig_tail")
	MOVL(U32(1), R10L)
	SHLL(CL, R10L)
	DECL(R10L)
	ANDL(R10L, EBX)
	// Store the lanes before the first clear bit of BX and count them.
	Label("zig_partial")
	MOVL(EBX, R11L)
	INCL(R11L)
	NOTL(R11L)
	ANDL(R11L, EBX)
	KMOVB(EBX, K4)
	VMOVUPD(Z14, K4, Mem{Base: RDI})
	XORL(U32(0x1ff), EBX)
	BSFL(EBX, EBX)
	ADDQ(RBX, RAX)

	Label("zig_done")
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
