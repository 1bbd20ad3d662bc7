package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// layerValue draws the values that test the kernels' edge cases: ties
// (zeros and a few repeated values, as after a ReLU or over a constant
// image background), ±0, NaN and ±Inf among ordinary numbers.
func layerValue[T float](rng *rand.Rand) T {
	switch rng.IntN(12) {
	case 0:
		return 0
	case 1:
		return T(math.Copysign(0, -1))
	case 2:
		return T(math.NaN())
	case 3:
		return T(math.Inf(1 - 2*rng.IntN(2)))
	case 4, 5:
		return T(rng.IntN(3)) // ties
	}
	return T(rng.NormFloat64())
}

func layerValues[T float](rng *rand.Rand, n int) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = layerValue[T](rng)
	}
	return x
}

// TestLayerKernelsMatchPortable: every instruction set gives the portable
// loops' bits, for every length up to past four of the widest vectors, on
// slices that end at an unreadable page (so a whole-vector load or store
// over the tail faults).
func TestLayerKernelsMatchPortable(t *testing.T) {
	testLayerKernels[float32](t)
	testLayerKernels[float64](t)
}

func testLayerKernels[T float](t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, vs := range vecSets {
		for n := range 70 {
			t.Run("", func(t *testing.T) { testLayerKernelsAt[T](t, vs, rng, n) }) // a subtest frees its guarded pages
		}
	}
}

func testLayerKernelsAt[T float](t *testing.T, vs *vecSet, rng *rand.Rand, n int) {
	x, g, d := layerValues[T](rng, n), layerValues[T](rng, n), layerValues[T](rng, n)
	want := append([]T(nil), d...)
	got := guarded(t, d)
	reluGo(want, x)
	reluWith(vs, got, guarded(t, x))
	if sameBits(got, want) >= 0 {
		t.Fatalf("%s Relu n = %d: %v, want %v (x %v)", vs.name, n, got, want, x)
	}
	for _, assign := range []bool{true, false} {
		want := append([]T(nil), d...)
		got := guarded(t, d)
		reluGradGo(want, x, g, assign)
		reluGradWith(vs, got, guarded(t, x), guarded(t, g), assign)
		if sameBits(got, want) >= 0 {
			t.Fatalf("%s ReluGrad assign %v n = %d: %v, want %v (x %v, g %v)", vs.name, assign, n, got, want, x, g)
		}
	}

	// A 2 × 2 window and a 3 × 1 one over images of c = n
	// channels, the window's pixels c apart (a row) or a wider
	// image; one output pixel or three, their windows side by side
	// (step 2c) or overlapping (step c).
	c := n
	for _, offs := range [][]int{{0, c, 3 * c, 4 * c}, {0, 2 * c, c}, {0}} {
		for _, px := range []struct{ n, step int }{{1, 0}, {3, 2 * c}, {3, c}} {
			size := 0
			for _, o := range offs {
				size = max(size, (px.n-1)*px.step+o+c)
			}
			img := layerValues[T](rng, size)
			want, got := make([]T, px.n*c), guarded(t, make([]T, px.n*c))
			maxPoolGo(want, img, offs, c, px.n, px.step)
			maxPoolWith(vs, got, guarded(t, img), offs, c, px.n, px.step)
			if sameBits(got, want) >= 0 {
				t.Fatalf("%s MaxPool offs %v c = %d, %v: %v, want %v (x %v)", vs.name, offs, c, px, got, want, img)
			}
			y := want
			if rng.IntN(2) == 0 {
				y = layerValues[T](rng, px.n*c) // mostly not a window's maximum: no position takes dy
			}
			dy := layerValues[T](rng, px.n*c)
			for _, assign := range []bool{true, false} {
				dx := layerValues[T](rng, size)
				wantDx := append([]T(nil), dx...)
				gotDx := guarded(t, dx)
				maxPoolGradGo(wantDx, img, offs, y, dy, c, px.n, px.step, assign)
				maxPoolGradWith(vs, gotDx, guarded(t, img), offs, guarded(t, y), guarded(t, dy), c, px.n, px.step, assign)
				if sameBits(gotDx, wantDx) >= 0 {
					t.Fatalf("%s MaxPoolGrad assign %v offs %v c = %d, %v: %v, want %v", vs.name, assign, offs, c, px, gotDx, wantDx)
				}
			}
		}
	}
}

