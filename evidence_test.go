package temper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
)

// evidenceData reads an example's data file.
func evidenceData(t *testing.T, name string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("examples", "evidence", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func floats(v any) []float64 {
	var out []float64
	for _, x := range v.([]any) {
		out = append(out, x.(float64))
	}
	return out
}

// logNormalDensity is log N(y; 0, Σ).
func logNormalDensity(t *testing.T, y []float64, sigma *mat.SymDense) float64 {
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		t.Fatal("Σ is not positive definite")
	}
	x := mat.NewVecDense(len(y), nil)
	if err := ch.SolveVecTo(x, mat.NewVecDense(len(y), y)); err != nil {
		t.Fatal(err)
	}
	return -0.5*float64(len(y))*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(x, mat.NewVecDense(len(y), y))
}

// exactEvidence is each example's log Z, in closed form or by quadrature.
func exactEvidence(t *testing.T, name string) float64 {
	file := name
	if name == "normal_mean_wide" {
		file = "normal_mean"
	}
	d := evidenceData(t, file)
	y := floats(d["y"])
	n := len(y)
	switch name {
	case "normal_mean", "normal_mean_wide": // y ~ N(0, I + τ²·11ᵀ), τ = 2 or 20
		tau2 := 4.0
		if name == "normal_mean_wide" {
			tau2 = 400
		}
		s := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				s.SetSym(i, j, tau2)
			}
			s.SetSym(i, i, 1+tau2)
		}
		return logNormalDensity(t, y, s)
	case "bernoulli": // B(2 + k, 3 + N - k) / B(2, 3)
		k := 0.0
		for _, v := range y {
			k += v
		}
		lbeta := func(a, b float64) float64 {
			la, _ := math.Lgamma(a)
			lb, _ := math.Lgamma(b)
			lab, _ := math.Lgamma(a + b)
			return la + lb - lab
		}
		return lbeta(2+k, 3+float64(n)-k) - lbeta(2, 3)
	case "regression": // y ~ N(0, 0.25·I + XXᵀ)
		x1, x2 := floats(d["x1"]), floats(d["x2"])
		s := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				v := x1[i]*x1[j] + x2[i]*x2[j]
				if i == j {
					v += 0.25
				}
				s.SetSym(i, j, v)
			}
		}
		return logNormalDensity(t, y, s)
	case "scale": // ∫_0^∞ 2·N(σ; 0, 1) Π N(y_i; 0, σ) dσ, by the trapezoid rule
		const steps, top = 200000, 12.0
		logs := make([]float64, steps+1)
		peak := math.Inf(-1)
		for i := 1; i <= steps; i++ {
			sigma := top * float64(i) / steps
			l := math.Log(2) - 0.5*sigma*sigma - 0.5*math.Log(2*math.Pi)
			for _, v := range y {
				l += -0.5*v*v/(sigma*sigma) - math.Log(sigma) - 0.5*math.Log(2*math.Pi)
			}
			logs[i], peak = l, max(peak, l)
		}
		sum := 0.0
		for i := 1; i <= steps; i++ {
			w := 1.0
			if i == steps {
				w = 0.5
			}
			sum += w * math.Exp(logs[i]-peak)
		}
		return peak + math.Log(sum*top/steps)
	}
	t.Fatalf("no exact evidence for %s", name)
	return 0
}

// TestLogZKnownEvidence runs pt with path = power (its defaults otherwise)
// on five models whose evidence is known: a normal mean under two priors, Bernoulli trials
// with a beta prior (a parameter bounded on both sides), a two-coefficient
// regression, and a scale with the half-normal prior Stan users write as
// a bounded normal (whose mass 1/2 inside the bound the prior's energy
// must carry). The stepping stones must land within 0.1 of the exact log Z
// (the bar), with a standard error below 0.05, and within 3
// standard errors of it where those exceed 0.02 (the Monte Carlo error
// of 4 chains × 2,000 draws is about that; below it, the bar is 0.1).
func TestLogZKnownEvidence(t *testing.T) {
	for _, name := range []string{"normal_mean", "normal_mean_wide", "bernoulli", "regression", "scale"} {
		t.Run(name, func(t *testing.T) {
			m, err := temper.CompileFile(filepath.Join("examples", "evidence", name+".ppl"), nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Sample(context.Background(), temper.Options{Sampler: "pt", Settings: map[string]any{"path": "power"}, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			exact := exactEvidence(t, name)
			e := res.Evidence
			if e == nil {
				t.Fatalf("no log Z; warnings %q", res.Warnings)
			}
			t.Logf("%v; exact %.4f; error %+.4f", *e, exact, e.LogZ-exact)
			if d := math.Abs(e.LogZ - exact); d > 0.1 || !(e.LogZSE < 0.05) || d > 3*e.LogZSE && d > 0.02 {
				t.Errorf("log Z %.4f ± %.4f, exact %.4f", e.LogZ, e.LogZSE, exact)
			}
			if len(res.Warnings) > 0 {
				t.Errorf("warnings: %q", res.Warnings)
			}
		})
	}
}

// TestLogZStochasticGradient runs resgld on the power path (SGLD at
// temperature 1 on every level of 16, or 32, β from 1 to the prior; swaps
// by seed 000's variance-corrected Metropolis test on the likelihood's
// energy) on three of the models above, on full data and on minibatches of
// half the rows. The stepping stones on minibatches take seed 000's
// Gaussian correction, -Δβ²σ̄²/2 a ratio (infer/exchange/evidence.go), which is
// accurate while it is small: 32 levels keep it below 0.13 here. Each
// estimate must be within 0.1 of the exact log Z (the bar) and
// within 3 standard errors where those exceed 0.03 (SGLD's step of 0.1
// adds a discretisation bias of a few hundredths), and the run must not
// warn about its log Z.
func TestLogZStochasticGradient(t *testing.T) {
	for _, c := range []struct {
		name  string
		batch int
	}{{"normal_mean", 0}, {"bernoulli", 0}, {"regression", 0}, {"normal_mean", 10}, {"bernoulli", 15}, {"regression", 15}} {
		t.Run(fmt.Sprintf("%s/batch=%d", c.name, c.batch), func(t *testing.T) {
			m, err := temper.CompileFile(filepath.Join("examples", "evidence", c.name+".ppl"), nil)
			if err != nil {
				t.Fatal(err)
			}
			settings := map[string]any{"path": "power"}
			if c.batch > 0 {
				settings["replicas"] = 32
			}
			res, err := m.Sample(context.Background(), temper.Options{Sampler: "resgld", Settings: settings, Batch: c.batch, Burn: 1000, Iters: 10000, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			exact := exactEvidence(t, c.name)
			e := res.Evidence
			if e == nil {
				t.Fatalf("no log Z; warnings %q", res.Warnings)
			}
			t.Logf("%v; exact %.4f; error %+.4f; noise correction %.3f", *e, exact, e.LogZ-exact, e.Noise)
			if d := math.Abs(e.LogZ - exact); d > 0.1 || d > 3*e.LogZSE && d > 0.03 {
				t.Errorf("log Z %.4f ± %.4f, exact %.4f", e.LogZ, e.LogZSE, exact)
			}
			for _, w := range res.Warnings {
				if strings.Contains(w, "log Z") {
					t.Errorf("warning: %s", w)
				}
			}
		})
	}
}
