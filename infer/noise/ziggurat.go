package noise

import "math"

// zigLayers is the number of ziggurat layers: 256, so that the layer index
// is one byte of the word and the fast path accepts 98.5% of draws.
const zigLayers = 256

// Ziggurat tables for the unnormalized half-normal density
// f(x) = exp(-x²/2), computed at init from the defining equations.
//
// zx[0] = v/f(r) is the width of the base strip (the rectangle [0, r] ×
// [0, f(r)] plus the tail beyond r, folded into a pseudo-rectangle of the
// same area v), zx[1] = r, and zx[i+1] solves zx[i]·(f(zx[i+1]) - f(zx[i]))
// = v, down to zx[256] = 0. Layer i is the box of width zx[i] between
// heights zf[i] and zf[i+1] (zf[0] = 0); a uniform point x < zx[i+1] in it
// lies under the curve.
var (
	zr   float64                // r, the start of the tail
	zx   [zigLayers + 1]float64 // layer widths
	zf   [zigLayers + 1]float64 // f(zx[i]); zf[0] = 0, zf[256] = 1
	zw   [zigLayers]float64     // zx[i]·2^-52: a signed 53-bit integer times zw[i] is uniform on [-zx[i], zx[i])
	zk   [zigLayers]uint64      // ⌊2^52·zx[i+1]/zx[i]⌋: the fast-accept bound on |m|
	zw32 [zigLayers]float64     // zx[i]·2^-23, for signed 24-bit candidates
	zk32 [zigLayers]uint32      // ⌊2^23·zx[i+1]/zx[i]⌋
)

func init() {
	r, _, x := zigTable(zigLayers)
	zr = r
	copy(zx[:], x)
	for i := 1; i <= zigLayers; i++ {
		zf[i] = math.Exp(-0.5 * zx[i] * zx[i])
	}
	zf[zigLayers] = 1
	for i := range zigLayers {
		q := zx[i+1] / zx[i]
		zw[i] = math.Ldexp(zx[i], -52)
		zk[i] = uint64(math.Ldexp(q, 52))
		zw32[i] = math.Ldexp(zx[i], -23)
		zk32[i] = uint32(math.Ldexp(q, 23))
	}
}

