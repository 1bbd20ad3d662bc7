package eightschools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/examples/internal/reference"
)

type schools struct {
	J        int
	Y, Sigma []float64
}

func readSchools(t *testing.T) schools {
	raw, err := os.ReadFile("schools.json")
	if err != nil {
		t.Fatal(err)
	}
	var d schools
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// exactPosterior computes the posterior means and sds of mu, tau and
// theta by quadrature. With theta integrated out, the marginal posterior
// of (mu, tau) is
//
//	p(mu, tau | y) ∝ N(mu | 0, 5²) · 2 Cauchy(tau | 0, 5) · Π_j N(y_j | mu, σ_j² + tau²)
//
// and given (mu, tau) each theta_j is normal with precision 1/σ_j² +
// 1/tau² and mean (y_j/σ_j² + mu/tau²)/precision (BDA section 5.4). The
// grid is in (mu, log tau), fine enough that halving it changes no moment
// in its fourth digit.
func exactPosterior(d schools) map[string]reference.Moments {
	const nMu, nU = 1200, 1200
	muLo, muHi := -40.0, 50.0
	uLo, uHi := -14.0, 7.0 // tau from 8e-7 to 1100
	hMu, hU := (muHi-muLo)/nMu, (uHi-uLo)/nU
	var w float64
	m1 := map[string]float64{}
	m2 := map[string]float64{}
	add := func(name string, weight, mean, variance float64) {
		m1[name] += weight * mean
		m2[name] += weight * (variance + mean*mean)
	}
	// The log densities on the grid, then their maximum, so that the
	// weights are exp of differences.
	logp := make([]float64, nMu*nU)
	best := math.Inf(-1)
	for i := range nMu {
		mu := muLo + (float64(i)+0.5)*hMu
		for k := range nU {
			u := uLo + (float64(k)+0.5)*hU
			tau := math.Exp(u)
			lp := -0.5*mu*mu/25 - math.Log1p(tau*tau/25) + u // u: the Jacobian of tau = e^u
			for j := range d.J {
				v := d.Sigma[j]*d.Sigma[j] + tau*tau
				lp += -0.5*math.Log(v) - 0.5*(d.Y[j]-mu)*(d.Y[j]-mu)/v
			}
			logp[i*nU+k] = lp
			best = max(best, lp)
		}
	}
	for i := range nMu {
		mu := muLo + (float64(i)+0.5)*hMu
		for k := range nU {
			tau := math.Exp(uLo + (float64(k)+0.5)*hU)
			p := math.Exp(logp[i*nU+k] - best)
			w += p
			add("mu", p, mu, 0)
			add("tau", p, tau, 0)
			for j := range d.J {
				prec := 1/(d.Sigma[j]*d.Sigma[j]) + 1/(tau*tau)
				mean := (d.Y[j]/(d.Sigma[j]*d.Sigma[j]) + mu/(tau*tau)) / prec
				add(fmt.Sprintf("theta.%d", j+1), p, mean, 1/prec)
			}
		}
	}
	out := map[string]reference.Moments{}
	for name, s := range m1 {
		mean := s / w
		out[name] = reference.Moments{Mean: mean, SD: math.Sqrt(m2[name]/w - mean*mean)}
	}
	return out
}

// TestEightSchoolsAgainstQuadrature runs the example as `temper run` does
// (its infer block: the defaults, 4 chains × 10,000 draws) and checks mu,
// tau and the eight thetas, the transformed parameters, against the
// quadrature. Tolerances: means within 0.1 posterior sd and sds within
// 10%. tau's bulk ESS is the smallest, about 1,600 (seed 1): its mean's
// Monte Carlo error is 0.025 sd, and its sd's, for a skewed, heavy-tailed
// marginal, several times a normal's 1.8%. Measured with seed 1: the
// worst mean 0.041 sd off, the worst sd 3.0% off.
func TestEightSchoolsAgainstQuadrature(t *testing.T) {
	exact := exactPosterior(readSchools(t))
	res := reference.RunDefaults(t, "model.ppl", 1)
	if len(res.Warnings) > 0 {
		t.Errorf("warnings with the defaults: %q", res.Warnings)
	}
	worstMean, worstSD := reference.Compare(t, res, exact, 0.1, 0.1)
	t.Logf("mu %.3f (%.3f), tau %.3f (%.3f), theta.1 %.3f (%.3f); worst mean %.3f sd, worst sd %.1f%%",
		exact["mu"].Mean, exact["mu"].SD, exact["tau"].Mean, exact["tau"].SD, exact["theta.1"].Mean, exact["theta.1"].SD, worstMean, 100*worstSD)
}

// TestPosteriorPredictiveCheck reads the replicated experiments: y_rep.j
// has the predictive sd √(σ_j² + Var(theta_j)) of the quadrature, and the
// p-values (the means of exceeds.j) lie in (0, 1), none extreme for a
// model that fits these data.
func TestPosteriorPredictiveCheck(t *testing.T) {
	d := readSchools(t)
	exact := exactPosterior(d)
	m, err := temper.CompileFile("model.ppl", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Seed: 2, Iters: 4000})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Summary() {
		var j int
		if _, err := fmt.Sscanf(s.Name, "y_rep.%d", &j); err == nil {
			th := exact[fmt.Sprintf("theta.%d", j)]
			want := math.Sqrt(d.Sigma[j-1]*d.Sigma[j-1] + th.SD*th.SD)
			// The predictive sd's Monte Carlo error is about
			// sd/√(2 ESS) ≈ 0.6% at ESS 16,000: 3% is 5 of them.
			if math.Abs(s.SD/want-1) > 0.03 {
				t.Errorf("%s: sd %.3f, want %.3f", s.Name, s.SD, want)
			}
		}
		if _, err := fmt.Sscanf(s.Name, "exceeds.%d", &j); err == nil && (s.Mean < 0.05 || s.Mean > 0.95) {
			t.Errorf("%s: p-value %.3f", s.Name, s.Mean)
		}
	}
}
