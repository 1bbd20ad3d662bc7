package infer_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// gaussian is the target U(θ) = Σ_i h_i θ_i² / 2, exact (no data), whose
// samplers' stationary laws are known in closed form.
type gaussian struct{ h []float64 }

func (g gaussian) Dim() int     { return len(g.h) }
func (g gaussian) NumData() int { return 0 }
func (g gaussian) OutputNames() []string {
	names := make([]string, len(g.h))
	for i := range names {
		names[i] = fmt.Sprintf("x.%d", i+1)
	}
	return names
}
func (g gaussian) Constrain(dst, theta []float64)              { copy(dst, theta) }
func (g gaussian) Evaluator(p, _ int) (infer.Evaluator, error) { return g, nil }
func (g gaussian) BatchSize() int                              { return 0 }
func (g gaussian) Evaluate(theta []float64, _ []int, energy, grad, variance []float64) error {
	d := len(g.h)
	for c := range energy {
		energy[c], variance[c] = 0, 0
		for i, h := range g.h {
			x := theta[c*d+i]
			energy[c] += h * x * x / 2
			grad[c*d+i] = h * x
		}
	}
	return nil
}

// moments returns the pooled mean and variance of column col.
func moments(r *infer.Result, col int) (mean, variance float64) {
	n := 0
	for _, chain := range r.Chains(col) {
		for _, x := range chain {
			mean += x
			n++
		}
	}
	mean /= float64(n)
	for _, chain := range r.Chains(col) {
		for _, x := range chain {
			variance += (x - mean) * (x - mean)
		}
	}
	return mean, variance / float64(n-1)
}

// TestLangevinGaussian checks SGLD's stationary variance against the exact
// law of its discretisation: θ' = (1 - ηh)θ + √(2ηT)ξ is an AR(1) with
// variance T / (h(1 - ηh/2)), 5% above the target's T/h at ηh = 0.1. With
// 4 chains × 40,000 draws and autocorrelation time (2 - ηh)/(ηh) ≈ 19 the
// effective sample size is about 8,000, so the variance's relative standard
// error is √(2/8000) ≈ 1.6%; the 4% tolerance is 2.5 standard errors, and
// both the continuous answer (5% off) and a noise scale off by √2 fail it.
func TestLangevinGaussian(t *testing.T) {
	target := gaussian{h: []float64{1, 4}}
	const lr, temperature = 0.025, 1.5 // ηh = 0.025 and 0.1
	s := infer.Sampler{Name: "sgld", Dynamics: infer.Langevin{}, Schedule: infer.Constant(lr), Temperature: temperature}
	res, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 4, Iters: 40000, Burn: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range target.h {
		mean, variance := moments(res, i+1)
		want := temperature / (h * (1 - lr*h/2))
		if math.Abs(variance/want-1) > 0.04 || math.Abs(mean) > 4*math.Sqrt(want/8000) {
			t.Errorf("x.%d: mean %.4f (want 0), variance %.4f (want %.4f)", i+1, mean, variance, want)
		}
	}
}

// TestHamiltonianGaussian checks SGHMC against the stationary covariance of
// its linear recursion (v, θ)' = A(v, θ) + noise, found by iterating the
// discrete Lyapunov equation Σ = AΣAᵀ + Q to convergence. Autocorrelation is
// longer than SGLD's here (about 1/α = 10 steps of momentum decay times the
// oscillation), so the run is longer; the 5% tolerance is about 3 standard
// errors of the variance at the resulting effective sample size (≥ 5,000).
func TestHamiltonianGaussian(t *testing.T) {
	const h, lr, alpha, temperature = 2.0, 0.01, 0.1, 1.0
	target := gaussian{h: []float64{h}}
	s := infer.Sampler{Name: "sghmc", Dynamics: &infer.Hamiltonian{Friction: alpha}, Schedule: infer.Constant(lr), Temperature: temperature}
	res, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 4, Iters: 100000, Burn: 2000, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// v' = (1-α)v - ηhθ + ε, θ' = θ + v' = θ + (1-α)v - ηhθ + ε.
	a := [2][2]float64{{1 - alpha, -lr * h}, {1 - alpha, 1 - lr*h}}
	q := 2 * alpha * lr * temperature // the noise enters v and θ alike
	sigma := [2][2]float64{}
	for range 200000 {
		var next [2][2]float64
		for i := range 2 {
			for j := range 2 {
				next[i][j] = q
				for k := range 2 {
					for l := range 2 {
						next[i][j] += a[i][k] * sigma[k][l] * a[j][l]
					}
				}
			}
		}
		sigma = next
	}
	_, variance := moments(res, 1)
	if want := sigma[1][1]; math.Abs(variance/want-1) > 0.05 {
		t.Errorf("θ variance %.5f, stationary %.5f (continuous limit %.5f)", variance, want, temperature/h)
	}
}