// TestCopy2DMatchesPortable: Copy2D and Add2D on every instruction set,
// runs of every width to past two of the widest vectors, rows apart by
// more than a run, by less (overlapping runs of dst, as col2im's) and by
// nothing, the last run ending at an unreadable page.
func TestCopy2DMatchesPortable(t *testing.T) {
	testCopy2D[float32](t)
	testCopy2D[float64](t)
}

func testCopy2D[T float](t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, vs := range vecSets {
		for cols := range 35 {
			for _, rows := range []int{0, 1, 3} {
				for _, ld := range []int{cols + 5, max(1, cols/2), 0} {
					lds := ld + 1 // the source's runs apart by another stride
					n, ns := 0, 0
					if rows > 0 {
						n, ns = (rows-1)*ld+cols, (rows-1)*lds+cols
					}
					src, dst := layerValues[T](rng, ns+2), layerValues[T](rng, n)
					for _, add := range []bool{false, true} {
						want, got := append([]T(nil), dst...), guarded(t, dst)
						copy2DGo(want, ld, src[2:], lds, rows, cols, add)
						copy2DWith(vs, got, ld, guarded(t, src[2:]), lds, rows, cols, add)
						if i := sameBits(got, want); i >= 0 {
							t.Fatalf("%s add %v rows %d cols %d ld %d: element %d is %v, want %v", vs.name, add, rows, cols, ld, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestLayerKernelsValues checks the portable loops themselves against
// their definitions: max(x, 0), the first maximum's gradient.
func TestLayerKernelsValues(t *testing.T) {
	x := []float64{-1, 2, 0, math.NaN()}
	got := make([]float64, 4)
	Relu(got, x)
	if got[0] != 0 || got[1] != 2 || got[2] != 0 || !math.IsNaN(got[3]) {
		t.Errorf("Relu(%v) = %v", x, got)
	}
	dst := []float64{10, 10, 10, 10}
	ReluGrad(dst, x, []float64{1, 2, 3, 4}, false)
	if want := []float64{10, 12, 10, 10}; sameBits(dst, want) >= 0 {
		t.Errorf("ReluGrad added %v, want %v", dst, want)
	}
	ReluGrad(dst, x, []float64{1, 2, 3, 4}, true)
	if want := []float64{0, 2, 0, 0}; sameBits(dst, want) >= 0 {
		t.Errorf("ReluGrad set %v, want %v", dst, want)
	}

	// Two channels, a window of three pixels: channel 0 is tied at 5
	// (first at position 1), channel 1 has a NaN.
	img := []float64{1, 7, 5, math.NaN(), 5, 2}
	offs := []int{0, 2, 4}
	y := make([]float64, 2)
	MaxPool(y, img, offs, 2, 1, 0)
	if y[0] != 5 || !math.IsNaN(y[1]) {
		t.Fatalf("MaxPool = %v, want [5 NaN]", y)
	}
	dx := []float64{9, 9, 9, 9, 9, 9}
	MaxPoolGrad(dx, img, offs, y, []float64{3, 4}, 2, 1, 0, true)
	if want := []float64{0, 0, 3, 0, 0, 0}; sameBits(dx, want) >= 0 {
		t.Errorf("MaxPoolGrad set %v, want %v", dx, want)
	}
	MaxPoolGrad(dx, img, offs, y, []float64{3, 4}, 2, 1, 0, false)
	if want := []float64{0, 0, 6, 0, 0, 0}; sameBits(dx, want) >= 0 {
		t.Errorf("MaxPoolGrad added %v, want %v", dx, want)
	}
}
