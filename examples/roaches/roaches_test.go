package roaches_test

import (
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
// 1.8%. Measured with seed 1: the worst mean 0.021 sd off, the worst
// sd 2.6% off.
func TestRoachesAgainstReference(t *testing.T) {
	m, err := temper.CompileFile("model.ppl", nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Importance(m, 50000, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]reference.Moments{}
	for _, name := range []string{"alpha", "beta.1", "beta.2", "beta.3", "phi"} {
		want[name] = ref.Moments[name]
	}
	beta2 := slices.Index(ref.Columns, "beta.2")
	want["rate_ratio"] = ref.Of(func(x []float64) float64 { return math.Exp(x[beta2]) })
	res := reference.RunDefaults(t, "model.ppl", 1)
	if len(res.Warnings) > 0 {
		t.Errorf("warnings with the defaults: %q", res.Warnings)
	}
	worstMean, worstSD := reference.Compare(t, res, want, 0.1, 0.1)
	t.Logf("reference ESS %.0f, k̂ %.2f; beta.2 %.4f (%.4f); worst mean %.3f sd, worst sd %.1f%%",
		ref.ESS, ref.ParetoK, ref.Moments["beta.2"].Mean, ref.Moments["beta.2"].SD, worstMean, 100*worstSD)
}
