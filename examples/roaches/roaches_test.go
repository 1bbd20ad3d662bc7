package roaches_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/examples/internal/reference"
)

// TestRoachesAgainstReference runs the example as `temper run` does (its
// infer block: the defaults, 4 chains × 4,000 draws) and checks alpha,
// beta, phi and the generated rate ratio exp(beta[2]) against a reference
// computed by importance sampling from a Student-t at the mode, with
// 50,000 proposals weighted by the exact density (its weights' ESS is
// about 34,000, so its own Monte Carlo error is 0.005 sd). Tolerances:
// means within 0.1 posterior sd and sds within 10%; the run's bulk ESS is
// about 1,600, where a mean's Monte Carlo error is 0.025 sd and an sd's
// 1.8%. Measured with seed 1: the worst mean 0.028 sd off, the worst
// sd 2.9% off.
func TestRoachesAgainstReference(t *testing.T) {
	m, err := temper.CompileFile("model.ppl", nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Importance(m, 50000, 1)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := m.InferOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.Seed = 1
	res, err := m.Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings with the defaults: %q", res.Warnings)
	}
	worstMean, worstSD := 0.0, 0.0
	seen := 0
	for _, s := range res.Summary() {
		switch s.Name {
		case "alpha", "beta.1", "beta.2", "beta.3", "phi", "rate_ratio":
		default:
			continue
		}
		seen++
		e, ok := ref.Moments[s.Name]
		if !ok { // the rate ratio exp(beta[2])
			beta2 := slices.Index(ref.Columns, "beta.2")
			e = ref.Of(func(x []float64) float64 { return math.Exp(x[beta2]) })
		}
		z, r := math.Abs(s.Mean-e.Mean)/e.SD, s.SD/e.SD-1
		worstMean, worstSD = max(worstMean, z), max(worstSD, math.Abs(r))
		if z > 0.1 || math.Abs(r) > 0.1 {
			t.Errorf("%s: mean %.4f (reference %.4f, %.2f sd off), sd %.4f (reference %.4f, %+.1f%%)", s.Name, s.Mean, e.Mean, z, s.SD, e.SD, 100*r)
		}
	}
	if seen != 6 {
		t.Fatalf("compared %d columns, want 6", seen)
	}
	t.Logf("reference ESS %.0f, k̂ %.2f; beta.2 %.4f (%.4f); worst mean %.3f sd, worst sd %.1f%%",
		ref.ESS, ref.ParetoK, ref.Moments["beta.2"].Mean, ref.Moments["beta.2"].SD, worstMean, 100*worstSD)
}
