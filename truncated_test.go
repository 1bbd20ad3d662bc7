package temper_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper"
)

// TestTruncatedNormalPosterior samples mu of y ~ normal(mu, 1) T[0, ]
// with the defaults and checks its posterior mean and sd against the
// exact ones, computed by quadrature of the truncated likelihood
// Π φ(y_i − mu) / Φ(mu) times the prior normal(0, 3) on a grid of step
// 1e-4 (whose error is far below the Monte Carlo error): the mean within
// 4 Monte Carlo standard errors, the sd within 10%. The data are 60 draws
// of normal(0.3, 1) kept where positive; dropping T[0, ] would put the
// mean near their average, more than 3 posterior sds (over 100 MCSEs)
// above the exact one (checked first, from the untruncated posterior's
// closed form).
func TestTruncatedNormalPosterior(t *testing.T) {
	src := rand.NewPCG(35, 1)
	nd := distuv.Normal{Mu: 0.3, Sigma: 1, Src: src}
	var y []float64
	for len(y) < 60 {
		if v := nd.Rand(); v > 0 {
			y = append(y, v)
		}
	}
	// The exact posterior by quadrature.
	logPost := func(mu float64) float64 {
		lp := distuv.Normal{Mu: 0, Sigma: 3}.LogProb(mu)
		for _, v := range y {
			lp += distuv.UnitNormal.LogProb(v-mu) - math.Log(distuv.UnitNormal.CDF(mu))
		}
		return lp
	}
	const lo, hi, h = -4.0, 4.0, 1e-4
	peak := math.Inf(-1)
	for mu := lo; mu <= hi; mu += h {
		peak = math.Max(peak, logPost(mu))
	}
	var z, m1, m2 float64
	for mu := lo; mu <= hi; mu += h {
		w := math.Exp(logPost(mu) - peak)
		z, m1, m2 = z+w, m1+w*mu, m2+w*mu*mu
	}
	mean := m1 / z
	sd := math.Sqrt(m2/z - mean*mean)
	// Without the truncation the posterior is normal, of precision N + 1/9.
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	naive := sum / (float64(len(y)) + 1.0/9)
	if d := (naive - mean) / sd; !(d > 3) {
		t.Fatalf("the untruncated posterior mean %.4f is only %.1f sds from the truncated one %.4f: the test would not tell them apart", naive, d, mean)
	}

	m, err := temper.Compile("truncated.ppl", `
data { N: int  y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 3)
  y ~ normal(mu, 1) T[0, ]
}`, map[string]any{"N": len(y), "y": y})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), temper.Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Summary() {
		if st.Name != "mu" {
			continue
		}
		t.Logf("mu: mean %.4f sd %.4f (MCSE %.4f); exact %.4f sd %.4f", st.Mean, st.SD, st.MCSE, mean, sd)
		if d := math.Abs(st.Mean-mean) / st.MCSE; !(d < 4) {
			t.Errorf("mu's posterior mean %.4f is %.1f MCSEs from the exact %.4f", st.Mean, d, mean)
		}
		if r := st.SD / sd; !(math.Abs(r-1) < 0.1) {
			t.Errorf("mu's posterior sd %.4f, exact %.4f", st.SD, sd)
		}
		return
	}
	t.Fatal("no column mu")
}
