package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGemv times the two products of a full-data logistic
// regression's gradient, η = X·β and Xᵀ·r, for X of n rows of 20 (row
// major), on the best float64 set, against the same products on its GEMM
// tiles (ks.gemv left out): ns/row is per row of X.
//
//	go test -run '^$' -bench Gemv ./autodiff/kernel
func BenchmarkGemv(bb *testing.B) {
	const d = 20
	for _, n := range []int{1_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 2))
		x, beta, r := make([]float64, n*d), make([]float64, d), make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		eta, grad := make([]float64, n), make([]float64, d)
		b := bestF64
		tiles := &kernelSet[float64]{name: b.name, mr: b.mr, lanes: b.lanes, nv: b.nv, kc: b.kc, nc: b.nc,
			maskedB: b.maskedB, packA: b.packA, tile: b.tile}
		for _, ks := range []*kernelSet[float64]{bestF64, tiles} {
			name := "gemv"
			if ks.gemv == nil {
				name = "tiles"
			}
			bb.Run(fmt.Sprintf("%s/Xb/n=%d", name, n), func(b *testing.B) {
				for b.Loop() {
					gemm(ks, 1, false, false, n, 1, d, 1, x, d, beta, 1, 0, eta, 1)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
			})
			bb.Run(fmt.Sprintf("%s/XTr/n=%d", name, n), func(b *testing.B) {
				for b.Loop() {
					gemm(ks, 1, true, false, d, 1, n, 1, x, d, r, 1, 1, grad, 1)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
			})
		}
	}
}
