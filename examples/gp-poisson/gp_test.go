package gppoisson_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestGradient compiles the latent GP and checks the gradient of its log
// density, through cholesky_decompose, gp_exp_quad_cov and the product
// with eta, against central differences at a random point (step 1e-5:
// error O(h²) plus rounding ε·|log p|/h, both below 1e-6 here) with a
// short length scale, rho = 0.3: there neighbouring points correlate at
// 0.5 and the covariance is well conditioned. At rho = 1.5 its condition
// number, bounded by the jitter 1e-9, reaches about 1e9, and a difference
// quotient of its factor keeps few digits.
func TestGradient(t *testing.T) {
	raw, err := os.ReadFile("data.json")
	if err != nil {
		t.Fatal(err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	m, err := temper.CompileFile("model.ppl", data)
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
