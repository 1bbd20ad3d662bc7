package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The elementwise kernels are checked against the plain Go loops below (not
// the portable set, which is under test too) on every set this machine
// runs: the assembly ones and the portable one, which the tests call
// directly whatever the CPU (the exported functions use vecBest).

func refSumSqDiff[T float](y []T, mu, scale float64) (sum, sumSq, abs, absSq float64) {
	for _, v := range y {
		z := (float64(v) - mu) * scale
		sum += z
		sumSq += z * z
		abs += math.Abs(z)
		absSq += z * z
	}
	return
}

func refAxpyDiff[T float](dst, y []T, mu, k T) {
	for i, v := range y {
		if d := v - mu; !math.IsInf(float64(d), 0) && !math.IsNaN(float64(d)) {
			dst[i] = dst[i] - T(k*d)
		}
	}
}

func refAllFinite[T float](x []T) bool {
	for _, v := range x {
		if math.IsInf(float64(v), 0) || math.IsNaN(float64(v)) {
			return false
		}
	}
	return true
}

func refLangevin(theta, grad, xi []float64, lr, scale float64) {
	for i := range grad {
		if xi == nil {
			theta[i] = theta[i] - float64(lr*grad[i])
		} else {
			theta[i] = theta[i] - float64(lr*grad[i]) + float64(scale*xi[i])
		}
	}
}

func bits[T float](x T) uint64 {
	if isF32[T]() {
		return uint64(math.Float32bits(float32(x)))
	}
	return math.Float64bits(float64(x))
}

func maxFloat[T float]() T {
	m := math.MaxFloat64
	if isF32[T]() {
		m = math.MaxFloat32
	}
	return T(m)
}

// sameBits reports the first index where got and want differ in their bits,
// or -1. Any NaN equals any other: which payload an operation on two NaNs
// (or a NaN and an invalid operation's default NaN) returns depends on the
// order of its operands, which Go does not fix for commutative operations.
func sameBits[T float](got, want []T) int {
	for i := range want {
		if bits(got[i]) != bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
			return i
		}
	}
	return -1
}

// testBuf is a slice of n elements at an offset of off elements into a
// buffer with guard elements after it, set to a sentinel that a kernel
// writing past the end would change.
type testBuf[T float] struct {
	all  []T
	off  int
	n    int
	mark T
}

func newBuf[T float](n, off int, fill func(i int) T) testBuf[T] {
	b := testBuf[T]{all: make([]T, off+n+17), off: off, n: n, mark: -12345.25}
	for i := range b.all {
		b.all[i] = b.mark
	}
	for i := range n {
		b.all[off+i] = fill(i)
	}
	return b
}

func (b testBuf[T]) s() []T { return b.all[b.off : b.off+b.n : b.off+b.n] }

func (b testBuf[T]) check(t *testing.T, what string) {
	t.Helper()
	for i, v := range b.all {
		if (i < b.off || i >= b.off+b.n) && v != b.mark {
			t.Fatalf("%s: element %d outside the slice [%d, %d) was written: %v", what, i, b.off, b.off+b.n, v)
		}
	}
}

// testLengths are 0..300 (every tail of every vector width, every count of
// whole vectors up to a few unrolled iterations) and a few longer ones.
func testLengths() []int {
	var ns []int
	for n := range 301 {
		ns = append(ns, n)
	}
	return append(ns, 511, 1024, 1031)
}

// value draws a test element: mostly normal values, some large, small or
// exactly mu.
func value(rng *rand.Rand, mu float64) float64 {
	switch rng.IntN(16) {
	case 0:
		return mu
	case 1:
		return rng.NormFloat64() * 1e30
	case 2:
		return rng.NormFloat64() * 1e-30
	default:
		return mu + 3*rng.NormFloat64()
	}
}

func TestSumSqDiff(t *testing.T) {
	for _, vs := range vecSets {
		t.Run("float32/"+vs.name, func(t *testing.T) { testSumSqDiff[float32](t, vs) })
		t.Run("float64/"+vs.name, func(t *testing.T) { testSumSqDiff[float64](t, vs) })
	}
}

