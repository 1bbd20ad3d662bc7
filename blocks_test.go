package temper_test

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
)

// linearRegression is y = 1 + 2·x₁ - x₂ + N(0, 1) noise on n rows of
// standard normal features, and its exact posterior under the model's
// N(0, 10²) priors and known unit noise (conjugate: precision I/100 + ZᵀZ,
// mean its inverse times Zᵀy, Z = [1, X]).
func linearRegression(n int, seed uint64) (x [][]float64, y []float64, mean, sd []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	x, y = make([][]float64, n), make([]float64, n)
	prec, zty := mat.NewSymDense(3, nil), mat.NewVecDense(3, nil)
	for j := range 3 {
		prec.SetSym(j, j, 1.0/100)
	}
	for i := range n {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		y[i] = 1 + 2*x[i][0] - x[i][1] + rng.NormFloat64()
		z := []float64{1, x[i][0], x[i][1]}
		for j := range 3 {
			zty.SetVec(j, zty.AtVec(j)+z[j]*y[i])
			for k := j; k < 3; k++ {
				prec.SetSym(j, k, prec.At(j, k)+z[j]*z[k])
			}
		}
	}
	var chol mat.Cholesky
	chol.Factorize(prec)
	var cov mat.SymDense
	chol.InverseTo(&cov)
	var m mat.VecDense
	m.MulVec(&cov, zty)
	for j := range 3 {
		mean, sd = append(mean, m.AtVec(j)), append(sd, math.Sqrt(cov.At(j, j)))
	}
	return x, y, mean, sd
}

// TestBatchBlocks samples a linear regression of 5,000 rows on minibatches
// of 250 rows, dealt as 250 rows at random and as 5 blocks of 50
// consecutive rows (batch_blocks = 5), with the defaults (SGHMC, lr =
// auto, which here takes the control-variate gradient), against the exact
// posterior. Rows in random order: every mean within 0.15 sd and every sd
// within 15% either way (the MCSE of a mean is about 0.05 sd at the runs'
// bulk ESS of several hundred, an sd's about 4%; the rest is the
// sampler's discretisation bias, a few percent). The same rows sorted by
// x₁: each block sees a narrow slice of x₁, and the warm-up, which
// measures the gradient noise on the run's own minibatches, finds it at
// least 10 times larger (measured: 25×) and takes a smaller step, so the
// answer still holds at the same tolerances; the README gives this and
// what a hand-set step does on sorted blocks.
func TestBatchBlocks(t *testing.T) {
	x, y, mean, sd := linearRegression(5000, 1)
	const model = `data { N: int  X: real[N, 2]  y: real[N] }
param { alpha: real  beta: real[2] }
model {
  alpha ~ normal(0, 10)
  beta ~ normal(0, 10)
  for n in plate(N) { y[n] ~ normal(alpha + dot(X[n], beta), 1) }
}`
	run := func(what string, x [][]float64, y []float64, blocks int) float64 {
		m, err := temper.Compile("linear.ppl", model, map[string]any{"X": x, "y": y})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Batch: 250, BatchBlocks: blocks, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		worstMean, worstSD := 0.0, 0.0
		for j, s := range res.Summary()[1:4] {
			worstMean = max(worstMean, math.Abs(s.Mean-mean[j])/sd[j])
			worstSD = max(worstSD, math.Abs(s.SD/sd[j]-1))
		}
		t.Logf("%s, batch_blocks = %d: worst mean %.3f sd, worst sd %.1f%%; noise ratio %.4f, step %.3f", what, blocks, worstMean, 100*worstSD, res.Tuning.NoiseRatio, res.Tuning.StepSize)
		if worstMean > 0.15 || worstSD > 0.15 {
			t.Errorf("%s, batch_blocks = %d: a mean %.3f sd from the exact one or an sd %.1f%% off", what, blocks, worstMean, 100*worstSD)
		}
		return res.Tuning.NoiseRatio
	}
	run("rows in random order", x, y, 0)
	shuffled := run("rows in random order", x, y, 5)
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(x[a][0], x[b][0]) })
	xs, ys := make([][]float64, len(x)), make([]float64, len(y))
	for i, o := range order {
		xs[i], ys[i] = x[o], y[o]
	}
	if sorted := run("rows sorted by x₁", xs, ys, 5); sorted < 10*shuffled {
		t.Errorf("rows sorted by x₁: the warm-up's noise ratio %.4f, shuffled %.4f: blocks of sorted rows should be much noisier", sorted, shuffled)
	}
}
