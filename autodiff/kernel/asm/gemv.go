package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The matrix-vector products of package kernel (gemv.go there), AVX-512
// and float64 only, written with the elementwise kernels (-vec). A GEMM
// tile with one column spends a broadcast and an FMA of one useful lane
// on each element of A; these read A's rows eight lanes at a time:
//
//   - gemvN: y[i] (+)= Σ_j a[i·lda + j]·x[j], four rows at once, each in
//     a vector of eight partial sums (an FMA chain per lane), the four
//     reduced together by a transposing add.
//   - gemvT: y[j] += Σ_i a[i·lda + j]·x[i], 32 columns at once in four
//     vectors, rows in pairs into two sets of sums (halving the FMA
//     chains' latency), then the sets added and added into y.
//
// The last vector of a row is read under a lane mask (K1; K1-K4 in gemvT),
// whose masked-off lanes neither fault nor change the sums, so no kernel
// reads or writes past the end of a row or slice.

func gemvMain() {
	gemvN()
	gemvT()
}

// laneMask sets k to the low min(max(r, 0), 8) lanes, r in a register
// (clobbered), using R11 and CX.
func laneMask(r GPPhysical, k Op) {
	set := fmt.Sprintf("lanemask%d", labelCount)
	labelCount++
	XORQ(R11, R11)
	TESTQ(r, r)
	JLE(LabelRef(set))
	MOVQ(U32(8), R11)
	CMPQ(r, R11)
	CMOVQLT(r, R11)
	MOVQ(R11, RCX)
	MOVQ(U32(1), R11)
	SHLQ(CL, R11)
	DECQ(R11)
	Label(set)
	KMOVW(R11L, k)
}

var labelCount int

func gemvN() {
	const name = "gemvNF64AVX512"
	TEXT(name, NOSPLIT, "func(y, a []float64, lda int, x []float64, add int)")
	Pragma("noescape")
	Doc(name + " sets y[i] (add ≠ 0: adds to y[i]) Σ_j a[i·lda + j]·x[j] for i < len(y), j < len(x), with AVX512 (see asm/gemv.go).")
	y, row, x := RDI, RSI, RDX
	Load(Param("y").Base(), y)
	Load(Param("a").Base(), row)
	Load(Param("x").Base(), x)
	m, lda, chunks := R10, R8, R9
	Load(Param("y").Len(), m)
	Load(Param("lda"), lda)
	SHLQ(Imm(3), lda)
	Load(Param("x").Len(), chunks)
	add := R13
	Load(Param("add"), add)
	// K1: the last vector's lanes (none when len(x) is a multiple of 8).
	MOVQ(chunks, RAX)
	ANDQ(U32(7), RAX)
	laneMask(RAX, K1)
	SHRQ(Imm(3), chunks)
	r1, r2, r3 := R12, R14, R15
	acc := []VecPhysical{Z0, Z1, Z2, Z3}
	rows := []GPPhysical{row, r1, r2, r3}
	off, n := RAX, RBX

	// body emits the sums of the rows in rows[:k] into acc[:k].
	body := func(label string, k int) {
		for i := 0; i < k; i++ {
			VPXORQ(acc[i], acc[i], acc[i])
		}
		XORQ(off, off)
		MOVQ(chunks, n)
		TESTQ(n, n)
		JZ(LabelRef(label + "_tail"))
		Label(label + "_chunk")
		VMOVUPD(Mem{Base: x, Index: off, Scale: 1}, Z4)
		for i := 0; i < k; i++ {
			VFMADD231PD(Mem{Base: rows[i], Index: off, Scale: 1}, Z4, acc[i])
		}
		ADDQ(U32(64), off)
		DECQ(n)
		JNZ(LabelRef(label + "_chunk"))
		Label(label + "_tail")
		VMOVUPD_Z(Mem{Base: x, Index: off, Scale: 1}, K1, Z4)
		for i := 0; i < k; i++ {
			VMOVUPD_Z(Mem{Base: rows[i], Index: off, Scale: 1}, K1, Z5)
			VFMADD231PD(Z5, Z4, acc[i])
		}
		for i := 0; i < k; i++ { // fold 512 to 256 bits
			VEXTRACTF64X4(Imm(1), acc[i], Y5)
			VADDPD(Y5, acc[i].AsY(), acc[i].AsY())
		}
	}

	CMPQ(m, U32(4))
	JB(LabelRef("gemvN_one"))
	Label("gemvN_four")
	MOVQ(row, r1)
	ADDQ(lda, r1)
	LEAQ(Mem{Base: row, Index: lda, Scale: 2}, r2)
	LEAQ(Mem{Base: r1, Index: lda, Scale: 2}, r3)
	body("gemvN_four", 4)
	// [Σ0, Σ1, Σ2, Σ3] from four vectors of four partial sums.
	VHADDPD(Y1, Y0, Y6) // [a0+a1 of 0, of 1, a2+a3 of 0, of 1]
	VHADDPD(Y3, Y2, Y7)
	VPERM2F128(Imm(0x21), Y7, Y6, Y8) // [Y6's high, Y7's low]
	VBLENDPD(Imm(0b1100), Y7, Y6, Y9) // [Y6's low, Y7's high]
	VADDPD(Y8, Y9, Y9)
	TESTQ(add, add)
	JZ(LabelRef("gemvN_four_store"))
	VADDPD(Mem{Base: y}, Y9, Y9)
	Label("gemvN_four_store")
	VMOVUPD(Y9, Mem{Base: y})
	LEAQ(Mem{Base: row, Index: lda, Scale: 4}, row)
	ADDQ(U32(32), y)
	SUBQ(U32(4), m)
	CMPQ(m, U32(4))
	JAE(LabelRef("gemvN_four"))

	Label("gemvN_one")
	TESTQ(m, m)
	JZ(LabelRef("gemvN_done"))
	body("gemvN_one", 1)
	VEXTRACTF128(Imm(1), Y0, X1)
	VADDPD(X1, X0, X0)
	VPERMILPD(Imm(1), X0, X1)
	VADDSD(X1, X0, X0)
	TESTQ(add, add)
	JZ(LabelRef("gemvN_one_store"))
	VADDSD(Mem{Base: y}, X0, X0)
	Label("gemvN_one_store")
	VMOVSD(X0, Mem{Base: y})
	ADDQ(lda, row)
	ADDQ(U32(8), y)
	DECQ(m)
	JMP(LabelRef("gemvN_one"))
	Label("gemvN_done")
	VZEROUPPER()
	RET()
}

