package noise_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper/infer/noise"
)

// The tests use fixed seeds, so each either always passes or always
// fails. Every tolerance below is a bound that a correct sampler exceeds
// with probability at most about 10^-3 (most far less), so a failure
// means a broken sampler, not bad luck, and a different fixed seed would
// pass as well.

// sampler is a way of producing n draws, widened to float64.
type sampler struct {
	name string
	draw func(n int, seed uint64) []float64
}

var samplers = []sampler{
	{"FillNormal", func(n int, seed uint64) []float64 {
		d := make([]float64, n)
		noise.New(seed, 0).FillNormal(d)
		return d
	}},
	{"FillNormal32", func(n int, seed uint64) []float64 {
		d32 := make([]float32, n)
		noise.New(seed, 0).FillNormal32(d32)
		return widen(d32)
	}},
	{"FillNormalParallel", func(n int, seed uint64) []float64 {
		d := make([]float64, n)
		noise.FillNormalParallel(d, seed, 0, 2)
		return d
	}},
	{"FillNormalParallel32", func(n int, seed uint64) []float64 {
		d32 := make([]float32, n)
		noise.FillNormalParallel32(d32, seed, 0, 2)
		return widen(d32)
	}},
}

func widen(d32 []float32) []float64 {
	d := make([]float64, len(d32))
	for i, v := range d32 {
		d[i] = float64(v)
	}
	return d
}

// TestMoments compares the first four sample moments of 10^6 draws with
// the normal's. Under the null each statistic is asymptotically normal
// with the standard error given, so 5 SE bounds a false alarm at 6·10^-7
// per statistic. The bounds are generous yet tight enough to catch real
// faults: truncating at the tail start r = 3.65 lowers the variance by
// 0.004 (2.6 SE) but the excess kurtosis by 0.04 (8 SE); a 1% scale
// error raises the variance by 0.02 (14 SE).
func TestMoments(t *testing.T) {
	const n = 1_000_000
	for _, sm := range samplers {
		t.Run(sm.name, func(t *testing.T) {
			d := sm.draw(n, 1)
			var mean float64
			for _, v := range d {
				mean += v
			}
			mean /= n
			var m2, m3, m4 float64
			for _, v := range d {
				e := v - mean
				e2 := e * e
				m2 += e2
				m3 += e2 * e
				m4 += e2 * e2
			}
			m2, m3, m4 = m2/n, m3/n, m4/n
			skew := m3 / math.Pow(m2, 1.5)
			kurt := m4/(m2*m2) - 3
			for _, c := range []struct {
				name      string
				got, want float64
				se        float64
			}{
				{"mean", mean, 0, math.Sqrt(1.0 / n)},      // σ/√n
				{"variance", m2, 1, math.Sqrt(2.0 / n)},    // √((μ4-σ⁴)/n) = √(2/n)
				{"skewness", skew, 0, math.Sqrt(6.0 / n)},  // √(6/n) for normal data
				{"kurtosis", kurt, 0, math.Sqrt(24.0 / n)}, // excess; √(24/n) for normal data
			} {
				if math.Abs(c.got-c.want) > 5*c.se {
					t.Errorf("%s = %.5f, want %g ± %.5f (5 SE)", c.name, c.got, c.want, 5*c.se)
				}
			}
		})
	}
}

// TestKolmogorovSmirnov tests 10^5 draws against the normal CDF. The
// critical value at α = 10^-3 is √(-ln(α/2)/2)/√n = 1.9495/√n (the
// Kolmogorov distribution's asymptotic tail, first term; tables give
// 1.95/√n), which at n = 10^5 is 0.00616.
func TestKolmogorovSmirnov(t *testing.T) {
	const n, alpha = 100_000, 1e-3
	crit := math.Sqrt(-math.Log(alpha/2)/2) / math.Sqrt(n)
	for _, sm := range samplers {
		t.Run(sm.name, func(t *testing.T) {
			d := sm.draw(n, 2)
			slices.Sort(d)
			var dmax float64
			for i, v := range d {
				f := distuv.UnitNormal.CDF(v)
				dmax = max(dmax, float64(i+1)/n-f, f-float64(i)/n)
			}
			if dmax > crit {
				t.Errorf("D = %.5f > %.5f", dmax, crit)
			}
		})
	}
}

// TestChiSquare bins 10^6 draws into 1000 cells of equal normal
// probability and compares the chi-square statistic with its 1-10^-3
// quantile on 999 degrees of freedom. The cells are narrow (about 0.0025
// wide near 0, a few per ziggurat layer), so unlike the KS test this sees
// a local error in one layer or wedge.
func TestChiSquare(t *testing.T) {
	const n, cells, alpha = 1_000_000, 1000, 1e-3
	crit := distuv.ChiSquared{K: cells - 1}.Quantile(1 - alpha)
	for _, sm := range samplers {
		t.Run(sm.name, func(t *testing.T) {
			var count [cells]int
			for _, v := range sm.draw(n, 3) {
				c := int(distuv.UnitNormal.CDF(v) * cells)
				count[min(c, cells-1)]++
			}
			const e = float64(n) / cells
			var chi2 float64
			for _, c := range count {
				chi2 += (float64(c) - e) * (float64(c) - e) / e
			}
			if chi2 > crit {
				t.Errorf("chi² = %.1f > %.1f", chi2, crit)
			}
		})
	}
}

