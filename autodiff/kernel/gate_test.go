package kernel

import (
	"math"
	"testing"
)

// TestGates: every set's float32 σ and tanh against float64 math, on a
// grid through the whole range (the clamps at −86 and 88 and past them,
// the cancellation of tanh near 0; below σ(−88) ≈ 6e-39 only the
// absolute error counts) and the special values, and the float64
// ones exactly; every length up to 70, so that the unrolled loop, single
// vectors and the masked tail all run, in place and not.
func TestGates(t *testing.T) {
	var xs []float32
	for v := -120.0; v <= 120; v += 0.37 {
		xs = append(xs, float32(v))
	}
	for v := -3.0; v <= 3; v += 0.001 {
		xs = append(xs, float32(v))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 1e-7, 88.7, -87.4, 1e30, -1e30,
		float32(math.Inf(1)), float32(math.Inf(-1)))
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	for _, vs := range vecSets {
		for _, tanh := range []bool{false, true} {
			out := make([]float32, len(xs))
			gateWith(vs, out, xs, tanh)
			for i, v := range xs {
				// Relative to σ, with a floor at float32's smallest
				// normal numbers (σ(−88) ≈ 6e-39, where e^−x clamps).
				want, tol := sig(float64(v)), 4e-7*sig(float64(v))+1e-38
				if tanh {
					want, tol = math.Tanh(float64(v)), 3e-7
				}
				if got := float64(out[i]); !(math.Abs(got-want) <= tol) {
					t.Errorf("%s tanh=%v: x = %v gives %v, want %v", vs.name, tanh, v, got, want)
				}
			}
			nan := []float32{float32(math.NaN())}
			if gateWith(vs, nan, nan, tanh); !math.IsNaN(float64(nan[0])) {
				t.Errorf("%s tanh=%v: NaN gives %v", vs.name, tanh, nan[0])
			}
			for n := range 70 {
				x := make([]float32, n+1)
				for i := range x {
					x[i] = float32(i) - 30
				}
				y := make([]float32, n+1)
				y[n] = 7
				gateWith(vs, y[:n], x[:n], tanh)
				gateWith(vs, x[:n], x[:n], tanh)
				for i := range n {
					if y[i] != x[i] {
						t.Fatalf("%s tanh=%v, n = %d: in place %v, not %v", vs.name, tanh, n, x[i], y[i])
					}
				}
				if y[n] != 7 || x[n] != float32(n)-30 {
					t.Fatalf("%s tanh=%v, n = %d: wrote past the end", vs.name, tanh, n)
				}
			}
		}
		x := []float64{-700, -3, -1e-9, 0, 0.5, 40}
		y := make([]float64, len(x))
		gateWith(vs, y, x, false)
		for i, v := range x {
			if y[i] != 1/(1+math.Exp(-v)) {
				t.Errorf("%s float64: σ(%v) = %v", vs.name, v, y[i])
			}
		}
		gateWith(vs, y, x, true)
		for i, v := range x {
			if y[i] != math.Tanh(v) {
				t.Errorf("%s float64: tanh(%v) = %v", vs.name, v, y[i])
			}
		}
	}
}
