package gppoisson_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/examples/internal/reference"
)

// TestPosterior runs the example as `temper run model.ppl` does (the
// defaults: sampler auto chooses NUTS, predicting about 13 s against the
// minute it gives NUTS; 14 of its 8,000 transitions diverge, and it
// escalates to NUTS with adapt_delta 0.95, where none do; 4 chains of
// 2000 draws) and checks its posterior, rho, alpha, eta and the latent
// log rate f, against the long reference run of reference.json, and the
// reference against the simulation's rho and alpha (within 3 posterior
// sds unless the simulation was a 1-in-370 draw). Cut into 12 runs of 4
// chains × 2,000 draws, the reference run's own blocks lie within 0.032
// sds of its means, and within 3.3% of its sds but rho's, whose
// inv_gamma(5, 5) tail (a kurtosis near 20) makes its sd the slowest to
// settle: up to 6.0% off, about 3.4% as a root mean square. So 0.1 sds is
// three times the worst mean's Monte Carlo error, and 10% three times
// the typical error of rho's sd, the test's narrowest margin. A run with
// the prior alpha ~ normal(0, 1) in place of normal(0, 2) fails it:
// alpha's mean is 0.35 sds off and its sd 27% short, and 23 of f's 30
// means or sds are off too.
func TestPosterior(t *testing.T) {
	reference.CheckPosterior(t, "model.ppl", "reference.json", 3, 0.1, 0.1)
}

// TestGradient compiles the latent GP and checks the gradient of its log
// density, through cholesky_decompose, gp_exp_quad_cov and the product
// with eta, against central differences at a random point (step 1e-5:
// error O(h²) plus rounding ε·|log p|/h, both below 1e-6 here) with a
// short length scale, rho = 0.3: there neighbouring points correlate at
// 0.5 and the covariance is well conditioned. At rho = 1.5 its condition
// number, bounded by the jitter 1e-9, reaches about 1e9, and a difference
// quotient of its factor keeps few digits.
func TestGradient(t *testing.T) {
	m, err := temper.CompileFile("model.ppl", nil) // the infer block's data.json
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(35, 2))
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = rng.Float64() - 0.5
	}
	theta[0] = math.Log(0.3) // rho, the first parameter, unconstrained
	grad := make([]float64, len(theta))
	if _, err := m.LogDensity(theta, grad); err != nil {
		t.Fatal(err)
	}
	at := func(i int, h float64) float64 {
		x := append([]float64(nil), theta...)
		x[i] += h
		v, err := m.LogDensity(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := range theta {
		const h = 1e-5
		fd := (at(i, h) - at(i, -h)) / (2 * h)
		if math.Abs(fd-grad[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂ log p/∂θ_%d = %v, central difference %v", i, grad[i], fd)
		}
	}
}
