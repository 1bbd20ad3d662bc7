package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// gemmCase is one product: op(A) is m × k, op(B) is k × n, and the stored
// matrices have their strides padded by padA, padB, padC elements.
type gemmCase struct {
	transA, transB   bool
	m, n, k          int
	alpha, beta      float64
	padA, padB, padC int
}

func (tc gemmCase) String() string {
	t := func(b bool) string {
		if b {
			return "T"
		}
		return "N"
	}
	return fmt.Sprintf("%s%s/m=%d,n=%d,k=%d/alpha=%g,beta=%g/pad=%d,%d,%d",
		t(tc.transA), t(tc.transB), tc.m, tc.n, tc.k, tc.alpha, tc.beta, tc.padA, tc.padB, tc.padC)
}

// operands are the stored matrices of a case, as float64 whatever T is.
type operands struct {
	a, b, c       []float64
	lda, ldb, ldc int
}

// makeOperands fills A and B with values in [-1, 1), C with values in
// [-1, 1) (NaN when beta = 0: C must then be overwritten, never read), and
// every padding element with NaN, so that a kernel reading outside the
// matrices taints its result.
func makeOperands(tc gemmCase, rng *rand.Rand) operands {
	rowsA, colsA := tc.m, tc.k
	if tc.transA {
		rowsA, colsA = tc.k, tc.m
	}
	rowsB, colsB := tc.k, tc.n
	if tc.transB {
		rowsB, colsB = tc.n, tc.k
	}
	fill := func(rows, cols, pad int, nan bool) ([]float64, int) {
		ld := max(1, cols+pad)
		x := make([]float64, max(0, rows*ld))
		for i := range rows {
			for j := range ld {
				switch {
				case j >= cols || nan:
					x[i*ld+j] = math.NaN()
				default:
					x[i*ld+j] = 2*rng.Float64() - 1
				}
			}
		}
		return x, ld
	}
	var o operands
	o.a, o.lda = fill(rowsA, colsA, tc.padA, false)
	o.b, o.ldb = fill(rowsB, colsB, tc.padB, false)
	o.c, o.ldc = fill(tc.m, tc.n, tc.padC, tc.beta == 0)
	return o
}

func (o operands) opA(tc gemmCase, i, p int) float64 {
	if tc.transA {
		return o.a[p*o.lda+i]
	}
	return o.a[i*o.lda+p]
}

func (o operands) opB(tc gemmCase, p, j int) float64 {
	if tc.transB {
		return o.b[j*o.ldb+p]
	}
	return o.b[p*o.ldb+j]
}

func convert[T, S float](x []S) []T {
	y := make([]T, len(x))
	for i, v := range x {
		y[i] = T(v)
	}
	return y
}

