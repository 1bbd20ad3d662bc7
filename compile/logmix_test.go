package compile_test

import (
	"math"
	"strings"
	"testing"
)

// TestLogMixK: Stan's K-component log_mix(theta, lps), theta a simplex
// and lps a vector of the components' log densities, is log Σ θ_k e^lps_k
// written out, on one vector and in a plate (one mixture a row, theta
// shared or each row's own); the gradient matches central differences;
// vectors of different lengths are an error.
func TestLogMixK(t *testing.T) {
	data := map[string]any{"N": 4, "y": []float64{0.5, -1.2, 2.0, 0.1}}
	head := "data { N: int  y: real[N] }\nparam { theta: simplex[3]  mu: real[3] }\nmodel {\n  mu ~ normal(0, 2)\n  "
	written := func(y string) string {
		return "log(theta[1] * exp(normal_lpdf(" + y + " | mu[1], 1)) + theta[2] * exp(normal_lpdf(" + y + " | mu[2], 1)) + theta[3] * exp(normal_lpdf(" + y + " | mu[3], 1)))"
	}
	theta := []float64{0.2, -0.4, -1, 0.5, 1.5}
	for _, c := range []struct{ name, a, b string }{
		{"vector", "lps: real[3]\n  for k in 1:3 { lps[k] = normal_lpdf(y[2] | mu[k], 1) }\n  target += log_mix(theta, lps)", "target += " + written("y[2]")},
		{"plate", "for n in plate(N) {\n lps: real[3]\n for k in 1:3 { lps[k] = normal_lpdf(y[n] | mu[k], 1) }\n target += log_mix(theta, lps) }", "for n in plate(N) { target += " + written("y[n]") + " }"},
		{"plate, theta per row", "for n in plate(N) {\n lps: real[3]\n w: real[3] = theta * (1 + 0 * y[n])\n for k in 1:3 { lps[k] = normal_lpdf(y[n] | mu[k], 1) }\n target += log_mix(w, lps) }", "for n in plate(N) { target += " + written("y[n]") + " }"},
	} {
		ua, ga := energyAt(t, head+c.a+"\n}", data, theta)
		ub, gb := energyAt(t, head+c.b+"\n}", data, theta)
		if math.Abs(ua-ub) > 1e-10 {
			t.Errorf("%s: energy %.15g, want %.15g", c.name, ua, ub)
		}
		for i := range ga {
			if math.Abs(ga[i]-gb[i]) > 1e-10 {
				t.Errorf("%s: gradient %v, want %v", c.name, ga, gb)
				break
			}
		}
		checkEnergyGradient(t, mustCompile(t, head+c.a+"\n}", data), theta, 0)
	}
	_, err := tryCompile(head+"lps: real[2] = 0\n  target += log_mix(theta, lps)\n}", data)
	if want := "log_mix(theta, lps) takes two vectors of the K components' proportions and log densities, and these have shapes [3] and [2]"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("mismatched lengths: %v, want an error saying %q", err, want)
	}
}
