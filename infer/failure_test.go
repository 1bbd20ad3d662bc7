package infer_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// TestOneChainDiverges: on the double well (gradient 4hx(x² - 1), cubic in
// x) SGLD with step 0.01 is stable near the modes and explodes from x =
// 30, where a step moves x by about -1000. Of four chains, the one started
// there stops at once, and the other three go on to the end: the result
// names the failure, summarises three chains and warns.
func TestOneChainDiverges(t *testing.T) {
	s := infer.Sampler{Name: "sgld", Dynamics: infer.Langevin{}, Schedule: infer.Constant(0.01), Temperature: 1}
	init := [][]float64{{1}, {-1}, {30}, {0.5}}
	res, err := infer.Run(context.Background(), doubleWell{h: 1}, s, infer.Options{Chains: 4, Iters: 500, Seed: 2, Init: init})
	if err != nil {
		t.Fatalf("one chain's divergence ended the run: %v", err)
	}
	if len(res.Failures) != 1 || res.Failures[0].Chain != 2 || res.Failures[0].Iteration > 10 {
		t.Fatalf("failures %v, want chain 3 within a few iterations", res.Failures)
	}
	f := res.Failures[0]
	if f.Replica != 0 || !(f.What == "energy" || strings.HasPrefix(f.What, "parameter")) || !(math.IsNaN(f.Value) || math.IsInf(f.Value, 0)) {
		t.Errorf("failure %+v does not say what went bad", f)
	}
	if got := res.Finished(); !slices.Equal(got, []int{0, 1, 3}) {
		t.Errorf("finished chains %v, want 0, 1, 3", got)
	}
	if n := len(res.Chains(1)); n != 3 {
		t.Errorf("the summaries see %d chains, want 3", n)
	}
	for c, d := range res.Draws {
		if want := map[bool]int{true: f.Iteration - 1, false: 500}[c == 2]; len(d) != want {
			t.Errorf("chain %d kept %d draws, want %d", c+1, len(d), want)
		}
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "1 of 4 chains diverged") || !strings.Contains(res.Warnings[0], "chain 3 replica 1 at iteration") {
		t.Errorf("warnings %q", res.Warnings)
	}

	// When every chain diverges, the run fails.
	_, err = infer.Run(context.Background(), doubleWell{h: 1}, s, infer.Options{Chains: 2, Iters: 50, Init: [][]float64{{30}, {-40}}})
	if !errors.Is(err, infer.ErrDiverged) || !strings.Contains(err.Error(), "chain 2 replica 1") {
		t.Errorf("every chain diverged: %v", err)
	}
}

// TestHottestLevelRestarts: a step-size ladder whose top step, 0.6, is
// unstable on the double well with h = 1 (the curvature 8h at the modes
// makes SGD diverge for η > 0.25, and far out faster): the hottest level
// keeps diverging, is restarted from its neighbour's state each time, and
// the target level's chain runs to the end.
func TestHottestLevelRestarts(t *testing.T) {
	s := infer.Sampler{Name: "deo", Dynamics: infer.Langevin{}, Replicas: 3,
		Ladder:   &infer.Ladder{Kind: infer.StepSizeLadder, Min: 0.001, Max: 0.6, Exploit: 1},
		Exchange: &infer.Deterministic{Buffer: 0.5}, Scheme: infer.Scheme{Kind: infer.DEO}}
	res, err := infer.Run(context.Background(), doubleWell{h: 1}, s, infer.Options{Chains: 2, Iters: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 0 || len(res.Restarts) == 0 {
		t.Fatalf("failures %v, %d restarts; want none and some", res.Failures, len(res.Restarts))
	}
	for _, r := range res.Restarts {
		if r.Replica != 2 {
			t.Errorf("restart %v is not of the hottest level", r)
		}
	}
	for c, d := range res.Draws {
		if len(d) != 300 {
			t.Errorf("chain %d kept %d draws, want 300", c+1, len(d))
		}
		for _, v := range d {
			if math.IsNaN(v[1]) || math.IsInf(v[1], 0) {
				t.Fatalf("chain %d kept a draw %v", c+1, v)
			}
		}
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "hottest level diverged") }) {
		t.Errorf("no warning of the restarts: %q", res.Warnings)
	}
}

