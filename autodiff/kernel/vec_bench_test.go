package kernel

import (
	"math/rand/v2"
	"testing"
)

// benchN is the parameter count of the Bayesian MLP 784-100-10 that temper
// bench samples: the length of the loops these kernels replace.
const benchN = 79510

// BenchmarkVec times each elementwise kernel at n = benchN on every set
// this machine runs. The portable set is the scalar Go loop that its
// callers ran before (zSums and the prior's gradient loop in stdlib,
// infer's allFinite and SGLD update, compile's convert), so it is the
// "before" of each kernel. Run with -cpu 1.
func BenchmarkVec(b *testing.B) {
	rng := rand.New(rand.NewPCG(19, 20))
	x64, y64 := make([]float64, benchN), make([]float64, benchN)
	x32, y32 := make([]float32, benchN), make([]float32, benchN)
	xi := make([]float64, 1024)
	for i := range benchN {
		x64[i], y64[i] = rng.NormFloat64(), rng.NormFloat64()
		x32[i], y32[i] = float32(x64[i]), float32(y64[i])
	}
	for i := range xi {
		xi[i] = rng.NormFloat64()
	}
	// run times f, which touches bytes bytes per call, and reports ns per
	// element.
	run := func(b *testing.B, bytes int, f func()) {
		b.ReportAllocs()
		b.SetBytes(int64(bytes))
		for b.Loop() {
			f()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchN, "ns/elem")
	}
	for _, vs := range vecSets {
		b.Run("SumSqDiff/float32/"+vs.name, func(b *testing.B) {
			run(b, 4*benchN, func() { sumSqDiff(vs, x32, 0.1, 1.5) })
		})
		b.Run("SumSqDiff/float64/"+vs.name, func(b *testing.B) {
			run(b, 8*benchN, func() { sumSqDiff(vs, x64, 0.1, 1.5) })
		})
		// k = 0 keeps the values where they are, run after run.
		b.Run("AxpyDiff/float32/"+vs.name, func(b *testing.B) {
			run(b, 3*4*benchN, func() { axpyDiff(vs, y32, x32, 0.1, 0) })
		})
		b.Run("AxpyDiff/float64/"+vs.name, func(b *testing.B) {
			run(b, 3*8*benchN, func() { axpyDiff(vs, y64, x64, 0.1, 0) })
		})
		b.Run("AllFinite/float32/"+vs.name, func(b *testing.B) {
			run(b, 4*benchN, func() { allFinite(vs, x32) })
		})
		b.Run("AllFinite/float64/"+vs.name, func(b *testing.B) {
			run(b, 8*benchN, func() { allFinite(vs, x64) })
		})
		b.Run("Convert/float64to32/"+vs.name, func(b *testing.B) {
			run(b, 12*benchN, func() { convertWith(vs, y32, x64) })
		})
		b.Run("Convert/float32to64/"+vs.name, func(b *testing.B) {
			run(b, 12*benchN, func() { convertWith(vs, y64, x32) })
		})
		// As infer's SGLD step calls it: a chunk of 1024 normals at a time,
		// which stays in L1 (lr = scale = 0 keeps θ as it is).
		b.Run("LangevinUpdate/"+vs.name, func(b *testing.B) {
			run(b, 3*8*benchN, func() {
				for off := 0; off < benchN; off += len(xi) {
					end := min(benchN, off+len(xi))
					langevinUpdate(vs, y64[off:end], x64[off:end], xi[:end-off], 0, 0)
				}
			})
		})
		b.Run("LangevinUpdate/noiseless/"+vs.name, func(b *testing.B) {
			run(b, 3*8*benchN, func() { langevinUpdate(vs, y64, x64, nil, 0, 0) })
		})
	}
}

// BenchmarkGates: σ and tanh of float32 vectors of an LSTM's gate block
// (128 units), ns per element, per instruction set.
func BenchmarkGates(b *testing.B) {
	x := make([]float32, 128)
	for i := range x {
		x[i] = float32(i-64) / 16
	}
	y := make([]float32, len(x))
	for _, vs := range vecSets {
		for _, tanh := range []bool{false, true} {
			name := map[bool]string{false: "sigmoid", true: "tanh"}[tanh]
			b.Run(name+"/"+vs.name, func(b *testing.B) {
				for b.Loop() {
					gateWith(vs, y, x, tanh)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/element")
			})
		}
	}
}
