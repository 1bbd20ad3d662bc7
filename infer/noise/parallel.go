package noise

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// BlockSize is the number of draws in a block of FillNormalParallel and
// FillNormalParallel32. It is part of the definition of their output and
// is even, so that float32 blocks use whole words.
const BlockSize = 4096

// BlockStride is the distance, in words, between the starting positions
// of consecutive blocks: block b is drawn from Seek(b·BlockStride). A
// block of BlockSize draws uses about 1.02·BlockSize words (half that for
// float32), so blocks never overlap in practice: one would need 2^40.
const BlockStride = 1 << 40

// maxBlocks is how many strides fit in the 2^64 positions of a stream.
const maxBlocks = 1 << (64 - 40)

// FillNormalParallel fills dst with standard normal draws from stream
// (seed, stream), using up to workers goroutines (GOMAXPROCS if workers <
// 1). dst is cut into blocks of BlockSize (the last may be shorter) and
// block b is filled as by
//
//	s := New(seed, stream)
//	s.Seek(b * BlockStride)
//	s.FillNormal(dst[b*BlockSize : min((b+1)*BlockSize, len(dst))])
//
// so the result is bit-identical for every number of workers. Because it
// always starts from the same positions, callers that need fresh noise
// each step must vary seed or stream (for instance stream = step·replicas
// + replica). It panics if dst has more than 2^24 blocks (6.9·10^10
// draws).
//
// With one worker or one block it allocates nothing; otherwise it makes
// min(workers, blocks) small allocations (the shared job and a closure per
// extra goroutine). Waking an idle CPU for a goroutine can take of the
// order of 100 µs (it does on the 2-core VM this was written on), as long
// as a sequential fill of about 40,000 draws, so extra workers pay off only
// on fills of a few hundred thousand draws or more; replicas that already
// run on their own goroutines should each use their own Stream.
func FillNormalParallel(dst []float64, seed, stream uint64, workers int) {
	fillParallel(dst, nil, seed, stream, workers)
}

// FillNormalParallel32 is FillNormalParallel for float32, with blocks
// filled by FillNormal32.
func FillNormalParallel32(dst []float32, seed, stream uint64, workers int) {
	fillParallel(nil, dst, seed, stream, workers)
}

// job is one parallel fill: exactly one of f64 and f32 is set.
type job struct {
	f64  []float64
	f32  []float32
	n    int    // draws
	s    Stream // the stream at position 0
	next atomic.Int64
	wg   sync.WaitGroup
}

func fillParallel(f64 []float64, f32 []float32, seed, stream uint64, workers int) {
	n := max(len(f64), len(f32))
	nb := (n + BlockSize - 1) / BlockSize
	if nb > maxBlocks {
		panic("noise: too many draws for one parallel fill")
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, nb)
	if workers <= 1 {
		// A separate variable from the parallel case's, so that it can
		// stay on the stack.
		j := job{f64: f64, f32: f32, n: n, s: newStream(seed, stream)}
		for b := range nb {
			j.block(b)
		}
		return
	}
	j := &job{f64: f64, f32: f32, n: n, s: newStream(seed, stream)}
	j.wg.Add(workers - 1)
	for range workers - 1 {
		go func() {
			defer j.wg.Done()
			j.work()
		}()
	}
	j.work()
	j.wg.Wait()
}

// work claims blocks until none are left; which goroutine fills a block
// does not affect its contents.
func (j *job) work() {
	nb := (j.n + BlockSize - 1) / BlockSize
	for {
		b := int(j.next.Add(1) - 1)
		if b >= nb {
			return
		}
		j.block(b)
	}
}

// block fills block b from its own position in the stream.
func (j *job) block(b int) {
	s := j.s
	s.Seek(uint64(b) * BlockStride)
	lo, hi := b*BlockSize, min((b+1)*BlockSize, j.n)
	if j.f64 != nil {
		s.FillNormal(j.f64[lo:hi])
	} else {
		s.FillNormal32(j.f32[lo:hi])
	}
}
