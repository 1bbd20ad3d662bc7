package infer_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// TestMetropolisSwapProbability pins the swap probability of the
// replica-exchange Metropolis test to its formulas, at temperature gaps
// where a slip shows: reSGLD's variance-corrected swap (seed 000, Eq. 15)
//
//	S̃ = 1 ∧ exp(δ (Ũ_p - Ũ_{p+1} - δ σ̂²)),  δ = 1/τ_p - 1/τ_{p+1},
//
// with σ̂² the mean of the two states' variances (Eq. 14), a fixed σ², or
// the running average σ̂²_k = (1 - 1/k) σ̂²_{k-1} + σ̃²_k/k; m-reSGLD's
// weighted pair of estimators (seed 004: a1 ΔŨ1 + a2 ΔŨ2, penalty
// (a1²σ1² + a2²σ2²)δ); and reLD's intensity (seed 003, Eq. 3.16), the
// probability 1 ∧ a·η·S with η the smaller of the pair's step sizes. The
// statistical tests of the samplers run at δ = 0.9, where writing δσ̂² as
// σ̂² moves the probability by a tenth of the penalty and the mode weight
// by less than its Monte Carlo error; here at δ = 0.5 it doubles it.
func TestMetropolisSwapProbability(t *testing.T) {
	pair := func(tLo, tHi, lrLo, lrHi float64, energy, variance [2]float64) *infer.Pair {
		return &infer.Pair{Levels: [2]infer.Level{{LR: lrLo, Temperature: tLo}, {LR: lrHi, Temperature: tHi}}, Energy: energy, Variance: variance}
	}
	eq15 := func(delta, diff, sigma2 float64) float64 { return math.Exp(min(0, delta*(diff-delta*sigma2))) }
	withSecond := func(x *infer.Pair, energy, variance [2]float64) *infer.Pair {
		x.Energy2, x.Variance2 = energy, variance
		return x
	}
	cases := []struct {
		name string
		test infer.Metropolis
		pair *infer.Pair
		want float64
	}{
		{"model variance, δ = 0.5", infer.Metropolis{Correction: infer.ModelVariance},
			pair(1, 2, 0.01, 0.01, [2]float64{3, 2.2}, [2]float64{1, 3}), eq15(0.5, 0.8, 2)},
		{"model variance, δ = 0.25", infer.Metropolis{Correction: infer.ModelVariance},
			pair(2, 4, 0.01, 0.01, [2]float64{10, 9.5}, [2]float64{6, 2}), eq15(0.25, 0.5, 4)},
		{"fixed variance, δ = 0.9", infer.Metropolis{Correction: infer.FixedVariance, Variance: 4},
			pair(1, 10, 0.01, 0.01, [2]float64{5, 3}, [2]float64{100, 100}), eq15(0.9, 2, 4)},
		{"a swap toward lower energy is certain", infer.Metropolis{Correction: infer.FixedVariance, Variance: 0.1},
			pair(1, 2, 0.01, 0.01, [2]float64{5, 1}, [2]float64{}), 1},
		{"no correction (reLD's S)", infer.Metropolis{Correction: infer.NoCorrection},
			pair(1, 4, 0.01, 0.01, [2]float64{2, 3}, [2]float64{50, 50}), eq15(0.75, -1, 0)},
		{"intensity a·η·S, η the smaller step", infer.Metropolis{Correction: infer.ModelVariance, Intensity: 20},
			pair(1, 2, 0.01, 0.03, [2]float64{3, 2.2}, [2]float64{1, 3}), 20 * 0.01 * eq15(0.5, 0.8, 2)},
		{"intensity, the smaller step at the hot level", infer.Metropolis{Correction: infer.ModelVariance, Intensity: 20},
			pair(1, 2, 0.03, 0.01, [2]float64{3, 2.2}, [2]float64{1, 3}), 20 * 0.01 * eq15(0.5, 0.8, 2)},
		{"m-reSGLD's weighted estimators", infer.Metropolis{Correction: infer.ModelVariance, Weights: [2]float64{0.3, 0.7}},
			withSecond(pair(1, 2, 0.01, 0.01, [2]float64{3, 2.2}, [2]float64{1, 3}), [2]float64{4, 4.5}, [2]float64{2, 2}),
			eq15(0.5, 0.3*0.8+0.7*(-0.5), 0.09*2+0.49*2)},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		got := c.test.Start(2, &infer.TestState{})
		_, prob := got.Decide(c.pair, rng)
		if math.Abs(prob-c.want) > 1e-12 {
			t.Errorf("%s: swap probability %.12g, want %.12g", c.name, prob, c.want)
		}
	}

	// The running variance: σ̂²_1 = σ̃²_1 = 2, then σ̂²_2 = (2 + 6)/2 = 4
	// when the second pair's states have variances 5 and 7.
	running := (&infer.Metropolis{Correction: infer.RunningVariance}).Start(2, &infer.TestState{})
	first := pair(1, 2, 0.01, 0.01, [2]float64{3, 2.2}, [2]float64{1, 3})
	second := pair(1, 2, 0.01, 0.01, [2]float64{3, 2.2}, [2]float64{5, 7})
	if _, prob := running.Decide(first, rng); math.Abs(prob-eq15(0.5, 0.8, 2)) > 1e-12 {
		t.Errorf("running variance, first round: %.12g, want %.12g", prob, eq15(0.5, 0.8, 2))
	}
	if _, prob := running.Decide(second, rng); math.Abs(prob-eq15(0.5, 0.8, 4)) > 1e-12 {
		t.Errorf("running variance, second round: %.12g, want %.12g", prob, eq15(0.5, 0.8, 4))
	}
}

