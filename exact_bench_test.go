package temper_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
)

// BenchmarkNUTSGermanCredit runs NUTS with its defaults on the German
// credit logistic regression (examples/logistic, 1,000 rows, 49
// coefficients; 4 chains, Stan's warm-up of 1,000 iterations, then 4,000
// draws a chain, as the example's infer block asks) and reports the
// smallest bulk ESS per second of sampling, the figure the issue sets
// beside Stan's 230 on this machine class, and per second of the whole
// run, warm-up included:
//
//	go test -run '^$' -bench NUTSGermanCredit -benchtime 1x -count 3
func BenchmarkNUTSGermanCredit(b *testing.B) {
	m, err := temper.CompileFile("examples/logistic/model.ppl", nil)
	if err != nil {
		b.Fatal(err)
	}
	o, err := m.InferOptions()
	if err != nil {
		b.Fatal(err)
	}
	o.Sampler, o.Batch, o.Seed = "nuts", 0, 1
	for b.Loop() {
		res, err := m.Sample(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		minESS := math.Inf(1)
		for _, s := range res.Summary()[1:] { // the parameters, lp__ left out
			minESS = min(minESS, s.ESSBulk)
		}
		leapfrogs := 0.0
		for _, x := range res.Exact {
			leapfrogs += x.MeanLeapfrogs / float64(len(res.Exact))
		}
		b.ReportMetric(minESS/(res.Elapsed-res.Warmup).Seconds(), "ess/s-sampling")
		b.ReportMetric(minESS/res.Elapsed.Seconds(), "ess/s-total")
		b.ReportMetric(leapfrogs, "leapfrogs/draw")
		b.ReportMetric(minESS, "min-ess-bulk")
	}
}

// BenchmarkLogisticGradient times one full-data energy and gradient of a
// logistic regression of 20 features on one goroutine, as a NUTS chain
// evaluates it, at 10,000 and 100,000 rows, written with dot and
// bernoulli_logit (the composed ops) and with bernoulli_logit_glm (one
// fused op on the CPU): the figure to set beside Stan's gradient of the
// same model.
//
//	go test -run '^$' -bench LogisticGradient -count 3
func BenchmarkLogisticGradient(b *testing.B) {
	forms := []struct{ name, likelihood string }{
		{"dot", "y[n] ~ bernoulli_logit(alpha + dot(X[n], beta))"},
		{"glm", "y[n] ~ bernoulli_logit_glm(X[n], alpha, beta)"},
	}
	for _, f := range forms {
		for _, n := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/N=%d", f.name, n), func(b *testing.B) {
				m := logisticRowsModel(b, n, 20, "param { alpha: real  beta: real[D] }\nmodel {\n  alpha ~ normal(0, 1)\n  beta ~ normal(0, 1)\n  for n in plate(N) { "+f.likelihood+" }\n}")
				benchLogisticGradient(b, m, n)
			})
		}
	}
}

func benchLogisticGradient(b *testing.B, m *temper.Model, n int) {
	ev, err := m.Compiled().EvaluatorWith(1, 0, compile.EvalOptions{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = 0.1 * math.Sin(float64(i))
	}
	grad := make([]float64, m.Dim())
	var energy, variance [1]float64
	for b.Loop() {
		if err := ev.Evaluate(theta, nil, energy[:], grad, variance[:]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
}