// checkCase runs one case through kernel set ks with the given number of
// workers and compares C with a triple loop in float64 on the same
// (rounded) inputs.
//
// Tolerance: a dot product of length k summed in precision eps, however
// its terms are grouped and fused, is within γ_k·Σ|a_ip·b_pj| of the exact
// value, with γ_k = k·eps/(1 - k·eps) (Higham, Accuracy and Stability of
// Numerical Algorithms, §3.1); scaling by alpha and adding beta·c cost one
// rounding each. So |C - C_ref| ≤ (k+3)·eps·(|alpha|·Σ_p|a_ip·b_pj| + |beta·c_ij|),
// a worst case that a wrong tile (a missed or doubled term) breaks by a
// factor of about 1/((k+3)·eps).
func checkCase[T float](t *testing.T, ks *kernelSet[T], workers int, tc gemmCase, rng *rand.Rand) {
	t.Helper()
	o := makeOperands(tc, rng)
	a, b, c := convert[T, float64](o.a), convert[T, float64](o.b), convert[T, float64](o.c)
	// The reference uses the rounded inputs.
	o.a, o.b, o.c = convert[float64](a), convert[float64](b), convert[float64](c)
	gemm(ks, workers, tc.transA, tc.transB, tc.m, tc.n, tc.k, T(tc.alpha), a, o.lda, b, o.ldb, T(tc.beta), c, o.ldc)

	eps := math.Pow(2, -52)
	if _, single := any(a).([]float32); single {
		eps = math.Pow(2, -23)
	}
	bad := 0
	for i := range tc.m {
		for j := range o.ldc {
			got := float64(c[i*o.ldc+j])
			if j >= tc.n { // padding: must be untouched
				if !math.IsNaN(got) {
					t.Errorf("%v: C[%d,%d] in the padding was written: %g", tc, i, j, got)
					bad++
				}
				continue
			}
			var sum, abs float64
			for p := range tc.k {
				x := o.opA(tc, i, p) * o.opB(tc, p, j)
				sum += x
				abs += math.Abs(x)
			}
			want := tc.alpha * sum
			bound := math.Abs(tc.alpha) * abs
			if tc.beta != 0 {
				cij := o.c[i*o.ldc+j]
				want += tc.beta * cij
				bound += math.Abs(tc.beta * cij)
			}
			bound *= float64(tc.k+3) * eps
			if !(math.Abs(got-want) <= bound) {
				t.Errorf("%v: C[%d,%d] = %g, want %g ± %g", tc, i, j, got, want, bound)
				bad++
			}
			if bad > 5 {
				t.FailNow()
			}
		}
	}
}

// cases returns the correctness cases: every transpose, alpha and beta on
// small shapes, then random shapes that cross the tile and block edges of
// every kernel set (tiles of 4-8 rows and 4-48 columns; blocks of k = 256-512
// and n = 168-512).
func cases(rng *rand.Rand) []gemmCase {
	var cs []gemmCase
	scalars := []float64{0, 1, -0.5}
	shapes := [][3]int{{1, 1, 1}, {2, 3, 5}, {7, 13, 17}, {9, 17, 3}, {8, 48, 16}, {31, 37, 41}}
	for _, s := range shapes {
		for ta := range 2 {
			for tb := range 2 {
				for _, alpha := range scalars {
					for _, beta := range scalars {
						cs = append(cs, gemmCase{transA: ta == 1, transB: tb == 1, m: s[0], n: s[1], k: s[2],
							alpha: alpha, beta: beta, padA: rng.IntN(3), padB: rng.IntN(3), padC: rng.IntN(3)})
					}
				}
			}
		}
	}
	dims := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 97, 100, 101}
	ks := []int{1, 2, 3, 7, 8, 9, 10, 64, 127, 128, 255, 256, 257, 300, 513, 784}
	for range 150 {
		cs = append(cs, gemmCase{
			transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1,
			m: dims[rng.IntN(len(dims))], n: dims[rng.IntN(len(dims))], k: ks[rng.IntN(len(ks))],
			alpha: scalars[rng.IntN(3)], beta: scalars[rng.IntN(3)],
			padA: rng.IntN(20), padB: rng.IntN(20), padC: rng.IntN(20),
		})
	}
	// Products of one column with contiguous vectors, which the AVX-512
	// float64 set computes with its matrix-vector kernels (gemv.go): rows
	// in fours and ones, columns in vectors of 8 and blocks of 32, each with
	// a ragged edge; every other alpha and beta goes through the tiles.
	for _, m := range []int{1, 3, 4, 5, 8, 17, 33, 100} {
		for _, k := range []int{0, 1, 7, 8, 9, 20, 31, 32, 33, 65} {
			for _, beta := range scalars {
				cs = append(cs, gemmCase{transA: rng.IntN(2) == 1, transB: rng.IntN(2) == 1, m: m, n: 1, k: k,
					alpha: []float64{1, -0.5}[rng.IntN(2)], beta: beta, padA: rng.IntN(3)})
			}
		}
	}
	// Wider than one block of n, and with a zero dimension.
	cs = append(cs,
		gemmCase{m: 19, n: 515, k: 300, alpha: 1, beta: -0.5, padC: 3},
		gemmCase{transA: true, transB: true, m: 9, n: 250, k: 20, alpha: -0.5, beta: 1, padA: 1, padB: 2},
		gemmCase{m: 0, n: 5, k: 3, alpha: 1, beta: 1},
		gemmCase{m: 5, n: 0, k: 3, alpha: 1, beta: 1},
		gemmCase{m: 5, n: 6, k: 0, alpha: 1, beta: -0.5},
		gemmCase{m: 5, n: 6, k: 0, alpha: 1, beta: 0},
	)
	return cs
}

