package kernel

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// benchShapes are the GEMMs of one SG-MCMC step on a Bayesian MLP
// 784-100-10 with minibatch 128, and 16 replicas' first layer stacked into
// one product.
var benchShapes = []struct {
	name           string
	transA, transB bool
	m, n, k        int
}{
	{name: "fwd1_128x784x100", m: 128, k: 784, n: 100},                 // X·W1
	{name: "fwd2_128x100x10", m: 128, k: 100, n: 10},                   // H·W2
	{name: "gradW1_784x128x100", transA: true, m: 784, k: 128, n: 100}, // Xᵀ·∂H
	{name: "gradW2_100x128x10", transA: true, m: 100, k: 128, n: 10},   // Hᵀ·∂Y
	{name: "gradH_128x10x100", transB: true, m: 128, k: 10, n: 100},    // ∂Y·W2ᵀ
	{name: "stacked_128x784x1600", m: 128, k: 784, n: 1600},            // X·[W1 of 16 replicas]
}

// benchOperands returns A, B, C stored for the shape (op(A) = m × k, op(B)
// = k × n) and their strides.
func benchOperands[T float](transA, transB bool, m, n, k int) (a []T, lda int, b []T, ldb int, c []T, ldc int) {
	rng := rand.New(rand.NewPCG(7, 8))
	fill := func(n int) []T {
		x := make([]T, n)
		for i := range x {
			x[i] = T(2*rng.Float64() - 1)
		}
		return x
	}
	lda, ldb = k, n
	if transA {
		lda = m
	}
	if transB {
		ldb = k
	}
	return fill(m * k), lda, fill(k * n), ldb, fill(m * n), n
}

func reportGFLOPS(b *testing.B, m, n, k int) {
	b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func benchGemm[T float](b *testing.B, ks *kernelSet[T], workers int) {
	for _, s := range benchShapes {
		b.Run(s.name, func(b *testing.B) {
			a, lda, bb, ldb, c, ldc := benchOperands[T](s.transA, s.transB, s.m, s.n, s.k)
			for b.Loop() {
				gemm(ks, workers, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
			}
			reportGFLOPS(b, s.m, s.n, s.k)
		})
	}
}

// BenchmarkSgemm and BenchmarkDgemm run Sgemm and Dgemm (one goroutine, the
// best kernel set of this CPU) on the MLP shapes.
func BenchmarkSgemm(b *testing.B) { benchGemm(b, bestF32, 1) }

func BenchmarkDgemm(b *testing.B) { benchGemm(b, bestF64, 1) }

// BenchmarkSgemmParallel and BenchmarkDgemmParallel split each product over
// GOMAXPROCS workers (set it with -cpu).
func BenchmarkSgemmParallel(b *testing.B) { benchGemm(b, bestF32, runtime.GOMAXPROCS(0)) }

func BenchmarkDgemmParallel(b *testing.B) { benchGemm(b, bestF64, runtime.GOMAXPROCS(0)) }

// BenchmarkGonumDgemm is gonum's pure-Go Dgemm (blas64, gonum.org/v1/gonum
// v0.17.0) on the same shapes. Gonum starts goroutines on large products:
// compare with BenchmarkDgemm under -cpu 1.
func BenchmarkGonumDgemm(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.name, func(b *testing.B) {
			a, lda, bb, ldb, c, ldc := benchOperands[float64](s.transA, s.transB, s.m, s.n, s.k)
			tA, tB := blas.NoTrans, blas.NoTrans
			rA, cA, rB, cB := s.m, s.k, s.k, s.n
			if s.transA {
				tA, rA, cA = blas.Trans, s.k, s.m
			}
			if s.transB {
				tB, rB, cB = blas.Trans, s.n, s.k
			}
			A := blas64.General{Rows: rA, Cols: cA, Stride: lda, Data: a}
			B := blas64.General{Rows: rB, Cols: cB, Stride: ldb, Data: bb}
			C := blas64.General{Rows: s.m, Cols: s.n, Stride: ldc, Data: c}
			for b.Loop() {
				blas64.Gemm(tA, tB, 1, A, B, 0, C)
			}
			reportGFLOPS(b, s.m, s.n, s.k)
		})
	}
}

// BenchmarkSets runs every kernel set of this machine (the fallbacks too)
// on the first-layer product.
func BenchmarkSets(b *testing.B) {
	s := benchShapes[0]
	for _, ks := range setsF32 {
		b.Run("float32/"+ks.name, func(b *testing.B) {
			a, lda, bb, ldb, c, ldc := benchOperands[float32](s.transA, s.transB, s.m, s.n, s.k)
			for b.Loop() {
				gemm(ks, 1, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
			}
			reportGFLOPS(b, s.m, s.n, s.k)
		})
	}
	for _, ks := range setsF64 {
		b.Run("float64/"+ks.name, func(b *testing.B) {
			a, lda, bb, ldb, c, ldc := benchOperands[float64](s.transA, s.transB, s.m, s.n, s.k)
			for b.Loop() {
				gemm(ks, 1, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
			}
			reportGFLOPS(b, s.m, s.n, s.k)
		})
	}
}

// BenchmarkTile runs the tile kernel of the best set alone on operands that
// stay in L1 (A packed, B one panel, C one tile): the ceiling that blocking
// and edge tiles bring the GEMMs down from. kc = 784 as in the first layer.
func BenchmarkTile(b *testing.B) {
	const kc = 784
	b.Run("float32/"+bestF32.name, func(b *testing.B) { benchTile(b, bestF32, kc) })
	b.Run("float64/"+bestF64.name, func(b *testing.B) { benchTile(b, bestF64, kc) })
}

func benchTile[T float](b *testing.B, ks *kernelSet[T], kc int) {
	mr, nr := ks.mr, ks.nr()
	a, bb, c := make([]T, mr*kc), make([]T, nr*kc), make([]T, mr*nr)
	for b.Loop() {
		ks.tile(mr, nr, kc, a, 1, mr, bb, nr, c, nr, 1, 0, 0)
	}
	reportGFLOPS(b, mr, nr, kc)
}
