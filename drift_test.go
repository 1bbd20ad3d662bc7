package temper_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestDriftWarned is the REPL example the issue found wrong and unwarned:
// a normal's sd sampled by SGHMC with a hand-given step (lr = 1e-3, so no
// warm-up) and no burn-in keeps the transient from its starting points in
// the draws; every chain drifts alike, so split R-hat cannot see it. The
// judge's drift check (Geweke 1992: a chain's first tenth against its
// last half) must name sigma. The same model with the defaults must not
// be warned of drift.
func TestDriftWarned(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	y := make([]float64, 50)
	for i := range y {
		y[i] = 1 + 1.8*rng.NormFloat64()
	}
	src := `data { N: int  y: real[N] }
param { mu: real  sigma: real<lower=0> }
model { mu ~ normal(0, 10)  for n in plate(N) { y[n] ~ normal(mu, sigma) } }`
	m, err := temper.Compile("example.ppl", src, map[string]any{"N": 50, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	drift := func(res *temper.Result) string {
		for _, w := range res.Warnings {
			if strings.Contains(w, "drift within a chain") {
				return w
			}
		}
		return ""
	}
	// Every chain starts at σ = 300 (log σ = 5.7 on the unconstrained
	// scale), as the run did from its random start.
	init := [][]float64{{0, 5.7}, {0, 5.7}, {0, 5.7}, {0, 5.7}}
	hand, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Settings: map[string]any{"lr": 1e-3}, Iters: 4000, Seed: 1, Init: init})
	if err != nil {
		t.Fatal(err)
	}
	if w := drift(hand); !strings.Contains(w, "sigma") {
		t.Errorf("a kept transient not warned of: %q", hand.Warnings)
	} else {
		t.Log(w)
	}
	auto, err := m.Sample(context.Background(), temper.Options{Seed: 1, Init: init})
	if err != nil {
		t.Fatal(err)
	}
	if w := drift(auto); w != "" {
		t.Errorf("the defaults warned of drift: %s", w)
	}
}
