//go:build linux

package kernel

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns a copy of x whose last element ends where an unreadable
// page begins: a kernel that loads past the end of a matrix (an unmasked
// vector over the last columns) faults instead of reading neighbouring data.
func guarded[T float](t *testing.T, x []T) []T {
	t.Helper()
	page := syscall.Getpagesize()
	size := int(unsafe.Sizeof(x[0])) * len(x)
	n := (size+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal("mmap:", err) // anonymous mappings always work on Linux
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[n-page:], syscall.PROT_NONE); err != nil {
		t.Fatal("mprotect:", err)
	}
	y := unsafe.Slice((*T)(unsafe.Pointer(&mem[n-page-size])), len(x))
	copy(y, x)
	return y
}

// testGuarded runs products whose last row ends at an unreadable page, with
// widths that leave partial vectors, and compares them with the same
// product on ordinary slices.
func testGuarded[T float](t *testing.T, ks *kernelSet[T]) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 3, 10, 17, 100} {
		for _, m := range []int{1, 7, 9} {
			for ta := range 2 {
				for tb := range 2 {
					tc := gemmCase{transA: ta == 1, transB: tb == 1, m: m, n: n, k: 13, alpha: 1, beta: -0.5,
						padA: rng.IntN(3), padB: rng.IntN(3), padC: rng.IntN(3)}
					o := makeOperands(tc, rng)
					// Trim each matrix to its last element: no padding after the last row.
					trim := func(x []float64, ld, cols int) []T {
						rows := len(x) / ld
						return convert[T, float64](x[:(rows-1)*ld+cols])
					}
					colsA, colsB := tc.k, tc.n
					if tc.transA {
						colsA = tc.m
					}
					if tc.transB {
						colsB = tc.k
					}
					a, b, c := trim(o.a, o.lda, colsA), trim(o.b, o.ldb, colsB), trim(o.c, o.ldc, tc.n)
					want := append([]T(nil), c...)
					gemm(ks, 1, tc.transA, tc.transB, m, n, tc.k, 1, a, o.lda, b, o.ldb, -0.5, want, o.ldc)
					ga, gb, gc := guarded(t, a), guarded(t, b), guarded(t, c)
					gemm(ks, 1, tc.transA, tc.transB, m, n, tc.k, 1, ga, o.lda, gb, o.ldb, -0.5, gc, o.ldc)
					for i := range gc {
						if gc[i] != want[i] && !(gc[i] != gc[i] && want[i] != want[i]) {
							t.Fatalf("%v: element %d is %g, want %g", tc, i, gc[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestGuardPages(t *testing.T) {
	for _, ks := range setsF32 {
		t.Run("float32/"+ks.name, func(t *testing.T) { testGuarded(t, ks) })
	}
	for _, ks := range setsF64 {
		t.Run("float64/"+ks.name, func(t *testing.T) { testGuarded(t, ks) })
	}
}
