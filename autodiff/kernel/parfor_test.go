package kernel

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// counter counts the runs of each part.
type counter struct{ runs []atomic.Int32 }

func (c *counter) RunPart(i int) { c.runs[i].Add(1) }

func TestParallelForRunsEveryPartOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 3} {
		for _, n := range []int{0, 1, 2, 7, 64} {
			c := &counter{runs: make([]atomic.Int32, n)}
			for range 5 { // reused jobs from the free list
				ParallelFor(workers, n, c)
			}
			for i := range c.runs {
				if got := c.runs[i].Load(); got != 5 {
					t.Fatalf("workers %d, n %d: part %d ran %d times in 5 calls", workers, n, i, got)
				}
			}
		}
	}
}

func TestGemmGenericIsSgemmAndDgemm(t *testing.T) {
	const m, n, k = 13, 21, 17
	a32, b32 := randomF32(m*k, 1), randomF32(k*n, 2)
	want32, got32 := make([]float32, m*n), make([]float32, m*n)
	Sgemm(false, false, m, n, k, 1, a32, k, b32, n, 0, want32, n)
	Gemm(2, false, false, m, n, k, 1, a32, k, b32, n, 0, got32, n)
	a64, b64 := randomF64(k*m, 3), randomF64(k*n, 4) // A stored k × m: op(A) = Aᵀ
	want64, got64 := make([]float64, m*n), make([]float64, m*n)
	Dgemm(true, false, m, n, k, 1, a64, m, b64, n, 0, want64, n)
	Gemm(1, true, false, m, n, k, 1, a64, m, b64, n, 0, got64, n)
	for i := range want32 {
		if got32[i] != want32[i] {
			t.Fatalf("float32 element %d: Gemm %v, Sgemm %v", i, got32[i], want32[i])
		}
	}
	for i := range want64 {
		if got64[i] != want64[i] {
			t.Fatalf("float64 element %d: Gemm %v, Dgemm %v", i, got64[i], want64[i])
		}
	}
}

func randomF32(n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

func randomF64(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}