// TestLadderByHandAndFrozen: levels given by hand are where a ladder
// starts; adapt = never keeps them, warmup moves the interior levels
// during burn-in only, and always keeps moving them. The trace of the
// ladder records each case.
func TestLadderByHandAndFrozen(t *testing.T) {
	const burn, iters = 200, 400
	hand := []float64{1e-4, 5e-4, 2e-3, 1e-2}
	run := func(adapt string) *infer.Result {
		s, err := infer.NewSampler("deo_sgd", map[string]string{"ladder_levels": "[1e-4, 5e-4, 2e-3, 1e-2]", "adapt": adapt, "window": "1"})
		if err != nil {
			t.Fatal(err)
		}
		if s.Replicas != 4 {
			t.Fatalf("%d replicas for four levels", s.Replicas)
		}
		res, err := infer.Run(context.Background(), doubleWell{h: 2, c: 0.5}, s, infer.Options{Chains: 1, Burn: burn, Iters: iters, Seed: 1, EnergyNoise: 1, GradNoise: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	values := func(ls []infer.Level) []float64 {
		var v []float64
		for _, l := range ls {
			v = append(v, l.LR)
		}
		return v
	}
	never := run("never").Exchange[0]
	if got := values(never.Ladder); !slices.Equal(got, hand) {
		t.Errorf("adapt = never: final ladder %v, want the hand ladder %v", got, hand)
	}
	warm := run("warmup").Exchange[0]
	always := run("always").Exchange[0]
	trace := warm.LadderTrace
	if len(trace) != burn+iters {
		t.Fatalf("%d ladder samples for %d rounds", len(trace), burn+iters)
	}
	if !slices.Equal(trace[0], hand) || slices.Equal(trace[burn], hand) {
		t.Errorf("warmup: the ladder starts at %v and is %v after burn-in; want the hand ladder, then moved", trace[0], trace[burn])
	}
	// Round r's sample precedes its adaptation, so round burn + 1 shows
	// the last adaptation, made at the last burn-in round.
	for r := burn + 1; r < len(trace); r++ {
		if !slices.Equal(trace[r], trace[burn+1]) {
			t.Fatalf("warmup: the ladder moved after burn-in, at round %d: %v then %v", r, trace[burn+1], trace[r])
		}
	}
	if got := values(warm.Ladder); !slices.Equal(got, trace[burn+1]) || got[0] != hand[0] || got[3] != hand[3] {
		t.Errorf("warmup: final ladder %v, want the frozen one %v with the hand ends", got, trace[burn+1])
	}
	if slices.Equal(values(always.Ladder), values(warm.Ladder)) {
		t.Errorf("adapt = always ends on the ladder frozen after burn-in, %v", values(warm.Ladder))
	}
}

// box is U(x) = x²/2 on |x| < 1/2 and +Inf outside (Inf everywhere with
// Never): a target whose random starts in (-2, 2) are mostly outside its
// support.
type box struct{ Never bool }

func (b box) Dim() int                                    { return 1 }
func (b box) NumData() int                                { return 0 }
func (b box) OutputNames() []string                       { return []string{"x"} }
func (b box) Constrain(dst, theta []float64)              { copy(dst, theta) }
func (b box) Evaluator(int, int) (infer.Evaluator, error) { return b, nil }
func (b box) BatchSize() int                              { return 0 }
func (b box) Evaluate(theta []float64, _ []int, energy, grad, variance []float64) error {
	for r, x := range theta {
		energy[r], grad[r], variance[r] = x*x/2, x, 0
		if b.Never || math.Abs(x) >= 0.5 {
			energy[r] = math.Inf(1)
		}
	}
	return nil
}

// TestStartRetries: a random start where the energy is not finite is
// drawn again, as Stan retries up to 100 times (with a chance of 1/4 per
// draw, eight chains all find the support: 1 - 8·(3/4)^100 ≈ 1), so no
// chain fails at iteration 1; a target finite nowhere, or an init the user
// gave outside the support, is an error that says so and does not blame
// the step size.
func TestStartRetries(t *testing.T) {
	// A cold chain (T = 0.001) stays well inside the box once there.
	s := infer.Sampler{Name: "sgld", Dynamics: infer.Langevin{}, Schedule: infer.Constant(1e-4), Temperature: 0.001}
	res, err := infer.Run(context.Background(), box{}, s, infer.Options{Chains: 8, Iters: 50, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for c, d := range res.Draws {
		if len(d) != 50 || math.Abs(d[0][1]) >= 0.5 {
			t.Errorf("chain %d: %d draws, first at %v", c+1, len(d), d[0])
		}
	}
	_, err = infer.Run(context.Background(), box{Never: true}, s, infer.Options{Chains: 2, Iters: 50})
	if err == nil || !strings.Contains(err.Error(), "no starting point where the log density and its gradient are finite in 100 random draws") || strings.Contains(err.Error(), "step size") {
		t.Errorf("a target finite nowhere: %v", err)
	}
	_, err = infer.Run(context.Background(), box{}, s, infer.Options{Chains: 2, Iters: 50, Init: [][]float64{{0.1}, {0.9}}})
	if err == nil || !strings.Contains(err.Error(), "not finite at the starting point given for chain 2") {
		t.Errorf("an init outside the support: %v", err)
	}
}
