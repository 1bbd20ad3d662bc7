package kernel

import (
	"fmt"
	"testing"
)

func BenchmarkTileTmp(b *testing.B) {
	for _, kc := range []int{64, 256, 784} {
		for _, trans := range []bool{false, true} {
			a := make([]float32, 8*kc)
			bb := make([]float32, 48*kc)
			c := make([]float32, 8*48)
			si, sk := kc, 1
			if trans {
				si, sk = 1, 8
			}
			name := map[bool]string{false: "N", true: "T"}[trans]
			b.Run(name+"/f32", func(b *testing.B) {
				for b.Loop() {
					tileF32AVX512(8, 48, kc, a, si, sk, bb, 48, c, 48, 1, 0, 0)
				}
				b.ReportMetric(2*8*48*float64(kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			da := make([]float64, 8*kc)
			db := make([]float64, 24*kc)
			dc := make([]float64, 8*24)
			b.Run(name+"/f64", func(b *testing.B) {
				for b.Loop() {
					tileF64AVX512(8, 24, kc, da, si, sk, db, 24, dc, 24, 1, 0, 0)
				}
				b.ReportMetric(2*8*24*float64(kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkTuneTmp(b *testing.B) {
	for _, si := range []int{0, 2, 5} {
		for _, kc := range []int{128, 256, 400, 512, 800} {
			ks := &kernelSet[float64]{name: "t", mr: 8, lanes: 8, nv: 3, kc: kc, nc: 240, tile: tileF64AVX512}
			b.Run(fmt.Sprintf("f64/%d/kc=%d", si, kc), func(b *testing.B) {
				s := benchShapes[si]
				a, lda, bb, ldb, c, ldc := benchOperands[float64](s.transA, s.transB, s.m, s.n, s.k)
				for b.Loop() {
					gemm(ks, 1, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
				}
				reportGFLOPS(b, s.m, s.n, s.k)
			})
			ks32 := &kernelSet[float32]{name: "t", mr: 8, lanes: 16, nv: 3, kc: kc, nc: 480, tile: tileF32AVX512}
			b.Run(fmt.Sprintf("f32/%d/kc=%d", si, kc), func(b *testing.B) {
				s := benchShapes[si]
				a, lda, bb, ldb, c, ldc := benchOperands[float32](s.transA, s.transB, s.m, s.n, s.k)
				for b.Loop() {
					gemm(ks32, 1, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, ldc)
				}
				reportGFLOPS(b, s.m, s.n, s.k)
			})
		}
	}
}
