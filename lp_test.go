package temper_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestLpIsTheLogDensity checks the lp__ column against a direct evaluation
// of the log density (Model.LogDensity, log-Jacobian included) at each
// draw, in every gradient mode. An exact sampler, and an SG sampler on
// every row, must agree to rounding. On minibatches lp__ is the minus
// energy estimate the step used: the plain N/B-scaled sum, or the control
// variate's U(θ̂) + Ũ_B(θ) - Ũ_B(θ̂) (Baker et al. 2019, Eq. 4) around a
// fixed or a refreshed centre. Each is unbiased given θ, and the minibatch
// of iteration k is drawn after θ_k is set, so the differences d_k =
// lp___k - log p(θ_k) are martingale differences: their mean must be zero
// within its standard error sd(d)/√n: four standard errors (a false alarm
// once in 16,000 seeds) is the bound, 0.3-2 nats here over 4,000 draws;
// an energy that left out the control variate centre's full-data energy
// would be about 200 nats off.
func TestLpIsTheLogDensity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	const n = 200
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = 1 + 0.5*x[i] + 0.8*rng.NormFloat64()
	}
	m, err := temper.Compile("lp.ppl", `data { N: int  x: real[N]  y: real[N] }
param { a: real  b: real  sigma: real<lower=0> }
model {
  a ~ normal(0, 10)
  b ~ normal(0, 10)
  sigma ~ exponential(1)
  for n in plate(N) { y[n] ~ normal(a + b * x[n], sigma) }
}`, map[string]any{"x": x, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		opts  temper.Options
		exact bool // lp__ is the log density, to rounding
	}{
		{name: "nuts", opts: temper.Options{Sampler: "nuts"}, exact: true},
		{name: "sghmc, every row", opts: temper.Options{Sampler: "sghmc"}, exact: true},
		{name: "sghmc, plain minibatch gradient", opts: temper.Options{Sampler: "sghmc", Batch: 20, Settings: map[string]any{"gradient": "plain"}}},
		{name: "sghmc, control variate", opts: temper.Options{Sampler: "sghmc", Batch: 20, Settings: map[string]any{"gradient": "control_variate"}}},
		{name: "sghmc, refreshed control variate", opts: temper.Options{Sampler: "sghmc", Batch: 20, Settings: map[string]any{"gradient": "control_variate", "cv_refresh": 25}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.opts
			o.Chains, o.Iters, o.Seed = 2, 2000, 3
			res, err := m.Sample(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			lp, a, b, sigma := drawsOf(t, res, "lp__"), drawsOf(t, res, "a"), drawsOf(t, res, "b"), drawsOf(t, res, "sigma")
			var sum, sum2 float64
			count := 0
			for ch := range lp {
				for k := range lp[ch] {
					theta, err := m.Compiled().Unconstrain(map[string][]float64{"a": {a[ch][k]}, "b": {b[ch][k]}, "sigma": {sigma[ch][k]}})
					if err != nil {
						t.Fatal(err)
					}
					want, err := m.LogDensity(theta, nil)
					if err != nil {
						t.Fatal(err)
					}
					d := lp[ch][k] - want
					if c.exact && math.Abs(d) > 1e-6*(1+math.Abs(want)) {
						t.Fatalf("chain %d draw %d: lp__ %.10g, log density at the draw %.10g", ch+1, k+1, lp[ch][k], want)
					}
					sum, sum2, count = sum+d, sum2+d*d, count+1
				}
			}
			mean := sum / float64(count)
			se := math.Sqrt((sum2/float64(count) - mean*mean) / float64(count))
			t.Logf("lp__ minus the log density: mean %.4g, standard error %.3g over %d draws", mean, se, count)
			if !c.exact && math.Abs(mean) > 4*se {
				t.Errorf("lp__ is off the log density at the draws by %.4g on average (standard error %.3g)", mean, se)
			}
		})
	}
}
