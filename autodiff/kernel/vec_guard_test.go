//go:build linux

package kernel

import (
	"math"
	"testing"
)

// TestVecGuardPages runs every kernel on slices that end where an
// unreadable page begins, for every tail length of the widest vectors: a
// kernel that loads or stores a whole vector over the last elements faults.
func TestVecGuardPages(t *testing.T) {
	for _, vs := range vecSets {
		t.Run(vs.name, func(t *testing.T) {
			for n := range 70 {
				x64, x32 := make([]float64, n), make([]float32, n)
				for i := range n {
					x64[i], x32[i] = float64(i)-7.5, float32(i)-7.5
				}
				g64, g32 := guarded(t, x64), guarded(t, x32)
				h64, h32 := guarded(t, x64), guarded(t, x32)
				if s, q := sumSqDiff(vs, g64, 0.5, 2); math.IsNaN(s + q) {
					t.Fatal("sumSqDiff float64: NaN")
				}
				if s, q := sumSqDiff(vs, g32, 0.5, 2); math.IsNaN(s + q) {
					t.Fatal("sumSqDiff float32: NaN")
				}
				axpyDiff(vs, h64, g64, 0.5, 2)
				axpyDiff(vs, h32, g32, 0.5, 2)
				if !allFinite(vs, g64) || !allFinite(vs, g32) {
					t.Fatal("allFinite: finite values reported non-finite")
				}
				gateWith(vs, h32, g32, false)
				gateWith(vs, h32, g32, true)
				convertWith(vs, h32, g64)
				convertWith(vs, h64, g32)
				langevinUpdate(vs, h64, g64, g64, 0.1, 0.2)
				langevinUpdate(vs, h64, g64, nil, 0.1, 0)
				for i := range n {
					a, b := float64(0.1*x64[i]), float64(0.2*x64[i])
					if want := float64(x32[i]) - a + b - a; h64[i] != want {
						t.Fatalf("n = %d: element %d is %v, want %v", n, i, h64[i], want)
					}
				}
			}
		})
	}
}
