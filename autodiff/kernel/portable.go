package kernel

// newPortableSet is the pure-Go kernel set, used where no assembly kernel
// runs (other architectures, the purego build tag, CPUs without AVX2+FMA).
// It packs each stripe of A so that its tile loads A and B from contiguous
// memory, bounds checks hoisted; the tile is 4 × 4, computed two rows at a
// time (see tilePortable). Blocks: an A stripe of 4 × 256 and a B block of
// 256 × 512 fit a 32 KiB L1 and a 512 KiB L2.
func newPortableSet[T float]() *kernelSet[T] {
	return &kernelSet[T]{name: "portable", mr: 4, lanes: 4, nv: 1, kc: 256, nc: 512, packA: true, tile: tilePortable[T]}
}

// tilePortable is the tile function of the portable set: nr = 4, so B
// holds 4 elements per k.
func tilePortable[T float](m, n, kc int, a []T, si, sk int, b []T, sb int, c []T, ldc int, alpha, beta T, mode int) {
	var acc [4][4]T
	if m == 4 && si == 1 && sk == 4 { // a full tile of packed A
		// Two passes of two rows: eight accumulators, four B and two A
		// values fit the 15 floating-point registers Go has on amd64.
		for h := 0; h < 4; h += 2 {
			var c00, c01, c02, c03, c10, c11, c12, c13 T
			for p := range kc {
				bp := b[p*sb : p*sb+4 : p*sb+4]
				b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
				ap := a[4*p+h : 4*p+h+2 : 4*p+h+2]
				a0, a1 := ap[0], ap[1]
				c00 += a0 * b0
				c01 += a0 * b1
				c02 += a0 * b2
				c03 += a0 * b3
				c10 += a1 * b0
				c11 += a1 * b1
				c12 += a1 * b2
				c13 += a1 * b3
			}
			acc[h] = [4]T{c00, c01, c02, c03}
			acc[h+1] = [4]T{c10, c11, c12, c13}
		}
	} else {
		for i := range m {
			r := &acc[i]
			for p := range kc {
				ai := a[i*si+p*sk]
				bp := b[p*sb : p*sb+4 : p*sb+4]
				r[0] += ai * bp[0]
				r[1] += ai * bp[1]
				r[2] += ai * bp[2]
				r[3] += ai * bp[3]
			}
		}
	}
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		for j := range row {
			v := alpha * acc[i][j]
			if mode != 0 {
				v += beta * row[j]
			}
			row[j] = v
		}
	}
}
