//go:build cuda

package temper

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/temper-ppl/temper/autodiff/gputest"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
)

// TestDeviceEvaluators evaluates the examples' energies, gradients and
// minibatch variances on the GPU and on the CPU at the same random points
// and minibatches: float64 agrees to 1e-10 relative (the sums' order and
// libdevice's last bits), float32 to 1e-5 in norm (the bar).
func TestDeviceEvaluators(t *testing.T) {
	gputest.Require(t)
	for _, c := range []struct {
		file  string
		batch int
	}{
		{"examples/logistic/model.ppl", 100},
		{"examples/logistic/model.ppl", 0},
		{"examples/eight-schools/model.ppl", 0},
		{"examples/radon/model.ppl", 64},
	} {
		m, err := CompileFile(c.file, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f32 := range []bool{false, true} {
			compareEvaluators(t, m, c.file, c.batch, f32)
		}
	}
}

func compareEvaluators(t *testing.T, m *Model, name string, batch int, f32 bool) {
	t.Helper()
	const P = 4
	cpu, err := m.cm.EvaluatorWith(P, batch, compile.EvalOptions{Float32: f32, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := m.cm.EvaluatorWith(P, batch, compile.EvalOptions{Float32: f32, Device: "cuda"})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	d := m.Dim()
	r := rand.New(rand.NewPCG(3, 4))
	theta := make([]float64, P*d)
	for i := range theta {
		theta[i] = r.NormFloat64() * 0.5
	}
	var rows []int
	if b := cpu.BatchSize(); b > 0 {
		rows = make([]int, P*b)
		for i := range rows {
			rows[i] = r.IntN(m.NumData())
		}
	}
	type result struct{ energy, grad, variance []float64 }
	eval := func(e interface {
		Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error
	}) result {
		res := result{make([]float64, P), make([]float64, P*d), make([]float64, P)}
		if err := e.Evaluate(theta, rows, res.energy, res.grad, res.variance); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	want, got := eval(cpu), eval(gpu)
	tol := 1e-10
	if f32 {
		tol = 1e-5
	}
	for p := range P {
		if rel := math.Abs(got.energy[p]-want.energy[p]) / math.Max(1, math.Abs(want.energy[p])); rel > tol {
			t.Errorf("%s f32=%v replica %d: energy %.12g on the GPU, %.12g on the CPU", name, f32, p, got.energy[p], want.energy[p])
		}
		if rel := math.Abs(got.variance[p]-want.variance[p]) / math.Max(1, math.Abs(want.variance[p])); rel > 100*tol {
			t.Errorf("%s f32=%v replica %d: variance %.12g on the GPU, %.12g on the CPU", name, f32, p, got.variance[p], want.variance[p])
		}
		diff, norm := 0.0, 0.0
		for i := p * d; i < (p+1)*d; i++ {
			diff += (got.grad[i] - want.grad[i]) * (got.grad[i] - want.grad[i])
			norm += want.grad[i] * want.grad[i]
		}
		if math.Sqrt(diff) > tol*math.Max(1, math.Sqrt(norm)) {
			t.Errorf("%s f32=%v replica %d: gradients differ by %.3g in norm (of %.3g)", name, f32, p, math.Sqrt(diff), math.Sqrt(norm))
		}
	}
}

// TestDeviceSGLD samples a normal mean by SGLD with its positions, noise
// and updates on the GPU (infer.DeviceStepper) and on the CPU with the same
// settings, full-batch and on minibatches: the two chains' means agree
// within 4 Monte Carlo standard errors and their sds within 10% (both
// have the same discretisation bias, about 2.5% in sd at this step), and
// the full-batch run's mean and sd match the exact posterior.
func TestDeviceSGLD(t *testing.T) {
	gputest.Require(t)
	const n = 100
	r := rand.New(rand.NewPCG(5, 6))
	y := make([]float64, n)
	sum := 0.0
	for i := range y {
		y[i] = 3 + r.NormFloat64()
		sum += y[i]
	}
	m, err := Compile("mean.ppl", `
data { N: int; y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 10)
  for n in plate(N) { y[n] ~ normal(mu, 1) }
}`, map[string]any{"N": n, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.cm.EvaluatorWith(4, 0, compile.EvalOptions{Device: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(infer.DeviceStepper); !ok {
		t.Fatal("the device evaluator does not step on the device")
	}
	precision := n + 1.0/100
	exactMean, exactSD := sum/precision, 1/math.Sqrt(precision)
	for _, batch := range []int{0, 20} {
		moments := func(device string) (mean, sd, se float64) {
			res, err := m.Sample(context.Background(), Options{Sampler: "sgld", Settings: map[string]any{"lr": 1e-3},
				Chains: 4, Burn: 500, Iters: 8000, Batch: batch, Seed: 1, Device: device})
			if err != nil {
				t.Fatal(err)
			}
			var xs []float64
			for _, chain := range res.Draws {
				for _, d := range chain {
					xs = append(xs, d[1])
				}
			}
			mean, sd = stat.MeanStdDev(xs, nil)
			// SGLD at lr 1e-3 on a curvature of 100 has an autocorrelation
			// time of about 1/(lr·100) = 10 steps: 20 is a safe bound.
			return mean, sd, sd / math.Sqrt(float64(len(xs))/20)
		}
		gm, gs, gse := moments("cuda")
		cm, cs, cse := moments("cpu")
		t.Logf("batch %d: GPU %.4f ± %.4f, CPU %.4f ± %.4f, exact %.4f ± %.4f", batch, gm, gs, cm, cs, exactMean, exactSD)
		if math.Abs(gm-cm) > 4*math.Hypot(gse, cse) || math.Abs(gs/cs-1) > 0.1 {
			t.Errorf("batch %d: the GPU's SGLD gives %.4f ± %.4f, the CPU's %.4f ± %.4f", batch, gm, gs, cm, cs)
		}
		if batch == 0 && (math.Abs(gm-exactMean) > 4*gse || math.Abs(gs/exactSD-1) > 0.1) {
			t.Errorf("the GPU's SGLD gives %.4f ± %.4f, the exact posterior is %.4f ± %.4f", gm, gs, exactMean, exactSD)
		}
	}
}
