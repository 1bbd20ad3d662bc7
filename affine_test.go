package temper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestOffsetMultiplier: real<offset=mu, multiplier=tau> samples theta in
// u = (theta − mu)/tau, with log|dθ/du| = log tau per element, so the
// centred model written with it has exactly the density of the
// non-centred model written by hand, eta = u (Stan's affine transform):
// Π N(mu + tau·u | mu, tau)·tau^J = Π N(u | 0, 1). Both log densities and
// their gradients agree to rounding at random points, and a constrained
// point (inits) maps back to its unconstrained one.
func TestOffsetMultiplier(t *testing.T) {
	head := "data { J: int  y: real[J]  sigma: real<lower=0>[J] }\n"
	like := "  for j in plate(J) { y[j] ~ normal(theta[j], sigma[j]) } }"
	data := map[string]any{"y": []float64{28, 8, -3, 7, -1, 1, 18, 12}, "sigma": []float64{15, 10, 16, 11, 9, 11, 10, 18}}
	affine, err := temper.Compile("affine.ppl", head+"param { mu: real  tau: real<lower=0>  theta: real<offset=mu, multiplier=tau>[J] }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  theta ~ normal(mu, tau)\n"+like, data)
	if err != nil {
		t.Fatal(err)
	}
	byHand, err := temper.Compile("noncentred.ppl", head+"param { mu: real  tau: real<lower=0>  eta: real[J] }\ntransformed param { theta = mu + tau * eta }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  eta ~ normal(0, 1)\n"+like, data)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	d := affine.Dim()
	ga, gb := make([]float64, d), make([]float64, d)
	var offset float64
	for k := range 20 {
		theta := make([]float64, d)
		for i := range theta {
			theta[i] = 4*rng.Float64() - 2
		}
		a, err1 := affine.LogDensity(theta, ga)
		b, err2 := byHand.LogDensity(theta, gb)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if k == 0 {
			offset = a - b // the normal's constants, the same at every point
		}
		if math.Abs(a-b-offset) > 1e-9 {
			t.Errorf("point %d: log densities %.12g and %.12g differ by %.3g, not by the constant %.3g", k, a, b, a-b, offset)
		}
		for i := range ga {
			if math.Abs(ga[i]-gb[i]) > 1e-9*(1+math.Abs(gb[i])) {
				t.Errorf("point %d: gradient %d is %.12g with offset and multiplier, %.12g by hand", k, i, ga[i], gb[i])
			}
		}
		x, err := affine.ConstrainParams(theta)
		if err != nil {
			t.Fatal(err)
		}
		mu, tau := x[0], x[1]
		for j := range 8 {
			if want := mu + tau*theta[2+j]; math.Abs(x[2+j]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("point %d: theta.%d is %g, want mu + tau·u = %g", k, j+1, x[2+j], want)
			}
		}
		back, err := affine.Compiled().Unconstrain(map[string][]float64{"mu": x[:1], "tau": x[1:2], "theta": x[2:]})
		if err != nil {
			t.Fatal(err)
		}
		for i := range back {
			if math.Abs(back[i]-theta[i]) > 1e-8 {
				t.Fatalf("point %d: unconstrained %v, want %v", k, back, theta)
			}
		}
	}
}
