// Package kernel computes row-major GEMM, C = alpha·op(A)·op(B) + beta·C
// with op(X) = X or Xᵀ, in float32 (Sgemm) and float64 (Dgemm), near the
// peak of the CPU, in the default pure-Go build: no cgo. SgemmParallel and
// DgemmParallel split one product over several goroutines with the same
// result bit for bit.
//
// # Design
//
// The GotoBLAS/BLIS scheme: a register-tiled micro-kernel in assembly under
// loops that block the operands for the caches.
//
//   - The micro-kernel keeps an mr × nr tile of C in vector registers and,
//     for each p < kc, loads nr elements of row p of op(B), broadcasts the
//     mr elements of column p of op(A), and issues mr·nr/lanes FMAs. With
//     AVX-512 the tile is 8 × 3 zmm registers (8 × 48 float32, 8 × 24
//     float64): 24 accumulators, 3 B vectors, 5 broadcast registers out of
//     32. With AVX2 it is 6 × 2 ymm registers (12 accumulators of 16). Run
//     alone on data in L1 (BenchmarkTile) it reaches the FMA peak measured
//     below.
//   - A is never copied: the kernel reads the mr rows of a stripe in place
//     through two strides, which covers both A (rows lda apart) and Aᵀ
//     (columns lda apart). B not transposed is read in place too, its last
//     vector under a lane mask; Bᵀ is packed into panels of nr columns,
//     row after row, zero padded.
//   - Blocking: the k dimension is cut into blocks of at most kc (equal
//     blocks, so none is a short remainder), n into blocks of nc. For each
//     block the loop runs over stripes of mr rows, then over panels of nr
//     columns, so one stripe of A (mr × kc: 16 KiB float32 with kc = 512,
//     25 KiB float64 with kc = 400) stays in the 32 KiB L1 while B's block
//     (kc × nc, 0.5 MiB) streams from L2 (1 MiB on the Zen 4 cores
//     measured). Each kc block is one read-modify-write of C, prefetched
//     by the kernel.
//   - Edges: one kernel exists for every tile height mr ≤ 8 and width of
//     1-3 vectors; the last vector is masked to the remaining columns, and
//     is a half-width (ymm) register when they fit in half a vector, which
//     runs at twice the zmm rate on cores that split 512-bit FMAs in two
//     (Zen 4). So the 100 columns of the MLP's hidden layer cost 6.5 zmm
//     vectors of float32, not 7, and no row is ever padded.
//   - Small tiles split k over up to 8 accumulator sets so that enough FMAs
//     are in flight to hide their 4-cycle latency.
//   - Dispatch: AVX-512 (F and VL) kernels, else AVX2+FMA, else portable Go,
//     chosen at start-up with golang.org/x/sys/cpu. The portable kernel (4 ×
//     4 tile on packed A) is what other architectures and the purego build
//     tag get; the tests run every set this machine supports.
//
// # Memory and goroutines
//
// Pack buffers (one kc × nc block of B per goroutine) are kept by the
// package in free lists and reused, so steady-state calls do not allocate.
// The parallel forms cut C into runs of whole tiles (rows when C has more
// tile rows than tile columns, else columns), about four per worker, which
// the caller and package-owned helper goroutines claim one at a time: a
// helper that starts late leaves its parts to the others. Helpers start on
// first use, live for the process, and poll for 50 µs after each task
// before parking, since waking a parked thread takes about 100 µs on the
// project's virtual machines, as long as a whole GEMM of the MLP.
//
// # Accuracy
//
// Each element of C is an FMA chain over each block of k (split into up to
// 8 chains for tiles of fewer than 8 vectors), the blocks added into C in
// turn, so its error is within the usual k·eps·Σ|a·b| bound of a dot
// product (the tests check (k+3)·eps). Results do not depend on the number
// of workers, but can differ in the last bits between the AVX-512, AVX2 and
// portable kernels, which group the sums differently.
//
// # Elementwise kernels
//
// vec.go adds the loops that run over every parameter every step, which
// Go does not vectorize: SumSqDiff and AxpyDiff (a normal prior's value
// and gradient), AllFinite, Convert between float32 and float64, and
// LangevinUpdate (θ ← θ − η g + s ξ), with the same dispatch (AVX-512,
// AVX2, portable) and, except for SumSqDiff's fused squares, the same bits
// as the scalar loops they replace. ParallelFor (parfor.go) hands parts of
// any work to the GEMM's helper goroutines. With AVX-512, products of one
// column go to matrix-vector kernels (gemv_amd64.go, asm/gemv.go), and
// BernoulliLogit (logistic.go) runs a logistic regression's rows eight at
// a time with the bits of its scalar row (asm/logistic.go).
//
// # Generating the assembly
//
// The kernels (gemm_amd64.s, gemm_stubs_amd64.go, gemm_tables_amd64.go) are
// generated with avo by the program in asm/, a module of its own so that
// temper does not depend on avo:
//
//	go generate ./autodiff/kernel
//
// # Performance
//
// Measured on the project's machine (AMD EPYC, Zen 4, 2 cores with
// AVX-512, go1.26.8, November 2026), in GFLOP/s, medians of 5 runs of
// go test -bench (serial forms and gonum under -cpu 1, parallel forms under
// -cpu 2), taken while no other job was using the cores. The FMA peak of a
// core, measured with a loop of independent FMAs, is 57 float64 / 114
// float32: one 512-bit FMA per cycle at about 3.6 GHz, since Zen 4 runs it
// as two 256-bit halves (so the AVX2 kernels are nearly as fast, and a
// half-width last vector costs half). The tile kernel alone on data in L1
// (BenchmarkTile) reaches that peak. gonum is blas64.Gemm, gonum v0.17.0.
//
//	m×k×n, op(A)·op(B)          Sgemm  Dgemm  gonum   Sgemm  Dgemm
//	                                           Dgemm   ×2     ×2
//	128×784×100   X·W1          101.6   51.9    6.0    136     87
//	128×100×10    H·W2           61.8   37.0    3.0     63     37
//	784×128×100   Xᵀ·∂H          96.2   51.8    7.1    158     84
//	100×128×10    Hᵀ·∂Y          63.1   38.4    3.1     65     37
//	128×10×100    ∂Y·W2ᵀ         52.5   31.8    3.0     59     33
//	128×784×1600  16 replicas    94.3   48.2    6.3    182     82
//
// The layers of width 100 lose about 10% to their last 4 columns (a
// 96-column product runs at 105-108 float32); those of width 10 use 10 of
// 16 float32 lanes and are too small (128 k multiply-adds) to split over
// two goroutines. The machine is shared with other jobs: single runs vary
// by ±5%, more while another process holds a core, and the parallel forms
// gain only where the second core is idle.
package kernel

//go:generate go run -C asm . -out ../gemm_amd64.s -stubs ../gemm_stubs_amd64.go -pkg kernel -tables ../gemm_tables_amd64.go
