//go:build !purego

package kernel

// gemvF64AVX512 is the AVX-512 set's matrix-vector product (asm/gemv.go):
// with transA, y (+)= Aᵀ·x for A of len(x) rows of len(y) columns, else y
// (+)= A·x for A of len(y) rows of len(x) columns; A's rows lda apart.
// gemm calls it for every product of one column with alpha = 1, beta 0
// or 1 and contiguous vectors, whatever the number of workers (it runs on
// the caller), so results still do not depend on that number.
//
// A GEMM tile of one column spent a broadcast and an FMA of one useful
// lane per element of A: the logistic regression's two products over
// 100,000 rows of 20 (η = X·β and Xᵀ·r) took 19 ns a row on the tiles and
// take BenchmarkGemv's figures here.
func gemvF64AVX512(transA bool, a []float64, lda int, x, y []float64, add bool) {
	if transA {
		if !add {
			clear(y)
		}
		gemvTF64AVX512(y, a, lda, x)
		return
	}
	flag := 0
	if add {
		flag = 1
	}
	gemvNF64AVX512(y, a, lda, x, flag)
}
