package temper_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
)

// A linear regression: the slope b of y = a + b x + noise.
const regression = `
data {
  N: int
  x: real[N]
  y: real[N]
}
param {
  a: real
  b: real
  sigma: real<lower=0>
}
model {
  a ~ normal(0, 10)
  b ~ normal(0, 10)
  sigma ~ exponential(1)
  for n in plate(N) {
    y[n] ~ normal(a + b * x[n], sigma)
  }
}
`

// Compile a model with data given as Go slices, sample it with SGLD and
// read the posterior summary.
func Example() {
	m, err := temper.Compile("regression.ppl", regression, map[string]any{
		"x": []float64{1, 2, 3, 4, 5, 6, 7, 8},
		"y": []float64{2.1, 3.9, 6.2, 7.8, 10.1, 12.0, 13.8, 16.1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Sample(context.Background(), temper.Options{
		Sampler:  "sgld",
		Settings: map[string]any{"lr": 5e-4},
		Burn:     2000,
		Iters:    20000,
		Thin:     10,
		Seed:     1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Summary() {
		if s.Name == "b" {
			fmt.Printf("b: posterior mean %.1f, 90%% interval [%.1f, %.1f]\n", s.Mean, s.Q5, s.Q95)
		}
	}
	fmt.Printf("%d chains × %d draws, max R-hat below 1.1: %v\n", len(res.Draws), len(res.Draws[0]), res.Diagnostics().MaxRhat < 1.1)
	// Output:
	// b: posterior mean 2.0, 90% interval [1.9, 2.1]
	// 4 chains × 2000 draws, max R-hat below 1.1: true
}

// A diagnostic shows the source line and a caret under the mistake.
func ExampleCompile_error() {
	_, err := temper.Compile("bad.ppl", "param { mu: real }\nmodel { mu ~ normal(0, sigma) }\n", nil)
	fmt.Println(err)
	// Output:
	// bad.ppl:2:24: unknown name "sigma"
	// model { mu ~ normal(0, sigma) }
	//                        ^
}

// Draws arrive as the sampler makes them; breaking out of the loop stops
// the run.
func ExampleModel_Draws() {
	m, err := temper.Compile("normal.ppl", "param { mu: real }\nmodel { mu ~ normal(3, 1) }\n", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, sum := 0, 0.0
	for d, err := range m.Draws(context.Background(), temper.Options{Chains: 1, Iters: 1_000_000, Burn: 500, Settings: map[string]any{"lr": 0.05}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		sum += d.Values[1] // Values are lp__, mu
		if n++; n == 2000 {
			break
		}
	}
	fmt.Printf("mean of %d draws: %.0f\n", n, sum/float64(n))
	// Output:
	// mean of 2000 draws: 3
}

// Cancelling the context stops a run and keeps the draws made so far.
func ExampleModel_Sample_cancel() {
	m, err := temper.Compile("normal.ppl", "param { mu: real }\nmodel { mu ~ normal(0, 1) }\n", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := m.Sample(ctx, temper.Options{
		Chains: 2,
		Iters:  1_000_000,
		OnDraw: func(d temper.Draw) error {
			if d.Iter == 99 && d.Chain == 1 {
				cancel() // as a signal handler would
			}
			return nil
		},
	})
	fmt.Println(errors.Is(err, context.Canceled), len(res.Draws[0]), len(res.Draws[1]))
	fmt.Println("completed:", res.Diagnostics().Completed)
	// Output:
	// true 100 100
	// completed: false
}

// Data may be gonum matrices; a replica-exchange sampler is a preset with
// settings, and its diagnostics include the swap rates of its ladder.
func ExampleOptions_replicaExchange() {
	X := mat.NewDense(4, 2, []float64{
		1, 0,
		0, 1,
		1, 1,
		2, 1,
	})
	m, err := temper.Compile("two.ppl", `
data { N: int  X: real[N, 2]  y: real[N] }
param { w: real[2] }
model {
  w ~ normal(0, 1)
  for n in plate(N) { y[n] ~ normal(dot(X[n], w), 0.5) }
}`, map[string]any{"X": X, "y": []int{1, -1, 0, 1}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Sample(context.Background(), temper.Options{
		Sampler:  "resgld",
		Replicas: 4,
		Settings: map[string]any{"lr": 1e-3, "t_max": 8},
		Chains:   2,
		Iters:    500,
		Seed:     3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := res.Diagnostics()
	fmt.Println(m.Columns(), d.Replicas, d.Exchange.Scheme, len(d.Exchange.SwapRates))
	fmt.Println("every pair swapped:", !slices.ContainsFunc(d.Exchange.SwapRates, func(r float64) bool { return math.IsNaN(r) || r == 0 }))
	// Output:
	// [lp__ w.1 w.2] 4 deo 3
	// every pair swapped: true
}

// LogDensity evaluates the model at an unconstrained point, with its
// gradient, from any goroutine.
func ExampleModel_LogDensity() {
	m, err := temper.Compile("normal.ppl", "param { mu: real[2] }\nmodel { mu ~ normal(0, 1) }\n", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	grad := make([]float64, 2)
	lp, err := m.LogDensity([]float64{1, -2}, grad)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("log p = %.4f, gradient %v\n", lp, grad)
	// Output:
	// log p = -4.3379, gradient [-1 2]
}
