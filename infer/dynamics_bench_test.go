package infer_test

import (
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// benchDim is the parameter count of the Bayesian MLP of issue 7, for
// which the noise and the update were a third of a step.
const benchDim = 79510

// benchStep times one Step of one replica of dimension benchDim, with the
// noise (T = 1) and without (T = 0, an optimiser step that draws
// nothing), and reports the time per parameter, the figure to compare
// with the per-draw cost of package noise, and the allocations, which
// must be zero: one Step warms the Rand's chunk buffer before timing.
func benchStep(b *testing.B, dyn infer.Dynamics) {
	for _, tc := range []struct {
		name string
		t    float64
	}{{"T=1", 1}, {"T=0", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			aux := make([]float64, dyn.AuxLen(benchDim))
			src := rand.New(rand.NewPCG(1, 2))
			theta, grad := make([]float64, benchDim), make([]float64, benchDim)
			for i := range theta {
				theta[i], grad[i] = src.NormFloat64(), src.NormFloat64()
			}
			rng := infer.NewRand(7, 1)
			dyn.Step(aux, theta, grad, 1e-4, tc.t, rng)
			b.ReportAllocs()
			for b.Loop() {
				dyn.Step(aux, theta, grad, 1e-4, tc.t, rng)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchDim, "ns/param")
		})
	}
}

func BenchmarkLangevinStep(b *testing.B)    { benchStep(b, infer.Langevin{}) }
func BenchmarkHamiltonianStep(b *testing.B) { benchStep(b, &infer.Hamiltonian{Friction: 0.1}) }
func BenchmarkPreconditionedStep(b *testing.B) {
	benchStep(b, &infer.Preconditioned{Rho: 0.99, Eps: 1e-5})
}