// TestTails compares the frequencies of |z| > 3 and |z| > 4 in 10^7
// draws with 2Φ(-3) = 2.70·10^-3 and 2Φ(-4) = 6.33·10^-5, within 5
// binomial standard errors √(p(1-p)/n) (6·10^-7 two-sided). |z| > 4 lies
// wholly beyond r = 3.65, in the tail method's territory; |z| > 3 mixes
// tail and the outer layers and wedges. With -short it draws 10^6, where
// the same 5 SE bound is √10 times wider (the |z| > 4 count is then about
// 63 ± 8).
func TestTails(t *testing.T) {
	n := 10_000_000
	if testing.Short() {
		n = 1_000_000
	}
	for _, sm := range samplers {
		t.Run(sm.name, func(t *testing.T) {
			var over3, over4 int
			for _, v := range sm.draw(n, 4) {
				a := math.Abs(v)
				if a > 3 {
					over3++
				}
				if a > 4 {
					over4++
				}
			}
			for _, c := range []struct {
				z     float64
				count int
			}{{3, over3}, {4, over4}} {
				p := math.Erfc(c.z / math.Sqrt2) // 2Φ(-z)
				se := math.Sqrt(p * (1 - p) / float64(n))
				if got := float64(c.count) / float64(n); math.Abs(got-p) > 5*se {
					t.Errorf("P(|z| > %g) = %.3e, want %.3e ± %.1e (5 SE)", c.z, got, p, 5*se)
				}
			}
		})
	}
}

// TestZeroStream checks that the zero Stream is SplitMix64 seeded with 0,
// whose first outputs are published with the reference implementation.
func TestZeroStream(t *testing.T) {
	var s noise.Stream
	for i, w := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := s.Uint64(); got != w {
			t.Fatalf("word %d = %#x, want %#x", i, got, w)
		}
	}
}

// TestBits checks that each of the 64 bits of 10^5 words is set about
// half the time (within 5 SE = 5·√(1/4n) ≈ 0.0079 of 1/2).
func TestBits(t *testing.T) {
	const n = 100_000
	s := noise.New(5, 6)
	var ones [64]int
	for range n {
		u := s.Uint64()
		for b := range 64 {
			ones[b] += int(u >> b & 1)
		}
	}
	for b, c := range ones {
		if f := float64(c) / n; math.Abs(f-0.5) > 5*math.Sqrt(0.25/n) {
			t.Errorf("bit %d set in %.4f of words", b, f)
		}
	}
}

func TestDeterminism(t *testing.T) {
	const n = 1000
	a, b := make([]float64, n), make([]float64, n)
	noise.New(7, 8).FillNormal(a)
	noise.New(7, 8).FillNormal(b)
	if !slices.Equal(a, b) {
		t.Fatal("same seed and stream gave different draws")
	}
	a32, b32 := make([]float32, n), make([]float32, n)
	noise.New(7, 8).FillNormal32(a32)
	noise.New(7, 8).FillNormal32(b32)
	if !slices.Equal(a32, b32) {
		t.Fatal("FillNormal32: same seed and stream gave different draws")
	}

	// Neighbouring seeds and streams, the ids a caller is most likely to
	// use, must share no draw at all: equal float64 draws from distinct
	// streams are a 1-in-2^50-ish event.
	seen := map[float64][2]uint64{}
	for seed := range uint64(4) {
		for stream := range uint64(4) {
			noise.New(seed, stream).FillNormal(a)
			for _, v := range a {
				if prev, ok := seen[v]; ok {
					t.Fatalf("(%d, %d) repeats a draw of %v", seed, stream, prev)
				}
				seen[v] = [2]uint64{seed, stream}
			}
		}
	}
}

// TestStreamsUncorrelated checks that adjacent streams are not linearly
// related: the sample correlation of 10^5 pairs, and of pairs at lags ±1,
// is within 5/√n of 0.
func TestStreamsUncorrelated(t *testing.T) {
	const n = 100_000
	for _, p := range [][4]uint64{{1, 0, 1, 1}, {1, 0, 2, 0}, {0, 0, 0, 1}} {
		x, y := make([]float64, n+1), make([]float64, n+1)
		noise.New(p[0], p[1]).FillNormal(x)
		noise.New(p[2], p[3]).FillNormal(y)
		for lag := -1; lag <= 1; lag++ {
			var sxy float64
			for i := 1; i < n; i++ {
				sxy += x[i] * y[i+lag]
			}
			if r := sxy / n; math.Abs(r) > 5/math.Sqrt(n) {
				t.Errorf("streams %v lag %d: correlation %.4f", p, lag, r)
			}
		}
	}
}

