package stdlib_test

import (
	"math"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
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
	}
}
