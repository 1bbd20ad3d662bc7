package radon_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper/examples/internal/reference"
)

// exactPosterior is the Gaussian posterior of (mu, a, b) of model.ppl,
// whose energy is quadratic with the scales known: U = ½θᵀPθ - hᵀθ with
// P the prior and likelihood precisions, so the mean is P⁻¹h and the
// covariance P⁻¹.
func exactPosterior(t *testing.T) (names []string, mean, sd []float64) {
	raw, err := os.ReadFile("radon.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		J      int
		County []int
		X, Y   []float64
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	const tau, sigma = 0.35, 0.75
	n := d.J + 2 // mu, a[1..J], b
	p := mat.NewSymDense(n, nil)
	h := mat.NewVecDense(n, nil)
	add := func(i, j int, v float64) { p.SetSym(i, j, p.At(i, j)+v) }
	add(0, 0, 1.0/100+float64(d.J)/(tau*tau))
	add(n-1, n-1, 1.0/100)
	for j := 1; j <= d.J; j++ {
		add(0, j, -1/(tau*tau))
		add(j, j, 1/(tau*tau))
	}
	for i, c := range d.County {
		x, y := d.X[i], d.Y[i]
		add(c, c, 1/(sigma*sigma))
		add(c, n-1, x/(sigma*sigma))
		add(n-1, n-1, x*x/(sigma*sigma))
		h.SetVec(c, h.AtVec(c)+y/(sigma*sigma))
		h.SetVec(n-1, h.AtVec(n-1)+x*y/(sigma*sigma))
	}
	var chol mat.Cholesky
	if !chol.Factorize(p) {
		t.Fatal("the posterior precision is not positive definite")
	}
	var m mat.VecDense
	if err := chol.SolveVecTo(&m, h); err != nil {
		t.Fatal(err)
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		t.Fatal(err)
	}
	names = append(names, "mu")
	for j := 1; j <= d.J; j++ {
		names = append(names, fmt.Sprintf("a.%d", j))
	}
	names = append(names, "b")
	for i := range n {
		mean, sd = append(mean, m.AtVec(i)), append(sd, math.Sqrt(cov.At(i, i)))
	}
	return names, mean, sd
}

// TestRadonAgainstExact runs the example as `temper run` does (its infer
// block: the defaults, 4 chains × 4,000 draws) and checks every one of its
// 87 parameters against the exact Gaussian posterior: means within 0.1 sd
// and sds within 10%. The smallest bulk ESS is about 1,000, where an sd's
// Monte Carlo error is 2.2%, so the worst of 87 is expected near 7%;
// measured with seed 1: the worst mean 0.036 sd off, the worst sd 5.8% off.
func TestRadonAgainstExact(t *testing.T) {
	res := reference.RunDefaults(t, "model.ppl", 1)
	names, mean, sd := exactPosterior(t)
	exact := map[string]reference.Moments{}
	for i, name := range names {
		exact[name] = reference.Moments{Mean: mean[i], SD: sd[i]}
	}
	worstMean, worstSD := reference.Compare(t, res, exact, 0.1, 0.1)
	t.Logf("87 parameters: worst mean %.3f sd, worst sd %.1f%%; warnings %q", worstMean, 100*worstSD, res.Warnings)
}
