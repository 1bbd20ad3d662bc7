package infer

import (
	"math"
	"testing"
)

// TestExactChunkNoiseVariance checks the variance that the Barker test's
// exchange minibatch reports once a round has used every row, where the
// chunks of B rows do not divide N and the last is an evaluation on every
// row (growExact), with injected energy noise of sd σ_e. Algorithm 1 of
// seed 001 draws z_N ~ N(0, σ*² - var[ΔẼ]) (Eq. 17), so var[ΔẼ] must be
// the variance of the estimate the test reads. The round's m = ⌈N/B⌉
// evaluations each carry their own draw of the noise, and their mean, the
// estimate, carries σ_e²/m, as where B divides N: the data's part is then
// exact and the estimate is the exact energy plus N(0, σ_e²/m). An energy
// carrying one full draw, σ_e², while reporting σ_e²/m (the code before
// this test) made the spread m = 10 times the report: 2.277 against 0.225
// here; now 0.2264.
//
// Over 20,000 rounds the estimate is normal, so the spread's relative
// standard error is √(2/20000) = 1%; the tolerance 5% is five of them.
func TestExactChunkNoiseVariance(t *testing.T) {
	const n, batch, noise, rounds = 120, 13, 1.5, 20000
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Sin(float64(i)) * float64(i%7)
	}
	target := rowsTarget{y}
	theta := []float64{0.3}
	exact := make([]float64, 1)
	ev, _ := target.Evaluator(1, 0)
	ev.Evaluate(theta, nil, exact, make([]float64, 1), make([]float64, 1))

	var ss *SideState
	se, err := newSideEstimator(target, Options{Seed: 3, EnergyNoise: noise}, 1, batch, 1<<42, &ss)
	if err != nil {
		t.Fatal(err)
	}
	m := se.maxChunks()
	if m != (n+batch-1)/batch {
		t.Fatalf("maxChunks %d, want %d", m, (n+batch-1)/batch)
	}
	mean, spread, reported, err := spreadOverRounds(se, theta, m, rounds)
	if err != nil {
		t.Fatal(err)
	}
	mean -= exact[0]
	want := noise * noise / float64(m)
	t.Logf("%d evaluations: spread of the estimate %.4f, reported %.4f, σ_e²/m = %.4f; mean error %.4f", m, spread, reported, want, mean)
	if math.Abs(reported-want) > 1e-12 {
		t.Errorf("reported variance %.6f, want σ_e²/m = %.6f", reported, want)
	}
	if math.Abs(spread/want-1) > 0.05 {
		t.Errorf("the estimate's variance over rounds is %.4f, the reported %.4f", spread, want)
	}
	if math.Abs(mean) > 4*math.Sqrt(want/rounds) {
		t.Errorf("the estimate is %.4f off the exact energy on average: biased", mean)
	}
}

// spreadOverRounds runs rounds rounds of m chunks each at theta and reports
// replica 0's estimate: its mean and variance over the rounds, and the
// mean variance it reported.
func spreadOverRounds(se *sideEstimator, theta []float64, m, rounds int) (mean, spread, reported float64, err error) {
	var sum, sum2 float64
	for range rounds {
		se.start()
		for range m {
			if err := se.grow(theta); err != nil {
				return 0, 0, 0, err
			}
		}
		e := se.Energy[0]
		sum += e
		sum2 += e * e
		reported += se.Variance[0]
	}
	n := float64(rounds)
	mean = sum / n
	return mean, sum2/n - mean*mean, reported / n, nil
}
