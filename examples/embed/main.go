// Command embed is a Go program that embeds temper: it simulates a
// logistic regression data set as Go values (a gonum matrix and an int
// slice), compiles a model from source text, samples it with SGHMC on
// minibatches while reporting the draws as they arrive, and prints the
// posterior summary beside the true coefficients.
//
//	go run ./examples/embed [-iters 4000] [-out DIR]
//
// Ctrl-C stops the run early; the draws made so far are summarised (and
// saved with -out).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
)

// model is the .ppl source; the data come from Go.
const model = `
data {
  N: int
  D: int
  X: real[N, D]
  y: int<lower=0, upper=1>[N]
}
param {
  alpha: real
  beta: real[D]
}
model {
  alpha ~ normal(0, 2)
  beta ~ normal(0, 2)
  for n in plate(N) {
    y[n] ~ bernoulli_logit(alpha + dot(X[n], beta))
  }
}
`

func main() {
	iters := flag.Int("iters", 4000, "iterations after burn-in")
	out := flag.String("out", "", "write draws.csv, summary.csv and diagnostics.json here")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := run(ctx, os.Stdout, *iters, *out); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// trueBeta are the coefficients the data are simulated from.
var trueBeta = []float64{1.5, -1, 0.5}

const trueAlpha = -0.5

// simulate draws n rows of features and labels from the logistic model.
func simulate(n int, rng *rand.Rand) (*mat.Dense, []int) {
	x := mat.NewDense(n, len(trueBeta), nil)
	y := make([]int, n)
	for i := range n {
		eta := trueAlpha
		for j, b := range trueBeta {
			v := rng.NormFloat64()
			x.Set(i, j, v)
			eta += b * v
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return x, y
}

// run samples the model and prints what it finds; it returns the result
// for the test.
func run(ctx context.Context, w io.Writer, iters int, out string) (*temper.Result, error) {
	x, y := simulate(500, rand.New(rand.NewPCG(1, 2)))
	m, err := temper.Compile("logistic.ppl", model, map[string]any{"X": x, "y": y}) // N and D from the shapes
	if err != nil {
		return nil, err
	}
	opts := temper.Options{
		Sampler:  "sghmc",
		Settings: map[string]any{"lr": 2e-4, "friction": 0.1},
		Chains:   4,
		Burn:     500,
		Iters:    iters,
		Thin:     4,
		Batch:    100,
		Seed:     1,
	}
	// Watch the draws arrive: the running mean of beta.1 in chain 1.
	col := 2 // lp__, alpha, beta.1, ...
	sum, n := 0.0, 0
	opts.OnDraw = func(d temper.Draw) error {
		if d.Chain == 0 {
			sum, n = sum+d.Values[col], n+1
			if n%(iters/4/4) == 0 {
				fmt.Fprintf(w, "draw %4d of chain 1: running mean of beta.1 %.2f\n", n, sum/float64(n))
			}
		}
		return nil
	}
	res, err := m.Sample(ctx, opts)
	if res == nil {
		return nil, err
	}
	if err != nil {
		fmt.Fprintf(w, "stopped early (%v): summarising the draws made so far\n", err)
	}
	fmt.Fprintf(w, "\n%s, %d chains × %d draws\n\n", res.SamplerDescription(), len(res.Draws), len(res.Draws[0]))
	if err := res.WriteTable(w); err != nil {
		return nil, err
	}
	if err := res.WriteWarnings(w); err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\ntrue alpha %g, beta %v\n", trueAlpha, trueBeta)
	d := res.Diagnostics()
	fmt.Fprintf(w, "max R-hat %.3f, min bulk ESS %.0f\n", d.MaxRhat, d.MinESSBulk)
	if out != "" {
		if err := res.Save(out, "examples/embed"); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "draws, summary and diagnostics in %s\n", out)
	}
	return res, nil
}
