package exchange

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEvidenceVarianceCorrection feeds the stepping stones minibatch
// likelihoods Ũ₁ = U₁ + ε, ε ~ N(0, σ²), with σ² reported as their
// variance, on a two-level ladder (β = 1, 0) whose prior level sees a
// constant U₁ = c: log Z = -c exactly. Uncorrected, E[e^{-Ũ₁}] = e^{-c + σ²/2}
// would put the estimate σ²/2 = 0.5 too high; corrected (evidence.go's
// -Δβ²σ²/2, the Gaussian noise's moment generating function), it must be
// within 0.02 of -c: with 40,000 draws the estimate's sd is about
// √((e^{σ²} - 1)/40,000) = 0.0066. The standard error from the blocks
// must be near that (within a factor 2), and thermodynamic integration,
// the mean of Ũ₁ over the levels' trapezoid, unbiased without a
// correction, within 0.02 too.
func TestEvidenceVarianceCorrection(t *testing.T) {
	const c, sigma2, chains, iters = 3.0, 1.0, 4, 10000
	s := NewSums([]float64{1, 0}, chains, iters)
	rng := rand.New(rand.NewPCG(1, 1))
	for ch := range chains {
		for i := range iters {
			noisy := c + math.Sqrt(sigma2)*rng.NormFloat64()
			// Level 0 (β = 1) sees the same law; only level 1's draws enter
			// the stepping stone.
			s.Add(ch, i, []float64{noisy, noisy}, []float64{sigma2, sigma2})
		}
	}
	e, ok := s.Estimate()
	if !ok {
		t.Fatal("no estimate")
	}
	sd := math.Sqrt((math.Exp(sigma2) - 1) / (chains * iters))
	t.Logf("%v (exact %.3f; sd %.4f)", e, -c, sd)
	if math.Abs(e.LogZ+c) > 0.02 || e.LogZSE < sd/2 || e.LogZSE > 2*sd {
		t.Errorf("stepping stones: log Z %.4f ± %.4f, exact %.4f (sd %.4f)", e.LogZ, e.LogZSE, -c, sd)
	}
	if math.Abs(e.LogZTI+c) > 0.02 || e.Draws != iters {
		t.Errorf("thermodynamic integration: log Z %.4f, exact %.4f; %d draws a level", e.LogZTI, -c, e.Draws)
	}
}