// Tolerance: the kernels compute each z = (y - mu)·scale as the reference
// does, and square it with or without a fused multiply-add; summing n terms
// in any order is within (n-1)·eps·Σ|t| of the exact sum (Higham §4.2, to
// first order), the fused square within eps·z² of the rounded one, so
// kernel and sequential reference differ by at most 2n·eps·Σ|t| (with eps
// the float64 unit roundoff: float32 inputs are summed in float64). A
// missed or doubled element breaks this by orders of magnitude: the values
// are of similar size, so one z² is about Σz²/n.
func testSumSqDiff[T float](t *testing.T, vs *vecSet) {
	rng := rand.New(rand.NewPCG(11, 12))
	const e = 0x1p-53
	for _, n := range testLengths() {
		mu, scale := 0.75, 1/1.3
		if n%3 == 0 {
			mu, scale = -2, 4
		}
		b := newBuf(n, rng.IntN(4), func(int) T { return T(mu + 3*rng.NormFloat64()) })
		sum, sumSq := sumSqDiff(vs, b.s(), mu, scale)
		want, wantSq, abs, absSq := refSumSqDiff(b.s(), mu, scale)
		tol := 2 * float64(n) * e
		if math.Abs(sum-want) > tol*abs || math.Abs(sumSq-wantSq) > tol*absSq {
			t.Fatalf("n = %d: sums %v, %v; want %v ± %.3g, %v ± %.3g", n, sum, sumSq, want, tol*abs, wantSq, tol*absSq)
		}
		if n == 0 && (math.Float64bits(sum) != 0 || math.Float64bits(sumSq) != 0) {
			t.Fatalf("empty sums %v, %v, want +0", sum, sumSq)
		}
	}
	// NaN and ±Inf propagate from any position: Σz² is then +Inf or NaN.
	for n := 1; n <= 70; n++ {
		for i := range n {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				y := make([]T, n)
				for j := range y {
					y[j] = T(j%7) - 3
				}
				y[i] = T(bad)
				sum, sumSq := sumSqDiff(vs, y, 0.5, 2)
				if !math.IsNaN(sumSq) && !math.IsInf(sumSq, 1) || math.IsNaN(bad) && !math.IsNaN(sum) {
					t.Fatalf("n = %d, y[%d] = %v: sums %v, %v", n, i, bad, sum, sumSq)
				}
			}
		}
	}
}

func TestAxpyDiff(t *testing.T) {
	for _, vs := range vecSets {
		t.Run("float32/"+vs.name, func(t *testing.T) { testAxpyDiff[float32](t, vs) })
		t.Run("float64/"+vs.name, func(t *testing.T) { testAxpyDiff[float64](t, vs) })
	}
}

// AxpyDiff rounds as its reference does, operation by operation (no fused
// multiply-add), so the results must agree to the bit, including lanes
// left alone where y - mu is not finite (y NaN or ±Inf, or a difference
// that overflows T).
func testAxpyDiff[T float](t *testing.T, vs *vecSet) {
	rng := rand.New(rand.NewPCG(13, 14))
	huge := maxFloat[T]()
	for _, n := range testLengths() {
		mu, k := T(0.375), T(-1.7)
		y := newBuf(n, rng.IntN(4), func(int) T {
			switch rng.IntN(20) {
			case 0:
				return T(math.NaN())
			case 1:
				return T(math.Inf(2*rng.IntN(2) - 1))
			case 2:
				return -huge // -huge - mu is finite, k·(-huge - mu) overflows: a ±Inf gradient
			default:
				return T(value(rng, float64(mu)))
			}
		})
		dst := newBuf(n, rng.IntN(4), func(int) T { return T(rng.NormFloat64()) })
		want := append([]T(nil), dst.s()...)
		refAxpyDiff(want, y.s(), mu, k)
		axpyDiff(vs, dst.s(), y.s(), mu, k)
		if i := sameBits(dst.s(), want); i >= 0 {
			t.Fatalf("n = %d: dst[%d] = %v, want %v (y = %v)", n, i, dst.s()[i], want[i], y.s()[i])
		}
		dst.check(t, fmt.Sprintf("n = %d", n))
		// A difference that overflows T is left alone, as the scalar loop
		// does: y finite, y - mu = ±Inf.
		if n > 0 {
			yy, d := []T{huge}, []T{1}
			axpyDiff(vs, d, yy, -huge, 1)
			if d[0] != 1 {
				t.Fatalf("y - mu overflowing: dst = %v, want 1", d[0])
			}
		}
	}
}

