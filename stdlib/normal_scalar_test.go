package stdlib_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// TestNormalScalarParamsSupport: with scalar μ and σ, normal takes its own
// loop; outside the support it must agree with the elementwise density:
// -Inf, with zero partials and no NaN.
func TestNormalScalarParamsSupport(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		y         []float64
		mu, sigma float64
		want      []float64 // nil: every element -Inf
	}{
		{[]float64{0.5, -1}, 0, 0, nil},
		{[]float64{0.5, -1}, 0, -1, nil},
		{[]float64{0.5, -1}, 0, inf, nil},
		{[]float64{0.5, -1}, -inf, 1, nil},
		{[]float64{inf, 0}, 0, 1, []float64{math.Inf(-1), -0.5 * math.Log(2*math.Pi)}},
		{[]float64{nan, 1}, 0, 1, []float64{math.Inf(-1), -0.5 - 0.5*math.Log(2*math.Pi)}},
	}
	for _, c := range cases {
		g := ad.NewGraph(1)
		y := g.Input("y", ad.Param, len(c.y))
		mu, sigma := g.Input("mu", ad.Param), g.Input("sigma", ad.Param)
		lp := stdlib.NormalLPDF(y, mu, sigma)
		loss := ad.SumAll(lp)
		p, err := g.Compile(lp, loss)
		if err != nil {
			t.Fatal(err)
		}
		copy(p.Value(y), c.y) // Set refuses NaN
		p.Value(mu)[0], p.Value(sigma)[0] = c.mu, c.sigma
		p.Forward()
		if err := p.Backward(loss); err != nil {
			t.Fatal(err)
		}
		for i, v := range p.Value(lp) {
			want := math.Inf(-1)
			if c.want != nil {
				want = c.want[i]
			}
			if v != want && math.Abs(v-want) > 1e-15 {
				t.Errorf("normal(%v | %v, %v)[%d] = %v, want %v", c.y, c.mu, c.sigma, i, v, want)
			}
		}
		for _, n := range []*ad.Node{y, mu, sigma} {
			for i, gr := range p.Grad(n) {
				if math.IsNaN(gr) || math.IsInf(gr, 0) || (c.want == nil && gr != 0) {
					t.Errorf("normal(%v | %v, %v): ∂/∂%s[%d] = %v", c.y, c.mu, c.sigma, n.Name(), i, gr)
				}
			}
		}
		// The fused sum agrees with the sum of the densities, value and
		// gradient (to rounding: it sums in another order).
		fused := stdlib.SumAll(lp)
		q, err := g.Compile(fused)
		if err != nil {
			t.Fatal(err)
		}
		copy(q.Value(y), c.y)
		q.Value(mu)[0], q.Value(sigma)[0] = c.mu, c.sigma
		if err := q.ForwardBackward(fused); err != nil {
			t.Fatal(err)
		}
		if got, want := q.Value(fused)[0], p.Value(loss)[0]; got != want && math.Abs(got-want) > 1e-14*math.Abs(want) {
			t.Errorf("Σ normal(%v | %v, %v) fused = %v, summed %v", c.y, c.mu, c.sigma, got, want)
		}
		for _, n := range []*ad.Node{y, mu, sigma} {
			for i, gr := range q.Grad(n) {
				if want := p.Grad(n)[i]; gr != want && math.Abs(gr-want) > 1e-14*math.Abs(want) {
					t.Errorf("Σ normal(%v | %v, %v): fused ∂/∂%s[%d] = %v, summed %v", c.y, c.mu, c.sigma, n.Name(), i, gr, want)
				}
			}
		}
	}
}

// TestNormalScalarSum: the fused Σ normal_lpdf against the sum of the
// reference densities, its gradient against finite differences, and in
// float32 against float64 (the harness's checks).
func TestNormalScalarSum(t *testing.T) {
	adtest.Run(t, adtest.Case{
		Name: "sum_normal",
		Inputs: []adtest.Input{{Shape: ad.Shape{2, 3}, Draw: adtest.Real},
			{Shape: ad.Shape{}, Draw: adtest.Real}, {Shape: ad.Shape{}, Draw: adtest.Positive}},
		Build: func(x []*ad.Node) *ad.Node {
			sum := stdlib.SumAll(stdlib.NormalLPDF(x[0], x[1], x[2]))
			if len(sum.Inputs()) != 3 { // autodiff.SumAll would have the densities as its one operand
				t.Errorf("SumAll of a normal density with scalar parameters is %s of %d operands, not the fused op", sum.Op().Name(), len(sum.Inputs()))
			}
			return sum
		},
		Reference: func(x [][]float64) []float64 {
			s := 0.0
			for _, y := range x[0] {
				s += distuv.Normal{Mu: x[1][0], Sigma: x[2][0]}.LogProb(y)
			}
			return []float64{s}
		},
	})
}
