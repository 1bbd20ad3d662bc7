package infer_test

import (
	"context"
	"math"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// TestBarkerExchangeDoubleWell runs the noise-aware Barker swap of RENHD
// (seed 001, Algorithm 1) between two Langevin replicas (τ = 1, 10) on the
// double well whose energies carry N(0, 2²) noise. One evaluation gives
// var[ΔẼ] = δ²(4 + 4) = 6.48 (δ = 0.9), so the exchange minibatch must grow
// to m = 33 evaluations (6.48/33 = 0.196 < σ*² = 0.2, 6.48/32 ≥ 0.2) every
// round; the count is exact, since the injected noise's variance is known.
// The test is then Barker's in expectation, which keeps detailed balance:
// the target level's left-mode weight must match the exact 0.754.
//
// Tolerance: six seeds of this run (4 chains × 100,000 iterations, 102,000
// swaps attempted, 26 % accepted) gave 0.746-0.755, mean 0.751, standard
// deviation 0.004, the same small discretisation bias of SGLD at η = 0.005
// as reSGLD's test shows; 0.015 is over three standard deviations.
func TestBarkerExchangeDoubleWell(t *testing.T) {
	w := doubleWell{h: 4, c: 0.6}
	exact := w.leftWeight()
	o := infer.Options{Chains: 4, Iters: 100000, Burn: 2000, Seed: 2, EnergyNoise: 2}
	r := runWell(t, w, "renhd", map[string]string{"dynamics": "langevin", "lr": "0.005", "tau": "none", "t_max": "10", "replicas": "2", "every": "1", "scheme": "adj"}, o)
	got := fractionBelow(r)
	x := r.Exchange[0]
	t.Logf("left mode weight %.4f (exact %.4f); swaps %d of %d; %d evaluations in %d rounds", got, exact, x.Accepts[0], x.Attempts[0], x.ExchangeEvaluations, x.Rounds)
	if math.Abs(got-exact) > 0.015 {
		t.Errorf("left weight %.4f, exact %.4f", got, exact)
	}
	if x.ExchangeEvaluations != 33*x.Rounds {
		t.Errorf("%d exchange evaluations in %d rounds, want 33 per round", x.ExchangeEvaluations, x.Rounds)
	}
	// Barker accepts less often than Metropolis but not rarely: the mean of
	// g(ΔE) between the wells' states is about 0.25 here.
	if rate := x.SwapRate(0); rate < 0.1 || rate > 0.5 {
		t.Errorf("swap rate %.3f", rate)
	}
}

// TestBarkerTooNoisy: a variance that no number of chunks brings below σ*²
// is a clear error, not a hang.
func TestBarkerTooNoisy(t *testing.T) {
	s, err := infer.NewSampler("renhd", map[string]string{"dynamics": "langevin", "lr": "0.005", "tau": "none", "t_max": "10", "replicas": "2", "scheme": "adj", "every": "1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = infer.Run(context.Background(), doubleWell{h: 4, c: 0.6}, s, infer.Options{Iters: 10, EnergyNoise: 100})
	if err == nil || !contains(err.Error(), "still above it after 4096 evaluations") {
		t.Fatalf("got %v", err)
	}
}

// TestRENHDLadder: the renhd preset's ladder is Eq. 21 of seed 001, T_j =
// τ^j from the target at 1 (j = 0, ..., M-1).
func TestRENHDLadder(t *testing.T) {
	s, err := infer.NewSampler("renhd", map[string]string{"lr": "0.01"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Restart || s.Every != 10 || s.Replicas != 7 || s.Exchange.Name() != "barker" || s.Dynamics.Name() != "nose_hoover" {
		t.Fatalf("renhd preset: %+v", s)
	}
	r, err := infer.Run(context.Background(), gaussian{h: []float64{1, 1}}, s, infer.Options{Iters: 100})
	if err != nil {
		t.Fatal(err)
	}
	for j, lv := range r.Exchange[0].Ladder {
		if want := math.Pow(1.5, float64(j)); math.Abs(lv.Temperature-want) > 1e-12*want {
			t.Errorf("rung %d: T = %v, want 1.5^%d = %v", j, lv.Temperature, j, want)
		}
	}
	reld, err := infer.NewSampler("renhd_reld", nil)
	if err != nil {
		t.Fatal(err)
	}
	if nh := reld.Dynamics.(*infer.NoseHoover); !nh.Frozen || nh.Offset != 0.999 || nh.C != 0.1 {
		t.Errorf("renhd_reld dynamics %+v, want the thermostat frozen at 0.999 + c/T", nh)
	}
}

func TestRENHDSettingsRejected(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"tau": "1"}, "tau: the ladder ratio τ must exceed 1"},
		{map[string]string{"t_max": "20"}, "t_max: does not apply"},
		{map[string]string{"sigma_star2": "4"}, "sigma_star2: variance threshold σ*² = 4 must be below π²/3"},
		{map[string]string{"sigma_star2": "0"}, "sigma_star2: variance threshold σ*² must be positive"},
		{map[string]string{"lambda": "0"}, "lambda: bandwidth λ must be positive"},
		{map[string]string{"terms": "13"}, "terms: 13 terms is more than 12"},
		{map[string]string{"terms": "0"}, "terms: must be a whole number ≥ 1"},
		{map[string]string{"exchange_batch": "0"}, "exchange_batch: must be a whole number ≥ 1"},
		{map[string]string{"dynamics": "langevin", "restart": "true"}, "restart: does not apply"},
		{map[string]string{"restart": "yes"}, "restart: want one of true, false"},
		{map[string]string{"freeze": "-1"}, "freeze: must be ≥ 0"},
		{map[string]string{"replicas": "1"}, "replica exchange needs at least 2 replicas"},
	} {
		_, err := infer.NewSampler("renhd", c.opts)
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("NewSampler(renhd, %v): %v, want %q", c.opts, err, c.want)
		}
	}
}

// restartCounter is Langevin dynamics that counts Restart calls in each
// replica's auxiliary state.
type restartCounter struct{ infer.Langevin }

func (restartCounter) AuxLen(int) int        { return 1 }
func (restartCounter) Restart(aux []float64) { aux[0]++ }

// TestRestartEachTrajectory: with Restart, every replica's trajectory starts
// afresh after each exchange round (Algorithm 2 of seed 001, line 3), and
// dynamics without trajectories are refused.
func TestRestartEachTrajectory(t *testing.T) {
	s := infer.Sampler{Name: "test", Dynamics: restartCounter{}, Schedule: infer.Constant(0.01), Replicas: 3, Every: 5, Restart: true,
		Ladder:   &infer.Ladder{Kind: infer.TemperatureLadder, Min: 1, Max: 4},
		Exchange: &infer.Metropolis{Correction: infer.ModelVariance}}
	res, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Chains: 2, Iters: 100, Burn: 0})
	if err != nil {
		t.Fatal(err)
	}
	for r, n := range res.State.Aux {
		if n != 20 {
			t.Errorf("replica row %d restarted %g times in 100 iterations with exchanges every 5, want 20", r, n)
		}
	}
	s.Dynamics = infer.Langevin{}
	if _, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Iters: 10}); err == nil || !contains(err.Error(), "no trajectories to restart") {
		t.Errorf("restart with Langevin dynamics: %v", err)
	}
}
