package compile_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer"
)

func powerParts(t *testing.T, m *compile.Model) (prior, lik infer.Target) {
	t.Helper()
	prior, lik, err := m.PowerParts()
	if err != nil {
		t.Fatal(err)
	}
	return prior, lik
}

// exactEnergy is U(θ) and ∇U(θ) of target on every row, in float64.
func exactEnergy(t *testing.T, target infer.Target, theta []float64) (float64, []float64) {
	t.Helper()
	ev, err := target.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, g, v := make([]float64, 1), make([]float64, len(theta)), make([]float64, 1)
	if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
		t.Fatal(err)
	}
	return e[0], g
}

// betaCDF23 is the CDF of beta(2, 3): ∫ 12x(1-x)² = 6x² - 8x³ + 3x⁴.
func betaCDF23(x float64) float64 { return 6*x*x - 8*x*x*x + 3*x*x*x*x }

// powerModels are models of each shape the split meets, with the log of
// their truncated priors' mass inside the bounds (by hand), by which
// U₀ + U₁ exceeds U.
var powerModels = []struct {
	name    string
	src     string
	data    func() map[string]any
	logMass float64
}{
	{"plate", logisticSrc, func() map[string]any { d, _, _ := logisticData(20, 3, 11); return d }, 0},
	{"vector data", `
data { N: int  y: real[N] }
param { mu: real  sigma: real<lower=0> }
model {
  mu ~ normal(0, 10)
  sigma ~ lognormal(0, 1)
  y ~ normal(mu, sigma)
}`, func() map[string]any { return map[string]any{"y": []float64{1.2, -0.3, 2.5, 0.7, 1.9}} }, 0},
	// tau ~ cauchy(0, 5) and extra ~ normal(0, tau) are cut at their
	// centre by the lower bound 0: mass ½ for each of the three values.
	{"hierarchical", `
data { J: int  y: real[J]  s: real<lower=0>[J] }
param { mu: real  tau: real<lower=0>  theta: real[J]  extra: real<lower=0>[2] }
model {
  mu ~ normal(0, 5)
  tau ~ cauchy(0, 5)
  theta ~ normal(mu, tau)
  extra ~ normal(0, tau)
  for j in plate(J) { y[j] ~ normal(theta[j], s[j]) }
}`, func() map[string]any {
		return map[string]any{"y": []float64{28, 8, -3, 7, -1, 1, 18, 12}, "s": []float64{15, 10, 16, 11, 9, 11, 10, 18}}
	}, 3 * math.Log(0.5)},
	{"bounded", `
data { n: int  k: int }
param { p: real<lower=0.2, upper=0.9>  q: real<lower=0, upper=1> }
model {
  p ~ beta(2, 3)
  q ~ beta(2, 2)
  k ~ binomial(n, p * q)
}`, func() map[string]any { return map[string]any{"n": 10, "k": 3} }, math.Log(betaCDF23(0.9) - betaCDF23(0.2))},
	{"plate latent", `
data { N: int  y: real[N] }
param { s: real<lower=0>  z: real[N] }
model {
  s ~ exponential(1)
  for n in plate(N) {
    z[n] ~ normal(0, s)
    y[n] ~ normal(z[n], 1)
  }
}`, func() map[string]any { return map[string]any{"y": []float64{0.5, -1, 2, 0.1, 0.3, -0.7}} }, 0},
}