func testSets[T float](t *testing.T, sets []*kernelSet[T]) {
	for _, ks := range sets {
		t.Run(ks.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			for _, tc := range cases(rng) {
				checkCase(t, ks, 1, tc, rng)
			}
		})
	}
}

// TestSgemm and TestDgemm run every kernel set this machine has: the
// assembly ones (AVX-512, AVX2) and the portable one.
func TestSgemm(t *testing.T) { testSets(t, setsF32) }

func TestDgemm(t *testing.T) { testSets(t, setsF64) }

// parallelShapes are products big enough to be split (at least 2^18
// multiply-adds per part), split by rows, by columns, with edge tiles.
var parallelShapes = []gemmCase{
	{m: 128, n: 100, k: 784, alpha: 1, beta: 0},
	{transA: true, m: 100, n: 61, k: 128, alpha: -0.5, beta: 1, padA: 3},
	{transB: true, m: 9, n: 1600, k: 200, alpha: 1, beta: -0.5, padB: 1, padC: 2},
	{transA: true, transB: true, m: 203, n: 203, k: 70, alpha: 1, beta: 1},
}

// testParallel checks that splitting the output over workers changes no
// bit of the result.
func testParallel[T float](t *testing.T, ks *kernelSet[T]) {
	for _, tc := range parallelShapes {
		rng := rand.New(rand.NewPCG(3, 4))
		o := makeOperands(tc, rng)
		a, b, c := convert[T, float64](o.a), convert[T, float64](o.b), convert[T, float64](o.c)
		want := append([]T(nil), c...)
		gemm(ks, 1, tc.transA, tc.transB, tc.m, tc.n, tc.k, T(tc.alpha), a, o.lda, b, o.ldb, T(tc.beta), want, o.ldc)
		for _, workers := range []int{2, 3, 4, 7, 0} {
			got := append([]T(nil), c...)
			gemm(ks, workers, tc.transA, tc.transB, tc.m, tc.n, tc.k, T(tc.alpha), a, o.lda, b, o.ldb, T(tc.beta), got, o.ldc)
			for i := range got {
				if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
					t.Fatalf("%v, %d workers: element %d is %g, serial gives %g", tc, workers, i, got[i], want[i])
				}
			}
		}
	}
}

func TestParallel(t *testing.T) {
	// Workers beyond GOMAXPROCS are not used: raise it so that 3, 4 and 7
	// workers split the product that many ways.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	for _, ks := range setsF32 {
		t.Run("float32/"+ks.name, func(t *testing.T) { testParallel(t, ks) })
	}
	for _, ks := range setsF64 {
		t.Run("float64/"+ks.name, func(t *testing.T) { testParallel(t, ks) })
	}
}