func gemvT() {
	const name = "gemvTF64AVX512"
	TEXT(name, NOSPLIT, "func(y, a []float64, lda int, x []float64)")
	Pragma("noescape")
	Doc(name + " adds Σ_i a[i·lda + j]·x[i] to y[j] for j < len(y), i < len(x), with AVX512 (see asm/gemv.go).")
	y, col, x := RDI, RSI, RDX
	Load(Param("y").Base(), y)
	Load(Param("a").Base(), col)
	Load(Param("x").Base(), x)
	left, lda, m := R10, R8, R9
	Load(Param("y").Len(), left)
	Load(Param("lda"), lda)
	SHLQ(Imm(3), lda)
	Load(Param("x").Len(), m)
	even := []VecPhysical{Z0, Z1, Z2, Z3}
	odd := []VecPhysical{Z4, Z5, Z6, Z7}
	ks := []Op{K1, K2, K3, K4}
	row, xi, n := R12, R13, R14

	Label("gemvT_block")
	TESTQ(left, left)
	JLE(LabelRef("gemvT_done"))
	for c := 0; c < 4; c++ { // K1-K4: the block's lanes, up to 32 columns
		MOVQ(left, R15)
		if c > 0 {
			SUBQ(U32(uint32(8*c)), R15)
		}
		laneMask(R15, ks[c])
	}
	for c := 0; c < 4; c++ {
		VPXORQ(even[c], even[c], even[c])
		VPXORQ(odd[c], odd[c], odd[c])
	}
	MOVQ(col, row)
	MOVQ(x, xi)
	MOVQ(m, n)
	CMPQ(n, U32(2))
	JB(LabelRef("gemvT_last"))
	Label("gemvT_pair")
	VBROADCASTSD(Mem{Base: xi}, Z8)
	VBROADCASTSD(Mem{Base: xi, Disp: 8}, Z9)
	for c := 0; c < 4; c++ {
		VFMADD231PD(Mem{Base: row, Disp: 64 * c}, Z8, ks[c], even[c])
		VFMADD231PD(Mem{Base: row, Index: lda, Scale: 1, Disp: 64 * c}, Z9, ks[c], odd[c])
	}
	LEAQ(Mem{Base: row, Index: lda, Scale: 2}, row)
	ADDQ(U32(16), xi)
	SUBQ(U32(2), n)
	CMPQ(n, U32(2))
	JAE(LabelRef("gemvT_pair"))
	Label("gemvT_last")
	TESTQ(n, n)
	JZ(LabelRef("gemvT_sum"))
	VBROADCASTSD(Mem{Base: xi}, Z8)
	for c := 0; c < 4; c++ {
		VFMADD231PD(Mem{Base: row, Disp: 64 * c}, Z8, ks[c], even[c])
	}
	Label("gemvT_sum")
	for c := 0; c < 4; c++ {
		VADDPD(odd[c], even[c], even[c])
		VMOVUPD_Z(Mem{Base: y, Disp: 64 * c}, ks[c], Z10)
		VADDPD(Z10, even[c], even[c])
		VMOVUPD(even[c], ks[c], Mem{Base: y, Disp: 64 * c})
	}
	ADDQ(U32(256), col)
	ADDQ(U32(256), y)
	SUBQ(U32(32), left)
	JMP(LabelRef("gemvT_block"))
	Label("gemvT_done")
	VZEROUPPER()
	RET()
}
