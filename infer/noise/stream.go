package noise

import "math/bits"

// golden is 2^64 divided by the golden ratio, rounded to odd: SplitMix64's
// default increment.
const golden = 0x9e3779b97f4a7c15

// Stream is a counter-based random stream: its n-th 64-bit word is a fixed
// function of (seed, stream, n), so any position can be reached in O(1)
// and a buffer can be filled in blocks by any number of goroutines with
// the same result.
//
// Word n (from 0) is mix64(base + (n+1)·gamma) mod 2^64, SplitMix64's
// output function applied to a Weyl sequence; New derives the per-stream
// offset base and odd increment gamma from (seed, stream). A Stream is
// three words and may be copied; the copy continues independently from the
// same position. It is not safe for concurrent use.
//
// The zero Stream is usable: it is SplitMix64 seeded with 0 (base 0, gamma
// the golden increment), which need not be any stream New returns.
type Stream struct {
	base uint64 // Weyl offset: the state before word 0
	gx   uint64 // gamma ^ golden, so that the zero value has gamma = golden
	x    uint64 // Weyl state: base + (words drawn)·gamma
}

// New returns stream number stream of the family seeded by seed,
// positioned at its first word. The key (base, gamma) is a hash of the
// whole pair, so two streams differ in increment as well as offset (one is
// not a shifted copy of the other) and two distinct pairs share a key only
// by a coincidence of probability about 2^-63.
func New(seed, stream uint64) *Stream {
	s := newStream(seed, stream)
	return &s
}

func newStream(seed, stream uint64) Stream {
	// Three Feistel rounds with mix64 as the round function: a bijection
	// of the 128-bit (seed, stream) that spreads small consecutive ids
	// over all bits of both halves. Making r an odd increment then costs
	// one bit, hence the 2^-63. The round constants are γ, 2γ and 3γ
	// mod 2^64 for the golden γ.
	l, r := seed, stream
	l ^= mix64(r + golden)
	r ^= mix64(l + 0x3c6ef372fe94f82a)
	l ^= mix64(r + 0xdaa66d2c7ddf743f)
	g := r | 1
	// As java.util.SplittableRandom's mixGamma: an increment with few bit
	// transitions makes a poor Weyl sequence, so flip alternate bits
	// (keeping it odd).
	if bits.OnesCount64(g^(g>>1)) < 24 {
		g ^= 0xaaaaaaaaaaaaaaaa
	}
	return Stream{base: l, gx: g ^ golden, x: l}
}

// mix64 is Stafford's Mix13 finalizer as used by SplitMix64 (Steele, Lea
// & Flood 2014): a bijection of uint64 with full avalanche.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *Stream) gamma() uint64 { return s.gx ^ golden }

// Uint64 returns the next word of the stream.
func (s *Stream) Uint64() uint64 {
	s.x += s.gamma()
	return mix64(s.x)
}

// Seek positions s so that the next Uint64 returns word n of the stream,
// as if n words had been drawn from a fresh one. It is O(1).
func (s *Stream) Seek(n uint64) {
	s.x = s.base + n*s.gamma()
}

// Pos returns how many words have been drawn since the start of the
// stream (modulo 2^64): the n with which Seek(n) would restore s.
func (s *Stream) Pos() uint64 {
	return (s.x - s.base) * inverse(s.gamma())
}

// inverse returns the multiplicative inverse of odd g modulo 2^64 by
// Newton's iteration, which doubles the number of correct low bits each
// step from the 3 that g itself provides.
func inverse(g uint64) uint64 {
	y := g
	for range 5 {
		y *= 2 - g*y
	}
	return y
}