// TestParallelConcurrent runs parallel products from several goroutines at
// once, sharing the helper goroutines (meant for -race).
func TestParallelConcurrent(t *testing.T) {
	const m, n, k = 64, 100, 200
	rng := rand.New(rand.NewPCG(5, 6))
	a := convert[float32, float64](makeOperands(gemmCase{m: m, n: n, k: k}, rng).a)
	b := convert[float32, float64](makeOperands(gemmCase{m: k, n: 1, k: n}, rng).a)
	want := make([]float32, m*n)
	Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, want, n)
	done := make(chan []float32)
	for range 4 {
		go func() {
			c := make([]float32, m*n)
			for range 5 {
				SgemmParallel(3, false, false, m, n, k, 1, a, k, b, n, 0, c, n)
			}
			done <- c
		}()
	}
	for range 4 {
		c := <-done
		for i := range c {
			if c[i] != want[i] {
				t.Fatalf("element %d: %g, want %g", i, c[i], want[i])
			}
		}
	}
}

func TestPanics(t *testing.T) {
	x := make([]float64, 100)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"m<0", func() { Dgemm(false, false, -1, 2, 2, 1, x, 2, x, 2, 0, x, 2) }, "kernel: m < 0"},
		{"n<0", func() { Dgemm(false, false, 2, -1, 2, 1, x, 2, x, 2, 0, x, 2) }, "kernel: n < 0"},
		{"k<0", func() { Dgemm(false, false, 2, 2, -1, 1, x, 2, x, 2, 0, x, 2) }, "kernel: k < 0"},
		{"lda", func() { Dgemm(false, false, 2, 2, 3, 1, x, 2, x, 2, 0, x, 2) }, "kernel: bad leading dimension of A"},
		{"ldaT", func() { Dgemm(true, false, 3, 2, 2, 1, x, 2, x, 2, 0, x, 2) }, "kernel: bad leading dimension of A"},
		{"ldb", func() { Dgemm(false, false, 2, 3, 2, 1, x, 2, x, 2, 0, x, 3) }, "kernel: bad leading dimension of B"},
		{"ldc", func() { Dgemm(false, false, 2, 3, 2, 1, x, 2, x, 3, 0, x, 2) }, "kernel: bad leading dimension of C"},
		{"lenA", func() { Dgemm(false, false, 10, 10, 10, 1, x[:99], 10, x, 10, 0, x, 10) }, "kernel: insufficient length of A"},
		{"lenB", func() { Dgemm(false, false, 10, 10, 10, 1, x, 10, x[:99], 10, 0, x, 10) }, "kernel: insufficient length of B"},
		{"lenC", func() { Dgemm(false, false, 10, 10, 10, 1, x, 10, x, 10, 0, x[:99], 10) }, "kernel: insufficient length of C"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != tc.want {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.f()
		})
	}
	// Empty products read nothing.
	Sgemm(false, false, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1)
}

// FuzzGemm checks every kernel set, serial and split over two workers, on
// shapes the fuzzer picks: extents up to 200 (several tiles and blocks of
// k, ragged edges), both transpositions, padded strides and the four kinds
// of alpha and beta the driver treats apart (0, 1, -1, other).
func FuzzGemm(f *testing.F) {
	f.Add(uint8(13), uint8(21), uint8(17), uint8(0), uint8(0), uint64(1))
	f.Add(uint8(128), uint8(100), uint8(200), uint8(1), uint8(2), uint64(2))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(3), uint8(7), uint64(3))
	f.Fuzz(func(t *testing.T, m, n, k, trans, scalars uint8, seed uint64) {
		coef := []float64{0, 1, -1, 0.37}
		tc := gemmCase{transA: trans&1 != 0, transB: trans&2 != 0,
			m: int(m) % 201, n: int(n) % 201, k: int(k) % 201,
			alpha: coef[scalars&3], beta: coef[scalars>>2&3],
			padA: int(trans>>2) % 5, padB: int(trans>>4) % 5, padC: int(scalars>>4) % 5}
		rng := rand.New(rand.NewPCG(seed, 7))
		for _, ks := range setsF32 {
			checkCase(t, ks, 1, tc, rng)
			checkCase(t, ks, 2, tc, rng)
		}
		for _, ks := range setsF64 {
			checkCase(t, ks, 1, tc, rng)
			checkCase(t, ks, 2, tc, rng)
		}
	})
}
