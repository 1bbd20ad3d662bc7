package compile_test

import (
	"math"
	"strings"
	"testing"
)

// stanDists are densities_stan.go's densities with arguments a model
// writes: p are positive parameters (declared <lower=0>), the data y are
// positive and above the constant lower bounds pareto's y_min and
// pareto_type_2's μ.
var stanDists = []struct{ name, args, rngArgs string }{
	{"gumbel", "p[1], p[2]", "1, 2"},
	{"pareto", "1.2, p[1]", "1.2, 3"},
	{"chi_square", "p[1]", "3"},
	{"inv_chi_square", "p[1]", "3"},
	{"scaled_inv_chi_square", "p[1], p[2]", "3, 0.5"},
	{"rayleigh", "p[1]", "2"},
	{"frechet", "p[1], p[2]", "2, 1"},
	{"loglogistic", "p[1], p[2]", "2, 3"},
	{"exp_mod_normal", "p[1], p[2], p[3]", "1, 2, 0.5"},
	{"pareto_type_2", "1, p[1], p[2]", "1, 2, 3"},
}

// TestStanDistributions: each of the distributions added for Stan's
// models is usable as y ~ NAME(θ) in a plate, as target += NAME_lpdf(y |
// θ) there and on the whole vector, with the same energy and gradient,
// the gradient matching finite differences; and NAME_rng draws in the
// generated block, finite, in the support.
func TestStanDistributions(t *testing.T) {
	data := map[string]any{"N": 4, "y": []float64{1.5, 2.2, 3.1, 4.7}}
	head := "data { N: int  y: real[N] }\nparam { p: real<lower=0>[3] }\n"
	prior := "p ~ gamma(2, 1)\n  "
	theta := []float64{math.Log(1.3), math.Log(0.8), math.Log(2.1)}
	for _, d := range stanDists {
		forms := []string{
			"for n in plate(N) { y[n] ~ " + d.name + "(" + d.args + ") }",
			"for n in plate(N) { target += " + d.name + "_lpdf(y[n] | " + d.args + ") }",
			"target += " + d.name + "_lpdf(y | " + d.args + ")",
		}
		src := func(i int) string { return head + "model {\n  " + prior + forms[i] + "\n}" }
		u0, g0 := energyAt(t, src(0), data, theta)
		if math.IsNaN(u0) || math.IsInf(u0, 0) {
			t.Errorf("%s: energy %v", d.name, u0)
			continue
		}
		for i := 1; i < len(forms); i++ {
			u, g := energyAt(t, src(i), data, theta)
			if math.Abs(u-u0) > 1e-10*math.Max(1, math.Abs(u0)) {
				t.Errorf("%s: energy %.15g with ~, %.15g with %s", d.name, u0, u, forms[i])
			}
			for j := range g {
				if math.Abs(g[j]-g0[j]) > 1e-10*math.Max(1, math.Abs(g0[j])) {
					t.Errorf("%s: gradient %v with ~, %v with %s", d.name, g0, g, forms[i])
					break
				}
			}
		}
		for i := range theta {
			h := 1e-6
			up, down := append([]float64(nil), theta...), append([]float64(nil), theta...)
			up[i] += h
			down[i] -= h
			uu, _ := energyAt(t, src(0), data, up)
			ud, _ := energyAt(t, src(0), data, down)
			if fd := (uu - ud) / (2 * h); math.Abs(fd-g0[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: ∂U/∂θ%d %.10g, finite differences %.10g", d.name, i, g0[i], fd)
			}
		}

		g, err := compileGenerator("data { N: int }\ngenerated { for n in plate(N) { z = "+d.name+"_rng("+d.rngArgs+") } }", map[string]any{"N": 3})
		if err != nil {
			t.Errorf("%s_rng: %v", d.name, err)
			continue
		}
		out := make([]float64, 3)
		lower := map[string]float64{"pareto": 1.2, "pareto_type_2": 1, "gumbel": math.Inf(-1), "exp_mod_normal": math.Inf(-1)}
		lo, ok := lower[d.name]
		if !ok {
			lo = 0
		}
		for s := range uint64(200) {
			g.Draw(out, s)
			for _, v := range out {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < lo {
					t.Fatalf("%s_rng(%s) drew %v", d.name, d.rngArgs, v)
				}
			}
		}
	}
}

// TestLogMix: a two-component normal mixture written with log_mix is the
// hand-written one, energy and gradient, in a plate; log_mix of a whole
// vector of log densities is elementwise.
func TestLogMix(t *testing.T) {
	data := map[string]any{"N": 4, "y": []float64{0.5, -1.2, 2.0, 0.1}}
	head := "data { N: int  y: real[N] }\nparam { mu: real[2]  sigma: real<lower=0>  theta: real<lower=0, upper=1> }\n"
	prior := "mu ~ normal(0, 1)\n  sigma ~ exponential(1)\n  "
	theta := []float64{0.3, -0.8, math.Log(1.4), 0.4}
	hand := "for n in plate(N) { target += log(theta * exp(normal_lpdf(y[n] | mu[1], sigma)) + (1 - theta) * exp(normal_lpdf(y[n] | mu[2], sigma))) }"
	for _, body := range []string{
		"for n in plate(N) { target += log_mix(theta, normal_lpdf(y[n] | mu[1], sigma), normal_lpdf(y[n] | mu[2], sigma)) }",
		"target += sum(log_mix(theta, -0.5 * ((y - mu[1]) / sigma) ^ 2, -0.5 * ((y - mu[2]) / sigma) ^ 2) - log(sigma) - 0.5 * log(2 * pi()))",
	} {
		ua, ga := energyAt(t, head+"model {\n  "+prior+hand+"\n}", data, theta)
		ub, gb := energyAt(t, head+"model {\n  "+prior+body+"\n}", data, theta)
		if math.Abs(ua-ub) > 1e-10 {
			t.Errorf("%s: energy %.15g, %.15g written out", body, ub, ua)
		}
		for i := range ga {
			if math.Abs(ga[i]-gb[i]) > 1e-10 {
				t.Errorf("%s: gradient %v, %v written out", body, gb, ga)
				break
			}
		}
	}
	if _, err := tryCompile(head+"model { target += log_mix(theta, 1) }", data); err == nil || !strings.Contains(err.Error(), "log_mix") {
		t.Errorf("log_mix with 2 arguments: %v", err)
	}
}