func TestAllFinite(t *testing.T) {
	for _, vs := range vecSets {
		t.Run("float32/"+vs.name, func(t *testing.T) { testAllFinite[float32](t, vs) })
		t.Run("float64/"+vs.name, func(t *testing.T) { testAllFinite[float64](t, vs) })
	}
}

func testAllFinite[T float](t *testing.T, vs *vecSet) {
	huge := maxFloat[T]()
	// Every position in and after the unrolled loop of the widest vectors
	// (4 × 16 float32), with large finite values around it (x - x is 0).
	for n := range 140 {
		for off := range 2 {
			x := newBuf(n, off, func(i int) T { return huge * T(1-2*(i%2)) })
			if !allFinite(vs, x.s()) {
				t.Fatalf("n = %d: finite values reported non-finite", n)
			}
			for i := range n {
				for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
					y := x.s()
					old := y[i]
					y[i] = T(bad)
					if allFinite(vs, y) {
						t.Fatalf("n = %d: %v at %d not found", n, bad, i)
					}
					y[i] = old
				}
			}
		}
	}
	// Non-finite values past the end of the slice are not looked at.
	for n := range 70 {
		x := make([]T, n+20)
		for i := n; i < len(x); i++ {
			x[i] = T(math.NaN())
		}
		if !allFinite(vs, x[:n]) {
			t.Fatalf("n = %d: NaN past the end was read", n)
		}
	}
}

func TestConvert(t *testing.T) {
	for _, vs := range vecSets {
		t.Run(vs.name, func(t *testing.T) { testConvert(t, vs) })
	}
}

// Conversions are exact per element: the bits of Go's conversion, with
// NaN, ±Inf, ±0, subnormals, values that overflow float32 and halfway
// cases among the inputs.
func testConvert(t *testing.T, vs *vecSet) {
	rng := rand.New(rand.NewPCG(15, 16))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
		1e-40, -1e-45, 5e-324, 1e39, -1e300, math.MaxFloat32, 1 + 0x1p-24, 1 + 3*0x1p-24,
		math.Float64frombits(0x7ff0000000000001)} // a signaling NaN
	for _, n := range testLengths() {
		src := newBuf(n, rng.IntN(4), func(int) float64 {
			if rng.IntN(8) == 0 {
				return special[rng.IntN(len(special))]
			}
			return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		})
		dst := newBuf(n, rng.IntN(4), func(int) float32 { return 0 })
		convertWith(vs, dst.s(), src.s())
		for i, v := range src.s() {
			if got, want := dst.s()[i], float32(v); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("n = %d: float32(%v) = %v (%#x), want %v (%#x)", n, v, got, math.Float32bits(got), want, math.Float32bits(want))
			}
		}
		dst.check(t, fmt.Sprintf("float64 → float32, n = %d", n))

		src32 := newBuf(n, rng.IntN(4), func(i int) float32 { return float32(src.s()[i]) })
		if n > 0 {
			src32.s()[0] = math.Float32frombits(0x7f800001) // a signaling NaN
		}
		dst64 := newBuf(n, rng.IntN(4), func(int) float64 { return 0 })
		convertWith(vs, dst64.s(), src32.s())
		for i, v := range src32.s() {
			if got, want := dst64.s()[i], float64(v); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n = %d: float64(%v) = %v (%#x), want %#x", n, v, got, math.Float64bits(got), math.Float64bits(want))
			}
		}
		dst64.check(t, fmt.Sprintf("float32 → float64, n = %d", n))

		// Same type: a copy.
		same := newBuf(n, 1, func(int) float64 { return 0 })
		convertWith(vs, same.s(), src.s())
		if i := sameBits(same.s(), src.s()); i >= 0 {
			t.Fatalf("n = %d: copy differs at %d", n, i)
		}
		same.check(t, "copy")
	}
}

