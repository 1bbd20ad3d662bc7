package stdlib_test

import (
	"math"
	"math/rand/v2"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// logMixRef is log(θ e^a + (1-θ) e^b) written out, e^a and e^b taken
// relative to the larger of a and b so that the tails' points stay finite.
func logMixRef(x []float64) float64 {
	t, a, b := x[0], x[1], x[2]
	m := math.Max(a, b)
	return m + math.Log(t*math.Exp(a-m)+(1-t)*math.Exp(b-m))
}

// TestLogMix: values against logMixRef and gradients against finite
// differences through the harness, on broadcast layouts and at points
// whose exponentials underflow (log densities of -1000 and below) or
// where one component dominates; θ = 0 and 1 leave one component, and θ
// outside [0, 1] is NaN.
func TestLogMix(t *testing.T) {
	build := func(x []*ad.Node) *ad.Node { return stdlib.LogMix(x[0], x[1], x[2]) }
	draw := []func(*rand.Rand) float64{adtest.Unit, adtest.Real, adtest.Real}
	for _, l := range scalarLayouts {
		shapes := l.shapes[:3]
		inputs := make([]adtest.Input, 3)
		for i := range inputs {
			inputs[i] = adtest.Input{Shape: shapes[i], Draw: draw[i]}
		}
		t.Run(l.name, func(t *testing.T) {
			adtest.Run(t, adtest.Case{Name: "log_mix/" + l.name, Inputs: inputs, Build: build,
				Reference: broadcastReference(shapes, logMixRef)})
		})
	}
	tails := scalarCase{name: "log_mix", build: build, ref: logMixRef, draw: draw,
		tails: [][]float64{{0.3, -1000, -1003}, {0.5, -2000, -1000}, {1e-6, 5, -30}, {0.999, -745, -800}, {0.5, 700, 700}},
	}
	t.Run("tails", func(t *testing.T) { runTails(t, tails) })
	// The partials there: log_mix(θ, a + c, b + c) is log_mix(θ, a, b) + c,
	// so its partials are those at a shift to where finite differences
	// with a step of 1e-3·|x| are fine (the harness's, above).
	far, near := [][]float64{{0.3, 0.5}, {-1000, -2000}, {-1003, -1000}}, [][]float64{{0.3, 0.5}, {0, -1000}, {-3, 0}}
	vf, gf := evalDensity(t, func(x ...*ad.Node) *ad.Node { return build(x) }, []ad.Shape{{2}, {2}, {2}}, far)
	vn, gn := evalDensity(t, func(x ...*ad.Node) *ad.Node { return build(x) }, []ad.Shape{{2}, {2}, {2}}, near)
	for j := range vf {
		if math.Abs(vf[j]+1000-vn[j]) > 1e-12*math.Abs(vf[j]) {
			t.Errorf("log_mix shifted by -1000: %v, unshifted %v", vf[j], vn[j])
		}
		for i := range gf {
			if math.Abs(gf[i][j]-gn[i][j]) > 1e-12 {
				t.Errorf("log_mix point %d: ∂/∂x%d %v shifted by -1000, %v unshifted", j, i, gf[i][j], gn[i][j])
			}
		}
	}

	vals, grads := evalDensity(t, func(x ...*ad.Node) *ad.Node { return build(x) }, []ad.Shape{{4}, {4}, {4}},
		[][]float64{{0, 1, 1.5, -0.1}, {-2, -2, 0, 0}, {-3, -3, 0, 0}})
	if vals[0] != -3 || vals[1] != -2 || !math.IsNaN(vals[2]) || !math.IsNaN(vals[3]) {
		t.Errorf("log_mix at θ = 0, 1, 1.5, -0.1: %v, want -3, -2, NaN, NaN", vals)
	}
	// At θ = 0 the value is lp2's, whose weight is 1; θ's partial is
	// e^(lp1 - v) - 1.
	if g := []float64{grads[0][0], grads[1][0], grads[2][0]}; math.Abs(g[0]-(math.Exp(1)-1)) > 1e-15 || g[1] != 0 || g[2] != 1 {
		t.Errorf("log_mix partials at θ = 0: %v", g)
	}
}
