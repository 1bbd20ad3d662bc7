package infer_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// recorder is a Dynamics that records the step size and temperature of
// every step of replica 0 and moves nothing.
// It records one replica's steps: the one whose auxiliary state it saw
// first (replicas may step on several goroutines).
type recorder struct {
	mu              sync.Mutex
	first           *float64
	lr, temperature []float64
}

func (r *recorder) Name() string   { return "recorder" }
func (r *recorder) AuxLen(int) int { return 1 }
func (r *recorder) Step(aux, _, _ []float64, lr, temperature float64, _ *infer.Rand) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.first == nil {
		r.first = &aux[0]
	}
	if r.first == &aux[0] {
		r.lr, r.temperature = append(r.lr, lr), append(r.temperature, temperature)
	}
}

// eq1 is seed 002's Eq. 1 written out for the paper's iteration k = 1, ...,
// K: η_k = η0/2 [cos(π mod(k−1, ⌈K/M⌉)/⌈K/M⌉) + 1], and the exploration
// test r(k) < β of Algorithm 1.
func eq1(eta0 float64, k, bigK, m int, beta float64) (eta float64, exploring bool) {
	period := math.Ceil(float64(bigK) / float64(m))
	r := math.Mod(float64(k-1), period) / period
	return eta0 / 2 * (math.Cos(math.Pi*r) + 1), r < beta
}