func TestSameSeedSameDraws(t *testing.T) {
	target := gaussian{h: []float64{1, 2, 3}}
	s, err := infer.NewSampler("sghmc", map[string]string{"lr": "0.01"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(seed uint64) *infer.Result {
		s.Dynamics = &infer.Hamiltonian{Friction: 0.1}
		r, err := infer.Run(context.Background(), target, s, infer.Options{Chains: 3, Iters: 50, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b, c := run(7), run(7), run(8)
	if fmt.Sprint(a.Draws) != fmt.Sprint(b.Draws) {
		t.Error("the same seed gave different draws")
	}
	if fmt.Sprint(a.Draws) == fmt.Sprint(c.Draws) {
		t.Error("different seeds gave the same draws")
	}
}

func TestCancelKeepsDraws(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var seen int
	s := infer.Sampler{Name: "sgld", Dynamics: infer.Langevin{}, Schedule: infer.Constant(0.1), Temperature: 1}
	res, err := infer.Run(ctx, gaussian{h: []float64{1}}, s, infer.Options{Chains: 2, Iters: 1000,
		OnDraw: func(d infer.Draw) error {
			seen++
			if d.Iter == 9 && d.Chain == 1 {
				cancel()
			}
			return nil
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if len(res.Draws[0]) != 10 || len(res.Draws[1]) != 10 || seen != 20 {
		t.Fatalf("kept %d and %d draws, streamed %d; want 10, 10, 20", len(res.Draws[0]), len(res.Draws[1]), seen)
	}
}

func TestDivergenceIsReported(t *testing.T) {
	s := infer.Sampler{Name: "sgd", Dynamics: infer.Langevin{}, Schedule: infer.Constant(3)} // ηh = 3 > 2: unstable
	res, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, infer.Options{Chains: 1, Iters: 10000})
	if !errors.Is(err, infer.ErrDiverged) {
		t.Fatalf("error %v, want a divergence", err)
	}
	if res == nil || len(res.Draws[0]) == 0 {
		t.Fatal("the draws before the divergence were lost")
	}
}

func TestSamplerPresetsValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		opts map[string]string
		want string
	}{
		{"sgld", map[string]string{"lr": "-1"}, "lr: must be positive"},
		{"sgld", map[string]string{"lr": "fast"}, `lr: want a finite number, got "fast"`},
		{"sghmc", map[string]string{"friction": "1.5"}, "friction: must lie in (0, 1]"},
		{"sgld", map[string]string{"temperature": "-1"}, "temperature: must be ≥ 0"},
		{"sgld", map[string]string{"frction": "1"}, "frction: no such setting"},
		{"sgld", map[string]string{"friction": "0.1"}, "friction: does not apply"},
		{"sgld", map[string]string{"gamma": "0.55", "b": "0"}, "b: must be positive"},
		{"sgld", map[string]string{"replicas": "4"}, "4 replicas need an exchange test"},
		{"gibbs", nil, `unknown sampler "gibbs"`},
		// Replica exchange: P < 2, η^(1) ≥ η^(P), S outside (0, 1).
		{"resgld", map[string]string{"replicas": "1"}, "replicas: replica exchange needs at least 2 replicas"},
		{"deo_sgd", map[string]string{"lr_min": "0.6", "lr_max": "0.003"}, "lr_min: lr_min = 0.6 must be below lr_max = 0.003"},
		{"deo_sgd", map[string]string{"lr_min": "0.1", "lr_max": "0.1"}, "lr_min = 0.1 must be below lr_max = 0.1"},
		{"resgld", map[string]string{"t_min": "0"}, "t_min: must be positive"},
		{"deo_sgd", map[string]string{"swap_rate": "1"}, "swap_rate: the target swap rate S must lie in (0, 1)"},
		{"deo_sgd", map[string]string{"swap_rate": "0"}, "must lie in (0, 1)"},
		{"resgld", map[string]string{"window": "auto", "swap_rate": "-0.2"}, "must lie in (0, 1)"},
		{"resgld", map[string]string{"scheme": "deo", "window": "0"}, "window: must be a whole number ≥ 1"},
		{"resgld", map[string]string{"scheme": "fancy"}, "scheme: want one of adj, seo, deo"},
		{"resgld", map[string]string{"correction": "huge"}, "correction: want none, model, running or a variance"},
		{"m_resgld", map[string]string{"a1": "0.7"}, "must sum to 1"},
		{"resgld", map[string]string{"ladder": "lr"}, "needs positive temperatures on every level"},
		{"resgld", map[string]string{"lr_min": "0.1"}, "lr_min: does not apply"},
		// Ladders by hand, and when adaptive parts learn.
		{"deo_sgd", map[string]string{"ladder_levels": "[1e-3, 1e-2]", "lr_max": "0.1"}, "lr_max: ladder_levels gives the ladder's levels, its ends included; leave lr_max out"},
		{"deo_sgd", map[string]string{"ladder_levels": "[1e-2, 1e-3]"}, "ladder_levels: the levels must increase from the target level, got 0.001 after 0.01"},
		{"deo_sgd", map[string]string{"ladder_levels": "[1e-3]"}, "ladder_levels: want two levels at least"},
		{"resgld", map[string]string{"ladder_levels": "1, 2, x"}, `ladder_levels: want positive numbers, got "x"`},
		{"resgld", map[string]string{"ladder_levels": "1, 2, 4", "replicas": "4"}, "ladder_levels: 3 levels for replicas = 4"},
		{"deo_sgd", map[string]string{"adapt": "sometimes"}, "adapt: want one of warmup, always, never"},
		{"resgld", map[string]string{"adapt": "never"}, "adapt: does not apply"},
	} {
		_, err := infer.NewSampler(c.name, c.opts)
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("NewSampler(%s, %v): %v, want %q", c.name, c.opts, err, c.want)
		}
	}
	s, err := infer.NewSampler("sgld", map[string]string{"lr": "0.5", "b": "10", "gamma": "0.55"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Schedule.StepSize(5), 0.5*math.Pow(15, -0.55); math.Abs(got-want) > 1e-15 {
		t.Errorf("polynomial step %v, want %v", got, want)
	}
}

func TestOptionsValidate(t *testing.T) {
	s := infer.Sampler{Name: "sgld", Dynamics: infer.Langevin{}, Schedule: infer.Constant(0.1)}
	for _, o := range []infer.Options{{Chains: -1}, {Thin: -2}, {Burn: -1}, {Init: [][]float64{{1}}, Chains: 2}} {
		if _, err := infer.Run(context.Background(), gaussian{h: []float64{1}}, s, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
