package repl

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestREADMEExampleDefaults types the README's REPL example, its :run with
// the defaults (no sampler, no lr: sampler auto, NUTS on data this
// small), on 200 rows of N(3, 2.2²): the
// posterior mean of sigma must come within 0.1 of the exact one (by
// quadrature over (mu, sigma)), where the first wave's hand-set step gave
// σ = 432.8. The posterior sd of sigma is about 0.11 and its mean's Monte
// Carlo error at ESS ≥ 1,000 under 0.004, so 0.1 is far outside chance.
func TestREADMEExampleDefaults(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	y := make([]float64, 200)
	for i := range y {
		y[i] = 3 + 2.2*rng.NormFloat64()
	}
	path := filepath.Join(t.TempDir(), "y.json")
	raw, _ := json.Marshal(map[string]any{"N": len(y), "y": y})
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t)
	s.eval("param { mu: real  sigma: real<lower=0> }")
	s.eval("data { N: int  y: real[N] }")
	s.eval("model {\n  mu ~ normal(0, 10)\n  for n in plate(N) { y[n] ~ normal(mu, sigma) }\n}")
	s.expect(":data "+path, "compiled")
	s.expect(":run iters=4000", "sampler auto chose nuts")
	if got := s.result.Result.Sampler; got != "nuts" {
		t.Errorf("the defaults ran %s; on 200 rows sampler auto runs nuts", got)
	}

	// The exact posterior mean of sigma, flat prior on sigma > 0.
	top, w, m := math.Inf(-1), 0.0, 0.0
	type point struct{ lp, sigma float64 }
	var grid []point
	for i := range 400 {
		mu := 2.2 + 1.6*(float64(i)+0.5)/400
		for j := range 400 {
			sigma := 1.6 + 1.3*(float64(j)+0.5)/400
			lp := -mu * mu / 200
			for _, v := range y {
				lp += -math.Log(sigma) - (v-mu)*(v-mu)/(2*sigma*sigma)
			}
			grid = append(grid, point{lp, sigma})
			top = max(top, lp)
		}
	}
	for _, p := range grid {
		e := math.Exp(p.lp - top)
		w += e
		m += e * p.sigma
	}
	exact := m / w
	sum, n := 0.0, 0
	for _, chain := range s.column("sigma") {
		for _, v := range chain {
			sum += v
			n++
		}
	}
	if got := sum / float64(n); math.Abs(got-exact) > 0.1 {
		t.Errorf("sigma's posterior mean %.4f, exact %.4f", got, exact)
	}
}
