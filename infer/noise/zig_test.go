package noise

import (
	"math"
	"testing"

	"golang.org/x/sys/cpu"
)

// fillBoth fills two buffers of length n from copies of s, one with
// FillNormal (the vector path wherever the CPU has one: TestFillNormalUsesVec
// fails an AVX-512 CPU that does not take it) and one with the scalar loop,
// and checks that they and the final stream positions agree bit for bit;
// fillBoth32 does the same for FillNormal32.
func fillBoth(t *testing.T, s Stream, n int) {
	t.Helper()
	fillPair(t, s, n, "", (*Stream).FillNormal, (*Stream).fillNormalGo, math.Float64bits)
}

func fillBoth32(t *testing.T, s Stream, n int) {
	t.Helper()
	fillPair(t, s, n, "float32 ", (*Stream).FillNormal32, (*Stream).fillNormal32Go, math.Float32bits)
}

func fillPair[T float32 | float64, B comparable](t *testing.T, s Stream, n int, what string, vec, scalar func(*Stream, []T), bits func(T) B) {
	t.Helper()
	vs, gs := s, s
	v := make([]T, n)
	g := make([]T, n)
	vec(&vs, v)
	scalar(&gs, g)
	for i := range g {
		if bits(v[i]) != bits(g[i]) {
			t.Fatalf("n = %d: %sdraw %d is %v with the vector path, %v with the scalar loop", n, what, i, v[i], g[i])
		}
	}
	if vs != gs {
		t.Fatalf("n = %d: the %svector path leaves the stream at %d, the scalar loop at %d", n, what, vs.Pos(), gs.Pos())
	}
}

func TestFillNormalVecMatchesScalar(t *testing.T) {
	lengths := []int{1023, 79510}
	for n := 0; n <= 300; n++ {
		lengths = append(lengths, n)
	}
	for seed := uint64(0); seed < 4; seed++ {
		for stream := uint64(0); stream < 3; stream++ {
			s := newStream(seed, stream)
			for _, n := range lengths {
				fillBoth(t, s, n)
				fillBoth32(t, s, n)
			}
		}
	}
	// Arbitrary positions, including ones just before rejections.
	s := newStream(7, 11)
	for _, pos := range []uint64{1, 3, 99, 12345, 1 << 40, math.MaxUint64 - 5} {
		s.Seek(pos)
		for _, n := range []int{1, 7, 8, 9, 64, 65, 1000} {
			fillBoth(t, s, n)
			fillBoth32(t, s, n)
		}
	}
	// Every start position over a stretch that crosses many rejections.
	for pos := uint64(0); pos < 2000; pos++ {
		s.Seek(pos)
		fillBoth(t, s, 37)
		fillBoth32(t, s, 37)
		fillBoth32(t, s, 64)
	}
	// The zero Stream.
	fillBoth(t, Stream{}, 5000)
	fillBoth32(t, Stream{}, 5000)
}

// TestFillNormalUsesVec checks that FillNormal takes the vector path when
// the CPU has AVX-512, and that splitting a call gives the same values.
func TestFillNormalUsesVec(t *testing.T) {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512VL && !zigVec && !purego {
		t.Fatal("AVX-512 CPU but no vectorized FillNormal")
	}
	s := newStream(3, 4)
	ref := s
	want := make([]float64, 10000)
	ref.fillNormalGo(want)
	got := make([]float64, len(want))
	for i := 0; i < len(got); i += 333 {
		s.FillNormal(got[i:min(i+333, len(got))])
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("draw %d is %v, want %v", i, got[i], want[i])
		}
	}
	if s != ref {
		t.Fatal("FillNormal leaves the stream elsewhere than the scalar loop")
	}
}