// zigTable returns the tail start r, the common layer area v and the n+1
// layer widths of an n-layer ziggurat for exp(-x²/2) (Marsaglia & Tsang
// 2000, section 2). r is found by bisection so that the top layer, whose
// width is fixed by the others, also has area v.
func zigTable(n int) (r, v float64, x []float64) {
	x = make([]float64, n+1)
	// fill builds the widths for a trial r and returns the top layer's
	// area minus v: negative when r is too small (the layers reach the
	// mode before the last one), positive when it is too large.
	fill := func(r float64) (float64, float64) {
		fr := math.Exp(-0.5 * r * r)
		v := r*fr + math.Sqrt(math.Pi/2)*math.Erfc(r/math.Sqrt2)
		x[0], x[1] = v/fr, r
		for i := 1; i < n-1; i++ {
			y := math.Exp(-0.5*x[i]*x[i]) + v/x[i]
			if y >= 1 {
				return -1, v
			}
			x[i+1] = math.Sqrt(-2 * math.Log(y))
		}
		top := x[n-1] * (1 - math.Exp(-0.5*x[n-1]*x[n-1]))
		return top - v, v
	}
	lo, hi := 1.0, 10.0
	for range 200 {
		mid := 0.5 * (lo + hi)
		if mid == lo || mid == hi {
			break
		}
		if d, _ := fill(mid); d < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	r = hi
	_, v = fill(r)
	x[n] = 0
	return r, v, x
}

// FillNormal fills dst with independent standard normal draws, consuming
// one word per draw plus about 1% more for rejections. Splitting a call
// into several on consecutive parts of dst gives the same values.
//
// It uses the ziggurat method (Marsaglia & Tsang 2000) with 256 layers:
// the low byte of each word picks the layer and its top 53 bits, read as a
// signed integer m, give the candidate m·zx[j]·2^-52 with its sign; the
// tail is sampled exactly by Marsaglia's method and wedges by comparing
// with the density itself, so the output is exactly normal up to
// floating-point rounding. With AVX-512 the fast path runs eight draws at
// a time (zig.go) with the same result.
func (s *Stream) FillNormal(dst []float64) {
	if zigVec {
		s.fillNormalVec(dst)
		return
	}
	s.fillNormalGo(dst)
}

// fillNormalGo is FillNormal's scalar loop.
func (s *Stream) fillNormalGo(dst []float64) {
	g, x := s.gamma(), s.x
	for i := range dst {
		x += g
		u := mix64(x)
		j := u & 0xff
		m := int64(u) >> 11
		k := zk[j]
		z := float64(m) * zw[j]
		// -k <= m < k in one unsigned comparison.
		if uint64(m)+k >= 2*k {
			s.x = x
			z = math.Copysign(s.slow(j, math.Abs(z)), z)
			x = s.x
		}
		dst[i] = z
	}
	s.x = x
}

// FillNormal32 fills dst with independent standard normal draws as
// float32. Each word supplies two candidates, one from each 32-bit half
// (the low byte picks the layer, the top 24 bits are a signed uniform,
// matching float32's precision), so it consumes about half a word per
// draw; rejections fall back to full words as in FillNormal. An odd-length
// dst discards the unused half of its last word, so splitting a call
// changes the values unless every part but the last has even length.
//
// With AVX-512 the fast path runs sixteen draws at a time (zig.go) with the
// same result.
func (s *Stream) FillNormal32(dst []float32) {
	if zigVec {
		s.fillNormal32Vec(dst)
		return
	}
	s.fillNormal32Go(dst)
}

// fillNormal32Go is FillNormal32's scalar loop.
func (s *Stream) fillNormal32Go(dst []float32) {
	g, x := s.gamma(), s.x
	for i := 0; i < len(dst); i += 2 {
		x += g
		u := mix64(x)
		// The two halves are written out rather than shared through a
		// helper so that x stays in a register.
		h := uint32(u)
		j := h & 0xff
		m := int32(h) >> 8
		k := zk32[j]
		z := float64(m) * zw32[j]
		if uint32(m)+k >= 2*k {
			s.x = x
			z = math.Copysign(s.slow(uint64(j), math.Abs(z)), z)
			x = s.x
		}
		dst[i] = float32(z)
		if i+1 == len(dst) {
			break
		}
		h = uint32(u >> 32)
		j = h & 0xff
		m = int32(h) >> 8
		k = zk32[j]
		z = float64(m) * zw32[j]
		if uint32(m)+k >= 2*k {
			s.x = x
			z = math.Copysign(s.slow(uint64(j), math.Abs(z)), z)
			x = s.x
		}
		dst[i+1] = float32(z)
	}
	s.x = x
}

// slow finishes a draw whose candidate z in layer j missed the fast
// accept: from the tail if j is the base strip, else by the wedge test,
// restarting with fresh 64-bit candidates on rejection. It takes and
// returns magnitudes: the caller restores the candidate's sign, which is
// independent of whether and where the draw is accepted.
func (s *Stream) slow(j uint64, z float64) float64 {
	for {
		if j == 0 {
			return s.tail()
		}
		// z is uniform on [zx[j+1], zx[j]); a uniform height in the
		// layer below f(z) accepts it.
		y := zf[j] + unit(s.Uint64())*(zf[j+1]-zf[j])
		if y < math.Exp(-0.5*z*z) {
			return z
		}
		u := s.Uint64()
		j = u & 0xff
		m := u >> 12 // a 52-bit magnitude
		z = float64(int64(m)) * zw[j]
		if m < zk[j] {
			return z
		}
	}
}

// tail returns a draw from the normal tail beyond r by Marsaglia's method:
// with x = -ln(U1)/r and y = -ln(U2), accept r + x when 2y ≥ x².
func (s *Stream) tail() float64 {
	for {
		x := -math.Log(open(s.Uint64())) / zr
		y := -math.Log(open(s.Uint64()))
		if y+y >= x*x {
			return zr + x
		}
	}
}

// unit maps a word to [0, 1) with 53 bits.
func unit(u uint64) float64 { return float64(int64(u>>11)) * 0x1p-53 }

// open maps a word to (0, 1), so that its logarithm is finite.
func open(u uint64) float64 { return (float64(int64(u>>11)) + 0.5) * 0x1p-53 }