func TestSeek(t *testing.T) {
	const k = 20
	for _, n := range []uint64{0, 1, 2, 3, 4, 5, 63, 64, 65, 1000, 12345} {
		fresh := noise.New(9, 10)
		for range n {
			fresh.Uint64()
		}
		if p := fresh.Pos(); p != n {
			t.Errorf("Pos after %d words = %d", n, p)
		}
		s := noise.New(9, 10)
		s.Uint64() // Seek must not depend on the current position
		s.Seek(n)
		for i := range k {
			if a, b := s.Uint64(), fresh.Uint64(); a != b {
				t.Fatalf("Seek(%d): word %d differs", n, i)
			}
		}

		// FillNormal after Seek equals FillNormal after n words.
		fresh = noise.New(9, 10)
		for range n {
			fresh.Uint64()
		}
		s.Seek(n)
		a, b := make([]float64, 500), make([]float64, 500)
		s.FillNormal(a)
		fresh.FillNormal(b)
		if !slices.Equal(a, b) {
			t.Fatalf("Seek(%d): FillNormal differs", n)
		}
	}

	// Far positions: Seek(n+j) matches Seek(n) followed by j words.
	for _, n := range []uint64{1 << 40, 1<<63 + 12345, math.MaxUint64 - 3} {
		s := noise.New(11, 12)
		s.Seek(n)
		var want [8]uint64
		for i := range want {
			want[i] = s.Uint64()
		}
		for j := range uint64(len(want)) {
			s.Seek(n + j)
			if s.Pos() != n+j {
				t.Fatalf("Pos after Seek(%d) = %d", n+j, s.Pos())
			}
			if got := s.Uint64(); got != want[j] {
				t.Fatalf("Seek(%d+%d) differs", n, j)
			}
		}
	}
}

// TestSplitCalls checks that FillNormal's output does not depend on how a
// buffer is cut into calls, nor FillNormal32's when the cuts are even.
func TestSplitCalls(t *testing.T) {
	const n = 10_001
	whole := make([]float64, n)
	noise.New(13, 14).FillNormal(whole)
	parts := make([]float64, n)
	s := noise.New(13, 14)
	for _, r := range [][2]int{{0, 1}, {1, 4097}, {4097, 9000}, {9000, n}} {
		s.FillNormal(parts[r[0]:r[1]])
	}
	if !slices.Equal(whole, parts) {
		t.Error("FillNormal depends on the cut")
	}

	whole32 := make([]float32, n)
	noise.New(13, 14).FillNormal32(whole32)
	parts32 := make([]float32, n)
	s = noise.New(13, 14)
	for _, r := range [][2]int{{0, 2}, {2, 4098}, {4098, 9000}, {9000, n}} {
		s.FillNormal32(parts32[r[0]:r[1]])
	}
	if !slices.Equal(whole32, parts32) {
		t.Error("FillNormal32 depends on an even cut")
	}
}

// TestParallel checks that FillNormalParallel gives the same output for
// any number of workers, and that it is the documented block rule.
func TestParallel(t *testing.T) {
	const seed, stream = 15, 16
	for _, n := range []int{0, 1, 4095, noise.BlockSize, 79_510} {
		want := make([]float64, n)
		want32 := make([]float32, n)
		for b := 0; b*noise.BlockSize < n; b++ {
			lo, hi := b*noise.BlockSize, min((b+1)*noise.BlockSize, n)
			s := noise.New(seed, stream)
			s.Seek(uint64(b) * noise.BlockStride)
			s.FillNormal(want[lo:hi])
			s.Seek(uint64(b) * noise.BlockStride)
			s.FillNormal32(want32[lo:hi])
		}
		for _, w := range []int{1, 2, 3, 7, 0} {
			got := make([]float64, n)
			noise.FillNormalParallel(got, seed, stream, w)
			if !slices.Equal(got, want) {
				t.Errorf("n=%d workers=%d: differs from the block rule", n, w)
			}
			got32 := make([]float32, n)
			noise.FillNormalParallel32(got32, seed, stream, w)
			if !slices.Equal(got32, want32) {
				t.Errorf("n=%d workers=%d: float32 differs from the block rule", n, w)
			}
		}
	}
	// Blocks after the first must differ from a plain sequential fill.
	a, b := make([]float64, 2*noise.BlockSize), make([]float64, 2*noise.BlockSize)
	noise.FillNormalParallel(a, seed, stream, 2)
	noise.New(seed, stream).FillNormal(b)
	if !slices.Equal(a[:noise.BlockSize], b[:noise.BlockSize]) || slices.Equal(a[noise.BlockSize:], b[noise.BlockSize:]) {
		t.Error("block 0 should be the stream's start and block 1 its own")
	}
}

func TestParallelAllocs(t *testing.T) {
	d := make([]float64, 79_510)
	if a := testing.AllocsPerRun(10, func() { noise.FillNormalParallel(d, 1, 2, 1) }); a != 0 {
		t.Errorf("one worker: %v allocations per call, want 0", a)
	}
	s := noise.New(1, 2)
	if a := testing.AllocsPerRun(10, func() { s.FillNormal(d) }); a != 0 {
		t.Errorf("FillNormal: %v allocations per call, want 0", a)
	}
}
