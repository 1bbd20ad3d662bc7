package temper_test

import (
	"context"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// sampleJudged compiles src and samples it, failing the test on any error
// but a run whose every chain diverged (allowDiverged).
func sampleJudged(t *testing.T, src string, data map[string]any, opts temper.Options, allowDiverged bool) *temper.Result {
	t.Helper()
	m, err := temper.Compile("judge.ppl", src, data)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	res, err := m.Sample(context.Background(), opts)
	if res == nil || err != nil && !allowDiverged {
		t.Fatalf("sample: %v", err)
	}
	return res
}

// warningsWith are the run's warnings that start with prefix.
func warningsWith(res *temper.Result, prefix string) []string {
	var out []string
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, prefix) {
			out = append(out, w)
		}
	}
	return out
}

// wantWarning fails unless exactly one warning starts with prefix and
// contains every piece of want.
func wantWarning(t *testing.T, res *temper.Result, prefix string, want ...string) {
	t.Helper()
	got := warningsWith(res, prefix)
	if len(got) != 1 {
		t.Fatalf("%d warnings start with %q, want 1: %q", len(got), prefix, res.Warnings)
	}
	for _, w := range want {
		if !strings.Contains(got[0], w) {
			t.Errorf("warning %q lacks %q", got[0], w)
		}
	}
}

// twoNormals is a model whose unconstrained coordinates are both standard
// normal: x itself, and log s (s ~ lognormal(0, 1) with the Jacobian of
// s = e^u).
const twoNormals = "param { x: real  s: real<lower=0> }\nmodel { x ~ normal(0, 1)  s ~ lognormal(0, 1) }"

// TestJudgeGoodRun: SGLD at lr = 0.15 on standard normals is the AR(1)
// u ← 0.85u + N(0, 0.3), whose draws have lag-1 correlation 0.85, so 4
// chains of 2,000 draws have a bulk ESS near 650 (threshold 400) and tail
// ESS above it, R-hat within 1.01 of 1, lp__ the same in every chain, and
// lr·λ_max = 0.15 below the step check's 0.2 (its variance bias is 8%): no
// warning at all. (At lr = 0.5 the variance is a third too large, and the
// step check says so.)
func TestJudgeGoodRun(t *testing.T) {
	res := sampleJudged(t, twoNormals, nil, temper.Options{Sampler: "sgld", Settings: map[string]any{"lr": 0.15}}, false)
	if len(res.Warnings) != 0 || len(res.Judge()) != 0 {
		t.Errorf("a good run is judged: %q", res.Warnings)
	}
}

// TestJudgeUnmixedChains: chains started at ±5, ±4 moving at lr = 1e-4
// for 200 iterations travel about 0.1: they disagree (R-hat far above
// 1.01) and barely decorrelate (ESS far below 400); chain 4, at x = 30
// (lp__ ≈ -450 against about -10 for the others, whose lp__ varies by
// under 1), is stuck in low density.
func TestJudgeUnmixedChains(t *testing.T) {
	res := sampleJudged(t, "param { x: real }\nmodel { x ~ normal(0, 1) }", nil, temper.Options{Sampler: "sgld", Settings: map[string]any{"lr": 1e-4},
		Iters: 200, Init: [][]float64{{-5}, {5}, {-4}, {30}}}, false)
	wantWarning(t, res, "split R-hat above 1.01: run longer, or check that the chains agree: R-hat of x is ")
	wantWarning(t, res, "bulk ESS below 100 per chain (400 for 4 chains): run more iterations, or a larger step size (lr) if the chains move slowly: bulk ESS of x is ")
	wantWarning(t, res, "tail ESS below 100 per chain (400 for 4 chains)")
	wantWarning(t, res, "chain 4 is stuck in a region of low density (median lp__ -4", "against -", "for the other chains): it may have started badly")
	if got := warningsWith(res, "chain 1 is stuck"); len(got) != 0 {
		t.Errorf("chain 1 judged stuck: %q", got)
	}
}

// TestJudgeStuckAtBound: target += -50 log s drives u = log s down by
// about 49·lr = 4.9 a step, and -50 log p does the same to logit p, so
// after 5 of 50 steps both sit beyond u = -20 where the transforms
// saturate; x, unbounded, also runs off but is no bound's.
func TestJudgeStuckAtBound(t *testing.T) {
	res := sampleJudged(t, "param { s: real<lower=0>  p: real<lower=0, upper=1>  x: real }\nmodel { target += -50 * log(s) - 50 * log(p)  x ~ normal(0, 1) }", nil,
		temper.Options{Sampler: "sgd", Settings: map[string]any{"lr": 0.1}, Iters: 50, Chains: 2}, false)
	wantWarning(t, res, "chain 1 is stuck at a bound on most draws, where the constraint's transform saturates: s at its lower bound 0 and p at its lower bound 0; a prior that keeps the parameter off its bound")
	wantWarning(t, res, "chain 2 is stuck at a bound")
}

