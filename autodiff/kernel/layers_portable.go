package kernel

import "math"

// The portable layer kernels, in the order of operations of the assembly
// (asm/layers.go), so that every set gives the same bits.

func reluGo[T float](dst, x []T) {
	dst = dst[:len(x)]
	for i, v := range x {
		if 0 > v {
			v = 0
		}
		dst[i] = v
	}
}

// gtZeroMask is g where x > 0 and +0 elsewhere, by masking g's bits: the
// sign of a pre-activation is a coin flip, so a branch on it mispredicts.
func gtZeroMask[T float](x, g T) T {
	if isF32[T]() {
		b := int32(math.Float32bits(float32(x)))
		mask := uint32(^((b - 1) >> 31) & ^(b >> 31))
		if x != x {
			mask = 0
		}
		return T(math.Float32frombits(math.Float32bits(float32(g)) & mask))
	}
	b := int64(math.Float64bits(float64(x)))
	mask := uint64(^((b - 1) >> 63) & ^(b >> 63))
	if x != x {
		mask = 0
	}
	return T(math.Float64frombits(math.Float64bits(float64(g)) & mask))
}

func reluGradGo[T float](dst, x, g []T, assign bool) {
	dst, x = dst[:len(g)], x[:len(g)]
	if assign {
		for i, v := range g {
			dst[i] = gtZeroMask(x[i], v)
		}
		return
	}
	for i, v := range g {
		dst[i] += gtZeroMask(x[i], v)
	}
}

func maxPoolGo[T float](dst, x []T, offs []int, c, n, step int) {
	for q := range n {
		d, w := dst[q*c:(q+1)*c], x[q*step:]
		copy(d, w[offs[0]:offs[0]+c])
		for _, o := range offs[1:] {
			for j, v := range w[o : o+c] {
				if v > d[j] || v != v {
					d[j] = v
				}
			}
		}
	}
}

func maxPoolGradGo[T float](dx, x []T, offs []int, y, dy []T, c, n, step int, assign bool) {
	for q := range n {
		ys, w, dw := y[q*c:(q+1)*c], x[q*step:], dx[q*step:]
		for j, g := range dy[q*c : (q+1)*c] {
			for _, o := range offs {
				t := T(0)
				if w[o+j] == ys[j] {
					t, g = g, 0
				}
				if assign {
					dw[o+j] = t
				} else {
					dw[o+j] += t
				}
			}
		}
	}
}

func copy2DGo[T float](dst []T, ldd int, src []T, lds int, rows, cols int, add bool) {
	for r := range rows {
		d, s := dst[r*ldd:r*ldd+cols], src[r*lds:r*lds+cols]
		if !add {
			copy(d, s)
			continue
		}
		for j, v := range s {
			d[j] += v
		}
	}
}
