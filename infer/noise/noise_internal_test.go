package noise

import (
	"math"
	"math/bits"
	"slices"
	"testing"
)

// TestSplitMix64KnownAnswers checks the generator against the published
// outputs of the reference splitmix64.c seeded with 1234567 (as listed by
// Rosetta Code, "Pseudo-random numbers/Splitmix64"): a Stream with base
// 1234567 and the golden increment is exactly that generator.
func TestSplitMix64KnownAnswers(t *testing.T) {
	s := Stream{base: 1234567, x: 1234567}
	want := []uint64{
		6457827717110365317, 3203168211198807973, 9817491932198370423,
		4593380528125082431, 16408922859458223821,
	}
	for i, w := range want {
		if got := s.Uint64(); got != w {
			t.Fatalf("word %d = %d, want %d", i, got, w)
		}
	}
}

// TestZigguratTable checks the computed tables against the constants
// Marsaglia & Tsang (2000) publish, r and v for 128 and 256 layers, and
// checks that every layer has area v, which is what makes the method
// exact.
func TestZigguratTable(t *testing.T) {
	for _, c := range []struct {
		n    int
		r, v float64
		tol  float64 // relative; the paper quotes 12-13 significant digits
	}{
		{128, 3.442619855899, 9.91256303526217e-3, 1e-11},
		{256, 3.6541528853610088, 4.92867323399e-3, 1e-11},
	} {
		r, v, x := zigTable(c.n)
		if math.Abs(r-c.r) > c.tol*c.r || math.Abs(v-c.v) > c.tol*c.v {
			t.Errorf("n=%d: r=%.17g v=%.17g, want %.17g %.17g", c.n, r, v, c.r, c.v)
		}
		f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
		if a := x[0] * f(r); math.Abs(a-v) > 1e-14*v {
			t.Errorf("n=%d: base strip area %g, want %g", c.n, a, v)
		}
		for i := 1; i < c.n; i++ {
			if !(x[i+1] < x[i]) {
				t.Fatalf("n=%d: widths not decreasing at %d: %g, %g", c.n, i, x[i], x[i+1])
			}
			// The recursion loses a little accuracy per layer; 1e-9 is
			// far below anything a test on draws could see.
			if a := x[i] * (f(x[i+1]) - f(x[i])); math.Abs(a-v) > 1e-9*v {
				t.Errorf("n=%d: layer %d area %.17g, want %.17g", c.n, i, a, v)
			}
		}
	}
	if zr != 3.6541528853610088 {
		t.Errorf("zr = %.17g", zr)
	}
	if zk[zigLayers-1] != 0 || zk32[zigLayers-1] != 0 {
		t.Errorf("top layer must always go to the wedge test")
	}
	// The fast path's share is the mean of zx[i+1]/zx[i] over layers.
	var acc float64
	for i := range zigLayers {
		acc += zx[i+1] / zx[i]
	}
	t.Logf("fast-path acceptance %.4f", acc/zigLayers)
}

func TestInverse(t *testing.T) {
	s := New(3, 4)
	for range 1000 {
		g := s.Uint64() | 1
		if g*inverse(g) != 1 {
			t.Fatalf("inverse(%#x) wrong", g)
		}
	}
}

// TestKeys checks that New's increments are odd and have the bit
// transitions a Weyl sequence needs, and that neighbouring ids give
// distinct keys.
func TestKeys(t *testing.T) {
	seen := map[[2]uint64]bool{}
	for seed := range uint64(32) {
		for stream := range uint64(32) {
			s := newStream(seed, stream)
			g := s.gamma()
			if g&1 == 0 || bits.OnesCount64(g^(g>>1)) < 24 {
				t.Fatalf("(%d, %d): bad gamma %#x", seed, stream, g)
			}
			k := [2]uint64{s.base, g}
			if seen[k] {
				t.Fatalf("(%d, %d): repeated key", seed, stream)
			}
			seen[k] = true
		}
	}
}

// TestTailSampler tests Marsaglia's tail method on its own, which the
// whole-distribution tests see only through the 0.026% of draws beyond r:
// 10^5 tail draws must pass a Kolmogorov–Smirnov test against the normal
// conditioned on z > r, F(z) = 1 - Q(z)/Q(r) with Q(z) = erfc(z/√2)/2, at
// α = 10^-3 (critical value 1.9495/√n as in the external KS test).
func TestTailSampler(t *testing.T) {
	const n, alpha = 100_000, 1e-3
	crit := math.Sqrt(-math.Log(alpha/2)/2) / math.Sqrt(n)
	s := New(17, 18)
	d := make([]float64, n)
	for i := range d {
		d[i] = s.tail()
	}
	slices.Sort(d)
	qr := math.Erfc(zr / math.Sqrt2)
	var dmax float64
	for i, v := range d {
		f := 1 - math.Erfc(v/math.Sqrt2)/qr
		dmax = max(dmax, float64(i+1)/n-f, f-float64(i)/n)
	}
	if dmax > crit {
		t.Errorf("D = %.5f > %.5f", dmax, crit)
	}
}