// TestJudgeChainDoesNotMove: under SGD (no noise) a parameter the model
// never mentions has zero gradient and keeps its starting value; x moves
// toward 0 by half its distance a step.
func TestJudgeChainDoesNotMove(t *testing.T) {
	res := sampleJudged(t, "param { x: real  y: real }\nmodel { x ~ normal(0, 1) }", nil,
		temper.Options{Sampler: "sgd", Settings: map[string]any{"lr": 0.5}, Iters: 100, Chains: 2}, false)
	wantWarning(t, res, "chain 2 does not move in y (every draw is the same): the step size (lr) may be far too small")
	if got := warningsWith(res, "chain 1 does not move in x"); len(got) != 0 {
		t.Errorf("x judged still: %q", got)
	}
}

// TestJudgeStartNotFinite: a data scale of -1 (a literal would not pass
// the checker) makes the energy NaN everywhere: the run, with the step
// size tuned or given, fails at its start saying to check the model, not
// the step size; one chain that diverges later (x⁴ at lr 0.01 from x =
// 30) is a warning of its own.
func TestJudgeStartNotFinite(t *testing.T) {
	m, err := temper.Compile("judge.ppl", "data { s: real }\nparam { mu: real }\nmodel { mu ~ normal(0, s) }", map[string]any{"s": -1.0})
	if err != nil {
		t.Fatal(err)
	}
	for _, settings := range []map[string]any{nil, {"lr": 0.01}} {
		_, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Iters: 10, Chains: 2, Settings: settings})
		if err == nil || !strings.Contains(err.Error(), "check the model") || strings.Contains(err.Error(), "step size (lr)") {
			t.Errorf("lr %v: %v", settings, err)
		}
	}

	later := sampleJudged(t, "param { x: real }\nmodel { target += -x^4 }", nil, temper.Options{Sampler: "sghmc", Settings: map[string]any{"lr": 0.01},
		Iters: 50, Init: [][]float64{{0.1}, {-0.2}, {30}, {0.3}}}, false)
	if len(later.Failures) != 1 || len(warningsWith(later, "the model's log density")) != 0 {
		t.Errorf("a chain that diverged after its start: failures %v, warnings %q", later.Failures, later.Warnings)
	}
}

// TestJudgeLadderNeverSwaps: reSGLD's correction δ²σ̂² with energy noise
// of sd 100 (σ̂² = 10⁴, δ = 1 - 1/10) is about 8,100, while the energy
// gap δ·|ΔŨ| of a standard normal at temperatures 1 and 10 is a few
// units: the pair never swaps, and the warning blames the correction.
// Without the noise (correction 0) the pair swaps (65 of 200 times).
func TestJudgeLadderNeverSwaps(t *testing.T) {
	opts := temper.Options{Sampler: "resgld", Settings: map[string]any{"lr": 0.1}, Iters: 200, Chains: 2, EnergyNoise: 100}
	res := sampleJudged(t, "param { x: real }\nmodel { x ~ normal(0, 1) }", nil, opts, false)
	wantWarning(t, res, "levels 1 and 2 of the ladder never swapped (0 of ", "the variance correction δ²σ̂² ≈ ", "a larger batch (less energy noise) or more replicas")

	// DEO-SGD's deterministic test swaps when Ũ_{p+1} + C < Ũ_p: a fixed
	// buffer C of 10⁹ never lets it.
	far := sampleJudged(t, "param { x: real }\nmodel { x ~ normal(0, 1) }", nil, temper.Options{Sampler: "deo_sgd",
		Settings: map[string]any{"buffer": 1e9, "adapt": "never"}, Replicas: 2, Iters: 200, Chains: 2}, false)
	wantWarning(t, far, "levels 1 and 2 of the ladder never swapped (0 of ", ": narrow the ladder (t_max or lr_max) or use more replicas")

	opts.EnergyNoise = 0
	good := sampleJudged(t, "param { x: real }\nmodel { x ~ normal(0, 1) }", nil, opts, false)
	if got := warningsWith(good, "levels 1 and 2"); len(got) != 0 {
		t.Errorf("a ladder that swaps is judged: %q", got)
	}
}

// TestJudgeCyclicalDraws: cyclical SGLD keeps each cycle's sampling
// stage: 100 iterations in 4 cycles keep 72 draws (under 100), and
// iters = 600 in one cycle keeps 450 draws of one cycle; 600 in 4
// cycles are judged neither.
func TestJudgeCyclicalDraws(t *testing.T) {
	const model = "param { x: real }\nmodel { x ~ normal(0, 1) }"
	few := sampleJudged(t, model, nil, temper.Options{Sampler: "cyclical_sgld", Settings: map[string]any{"lr": 0.5}, Iters: 100, Chains: 2}, false)
	wantWarning(t, few, "the cyclical run kept 72 draws per chain, fewer than 100: run more iterations")
	one := sampleJudged(t, model, nil, temper.Options{Sampler: "cyclical_sgld", Settings: map[string]any{"lr": 0.5, "cycles": 1}, Iters: 600, Chains: 2}, false)
	wantWarning(t, one, "the cyclical run's draws come from 1 cycle: a summary of one cycle sees one mode at most; raise cycles")
	good := sampleJudged(t, model, nil, temper.Options{Sampler: "cyclical_sgld", Settings: map[string]any{"lr": 0.5}, Iters: 600, Chains: 2}, false)
	if got := warningsWith(good, "the cyclical run"); len(got) != 0 {
		t.Errorf("a cyclical run with enough draws is judged: %q", got)
	}
}
