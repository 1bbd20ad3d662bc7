//go:build !purego

package kernel

import "golang.org/x/sys/cpu"

// kernelF32 and kernelF64 are the signatures of the generated kernels
// (asm/main.go): an mr × nv-vector tile of C from the A tile at a (strides
// si, sk in elements), B rows at b (stride sb) and C at c (stride ldc), the
// last vector of each row masked to `last` lanes; mode is betaMode(beta).
type (
	kernelF32 func(kc int, a *float32, si, sk int, b *float32, sb int, c *float32, ldc int, alpha, beta float32, last, mode int)
	kernelF64 func(kc int, a *float64, si, sk int, b *float64, sb int, c *float64, ldc int, alpha, beta float64, last, mode int)
)

// Blocking of the assembly sets, for AMD Zen 4 and recent Intel cores (a
// 32 KiB L1 data cache, 1-2 MiB of L2 per core; see doc.go): the A stripe,
// mr × kc, takes 16-26 KiB of L1 and the B block, kc × nc, 0.5 MiB of L2.
var (
	setF32AVX512 = &kernelSet[float32]{name: "avx512", mr: 8, lanes: 16, nv: 3, kc: 512, nc: 240, maskedB: true, tile: tileF32AVX512}
	setF64AVX512 = &kernelSet[float64]{name: "avx512", mr: 8, lanes: 8, nv: 3, kc: 400, nc: 168, maskedB: true, tile: tileF64AVX512, gemv: gemvF64AVX512}
	setF32AVX2   = &kernelSet[float32]{name: "avx2", mr: 6, lanes: 8, nv: 2, kc: 384, nc: 256, tile: tileF32AVX2}
	setF64AVX2   = &kernelSet[float64]{name: "avx2", mr: 6, lanes: 4, nv: 2, kc: 256, nc: 240, tile: tileF64AVX2}
)

func archSetsF32() []*kernelSet[float32] {
	var sets []*kernelSet[float32]
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		sets = append(sets, setF32AVX512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		sets = append(sets, setF32AVX2)
	}
	return sets
}

func archSetsF64() []*kernelSet[float64] {
	var sets []*kernelSet[float64]
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL {
		sets = append(sets, setF64AVX512)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		sets = append(sets, setF64AVX2)
	}
	return sets
}

// The tile functions pick the kernel for the tile's height and width in
// vectors; the last vector is masked to the remaining columns, and with
// AVX-512 it is a ymm register when they fit in half a vector.

func tileF32AVX512(m, n, kc int, a []float32, si, sk int, b []float32, sb int, c []float32, ldc int, alpha, beta float32, mode int) {
	nv := (n + 15) >> 4
	k := &kernelsF32AVX512[m-1][nv-1]
	if last := n - (nv-1)<<4; last <= 8 {
		k = &kernelsF32AVX512Half[m-1][nv-1]
	}
	(*k)(kc, &a[0], si, sk, &b[0], sb, &c[0], ldc, alpha, beta, n-(nv-1)<<4, mode)
}

func tileF64AVX512(m, n, kc int, a []float64, si, sk int, b []float64, sb int, c []float64, ldc int, alpha, beta float64, mode int) {
	nv := (n + 7) >> 3
	k := &kernelsF64AVX512[m-1][nv-1]
	if last := n - (nv-1)<<3; last <= 4 {
		k = &kernelsF64AVX512Half[m-1][nv-1]
	}
	(*k)(kc, &a[0], si, sk, &b[0], sb, &c[0], ldc, alpha, beta, n-(nv-1)<<3, mode)
}

func tileF32AVX2(m, n, kc int, a []float32, si, sk int, b []float32, sb int, c []float32, ldc int, alpha, beta float32, mode int) {
	nv := (n + 7) >> 3
	kernelsF32AVX2[m-1][nv-1](kc, &a[0], si, sk, &b[0], sb, &c[0], ldc, alpha, beta, n-(nv-1)<<3, mode)
}

func tileF64AVX2(m, n, kc int, a []float64, si, sk int, b []float64, sb int, c []float64, ldc int, alpha, beta float64, mode int) {
	nv := (n + 3) >> 2
	kernelsF64AVX2[m-1][nv-1](kc, &a[0], si, sk, &b[0], sb, &c[0], ldc, alpha, beta, n-(nv-1)<<2, mode)
}
