package kernel

// newPortableSet is the pure-Go kernel set, used where no assembly kernel
// runs (other architectures, the purego build tag, CPUs without AVX2+FMA).
// Its 4 × 4 tile is sixteen scalar accumulators, which fit the 32
// floating-point registers of arm64; the blocks are those of the AVX-512
// set, sized for a 32 KiB L1 and a 512 KiB-1 MiB L2.
func newPortableSet[T float]() *kernelSet[T] {
	return &kernelSet[T]{name: "portable", mr: 4, lanes: 4, nv: 1, kc: 256, nc: 512, tile: tilePortable[T]}
}

// tilePortable is the tile function of the portable set: nr = 4, so B
// holds 4 elements per k.
func tilePortable[T float](m, n, kc int, a []T, si, sk int, b []T, sb int, c []T, ldc int, alpha, beta T, mode int) {
	var acc [4][4]T
	if m == 4 {
		var c00, c01, c02, c03, c10, c11, c12, c13 T
		var c20, c21, c22, c23, c30, c31, c32, c33 T
		for p := range kc {
			bp := b[p*sb : p*sb+4 : p*sb+4]
			b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
			o := p * sk
			a0, a1, a2, a3 := a[o], a[o+si], a[o+2*si], a[o+3*si]
			c00 += a0 * b0
			c01 += a0 * b1
			c02 += a0 * b2
			c03 += a0 * b3
			c10 += a1 * b0
			c11 += a1 * b1
			c12 += a1 * b2
			c13 += a1 * b3
			c20 += a2 * b0
			c21 += a2 * b1
			c22 += a2 * b2
			c23 += a2 * b3
			c30 += a3 * b0
			c31 += a3 * b1
			c32 += a3 * b2
			c33 += a3 * b3
		}
		acc = [4][4]T{{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}}
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