func TestLangevinUpdate(t *testing.T) {
	for _, vs := range vecSets {
		t.Run(vs.name, func(t *testing.T) { testLangevin(t, vs) })
	}
}

// The update rounds as its Go expression does, with no fused multiply-add:
// equal to the bit.
func testLangevin(t *testing.T, vs *vecSet) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, n := range testLengths() {
		for _, noise := range []bool{true, false} {
			lr, scale := 1e-3*rng.Float64(), rng.Float64()
			theta := newBuf(n, rng.IntN(4), func(int) float64 { return rng.NormFloat64() })
			grad := newBuf(n, rng.IntN(4), func(int) float64 { return 100 * rng.NormFloat64() })
			xi := newBuf(n, rng.IntN(4), func(int) float64 { return rng.NormFloat64() })
			xs := xi.s()
			if !noise {
				xs = nil
			}
			want := append([]float64(nil), theta.s()...)
			refLangevin(want, grad.s(), xs, lr, scale)
			langevinUpdate(vs, theta.s(), grad.s(), xs, lr, scale)
			if i := sameBits(theta.s(), want); i >= 0 {
				t.Fatalf("n = %d, noise %v: theta[%d] = %v, want %v", n, noise, i, theta.s()[i], want[i])
			}
			theta.check(t, fmt.Sprintf("n = %d", n))
		}
	}
}

func TestVecPanics(t *testing.T) {
	x := make([]float64, 10)
	x32 := make([]float32, 10)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"AxpyDiff", func() { AxpyDiff(x[:9], x, 0, 1) }},
		{"Convert", func() { Convert(x32[:9], x) }},
		{"ConvertSame", func() { Convert(x[:9], x) }},
		{"LangevinTheta", func() { LangevinUpdate(x[:9], x, x, 1, 1) }},
		{"LangevinXi", func() { LangevinUpdate(x, x, x[:9], 1, 1) }},
		{"Descent", func() { LangevinUpdate(x[:9], x, nil, 1, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic on a short slice")
				}
			}()
			tc.f()
		})
	}
}

// TestVecAllocs: the generic entry points do not box their slices, and do
// not make them escape: arrays local to the caller stay on its stack.
func TestVecAllocs(t *testing.T) {
	if a := testing.AllocsPerRun(10, func() {
		var xa, ya [100]float64
		var xa32 [100]float32
		x, y, x32 := xa[:], ya[:], xa32[:]
		SumSqDiff(x, 0, 1)
		SumSqDiff(x32, 0, 1)
		AxpyDiff(x, y, 0, 1)
		AxpyDiff(x32, x32, 0, 1)
		AllFinite(x)
		AllFinite(x32)
		Convert(x32, x)
		Convert(x, x32)
		Convert(x, y)
		LangevinUpdate(x, y, y, 1, 1)
		LangevinUpdate(x, y, nil, 1, 0)
	}); a != 0 {
		t.Errorf("%g allocations", a)
	}
}

