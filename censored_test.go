package temper_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper"
)

// censoredGammaSrc is a gamma model for lifetimes some of which are
// right-censored: an observed y[n] contributes its density, a row censored
// at c[n] the probability of outliving it, gamma_lccdf. naiveGammaSrc
// drops the censored rows, the mistake the censoring term corrects.
const (
	censoredGammaSrc = `
data { N: int  y: real[N]  M: int  c: real[M] }
param { alpha: real<lower=0>  beta: real<lower=0> }
model {
  alpha ~ gamma(2, 0.5)
  beta ~ gamma(2, 0.5)
  y ~ gamma(alpha, beta)
  target += gamma_lccdf(c | alpha, beta)
}
generated { mean_life = alpha / beta }
`
	naiveGammaSrc = `
data { N: int  y: real[N] }
param { alpha: real<lower=0>  beta: real<lower=0> }
model {
  alpha ~ gamma(2, 0.5)
  beta ~ gamma(2, 0.5)
  y ~ gamma(alpha, beta)
}
generated { mean_life = alpha / beta }
`
)

// TestCensoredGamma simulates 300 gamma(2.5, rate 1.5) lifetimes, each
// censored at a uniform time on (0.5, 3) (about 40% are), and
// samples the censored model with the defaults: each posterior mean of
// alpha, beta and the mean lifetime alpha/beta must lie within 4
// posterior standard deviations of the truth (the posterior mean misses
// the truth by about one sd from the data's noise alone, and 4 sd is
// exceeded with probability 6e-5 under the posterior's normal
// approximation; the Monte Carlo error, sd/√ESS, is a few hundredths of
// that). Dropping the censored rows instead keeps only the short
// lifetimes: the naive mean lifetime must miss the truth by more than 4
// of its posterior sds, so that the censoring term is what recovers it.
func TestCensoredGamma(t *testing.T) {
	const alpha, beta, n = 2.5, 1.5, 300
	src := rand.NewPCG(34, 35)
	life := distuv.Gamma{Alpha: alpha, Beta: beta, Src: src}
	censor := distuv.Uniform{Min: 0.5, Max: 3, Src: src}
	var y, c []float64
	for range n {
		if v, at := life.Rand(), censor.Rand(); v <= at {
			y = append(y, v)
		} else {
			c = append(c, at)
		}
	}
	t.Logf("%d observed, %d censored", len(y), len(c))
	truth := map[string]float64{"alpha": alpha, "beta": beta, "mean_life": alpha / beta}
	fit := func(src string, data map[string]any) map[string][2]float64 {
		t.Helper()
		m, err := temper.Compile("censored.ppl", src, data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Sample(context.Background(), temper.Options{Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("warnings %q", res.Warnings)
		}
		out := map[string][2]float64{}
		for _, st := range res.Summary() {
			if _, ok := truth[st.Name]; ok {
				out[st.Name] = [2]float64{st.Mean, st.SD}
				t.Logf("%s: mean %.4f sd %.4f (ESS %.0f), truth %.4f, off by %.2f sd", st.Name, st.Mean, st.SD, st.ESSBulk, truth[st.Name], (st.Mean-truth[st.Name])/st.SD)
			}
		}
		return out
	}
	for name, ms := range fit(censoredGammaSrc, map[string]any{"N": len(y), "y": y, "M": len(c), "c": c}) {
		if off := math.Abs(ms[0]-truth[name]) / ms[1]; !(off < 4) {
			t.Errorf("censored model: %s mean %.4f, truth %.4f, %.1f posterior sds off", name, ms[0], truth[name], off)
		}
	}
	naive := fit(naiveGammaSrc, map[string]any{"N": len(y), "y": y})["mean_life"]
	if off := (truth["mean_life"] - naive[0]) / naive[1]; !(off > 4) {
		t.Errorf("without the censoring term the mean lifetime %.4f is only %.1f sds below the truth %.4f", naive[0], off, truth["mean_life"])
	}
}