// TestPowerPartsSumToWhole checks at random points that the prior's and
// the likelihood's energies add up to the model's (less the truncation
// constant), their gradients too, and each part's gradient against
// central differences of its energy.
func TestPowerPartsSumToWhole(t *testing.T) {
	for _, c := range powerModels {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, c.src, c.data())
			prior, lik := powerParts(t, m)
			if prior.NumData() != 0 || lik.NumData() != m.NumData() || prior.Dim() != m.Dim() || lik.Dim() != m.Dim() {
				t.Fatalf("prior: N %d, D %d; likelihood: N %d, D %d; model: N %d, D %d", prior.NumData(), prior.Dim(), lik.NumData(), lik.Dim(), m.NumData(), m.Dim())
			}
			if !slices.Equal(prior.OutputNames(), m.OutputNames()) || !slices.Equal(lik.OutputNames(), m.OutputNames()) {
				t.Fatalf("output names %v, %v; model %v", prior.OutputNames(), lik.OutputNames(), m.OutputNames())
			}
			if _, _, err := prior.(infer.PowerTarget).PowerParts(); err == nil {
				t.Error("a part split again")
			}
			rng := rand.New(rand.NewPCG(7, 7))
			for range 3 {
				theta := make([]float64, m.Dim())
				for i := range theta {
					theta[i] = 0.7 * rng.NormFloat64()
				}
				u, g := exactEnergy(t, m, theta)
				u0, g0 := exactEnergy(t, prior, theta)
				u1, g1 := exactEnergy(t, lik, theta)
				if got := u0 + u1 - c.logMass; math.Abs(got-u) > 1e-10*math.Max(1, math.Abs(u)) {
					t.Errorf("U₀ + U₁ - log mass = %.15g + %.15g - %.15g = %.15g, U = %.15g", u0, u1, c.logMass, got, u)
				}
				for i := range g {
					if math.Abs(g0[i]+g1[i]-g[i]) > 1e-10*math.Max(1, math.Abs(g[i])) {
						t.Errorf("∂/∂θ%d: %.15g + %.15g, whole %.15g", i, g0[i], g1[i], g[i])
					}
				}
				for _, p := range []struct {
					name   string
					target infer.Target
					grad   []float64
				}{{"prior", prior, g0}, {"likelihood", lik, g1}} {
					for i := range theta {
						const h = 1e-5
						up, down := slices.Clone(theta), slices.Clone(theta)
						up[i] += h
						down[i] -= h
						eu, _ := exactEnergy(t, p.target, up)
						ed, _ := exactEnergy(t, p.target, down)
						fd := (eu - ed) / (2 * h)
						if math.Abs(p.grad[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
							t.Errorf("%s: ∂U/∂θ%d = %.10g, finite difference %.10g", p.name, i, p.grad[i], fd)
						}
					}
				}
			}
		})
	}
}

// TestPowerPartsChunked splits a model whose pass over every row is made
// in parts (chunkedEvaluator): the parts still add up to the whole.
func TestPowerPartsChunked(t *testing.T) {
	defer compile.SetChunkRows(3)()
	data, _, _ := logisticData(20, 3, 12)
	m := compileSrc(t, logisticSrc, data)
	prior, lik := powerParts(t, m)
	theta := []float64{0.3, -0.5, 0.8, 0.1, -0.2}
	u, g := exactEnergy(t, m, theta)
	u0, g0 := exactEnergy(t, prior, theta)
	u1, g1 := exactEnergy(t, lik, theta)
	if math.Abs(u0+u1-u) > 1e-10*math.Abs(u) {
		t.Errorf("U₀ + U₁ = %.15g + %.15g, U = %.15g", u0, u1, u)
	}
	for i := range g {
		if math.Abs(g0[i]+g1[i]-g[i]) > 1e-10*math.Max(1, math.Abs(g[i])) {
			t.Errorf("∂/∂θ%d: %.15g + %.15g, whole %.15g", i, g0[i], g1[i], g[i])
		}
	}
}

// TestPowerLikelihoodMinibatch checks that the likelihood's minibatch
// energy is scaled N/B: over the batches of a partition of the rows, one
// replica each, its mean is the full-data likelihood's energy; and that
// the prior is exact, whatever batch is asked for.
func TestPowerLikelihoodMinibatch(t *testing.T) {
	const n, b = 24, 6
	data, _, _ := logisticData(n, 3, 13)
	m := compileSrc(t, logisticSrc, data)
	prior, lik := powerParts(t, m)
	theta := []float64{0.3, -0.5, 0.8, 0.1, -0.2}
	full, _ := exactEnergy(t, lik, theta)
	const p = n / b
	ev, err := lik.Evaluator(p, b)
	if err != nil {
		t.Fatal(err)
	}
	if ev.BatchSize() != b {
		t.Fatalf("likelihood batch %d, want %d", ev.BatchSize(), b)
	}
	thetas := slices.Concat(theta, theta, theta, theta)
	energy, grad, variance := make([]float64, p), make([]float64, p*5), make([]float64, p)
	if err := ev.Evaluate(thetas, rand.New(rand.NewPCG(4, 4)).Perm(n), energy, grad, variance); err != nil {
		t.Fatal(err)
	}
	mean := 0.0
	for c := range p {
		mean += energy[c] / p
		if !(variance[c] > 0) {
			t.Errorf("batch %d: variance %v", c, variance[c])
		}
	}
	if math.Abs(mean-full) > 1e-9*math.Abs(full) {
		t.Errorf("mean minibatch likelihood energy %.12g, full %.12g", mean, full)
	}
	pe, err := prior.Evaluator(1, b)
	if err != nil {
		t.Fatal(err)
	}
	if pe.BatchSize() != 0 {
		t.Errorf("prior batch %d, want 0 (exact)", pe.BatchSize())
	}
}