// FuzzVec runs every kernel of every set on the fuzzer's values (any bits,
// any length) against the references.
func FuzzVec(f *testing.F) {
	f.Add([]byte{}, 0.0, 1.0)
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"), 0.5, 2.0)
	f.Add(make([]byte, 200), math.Inf(1), math.NaN())
	// NaNs of different payloads meet in the update (lr = +Inf, scale = NaN).
	f.Add([]byte("00000000000000000000000000000000000000000000000000000000000000\xff\xff"), math.Inf(1), math.NaN())
	f.Fuzz(func(t *testing.T, data []byte, mu, scale float64) {
		n64 := len(data) / 8
		x64 := make([]float64, n64)
		for i := range x64 {
			var u uint64
			for j := range 8 {
				u |= uint64(data[8*i+j]) << (8 * j)
			}
			x64[i] = math.Float64frombits(u)
		}
		x32 := make([]float32, len(data)/4)
		for i := range x32 {
			x32[i] = math.Float32frombits(uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24)
		}
		for _, vs := range vecSets {
			fuzzVec(t, vs, x64, mu, scale)
			fuzzVec(t, vs, x32, mu, scale)
			c32 := make([]float32, n64)
			convertWith(vs, c32, x64)
			for i, v := range x64 {
				if math.Float32bits(c32[i]) != math.Float32bits(float32(v)) {
					t.Fatalf("%s: float32(%v) = %v", vs.name, v, c32[i])
				}
			}
			c64 := make([]float64, len(x32))
			convertWith(vs, c64, x32)
			for i, v := range x32 {
				if math.Float64bits(c64[i]) != math.Float64bits(float64(v)) {
					t.Fatalf("%s: float64(%v) = %v", vs.name, v, c64[i])
				}
			}
			if n64 >= 2 {
				h := n64 / 2
				theta, want := make([]float64, h), make([]float64, h)
				for i := range theta {
					theta[i] = float64(i) - 3
				}
				copy(want, theta)
				refLangevin(want, x64[:h], x64[h:2*h], mu, scale)
				langevinUpdate(vs, theta, x64[:h], x64[h:2*h], mu, scale)
				if i := sameBits(theta, want); i >= 0 {
					t.Fatalf("%s: langevin theta[%d] = %v, want %v", vs.name, i, theta[i], want[i])
				}
			}
		}
	})
}

func fuzzVec[T float](t *testing.T, vs *vecSet, x []T, mu, scale float64) {
	if got, want := allFinite(vs, x), refAllFinite(x); got != want {
		t.Fatalf("%s: allFinite = %v, want %v", vs.name, got, want)
	}
	sum, sumSq := sumSqDiff(vs, x, mu, scale)
	want, wantSq, abs, absSq := refSumSqDiff(x, mu, scale)
	tol := 2 * float64(len(x)) * 0x1p-53
	switch {
	case math.IsNaN(absSq):
		// A NaN term makes both sums NaN in any order.
		if !math.IsNaN(sum) || !math.IsNaN(sumSq) {
			t.Fatalf("%s: sums %v, %v with a NaN term", vs.name, sum, sumSq)
		}
	case math.IsInf(absSq, 1):
		// Some z² is +Inf, or Σz² overflows: it does in any order, to
		// within its rounding (Σz of the same terms can be ±Inf or NaN
		// depending on the order).
		if !(sumSq > math.MaxFloat64/2) {
			t.Fatalf("%s: Σz² = %v, want about +Inf", vs.name, sumSq)
		}
	case math.IsInf(abs, 0):
		// Σ|z| overflows, Σz may in some orders of addition: nothing to check.
	case math.Abs(sum-want) > tol*abs || math.Abs(sumSq-wantSq) > tol*absSq:
		t.Fatalf("%s: sums %v, %v; want %v ± %.3g, %v ± %.3g", vs.name, sum, sumSq, want, tol*abs, wantSq, tol*absSq)
	}
	dst, ref := make([]T, len(x)), make([]T, len(x))
	for i := range dst {
		dst[i] = T(i%5) - 2
	}
	copy(ref, dst)
	m, k := T(mu), T(scale)
	refAxpyDiff(ref, x, m, k)
	axpyDiff(vs, dst, x, m, k)
	if i := sameBits(dst, ref); i >= 0 {
		t.Fatalf("%s: axpyDiff dst[%d] = %v, want %v", vs.name, i, dst[i], ref[i])
	}
}
