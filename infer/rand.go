package infer

import (
	"math/rand/v2"

	"github.com/temper-ppl/temper/infer/noise"
)

// NormalChunk is the most normals one call to Rand.Normals returns. The
// dynamics fill a chunk and then update the parameters it covers in one
// loop, so the chunk should stay in the L1 cache together with the parts
// of θ, ∇Ũ and any momentum the loop touches: 1024 draws are 8 KiB, four
// such arrays 32 KiB, within a 32–48 KiB L1d. The size is not critical:
// on the 2-core Xeon this was tuned on, chunks of 256 to 4096 gave the
// same SGLD step time within noise (the ziggurat fill is about 1.5 ns a
// draw with its AVX-512 kernel, 2 ns without).
const NormalChunk = 1024

// Rand is one replica's random source. It embeds a *rand.Rand, so the
// scalar draws a driver needs (Float64, NormFloat64, Shuffle) work as
// usual, and it adds Normals, a bulk standard-normal fill from the
// ziggurat of package noise, which costs a third as much per draw as a
// NormFloat64 call on PCG (about 1.5 ns against 4.5 in the package's
// benchmarks on the 2-core Xeon). Both read the same counter-based
// noise.Stream, one per replica, so a run's draws depend on the seed and
// the replica alone, not on how replicas are scheduled.
//
// The draws are a fixed function of the stream and of the sequence of
// calls: Normals(a) then Normals(b) gives the same values as one fill of
// a+b normals cut in two (the stream's fill has that property and Rand
// keeps no draws over between calls), so how a caller chunks its loop
// does not change its noise. Make one with NewRand (the zero Rand has no
// stream); it is not safe for concurrent use.
type Rand struct {
	*rand.Rand
	src *noise.Stream
	buf []float64 // NormalChunk floats, allocated on the first Normals
}

// NewRand returns the source of stream (seed, stream) of package noise:
// Run gives replica r the stream r+1 of its seed.
func NewRand(seed, stream uint64) *Rand {
	src := noise.New(seed, stream)
	return &Rand{Rand: rand.New(src), src: src}
}

// Normals returns min(n, NormalChunk) independent N(0, 1) draws in a
// buffer that belongs to r and is overwritten by the next call; n ≤ 0
// gives an empty slice. After the first call it allocates nothing. To
// draw n normals, loop until the returned lengths add up to n.
func (r *Rand) Normals(n int) []float64 {
	if r.buf == nil {
		r.buf = make([]float64, NormalChunk)
	}
	z := r.buf[:max(0, min(n, NormalChunk))]
	r.src.FillNormal(z)
	return z
}

// FillNormal fills dst, which the caller owns and may be of any length,
// with independent N(0, 1) draws: the same values as Normals calls
// adding up to len(dst).
func (r *Rand) FillNormal(dst []float64) { r.src.FillNormal(dst) }

// Pos is how many 64-bit words r has drawn from its stream: Seek(Pos())
// on a fresh Rand of the same stream continues where r is.
func (r *Rand) Pos() uint64 { return r.src.Pos() }

// Seek positions r as if n words had been drawn from its stream.
func (r *Rand) Seek(n uint64) { r.src.Seek(n) }