// TestCyclicalScheduleEq1 runs a cyclical sampler through Run and checks,
// at every iteration, the step size against Eq. 1 to 1e-12, the
// temperature (0 in the exploration stage, T in the sampling stage), which
// iterations keep a draw (all of the sampling stages, none of the
// exploration stages) and each draw's cycle. K = 1000 and M = 7 do not
// divide, so the cycle length is ⌈1000/7⌉ = 143 and the last cycle is cut
// to 142 iterations; β = 0.3 puts the switch at iteration 43 of each cycle
// (42.9 rounded up).
func TestCyclicalScheduleEq1(t *testing.T) {
	const eta0, m, beta, temperature, burn, iters = 0.05, 7, 0.3, 1.5, 100, 900
	rec := &recorder{}
	s := infer.Sampler{Name: "cyclical", Dynamics: rec, Temperature: temperature,
		Schedule: infer.Cyclical{Initial: eta0, Cycles: m, Explore: beta}}
	var drawn []infer.Draw
	res, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Chains: 2, Burn: burn, Iters: iters, Seed: 3,
		OnDraw: func(d infer.Draw) error {
			if d.Chain == 0 {
				drawn = append(drawn, d)
			}
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	// A move follows every iteration but the last, whose state is the
	// run's end (and a resumed run's first step makes it).
	if len(rec.lr) != burn+iters-1 {
		t.Fatalf("%d steps, want %d", len(rec.lr), burn+iters-1)
	}
	rec.lr = append(rec.lr, math.NaN())
	rec.temperature = append(rec.temperature, math.NaN())
	kept := map[int]infer.Draw{}
	for _, d := range drawn {
		kept[d.Iter+burn] = d
	}
	var switches, starts []int
	for k := range burn + iters { // Run's k is the paper's k − 1
		eta, exploring := eq1(eta0, k+1, burn+iters, m, beta)
		if k == burn+iters-1 { // no move: the step size is the draw's
			rec.lr[k], rec.temperature[k] = eta, map[bool]float64{true: 0, false: temperature}[exploring]
		}
		if math.Abs(rec.lr[k]-eta) > 1e-12 {
			t.Errorf("iteration %d: step %.17g, Eq. 1 gives %.17g", k+1, rec.lr[k], eta)
		}
		want := map[bool]float64{true: 0, false: temperature}[exploring]
		if rec.temperature[k] != want {
			t.Errorf("iteration %d: temperature %g, want %g", k+1, rec.temperature[k], want)
		}
		d, ok := kept[k]
		if ok != (!exploring && k >= burn) {
			t.Errorf("iteration %d (exploring %v): kept %v", k+1, exploring, ok)
		}
		if ok && (d.Cycle != k/143 || d.LR != rec.lr[k] || d.Temperature != temperature) {
			t.Errorf("iteration %d: draw in cycle %d at lr %g, T %g; want cycle %d, lr %g, T %g", k+1, d.Cycle, d.LR, d.Temperature, k/143, rec.lr[k], temperature)
		}
		if k > 0 && rec.temperature[k] != rec.temperature[k-1] && !exploring {
			switches = append(switches, k)
		}
		if k > 0 && rec.lr[k] > rec.lr[k-1] {
			starts = append(starts, k)
		}
	}
	wantStarts := []int{143, 286, 429, 572, 715, 858}
	wantSwitches := []int{43, 186, 329, 472, 615, 758, 901}
	if !equalInts(starts, wantStarts) || !equalInts(switches, wantSwitches) {
		t.Errorf("cycles restart at %v, want %v; sampling starts at %v, want %v", starts, wantStarts, switches, wantSwitches)
	}
	// 100 burn-in iterations hold 57 of cycle 0's sampling stage; the last
	// cycle keeps 142 − 43.
	if got, want := len(res.Draws[1]), (143-43)*6+(142-43)-(100-43); got != want || len(res.Cycle[1]) != got {
		t.Errorf("%d draws and %d cycle tags, want %d", got, len(res.Cycle[1]), want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDecreasingBaseline: the SGLD baseline of seed 002, Section 5.1, is
// η_k = ε/√k, which the polynomial schedule gives with b = 1, γ = 1/2 (Run's
// k is the paper's k − 1).
func TestDecreasingBaseline(t *testing.T) {
	s, err := infer.NewSampler("sgld", map[string]string{"lr": "0.09", "gamma": "0.5", "b": "1"})
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 50000; k++ {
		if got, want := s.Schedule.StepSize(k-1), 0.09/math.Sqrt(float64(k)); math.Abs(got-want) > 1e-15 {
			t.Fatalf("k = %d: %g, want ε/√k = %g", k, got, want)
		}
	}
}

// TestSamplesPerCycle keeps n evenly spaced draws of each sampling stage,
// the last at the cycle's end; n = 1 with temperature 0 and no exploration
// stage is the Snapshot ensemble of seed 002's comparisons.
func TestSamplesPerCycle(t *testing.T) {
	for _, c := range []struct {
		sampler string
		set     map[string]string
		want    []int // kept iterations of the first two cycles (length 100)
	}{
		{"snapshot", map[string]string{"cycles": "10"}, []int{99, 199}},
		// Sampling stage 25..99 (S = 75), n = 3: every 25th back from 99.
		{"cyclical_sgld", map[string]string{"cycles": "10", "samples_per_cycle": "3"}, []int{49, 74, 99, 149, 174, 199}},
		// n ≥ S keeps the whole sampling stage (80..99).
		{"cyclical_sghmc", map[string]string{"cycles": "10", "explore_fraction": "0.8", "samples_per_cycle": "50"}, append(span(80, 99), span(180, 199)...)},
	} {
		s, err := infer.NewSampler(c.sampler, c.set)
		if err != nil {
			t.Fatal(err)
		}
		var iters []int
		res, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Chains: 1, Iters: 1000, Seed: 1,
			OnDraw: func(d infer.Draw) error {
				if d.Iter < 200 {
					iters = append(iters, d.Iter)
				}
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if !equalInts(iters, c.want) {
			t.Errorf("%s %v: kept %v, want %v", c.sampler, c.set, iters, c.want)
		}
		if n := len(res.Draws[0]); n != 10*len(c.want)/2 {
			t.Errorf("%s %v: %d draws, want %d", c.sampler, c.set, n, 10*len(c.want)/2)
		}
		for i, cyc := range res.Cycle[0] {
			if cyc != i/(len(c.want)/2) {
				t.Errorf("%s: draw %d in cycle %d", c.sampler, i, cyc)
				break
			}
		}
	}
}

func span(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}

// TestCyclicalSettingsRejected: M > K, β outside [0, 1), η0 ≤ 0 and the
// compositions that cannot work are *SettingErrors naming the setting.
func TestCyclicalSettingsRejected(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]string
		key  string
		msg  string
	}{
		{"cyclical_sgld", map[string]string{"cycles": "10", "schedule_iterations": "5"}, "cycles", "M = 10 cycles do not fit in the K = 5 iterations"},
		{"cyclical_sgld", map[string]string{"cycles": "0"}, "cycles", "must be a whole number ≥ 1"},
		{"cyclical_sgld", map[string]string{"explore_fraction": "1"}, "explore_fraction", "must lie in [0, 1), got 1"},
		{"cyclical_sghmc", map[string]string{"explore_fraction": "-0.1"}, "explore_fraction", "must lie in [0, 1), got -0.1"},
		{"cyclical_sgld", map[string]string{"lr": "0"}, "lr", "must be positive, got 0"},
		{"snapshot", map[string]string{"lr": "-0.1"}, "lr", "must be positive"},
		{"cyclical_sgld", map[string]string{"samples_per_cycle": "-1"}, "samples_per_cycle", "must be a whole number ≥ 0"},
		{"cyclical_sgld", map[string]string{"gamma": "0.5"}, "gamma", "does not apply"},
		{"sgld", map[string]string{"cycles": "3"}, "cycles", "does not apply"},
		{"sgld", map[string]string{"schedule": "cosine"}, "schedule", "want one of polynomial, cyclical"},
		{"resgld", map[string]string{"schedule": "cyclical"}, "schedule", "does not combine with exchange=metropolis"},
	} {
		_, err := infer.NewSampler(c.name, c.set)
		var se *infer.SettingError
		if !errors.As(err, &se) || se.Key != c.key || !contains(se.Msg, c.msg) {
			t.Errorf("NewSampler(%s, %v): %v; want key %s and %q", c.name, c.set, err, c.key, c.msg)
		}
	}
	// K left to the run: M > burn + iters is caught by Run, before any step.
	s, err := infer.NewSampler("cyclical_sgld", map[string]string{"cycles": "40"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Chains: 1, Burn: 10, Iters: 20})
	var se *infer.SettingError
	if res != nil || !errors.As(err, &se) || se.Key != "cycles" || !contains(se.Msg, "M = 40 cycles do not fit in the K = 30 iterations") {
		t.Errorf("Run with M > K: %v", err)
	}
	s, _ = infer.NewSampler("snapshot", nil)
	if _, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Chains: 1, Iters: 100, Thin: 2}); !errors.As(err, &se) || se.Key != "samples_per_cycle" {
		t.Errorf("samples_per_cycle with thin = 2: %v", err)
	}
}

// TestCyclicalGaussianMoments checks cSGLD and cSGHMC against the exact
// law of their discretisation on U(θ) = hθ²/2. Both are linear recursions,
// so the second moments propagate exactly through the cycles:
//
//	SGLD:  s' = (1 − η_k h)² s + 2η_k T_k,
//	SGHMC: Σ' = A_k Σ A_kᵀ + 2αη_k T_k [1 1; 1 1],  A_k = [1−α  −η_k h; 1−α  1−η_k h]
//
// for (v, θ), with T_k = 0 in the exploration stages (Algorithm 1). The mean
// of θ² over the kept draws must match the mean of E θ_k² over the same
// iterations; its standard error comes from the spread between 64 chains
// (seeds 1 to 7 land within 2.1 standard errors; the bar is 3.5). The
// small steps (ηh ≤ 0.01) leave each sampling stage only a few relaxation
// times, so where it starts matters: injecting noise while exploring, as
// plain SGLD with the same step sizes does, gives about 1.0 instead of 0.42
// (SGLD) or 0.62 (SGHMC), and the test checks that it would reject that.
func TestCyclicalGaussianMoments(t *testing.T) {
	const h, cycles, length, chains, friction = 1.0, 40, 400, 64, 0.5
	for _, name := range []string{"cyclical_sgld", "cyclical_sghmc"} {
		set := map[string]string{"lr": "0.01", "cycles": "40", "explore_fraction": "0.5"}
		if name == "cyclical_sghmc" {
			set["friction"] = "0.5"
		}
		s, err := infer.NewSampler(name, set)
		if err != nil {
			t.Fatal(err)
		}
		res, err := infer.Run(context.Background(), gaussian{h: []float64{h}}, s, infer.Options{Chains: chains, Iters: cycles * length, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		sched := s.Schedule.(infer.Cyclical)
		sched.Iterations = cycles * length
		// exact[k] is E θ_k², with the exploration stages at T = 0 (right)
		// or at T = 1 (wrong).
		exact := func(noisyExploration bool) float64 {
			var vv, vt, tt = 0.0, 0.0, 4.0 / 3 // v = 0, θ ~ U(−2, 2)
			sum, n := 0.0, 0
			for k := range cycles * length {
				_, exploring := sched.Stage(k)
				if !exploring {
					sum += tt
					n++
				}
				eta := sched.StepSize(k)
				temp := 1.0
				if exploring && !noisyExploration {
					temp = 0
				}
				if name == "cyclical_sgld" {
					tt = (1-eta*h)*(1-eta*h)*tt + 2*eta*temp
					continue
				}
				a := [2][2]float64{{1 - friction, -eta * h}, {1 - friction, 1 - eta*h}}
				sig := [2][2]float64{{vv, vt}, {vt, tt}}
				var next [2][2]float64
				q := 2 * friction * eta * temp
				for i := range 2 {
					for j := range 2 {
						next[i][j] = q
						for x := range 2 {
							for y := range 2 {
								next[i][j] += a[i][x] * sig[x][y] * a[j][y]
							}
						}
					}
				}
				vv, vt, tt = next[0][0], next[0][1], next[1][1]
			}
			return sum / float64(n)
		}
		var perChain []float64
		for _, c := range res.Chains(1) {
			m := 0.0
			for _, x := range c {
				m += x * x
			}
			perChain = append(perChain, m/float64(len(c)))
		}
		mean, variance := 0.0, 0.0
		for _, m := range perChain {
			mean += m / chains
		}
		for _, m := range perChain {
			variance += (m - mean) * (m - mean) / (chains - 1)
		}
		se := math.Sqrt(variance / chains)
		right, wrong := exact(false), exact(true)
		t.Logf("%s: mean θ² %.5f ± %.5f, exact %.5f; with noise while exploring %.5f", name, mean, se, right, wrong)
		if z := math.Abs(mean-right) / se; z > 3.5 {
			t.Errorf("%s: mean θ² %.5f, exact %.5f (%.1f standard errors)", name, mean, right, z)
		}
		if z := math.Abs(wrong-right) / se; z < 6 {
			t.Errorf("%s: the test cannot tell noisy exploration (%.5f) from the right law (%.5f): %.1f standard errors", name, wrong, right, z)
		}
	}
}

// TestCycleWeights checks the harmonic-mean weights of appendix F on
// numbers worked by hand: a cycle with densities {1, 1/3} has mean 1/p = 2,
// so ŵ = 1/2; one with {2, 2} has ŵ = 2. Scaled so the largest is 1, they
// are 1/4 and 1, the same at densities e^−1000 times smaller. Each chain's
// cycles are regions of their own, and a draw of density 0 zeroes its
// cycle.
func TestCycleWeights(t *testing.T) {
	for _, shift := range []float64{0, -1000} {
		lp := [][]float64{{shift, shift - math.Log(3), shift + math.Log(2), shift + math.Log(2)}, {shift, shift + math.Log(2)}}
		cyc := [][]int{{0, 0, 1, 1}, {0, 0}}
		w := infer.CycleWeights(lp, cyc)
		// Chain 2's cycle 0: 1/p = {1, 1/2}, mean 3/4, ŵ = 4/3 → (4/3)/2.
		want := [][]float64{{0.25, 0.25, 1, 1}, {2.0 / 3, 2.0 / 3}}
		for c := range want {
			for i := range want[c] {
				if math.Abs(w[c][i]-want[c][i]) > 1e-12 {
					t.Errorf("shift %g: weight [%d][%d] = %.15g, want %.15g", shift, c, i, w[c][i], want[c][i])
				}
			}
		}
	}
	w := infer.CycleWeights([][]float64{{0, math.Inf(-1), 1}}, [][]int{{0, 0, 1}})
	if w[0][0] != 0 || w[0][1] != 0 || w[0][2] != 1 {
		t.Errorf("a draw of density 0: weights %v, want [0 0 1]", w)
	}
}