// TestVarianceCorrectionHalfGap runs the corrected reSGLD swap of Eq. 15
// (seed 000) on the noisy double well of TestVarianceCorrectionMatters at
// τ = (1, 2), δ = 0.5, where the penalty δ²σ̂² is half of δσ̂², the form
// the equation is easy to mistype as. Measured while writing this test,
// 16 chains × 800,000 iterations, seeds 1-3: the right swap left the left
// mode's weight 0.0033 ± 0.0017 below the exact 0.7537, the mistyped one
// 0.0227 ± 0.0017 above it (at δ = 0.9, the other test's gap, the two
// differ by 0.01 only and both lie within its tolerance). At the 500,000
// iterations here the spread grows by √1.6 to 0.0022, so the 0.012 bound
// is four spreads from either.
func TestVarianceCorrectionHalfGap(t *testing.T) {
	w := doubleWell{h: 4, c: 0.6}
	o := infer.Options{Chains: 16, Iters: 500000, Burn: 2000, Seed: 1, EnergyNoise: 2}
	got := fractionBelow(runWell(t, w, "resgld", map[string]string{"lr": "0.005", "t_max": "2", "correction": "model"}, o))
	t.Logf("left mode weight %.4f, exact %.4f", got, w.leftWeight())
	if off := got - w.leftWeight(); math.Abs(off) > 0.012 {
		t.Errorf("corrected reSGLD at δ = 0.5: left weight %.4f, %+.4f off the exact %.4f", got, off, w.leftWeight())
	}
}

// TestBatchOfOneRow: a minibatch of one row has no sample variance, so a
// swap test corrected by the energies' variance (resgld, renhd's Barker
// test) refuses it, with a sentence, rather than swapping on a variance it
// does not have; SGLD, which does not read it, runs.
func TestBatchOfOneRow(t *testing.T) {
	for _, c := range []struct {
		name string
		want string
	}{{"resgld", "a minibatch of one row cannot estimate the variance of its energy"}, {"renhd", "a minibatch of one row"}, {"sgld", ""}} {
		s, err := infer.NewSampler(c.name, map[string]string{"lr": "1e-4"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = infer.Run(context.Background(), newRegression(), s, infer.Options{Chains: 1, Iters: 20, Batch: 1, Seed: 1})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s at batch 1: error %v, want %q", c.name, err, c.want)
		}
	}
}
