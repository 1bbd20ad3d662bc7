package temper_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
)

// largeLogisticModel is the model of largeLogistic's data.
const largeLogisticModel = `data { N: int  D: int  X: real[N, D]  y: int<lower=0, upper=1>[N] }
param { beta: real[D] }
model {
  beta ~ normal(0, 1)
  for n in plate(N) { y[n] ~ bernoulli_logit(dot(X[n], beta)) }
}`

// largeLogistic is a logistic regression of n rows and d standard normal
// features with coefficients N(0, 0.5²), and its Laplace approximation:
// the mode by Newton's method on every row and the sds from the inverse
// Hessian there (with N(0, 1) priors, as the model has).
func largeLogistic(n, d int, seed uint64) (x [][]float64, y []float64, mode, sd []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	beta := make([]float64, d)
	for j := range beta {
		beta[j] = 0.5 * rng.NormFloat64()
	}
	x, y = make([][]float64, n), make([]float64, n)
	for i := range n {
		x[i] = make([]float64, d)
		eta := 0.0
		for j := range d {
			x[i][j] = rng.NormFloat64()
			eta += x[i][j] * beta[j]
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	mode = make([]float64, d)
	h := mat.NewSymDense(d, nil)
	for range 8 { // Newton: quadratic convergence from 0
		g := make([]float64, d)
		hess := make([]float64, d*d)
		for j := range d {
			g[j] = mode[j] // prior N(0, 1)
			hess[j*d+j] = 1
		}
		for i := range n {
			eta := 0.0
			for j, v := range x[i] {
				eta += v * mode[j]
			}
			p := 1 / (1 + math.Exp(-eta))
			w := p * (1 - p)
			for j, v := range x[i] {
				g[j] += (p - y[i]) * v
				row := hess[j*d : (j+1)*d]
				for k := j; k < d; k++ {
					row[k] += w * v * x[i][k]
				}
			}
		}
		for j := range d {
			for k := j; k < d; k++ {
				h.SetSym(j, k, hess[j*d+k])
			}
		}
		var step mat.VecDense
		var chol mat.Cholesky
		chol.Factorize(h)
		chol.SolveVecTo(&step, mat.NewVecDense(d, g))
		for j := range d {
			mode[j] -= step.AtVec(j)
		}
	}
	var chol mat.Cholesky
	chol.Factorize(h)
	var cov mat.SymDense
	chol.InverseTo(&cov)
	sd = make([]float64, d)
	for j := range d {
		sd[j] = math.Sqrt(cov.At(j, j))
	}
	return x, y, mode, sd
}

// TestLargeN samples a logistic regression of a million rows and 50
// features with the defaults: minibatches of 1,000 (the default above
// 10,000 rows), the control-variate gradient (the plain one's noise would
// cap the step by orders of magnitude) and the warm-up's step and metric.
// At this N the posterior is Gaussian to within O(1/√N) (Bernstein-von
// Mises), so the Laplace approximation's means and sds are the reference:
// every mean within 0.1 sd, every sd within 10%, as the issue asks. The
// sds' Monte Carlo error at the ESS of several hundred is under 4%.
// TEMPER_LARGE_N sets the rows (the suite's default is 200,000, about 10 s
// on the 2-core machine; a million takes about 40 s).
func TestLargeN(t *testing.T) {
	n := 200_000
	if s := os.Getenv("TEMPER_LARGE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	if testing.Short() {
		t.Skip("a large-data run; skipped with -short")
	}
	const d = 50
	start := time.Now()
	x, y, mode, sd := largeLogistic(n, d, 1)
	setup := time.Since(start)
	m, err := temper.Compile("large.ppl", largeLogisticModel, map[string]any{"X": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	res, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	worstMean, worstSD := 0.0, 0.0
	minESS := math.Inf(1)
	stats := res.Summary()
	for j := range d {
		s := stats[j+1]
		z, r := math.Abs(s.Mean-mode[j])/sd[j], s.SD/sd[j]-1
		worstMean, worstSD = max(worstMean, z), max(worstSD, math.Abs(r))
		minESS = min(minESS, s.ESSBulk)
		if z > 0.1 || math.Abs(r) > 0.1 {
			t.Errorf("%s: mean %.5f (Laplace %.5f, %.2f sd), sd %.5f (Laplace %.5f, %+.1f%%)", s.Name, s.Mean, mode[j], z, s.SD, sd[j], 100*r)
		}
	}
	t.Logf("N = %d, D = %d: sampled in %v (data and reference %v); tuning %+v; worst mean %.3f sd, worst sd %.1f%%, min bulk ESS %.0f; warnings %q",
		n, d, elapsed.Round(time.Millisecond), setup.Round(time.Millisecond), *res.Tuning, worstMean, 100*worstSD, minESS, res.Warnings)

	// The first wave's failure: SGLD with a step given by hand (stable:
	// lr·λ_max ≈ 0.04) on plain minibatches of 1,000, whose gradient noise
	// makes the posterior several times too wide, without a word. Now the
	// run says so.
	plain, err := m.Sample(context.Background(), temper.Options{Sampler: "sgld", Settings: map[string]any{"lr": 1e-6}, Batch: 1000, Seed: 1, Iters: 1000})
	if err != nil {
		t.Fatal(err)
	}
	wide := 0.0
	for j, s := range plain.Summary()[1:] {
		wide = max(wide, s.SD/sd[j])
	}
	warned := false
	for _, w := range plain.Warnings {
		warned = warned || strings.HasPrefix(w, "the minibatch gradient noise widens the posterior: at lr = 1e-06")
	}
	if !warned || wide < 1.5 {
		t.Errorf("SGLD at lr = 1e-6 on plain minibatches: sds up to %.1f times the Laplace ones, warnings %q", wide, plain.Warnings)
	}
}

// TestControlVariateRecentred is the failure that recentring the control
// variate after the settle (infer's sgKernel.recentre) fixes: a logistic
// regression on 200,000 rows sampled on minibatches of 50, where the
// warm-up's centre, the optimiser's end point, lies posterior sds from the
// bulk (the sds shrink as 1/√N). The warm-up measured the control
// variate's noise around that centre and found it small, but the chains
// sample near the mode, where its noise, of order ‖θ - θ̂‖²N²/B, is not:
// every sd came out 20-44% too wide, without a warning. Centred at the
// chains' mean they are within 3-7%. The tolerance, 12% on each sd and 0.15
// sd on each mean, sits above the sampling error of five sds from about
// 1,000 effective draws (an sd's relative error is about 1/√(2·ESS), 2.2%)
// plus the 2.6% and 2.5% the step's discretisation and noise caps allow,
// and below the failure's 20%.
func TestControlVariateRecentred(t *testing.T) {
	if testing.Short() {
		t.Skip("a large-data run; skipped with -short")
	}
	const n, d = 200_000, 5
	x, y, mode, sd := largeLogistic(n, d, 2)
	m, err := temper.Compile("recentred.ppl", largeLogisticModel, map[string]any{"X": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Sampler: "sghmc", Batch: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Tuning.ControlVariate {
		t.Fatalf("the warm-up did not choose the control variate: %+v", *res.Tuning)
	}
	for j, s := range res.Summary()[1:] {
		z, r := math.Abs(s.Mean-mode[j])/sd[j], s.SD/sd[j]-1
		if z > 0.15 || math.Abs(r) > 0.12 {
			t.Errorf("%s: mean %.5f (Laplace %.5f, %.2f sd), sd %.5f (Laplace %.5f, %+.1f%%); tuning %+v", s.Name, s.Mean, mode[j], z, s.SD, sd[j], 100*r, *res.Tuning)
		}
	}
}
