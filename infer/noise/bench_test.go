package noise_test

import (
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/infer/noise"
)

// benchDraws is the number of parameters of the model the package was
// written for: one draw per parameter per replica-step.
const benchDraws = 79510

// perDraw reports the time per draw, the figure to compare across
// benchmarks.
func perDraw(b *testing.B) { perDrawN(b, benchDraws) }

func perDrawN(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/draw")
}

func BenchmarkFillNormal(b *testing.B) {
	dst := make([]float64, benchDraws)
	s := noise.New(1, 2)
	b.ReportAllocs()
	for b.Loop() {
		s.FillNormal(dst)
	}
	perDraw(b)
}

func BenchmarkFillNormal32(b *testing.B) {
	dst := make([]float32, benchDraws)
	s := noise.New(1, 2)
	b.ReportAllocs()
	for b.Loop() {
		s.FillNormal32(dst)
	}
	perDraw(b)
}

// The parallel benchmarks also run on ten replicas' worth of draws,
// where goroutine start-up no longer dominates.
var parallelCases = []struct {
	name       string
	n, workers int
}{
	{"n=79510/workers=1", benchDraws, 1},
	{"n=79510/workers=2", benchDraws, 2},
	{"n=795100/workers=1", 10 * benchDraws, 1},
	{"n=795100/workers=2", 10 * benchDraws, 2},
}

func BenchmarkFillNormalParallel(b *testing.B) {
	for _, c := range parallelCases {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]float64, c.n)
			b.ReportAllocs()
			step := uint64(0)
			for b.Loop() {
				noise.FillNormalParallel(dst, 1, step, c.workers)
				step++
			}
			perDrawN(b, c.n)
		})
	}
}

func BenchmarkFillNormalParallel32(b *testing.B) {
	for _, c := range parallelCases {
		b.Run(c.name, func(b *testing.B) {
			dst := make([]float32, c.n)
			b.ReportAllocs()
			step := uint64(0)
			for b.Loop() {
				noise.FillNormalParallel32(dst, 1, step, c.workers)
				step++
			}
			perDrawN(b, c.n)
		})
	}
}

// BenchmarkPCGNormFloat64 is the baseline: math/rand/v2's PCG with its
// own ziggurat, one call per draw.
func BenchmarkPCGNormFloat64(b *testing.B) {
	dst := make([]float64, benchDraws)
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		for i := range dst {
			dst[i] = r.NormFloat64()
		}
	}
	perDraw(b)
}