// integrate is the trapezoid rule's ∫ e^{-U₀(u)} du over a grid of the
// unconstrained space of target, of dimension 1 or 2, each axis from lo
// to hi in steps of h (the integrand vanishing at the ends). One
// evaluation computes a row of the grid, a replica per point.
func integrate(t *testing.T, target infer.Target, lo, hi, h []float64) float64 {
	t.Helper()
	d := target.Dim()
	count := func(k int) int { return int(math.Round((hi[k]-lo[k])/h[k])) + 1 }
	rows := 1
	if d == 2 {
		rows = count(0)
	}
	cols := count(d - 1)
	ev, err := target.Evaluator(cols, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta, e, g, v := make([]float64, cols*d), make([]float64, cols), make([]float64, cols*d), make([]float64, cols)
	total := 0.0
	for r := range rows {
		for c := range cols {
			theta[c*d+d-1] = lo[d-1] + float64(c)*h[d-1]
			if d == 2 {
				theta[c*d] = lo[0] + float64(r)*h[0]
			}
		}
		if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
			t.Fatal(err)
		}
		for c, u := range e {
			if math.IsNaN(u) {
				t.Fatalf("U₀(%v) is NaN", theta[c*d:(c+1)*d])
			}
			total += math.Exp(-u)
		}
	}
	for k := range d {
		total *= h[k]
	}
	return total
}

// TestPowerPriorNormalised integrates the prior's e^{-U₀} over the
// unconstrained space: 1, for priors whole on their support (the
// Jacobian of each constrained type included) and for priors truncated
// by bounds (renormalised by the CDF's mass inside them).
func TestPowerPriorNormalised(t *testing.T) {
	for _, c := range []struct{ decl, prior string }{
		{"sigma: real<lower=0>", "sigma ~ normal(0, 2)"},
		{"x: real<lower=1, upper=3>", "x ~ normal(0, 2)"},
		{"x: real<lower=-1, upper=2>", "x ~ cauchy(0.5, 1)"},
		{"x: real<upper=-1>", "x ~ student_t(3, 0, 1)"},
		{"x: real<lower=0.5>", "x ~ gamma(2, 1.5)"},
		{"x: real<lower=0>", "x ~ inv_gamma(3, 2)"},
		{"x: real<lower=0, upper=2>", "x ~ inv_gamma(3, 2)"},
		{"x: real<lower=0.3>", "x ~ weibull(1.5, 1)"},
		{"x: real<lower=0.3, upper=4>", "x ~ lognormal(0, 1)"},
		{"x: real<lower=-2, upper=1>", "x ~ double_exponential(0.5, 1)"},
		{"x: real<lower=-2, upper=1>", "x ~ logistic(0.5, 1)"},
		{"x: real<lower=1>", "x ~ exponential(2)"},
		{"x: real<lower=0.5>", "x ~ half_normal(1)"},
		{"x: real<lower=0, upper=3>", "x ~ half_cauchy(1)"},
		{"x: real<lower=0.1, upper=0.6>", "x ~ beta(2, 3)"},
		{"x: real<lower=0, upper=2>", "x ~ uniform(-1, 4)"},
		{"x: real<offset=1, multiplier=3>", "x ~ normal(1, 3)"},
		{"w: simplex[2]", "w ~ dirichlet([2, 3])"},
		{"L: cholesky_factor_corr[2]", "L ~ lkj_corr_cholesky(2)"},
	} {
		src := "param { " + c.decl + " }\nmodel { " + c.prior + " }"
		m := compileSrc(t, src, nil)
		prior, _ := powerParts(t, m)
		if z := integrate(t, prior, []float64{-60}, []float64{60}, []float64{0.005}); math.Abs(z-1) > 1e-6 {
			t.Errorf("%s; %s: ∫ e^{-U₀} = %.10f", c.decl, c.prior, z)
		}
	}
	src := `param { mu: real  p: real<lower=0, upper=1> }
model {
  mu ~ normal(1, 3)
  p ~ beta(2, 3)
}`
	prior, _ := powerParts(t, compileSrc(t, src, nil))
	if z := integrate(t, prior, []float64{-35, -25}, []float64{37, 25}, []float64{0.1, 0.05}); math.Abs(z-1) > 1e-6 {
		t.Errorf("normal and beta: ∫ e^{-U₀} = %.10f", z)
	}
}

