package kernel

import "runtime"

// Kernel sets in order of preference: the assembly ones this CPU runs, then
// the portable one.
var (
	portableF32 = newPortableSet[float32]()
	portableF64 = newPortableSet[float64]()
	setsF32     = append(archSetsF32(), portableF32)
	setsF64     = append(archSetsF64(), portableF64)
	bestF32     = setsF32[0]
	bestF64     = setsF64[0]
)

// Sgemm computes C = alpha·op(A)·op(B) + beta·C for row-major float32
// matrices, where op(X) is X, or Xᵀ when transX is set: op(A) is m × k,
// op(B) is k × n and C is m × n. lda, ldb and ldc are the row strides of A,
// B and C as stored. When beta is 0, C is not read (NaN in C is
// overwritten); when alpha is 0 or k is 0, A and B are not read.
//
// Sgemm runs on the calling goroutine and, in steady state, allocates
// nothing: its packing buffers are kept for reuse. It panics when a dimension
// is negative, a stride is too small or a slice too short, as gonum's BLAS
// does.
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(bestF32, 1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Dgemm is Sgemm for float64.
func Dgemm(transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gemm(bestF64, 1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// SgemmParallel is Sgemm split over up to workers goroutines, the caller
// being one of them; workers ≤ 0 or above runtime.GOMAXPROCS(0) means
// GOMAXPROCS. The output is
// cut into runs of whole register tiles, so the result is bit-for-bit that
// of Sgemm whatever the number of workers. Products too small to gain from
// it (under about 2^18 multiply-adds per worker) run on the caller alone.
//
// The other workers are package-owned helper goroutines, started on first
// use and kept for the life of the process, so that steady-state calls
// start no goroutine and allocate nothing. After a task a helper polls for
// the next one for 50 µs (yielding to other goroutines) before it parks,
// since waking a parked thread can take as long as the product; and the
// caller runs any part that no helper has claimed yet, so a busy or sleeping
// core slows a call down to the serial time at worst.
func SgemmParallel(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(bestF32, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// DgemmParallel is SgemmParallel for float64.
func DgemmParallel(workers int, transA, transB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	gemm(bestF64, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func gemm[T float](ks *kernelSet[T], workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if ks.gemv != nil && n == 1 && alpha == 1 && (beta == 0 || beta == 1) && ldc == 1 && (transB || ldb == 1 || k <= 1) {
		ks.gemv(transA, a, lda, b[:k], c[:m], beta == 1)
		return
	}
	g := gemmArgs[T]{transA: transA, transB: transB, m: m, n: n, k: k,
		alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers == 1 {
		ws := ks.getWorkspace()
		ks.gemmRange(ws, &g, 0, m, 0, n)
		ks.putWorkspace(ws)
		return
	}
	ks.gemmParallel(workers, &g)
}

// checkGemm panics, with gonum's BLAS messages, on arguments that would read
// or write outside the slices.
func checkGemm(transA, transB bool, m, n, k, lenA, lda, lenB, ldb, lenC, ldc int) {
	switch {
	case m < 0:
		panic("kernel: m < 0")
	case n < 0:
		panic("kernel: n < 0")
	case k < 0:
		panic("kernel: k < 0")
	}
	rowsA, colsA := m, k
	if transA {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if transB {
		rowsB, colsB = n, k
	}
	switch {
	case lda < max(1, colsA):
		panic("kernel: bad leading dimension of A")
	case ldb < max(1, colsB):
		panic("kernel: bad leading dimension of B")
	case ldc < max(1, n):
		panic("kernel: bad leading dimension of C")
	}
	if m == 0 || n == 0 {
		return
	}
	switch {
	case k > 0 && lenA < (rowsA-1)*lda+colsA:
		panic("kernel: insufficient length of A")
	case k > 0 && lenB < (rowsB-1)*ldb+colsB:
		panic("kernel: insufficient length of B")
	case lenC < (m-1)*ldc+n:
		panic("kernel: insufficient length of C")
	}
}

// Gemm is Sgemm or Dgemm chosen by the element type, split over up to
// workers goroutines as SgemmParallel is (workers 1: on the caller alone),
// for callers generic in their float type, such as autodiff's float32 and
// float64 programs.
func Gemm[T float32 | float64](workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	var ks *kernelSet[T]
	switch s := any(ks).(type) {
	case *kernelSet[float32]:
		ks = any(bestF32).(*kernelSet[T])
	case *kernelSet[float64]:
		ks = any(bestF64).(*kernelSet[T])
	default:
		panic(s) // unreachable: T is float32 or float64
	}
	gemm(ks, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}
