package infer

import (
	"math"
	"testing"
)

func TestAllFinite(t *testing.T) {
	for n := range 9 { // every position within and after the unrolled blocks of 4
		x := make([]float64, n)
		for i := range x {
			x[i] = math.MaxFloat64 * float64(1-2*(i%2)) // large but finite: x·0 is still 0
		}
		if !allFinite(x) {
			t.Fatalf("n = %d: finite values reported non-finite", n)
		}
		for i := range x {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				y := append([]float64(nil), x...)
				y[i] = bad
				if allFinite(y) {
					t.Errorf("n = %d: %v at %d not found", n, bad, i)
				}
			}
		}
	}
}
