package reference

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/settings"
)

// RunDefaults runs the model file at path as `temper run` does, with its
// infer block's settings and the given seed, and fails t on any error. It
// logs each attempt's sampler (sampler = auto's choice and why, and any
// escalation) and the run's size and time.
func RunDefaults(t testing.TB, path string, seed uint64) *temper.Result {
	t.Helper()
	m, err := temper.CompileFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := m.InferOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.Seed = seed
	how := "named in the infer block"
	opts.OnAttempt = func(a temper.Attempt, _ *temper.Result) error {
		t.Logf("sampler auto, attempt %d: %s, because %s", a.Number, a.Describe(), a.Why)
		how = fmt.Sprintf("sampler auto's attempt %d", a.Number)
		return nil
	}
	res, err := m.Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ran %s%s (%s): %d chains × %d draws in %.1fs", res.Options.Sampler, settingsText(res.Options.Settings), how, len(res.Draws), res.DrawsPerChain(), res.Elapsed.Seconds())
	return res
}

// settingsText writes a run's sampler settings as settings.Format does,
// (adapt_delta=0.95); none, "".
func settingsText(set map[string]any) string {
	text := map[string]string{}
	for k, v := range set {
		text[k] = fmt.Sprint(v)
	}
	return settings.Format(text)
}

// Compare checks the posterior mean and sd of each column of want in the
// run's summary: the mean within meanTol reference sds of the reference
// mean, the sd within sdTol of the reference sd, relatively. A column
// missing from the summary is an error. It returns the worst of each, for
// the test's log and the example's README.
func Compare(t testing.TB, res *temper.Result, want map[string]Moments, meanTol, sdTol float64) (worstMean, worstSD float64) {
	t.Helper()
	stats := res.Summary()
	for _, name := range slices.Sorted(maps.Keys(want)) {
		e := want[name]
		i := slices.IndexFunc(stats, func(s summary.Stats) bool { return s.Name == name })
		if i < 0 {
			t.Errorf("%s: no such column in the draws", name)
			continue
		}
		s := stats[i]
		z, r := math.Abs(s.Mean-e.Mean)/e.SD, s.SD/e.SD-1
		worstMean, worstSD = max(worstMean, z), max(worstSD, math.Abs(r))
		if z > meanTol || math.Abs(r) > sdTol {
			t.Errorf("%s: mean %.4f (reference %.4f, %.3f sd off), sd %.4f (reference %.4f, %+.1f%%)", name, s.Mean, e.Mean, z, s.SD, e.SD, 100*r)
		}
	}
	return worstMean, worstSD
}
