package temper_test

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// logisticRows compiles a logistic regression of n rows and d features.
func logisticRows(t *testing.T, n, d int) *temper.Model { return logisticRowsB(t, n, d) }

func logisticRowsB(t testing.TB, n, d int) *temper.Model {
	t.Helper()
	return logisticRowsModel(t, n, d, `param { beta: real[D] }
model {
  beta ~ normal(0, 1)
  for n in plate(N) { y[n] ~ bernoulli_logit(dot(X[n], beta)) }
}`)
}

// logisticRowsModel compiles the param and model blocks given on the data
// of logisticRowsB (N, D, X and y).
func logisticRowsModel(t testing.TB, n, d int, blocks string) *temper.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([][]float64, n)
	y := make([]int, n)
	for i := range x {
		x[i] = make([]float64, d)
		eta := 0.0
		for j := range x[i] {
			x[i][j] = rng.NormFloat64()
			eta += 0.3 * x[i][j]
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	m, err := temper.Compile("logistic.ppl", `data { N: int  D: int  X: real[N, D]  y: int<lower=0, upper=1>[N] }
`+blocks, map[string]any{"X": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPlanByCost: sampler auto runs NUTS where a full-data gradient is
// cheap (the eight schools: microseconds, NUTS predicted at about a
// second) and SGHMC on minibatches where it is not (a logistic regression
// of 300,000 rows and 10 features: a gradient of milliseconds puts NUTS's
// 3,000 iterations × 31 leapfrogs × 2 rounds of chains at over ten
// minutes on this machine, ten times the minute auto gives it, so the
// choice does not hang on the clock's noise). The plan measures both
// gradients and says why in words.
func TestPlanByCost(t *testing.T) {
	small := compileSchools(t, "param { mu: real  tau: real<lower=0>  eta: real[J] }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  eta ~ normal(0, 1)\n  for j in plate(J) { y[j] ~ normal(mu + tau * eta[j], sigma[j]) } }")
	p, err := small.Plan(temper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sampler != "nuts" || !p.Measured || p.GradientFull <= 0 || p.PredictedNUTS > time.Minute || !strings.Contains(p.Reason, "measured") {
		t.Errorf("eight schools: plan %+v, want nuts, measured, under a minute", p)
	}
	large := logisticRows(t, 300_000, 10)
	p, err = large.Plan(temper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sampler != "sghmc" || p.Batch != 3000 || p.PredictedNUTS < 2*time.Minute || !(p.GradientBatch < p.GradientFull) {
		t.Errorf("300,000 rows: plan %+v, want sghmc on minibatches of 3,000, NUTS predicted at minutes", p)
	}
	t.Logf("300,000 rows: %s", p.Reason)
	// An array job's tasks must all choose alike: the proxy, not the clock.
	a, errA := large.Plan(temper.Options{ChainID: 1})
	b, errB := large.Plan(temper.Options{ChainID: 2})
	if errA != nil || errB != nil || a.Measured || a.Sampler != b.Sampler || a.PredictedNUTS != b.PredictedNUTS {
		t.Errorf("array tasks: plans %+v (%v) and %+v (%v), want the same unmeasured plan", a, errA, b, errB)
	}
}

// compileSchools compiles a model of the eight schools' data.
func compileSchools(t *testing.T, body string) *temper.Model {
	t.Helper()
	m, err := temper.Compile("schools.ppl", "data { J: int  y: real[J]  sigma: real<lower=0>[J] }\n"+body, map[string]any{
		"y": []float64{28, 8, -3, 7, -1, 1, 18, 12}, "sigma": []float64{15, 10, 16, 11, 9, 11, 10, 18}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPlanFixed: options that only one family runs decide without a
// clock, and impossible ones are refused with what to do.
func TestPlanFixed(t *testing.T) {
	m := compileRegression(t)
	for _, c := range []struct {
		opts    temper.Options
		sampler string
		reason  string
	}{
		{temper.Options{Batch: 2}, "sghmc", "batch = 2"},
		{temper.Options{Settings: map[string]any{"lr": 1e-3}}, "sghmc", "lr = 0.001"},
		{temper.Options{Settings: map[string]any{"friction": 0.5}}, "sghmc", "friction = 0.5"},
		{temper.Options{Settings: map[string]any{"adapt_delta": 0.95}}, "nuts", "adapt_delta = 0.95"},
		{temper.Options{EnergyNoise: 1}, "sghmc", "synthetic"},
		{temper.Options{Precision: "float32"}, "sghmc", "float32"},
		{temper.Options{Sampler: "sgld"}, "sgld", "named"},
	} {
		p, err := m.Plan(c.opts)
		if err != nil || p.Sampler != c.sampler || !strings.Contains(p.Reason, c.reason) || p.Measured {
			t.Errorf("%+v: plan %+v, %v; want %s because of %q", c.opts, p, err, c.sampler, c.reason)
		}
	}
	for _, c := range []struct {
		opts temper.Options
		want string
	}{
		{temper.Options{Replicas: 4}, "name a replica-exchange sampler"},
		{temper.Options{Settings: map[string]any{"frictoin": 0.5}}, "did you mean friction"},
		{temper.Options{Chains: -1}, "chains must be at least 1"},
	} {
		if _, err := m.Plan(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opts, err, c.want)
		}
		if _, err := m.Sample(context.Background(), c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Sample %+v: error %v, want %q", c.opts, err, c.want)
		}
	}
}

// TestEscalation: the centred eight schools with a minibatch given,
// which has sampler auto start with SGHMC. Its warm-up fails (the funnel
// between tau and theta: no fixed step survives), so the table runs NUTS,
// whose divergences in the funnel have it sample theta non-centred (as
// real<offset=mu, multiplier=tau>), then raise adapt_delta to 0.95 where
// a few remain. Each attempt is
// announced to OnAttempt with the one before it, the draws are numbered
// by attempt, the final Result is the last attempt's with the others in
// Attempts, and diagnostics.json lists them all.
func TestEscalation(t *testing.T) {
	m := compileSchools(t, "param { mu: real  tau: real<lower=0>  theta: real[J] }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  theta ~ normal(mu, tau)\n  for j in plate(J) { y[j] ~ normal(theta[j], sigma[j]) } }")
	var announced []string
	seen := map[int]bool{}
	res, err := m.Sample(context.Background(), temper.Options{Batch: 4, Seed: 1,
		OnAttempt: func(a temper.Attempt, earlier *temper.Result) error {
			if (a.Number == 1) != (earlier == nil) {
				t.Errorf("attempt %d announced with earlier = %v", a.Number, earlier != nil)
			}
			announced = append(announced, a.Describe())
			return nil
		},
		OnDraw: func(d temper.Draw) error { seen[d.Attempt] = true; return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sghmc", "nuts", "nuts, theta non-centred", "nuts(adapt_delta=0.95), theta non-centred"}
	if !slices.Equal(announced[:min(len(announced), 3)], want[:3]) || len(announced) > 4 || len(announced) == 4 && announced[3] != want[3] {
		t.Fatalf("attempts %q, want %q (the last may be spared when the non-centred run has no divergence)", announced, want)
	}
	if len(res.Attempts) != len(announced)-1 || res.Result.Sampler != "nuts" || res.Plan == nil || res.Plan.Sampler != "sghmc" {
		t.Fatalf("result of %s with %d earlier attempts, plan %+v", res.Result.Sampler, len(res.Attempts), res.Plan)
	}
	if first := res.Attempts[0]; first.Result == nil || first.Result.DrawsPerChain() != 0 || !strings.Contains(res.Attempts[1].Why, "warm-up") {
		t.Errorf("the first attempt should have failed in its warm-up: %+v", res.Attempts[1].Why)
	}
	if seen[0] || !seen[1] {
		t.Errorf("draws of attempts %v: the first made none, the second some", seen)
	}
	dir := t.TempDir()
	if err := res.Save(dir); err != nil {
		t.Fatal(err)
	}
	diag := readDiagnostics(t, dir)
	attempts, _ := diag["attempts"].([]any)
	if len(attempts) != len(announced) || diag["plan"] == nil {
		t.Errorf("diagnostics.json: attempts %v, plan %v", diag["attempts"], diag["plan"])
	}
}

// TestNamedSamplerAdvised: a sampler named is never replaced; when its
// run fails the judgement, a warning says what the escalation would run
// and how (sampler = nuts), and the low-ESS remedy is the named
// sampler's, not the old default's.
func TestNamedSamplerAdvised(t *testing.T) {
	m := compileRegression(t)
	res, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Iters: 30, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result.Sampler != "sghmc" || len(res.Attempts) != 0 {
		t.Fatalf("a named sampler was replaced: %s after %d attempts", res.Result.Sampler, len(res.Attempts))
	}
	all := strings.Join(res.Warnings, "\n")
	if !strings.Contains(all, "sampler = nuts") || !strings.Contains(all, "--sampler nuts") {
		t.Errorf("no escalation advice in %q", res.Warnings)
	}
	res, err = m.Sample(context.Background(), temper.Options{Sampler: "cyclical_sgld", Iters: 60, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "ESS") && (strings.Contains(w, "sghmc, the default") || !strings.Contains(w, "cycles")) {
			t.Errorf("cyclical run's ESS warning: %q", w)
		}
	}
}

// readDiagnostics reads a run folder's diagnostics.json.
func readDiagnostics(t *testing.T, dir string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, runfiles.DiagnosticsFile))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