// TestPowerPartsRefused checks each refusal's message: what is wrong,
// where, and what to change.
func TestPowerPartsRefused(t *testing.T) {
	y := map[string]any{"y": []float64{0.5, 1, 1.5}}
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"target +=", `data { N: int  y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 1)
  target += -0.5 * sum((y - mu) ^ 2)
}`, []string{"target += at test.ppl:5:3 could be either", "write it as a ~ statement"}},
		{"no prior", `data { N: int  y: real[N] }
param { mu: real  sigma: real<lower=0> }
model {
  mu ~ normal(0, 1)
  y ~ normal(mu, sigma)
}`, []string{"parameter sigma has no prior", "log Z is undefined", "give it a proper prior"}},
		{"part without prior", `data { N: int  y: real[N] }
param { beta: real[3] }
model {
  beta[1:2] ~ normal(0, 1)
  y ~ normal(beta, 1)
}`, []string{"parameter beta has no prior on beta.3"}},
		{"two priors", `data { N: int  y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 1)
  mu ~ normal(0, 2)
  y ~ normal(mu, 1)
}`, []string{"parameter mu has two priors on mu", "test.ppl:4:3", "test.ppl:5:3"}},
		{"function of parameters", `data { N: int  y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, 1)
  y - mu ~ normal(0, 1)
}`, []string{"the left side of ~ at test.ppl:5:3, y - mu, depends on parameters but is not a parameter"}},
		{"transformed parameter", `data { N: int  y: real[N] }
param { mu: real }
transformed param { m2 = 2 * mu }
model {
  m2 ~ normal(0, 1)
  y ~ normal(mu, 1)
}`, []string{"m2, depends on parameters but is not a parameter"}},
		{"cycle", `data { N: int  y: real[N] }
param { a: real  b: real }
model {
  a ~ normal(b, 1)
  b ~ normal(a, 1)
  y ~ normal(a + b, 1)
}`, []string{"the priors of a, b depend on each other"}},
		{"self", `data { N: int  y: real[N] }
param { x: real[3] }
model {
  x[1] ~ normal(0, 1)
  x[2:3] ~ normal(x[1:2], 1)
  y ~ normal(x, 1)
}`, []string{"the prior of x at test.ppl:5:3 depends on x itself"}},
		{"unknown mass", `data { N: int  y: real[N] }
param { mu: real  tau: real<lower=0> }
model {
  mu ~ normal(0, 1)
  tau ~ normal(mu, 1)
  y ~ normal(mu, tau)
}`, []string{"the bounds of tau (<lower=0>) cut the support of its prior normal at test.ppl:5:3", "not all numbers or data scalars"}},
		{"bound of a parameter", `data { N: int  y: real[N] }
param { lo: real  x: real<lower=lo> }
model {
  lo ~ normal(0, 1)
  x ~ exponential(1)
  y ~ normal(x, 1)
}`, []string{"the bounds of x (<lower=lo>) depend on parameters"}},
		{"no CDF", `data { N: int  y: real[N] }
param { x: real<lower=1> }
model {
  x ~ skew_normal(0, 1, 2)
  y ~ normal(x, 1)
}`, []string{"no CDF of skew_normal"}},
		{"in the plate", `data { N: int  y: real[N] }
param { mu: real }
model {
  for n in plate(N) {
    mu ~ normal(0, 1)
    y[n] ~ normal(mu, 1)
  }
}`, []string{"the prior of mu at test.ppl:5:5 is inside the plate"}},
		{"ordered", `data { N: int  y: real[N] }
param { c: ordered[3] }
model {
  c ~ normal(0, 1)
  y ~ normal(c, 1)
}`, []string{"parameter c is declared ordered", "no normalised prior"}},
		{"dirichlet on reals", `data { N: int  y: real[N] }
param { w: real<lower=0, upper=1>[3] }
model {
  w ~ dirichlet([1, 1, 1])
  y ~ normal(w, 1)
}`, []string{"declare w a simplex"}},
		{"von mises", `data { N: int  y: real[N] }
param { x: real }
model {
  x ~ von_mises(0, 1)
  y ~ normal(x, 1)
}`, []string{"von_mises", "one turn"}},
		{"broadcast", `data { N: int  y: real[N] }
param { mu: real }
model {
  mu ~ normal(0, [1, 2])
  y ~ normal(mu, 1)
}`, []string{"test.ppl:4:3", "broadcast beyond the left side"}},
		{"no mass", `data { N: int  y: real[N] }
param { x: real<lower=0> }
model {
  x ~ uniform(-2, -1)
  y ~ normal(x, 1)
}`, []string{"no mass inside the bounds of x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compileSrc(t, c.src, y)
			_, _, err := m.PowerParts()
			if err == nil {
				t.Fatal("split; want a refusal")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}
