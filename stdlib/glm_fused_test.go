package stdlib_test

import (
	"math"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// TestBernoulliLogitGLMFused runs the fused bernoulli_logit_glm (the op a
// graph built for the CPU gets) through the harness as TestGLMs runs the
// composed one: values against the density at α + x·β by a plain loop,
// gradients in x, α and β against finite differences under the harness's
// unequal output weights (the fused op's second pass), a float32 program
// against the float64 one. 600 rows make three blocks of the forward pass,
// the last one partial; the intercept is a scalar or one per row.
func TestBernoulliLogitGLMFused(t *testing.T) {
	const d = 3
	for _, rows := range []int{5, 600} {
		for _, alpha := range []ad.Shape{{}, {rows}} {
			adtest.Run(t, adtest.Case{Name: "bernoulli_logit_glm fused",
				Inputs: []adtest.Input{
					{Shape: ad.Shape{rows}, Draw: adtest.Ints(0, 1), Data: true},
					{Shape: ad.Shape{rows, d}, Draw: adtest.Uniform(-1, 1)},
					{Shape: alpha, Draw: adtest.Real},
					{Shape: ad.Shape{d}, Draw: adtest.Uniform(-1, 1)},
				},
				Build: func(x []*ad.Node) *ad.Node {
					x[0].Graph().SetHostOnly()
					n := lookup("bernoulli_logit_glm")(x)
					if name := n.Op().Name(); name != "bernoulli_logit_glm" {
						t.Fatalf("a host-only graph got %s, not the fused op", name)
					}
					return n
				},
				Reference: func(x [][]float64) []float64 {
					out := make([]float64, rows)
					for r := range out {
						eta := glmEta(x, r, d)
						out[r] = math.Log(1 / (1 + math.Exp(-eta)))
						if x[0][r] == 0 {
							out[r] = math.Log(1 / (1 + math.Exp(eta)))
						}
					}
					return out
				}})
		}
	}
}

// TestBernoulliLogitGLMFusedSum: under a plate's sum (every output weight
// equal, here 2.5) the fused op's gradient comes from its forward pass
// (xᵀ·r and Σ r, scaled), and equals the composed graph's within 1e-12
// relative (the same terms summed in other orders), as does the energy;
// 1,000 rows of 20, α a scalar.
func TestBernoulliLogitGLMFusedSum(t *testing.T) {
	const rows, d, weight = 1000, 20, 2.5
	rng := rand.New(rand.NewPCG(7, 8))
	y, x, beta := make([]float64, rows), make([]float64, rows*d), make([]float64, d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for j := range beta {
		beta[j] = 0.3 * rng.NormFloat64()
	}
	for i := range y {
		y[i] = float64(rng.IntN(2))
	}
	alpha := []float64{0.4}
	run := func(host bool) (float64, []float64, []float64) {
		g := ad.NewGraph(1)
		if host {
			g.SetHostOnly()
		}
		ins := []*ad.Node{g.Input("y", ad.Data, rows), g.Input("x", ad.Data, rows, d), g.Input("alpha", ad.Param), g.Input("beta", ad.Param, d)}
		out := lookup("bernoulli_logit_glm")(ins)
		if fused := out.Op().Name() == "bernoulli_logit_glm"; fused != host {
			t.Fatalf("host-only %v: the graph's op is %s", host, out.Op().Name())
		}
		loss := ad.Mul(ad.SumAll(out), g.Scalar(weight))
		prog, err := g.Compile(loss)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range [][]float64{y, x, alpha, beta} {
			if err := prog.Set(ins[k], v); err != nil {
				t.Fatal(err)
			}
		}
		prog.Forward()
		if err := prog.Backward(loss); err != nil {
			t.Fatal(err)
		}
		return prog.Value(loss)[0], append([]float64(nil), prog.Grad(ins[2])...), append([]float64(nil), prog.Grad(ins[3])...)
	}
	e0, ga0, gb0 := run(false)
	e1, ga1, gb1 := run(true)
	close := func(what string, got, want float64) {
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("%s: fused %.17g, composed %.17g", what, got, want)
		}
	}
	close("energy", e1, e0)
	close("∂α", ga1[0], ga0[0])
	for j := range gb0 {
		close("∂β", gb1[j], gb0[j])
	}
}
