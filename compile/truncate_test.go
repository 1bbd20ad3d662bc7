package compile_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestTruncation: y ~ normal(mu, sigma) T[L, U] is the normal's log
// density less log(Φ((U − mu)/sigma) − Φ((L − mu)/sigma)), written out
// with gonum's normal, for both bounds, the lower alone (in a plate, one
// normaliser a row) and the upper alone; a discrete variate's T[L, U]
// normalises by P(L ≤ k ≤ U) = F(U) − F(L − 1) (gonum's Poisson); the
// gradients match central differences, bounds on parameters included.
func TestTruncation(t *testing.T) {
	data := map[string]any{"N": 4, "y": []float64{0.5, 1.2, 2.0, 0.1}, "k": []int{2, 3, 5, 8}}
	head := "data { N: int  y: real[N]  k: int[N] }\nparam { mu: real  sigma: real<lower=0> }\n"
	theta := []float64{0.3, math.Log(1.4)}
	mu, sigma := 0.3, 1.4
	nd := distuv.Normal{Mu: mu, Sigma: sigma}
	pois := distuv.Poisson{Lambda: sigma}
	sumY := func(f func(y float64) float64) float64 {
		s := 0.0
		for _, y := range data["y"].([]float64) {
			s += f(y)
		}
		return s
	}
	for _, c := range []struct {
		name, body string
		logp       float64 // without sigma's log-Jacobian
	}{
		{"both", "y ~ normal(mu, sigma) T[0, 2.5]", sumY(func(y float64) float64 { return nd.LogProb(y) - math.Log(nd.CDF(2.5)-nd.CDF(0)) })},
		{"lower in a plate", "for n in plate(N) { y[n] ~ normal(mu, sigma) T[0, ] }", sumY(func(y float64) float64 { return nd.LogProb(y) - math.Log(nd.Survival(0)) })},
		{"upper", "y ~ normal(mu, sigma) T[, 3]", sumY(func(y float64) float64 { return nd.LogProb(y) - math.Log(nd.CDF(3)) })},
		{"far tail", "y ~ normal(mu, 0.01) T[-1, ]", sumY(func(y float64) float64 {
			// Φ((−1 − 0.3)/0.01) is 1e-3600: the normaliser is 1 − that, log 0.
			return distuv.Normal{Mu: mu, Sigma: 0.01}.LogProb(y)
		})},
		{"discrete", "k ~ poisson(sigma) T[2, 8]", func() float64 {
			s := 0.0
			for _, k := range data["k"].([]int) {
				s += pois.LogProb(float64(k)) - math.Log(pois.CDF(8)-pois.CDF(1))
			}
			return s
		}()},
		{"discrete lower", "k ~ poisson(sigma) T[2, ]", func() float64 {
			s := 0.0
			for _, k := range data["k"].([]int) {
				s += pois.LogProb(float64(k)) - math.Log(1-pois.CDF(1))
			}
			return s
		}()},
	} {
		src := head + "model {\n  " + c.body + "\n}"
		u, _ := energyAt(t, src, data, theta)
		want := -c.logp - theta[1]
		if math.Abs(u-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s: energy %.15g, want %.15g", c.name, u, want)
		}
		checkEnergyGradient(t, mustCompile(t, src, data), theta, 0)
	}

	// A bound that is a parameter: the normaliser's gradient flows to it,
	// and data outside it has density zero (energy +∞), as Stan's.
	src := head + "model {\n  y ~ normal(0, 1) T[mu, mu + sigma + 2]\n}"
	u, _ := energyAt(t, src, data, []float64{-0.5, 0})
	std := distuv.UnitNormal
	want := -sumY(func(y float64) float64 { return std.LogProb(y) - math.Log(std.CDF(2.5)-std.CDF(-0.5)) })
	if math.Abs(u-want) > 1e-9*math.Abs(want) {
		t.Errorf("bounds on parameters: energy %.15g, want %.15g", u, want)
	}
	checkEnergyGradient(t, mustCompile(t, src, data), []float64{-0.5, 0}, 0)
	if u, _ := energyAt(t, src, data, []float64{0.2, 0}); !math.IsInf(u, 1) {
		t.Errorf("y[4] = 0.1 below the lower bound mu = 0.2: energy %v, want +Inf", u)
	}
}

// TestTruncationErrors: data outside bounds known when the model is
// compiled is refused, naming the element; a distribution without a log
// CDF cannot be truncated.
func TestTruncationErrors(t *testing.T) {
	data := map[string]any{"N": 3, "y": []float64{0.5, -1.2, 2.0}, "k": []int{0, 1, 2}}
	head := "data { N: int  y: real[N]  k: int[N] }\nparam { mu: real }\nmodel {\n  "
	for _, c := range []struct{ body, want string }{
		{"y ~ normal(mu, 1) T[0, ]", "element 2 of y is -1.2, outside the truncation T[0, ]"},
		{"for n in plate(N) { y[n] ~ normal(mu, 1) T[-2, 1] }", "element 3 of y is 2, outside the truncation T[-2, 1]"},
		{"y[3] ~ normal(mu, 1) T[, 1.5]", "y[3] is 2, outside the truncation T[, 1.5]"},
		{"k ~ poisson_log(mu) T[0, 5]", "poisson_log cannot be truncated"},
	} {
		_, err := tryCompile(head+c.body+"\n}", data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.body, err, c.want)
		}
	}
}
