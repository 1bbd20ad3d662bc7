package stdlib_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper/stdlib"
)

// The generators are checked by their sample moments against the exact
// ones, with a fixed seed per case so that every check is deterministic.
// Tolerances are 5 Monte Carlo standard errors: σ/√n for the mean, and
// √((μ₄ - σ⁴)/n) for the sample variance, whose sampling variance is
// (μ₄ - σ⁴)/n + O(1/n²) (Cramér, Mathematical Methods of Statistics,
// 27.4), μ₄ being the exact fourth central moment. Heavy tails (no finite
// fourth moment) are checked at quantiles instead. rng_dist_test.go checks
// whole distributions against the density table.

const nDraws = 20000

// moments are a distribution's exact mean, variance and fourth central
// moment.
type moments struct{ mean, variance, mu4 float64 }

// central builds moments from the mean, the variance and the excess
// kurtosis μ₄/σ⁴ - 3.
func central(mean, variance, exKurt float64) moments {
	return moments{mean, variance, variance * variance * (3 + exKurt)}
}

// fromRaw builds moments from the raw moments E[X^k], k = 1..4.
func fromRaw(raw func(k int) float64) moments {
	m1, m2, m3, m4 := raw(1), raw(2), raw(3), raw(4)
	return moments{m1, m2 - m1*m1, m4 - 4*m1*m3 + 6*m1*m1*m2 - 3*m1*m1*m1*m1}
}

// pmfMoments are the moments of a pmf on 0..kmax (or 1..kmax, p(0) = 0),
// summed.
func pmfMoments(p func(k int) float64, kmax int) moments {
	return fromRaw(func(j int) float64 {
		s := 0.0
		for k := 0; k <= kmax; k++ {
			s += p(k) * math.Pow(float64(k), float64(j))
		}
		return s
	})
}

// sc makes the argument list of a scalar generator.
func sc(x ...float64) [][]float64 {
	a := make([][]float64, len(x))
	for i, v := range x {
		a[i] = []float64{v}
	}
	return a
}

// newRand is a generator seeded by the case's name, so that adding a case
// changes no other case's draws.
func newRand(label string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(label))
	return rand.New(rand.NewPCG(h.Sum64(), 2718281828))
}

// drawN draws n variates of size k each (1 for a scalar), failing the test
// where Draw refuses the arguments or an integer variate is not whole.
func drawN(t *testing.T, name string, args [][]float64, k, n int) [][]float64 {
	t.Helper()
	g, ok := stdlib.LookupRNG(name)
	if !ok {
		t.Fatalf("no generator %q", name)
	}
	r := newRand(name + labelOf(args))
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, k)
		if !g.Draw(r, args, out[i]) {
			t.Fatalf("%s%v: Draw reported the arguments out of the domain", name, args)
		}
		for _, v := range out[i] {
			if g.IntOut && v != math.Trunc(v) || math.IsNaN(v) {
				t.Fatalf("%s%v: variate %v", name, args, v)
			}
		}
	}
	return out
}

func labelOf(args [][]float64) string { return fmt.Sprint(args) }

// drawScalars is drawN for a scalar variate, flattened.
func drawScalars(t *testing.T, name string, args [][]float64, n int) []float64 {
	t.Helper()
	xs := make([]float64, n)
	for i, v := range drawN(t, name, args, 1, n) {
		xs[i] = v[0]
	}
	return xs
}

func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// checkMoments compares the sample mean and variance of xs with m, within 5
// standard errors each.
func checkMoments(t *testing.T, label string, xs []float64, m moments) {
	t.Helper()
	n := float64(len(xs))
	mean, v := meanVar(xs)
	if se := math.Sqrt(m.variance / n); math.Abs(mean-m.mean) > 5*se {
		t.Errorf("%s: mean %.6g, want %.6g ± %.3g (5 SE)", label, mean, m.mean, 5*se)
	}
	if se := math.Sqrt((m.mu4 - m.variance*m.variance) / n); math.Abs(v-m.variance) > 5*se {
		t.Errorf("%s: variance %.6g, want %.6g ± %.3g (5 SE)", label, v, m.variance, 5*se)
	}
}

func lgam(x float64) float64 { v, _ := math.Lgamma(x); return v }

// Exact moments. Sources: Johnson, Kotz & Balakrishnan, Continuous
// Univariate Distributions (1994-95) and Johnson, Kemp & Kotz, Univariate
// Discrete Distributions (2005), at each distribution's chapter; the skew
// normal's from Azzalini (1985).
var (
	betaMoments = func(a, b float64) moments {
		s := a + b
		return central(a/s, a*b/(s*s*(s+1)), 6*((a-b)*(a-b)*(s+1)-a*b*(s+2))/(a*b*(s+2)*(s+3)))
	}
	gammaMoments = func(a, b float64) moments { return central(a/b, a/(b*b), 6/a) }
	// E[X^k] = β^k / ((α-1)···(α-k)), finite for α > 4.
	invGammaMoments = func(a, b float64) moments {
		return fromRaw(func(k int) float64 {
			m := 1.0
			for j := 1; j <= k; j++ {
				m *= b / (a - float64(j))
			}
			return m
		})
	}
	// E[X^k] = σ^k Γ(1 + k/α).
	weibullMoments = func(a, s float64) moments {
		return fromRaw(func(k int) float64 { return math.Pow(s, float64(k)) * math.Gamma(1+float64(k)/a) })
	}
	// E[X^k] = exp(kμ + k²σ²/2).
	lognormalMoments = func(mu, s float64) moments {
		return fromRaw(func(k int) float64 { return math.Exp(float64(k)*mu + float64(k*k)*s*s/2) })
	}
	// E|Z| = √(2/π), E Z² = 1, E|Z|³ = 2√(2/π), E Z⁴ = 3, scaled by σ^k.
	halfNormalMoments = func(s float64) moments {
		c := math.Sqrt(2 / math.Pi)
		raw := []float64{1, c, 1, 2 * c, 3}
		return fromRaw(func(k int) float64 { return raw[k] * math.Pow(s, float64(k)) })
	}
	// E[X^k] = α y_min^k/(α-k), finite for α > 4.
	paretoMoments = func(m, a float64) moments {
		return fromRaw(func(k int) float64 { return a * math.Pow(m, float64(k)) / (a - float64(k)) })
	}
	// E[X^k] = σ^k 2^(k/2) Γ(1 + k/2).
	rayleighMoments = func(s float64) moments {
		return fromRaw(func(k int) float64 { return math.Pow(s*math.Sqrt2, float64(k)) * math.Gamma(1+float64(k)/2) })
	}
	// E[X^k] = σ^k Γ(1 - k/α), finite for α > 4.
	frechetMoments = func(a, s float64) moments {
		return fromRaw(func(k int) float64 { return math.Pow(s, float64(k)) * math.Gamma(1-float64(k)/a) })
	}
	// E[X^k] = α^k (kπ/β)/sin(kπ/β), finite for β > 4.
	loglogisticMoments = func(a, b float64) moments {
		return fromRaw(func(k int) float64 {
			t := float64(k) * math.Pi / b
			return math.Pow(a, float64(k)) * t / math.Sin(t)
		})
	}
	// The cumulants of N(μ, σ²) and Exp(λ) add: mean μ + 1/λ, variance σ² +
	// 1/λ², fourth cumulant 6/λ⁴, so μ₄ = 6/λ⁴ + 3·variance².
	expModNormalMoments = func(mu, s, l float64) moments {
		v := s*s + 1/(l*l)
		return moments{mu + 1/l, v, 6/(l*l*l*l) + 3*v*v}
	}
	// μ plus a Lomax variate, E[X^k] = λ^k k! Γ(α-k)/Γ(α) for α > 4; the
	// shift moves the mean alone.
	paretoType2Moments = func(mu, l, a float64) moments {
		m := fromRaw(func(k int) float64 {
			return math.Pow(l, float64(k)) * math.Gamma(float64(k)+1) * math.Exp(lgam(a-float64(k))-lgam(a))
		})
		m.mean += mu
		return m
	}
	// With δ = α/√(1+α²) and b = δ√(2/π): mean ξ + ωb, variance
	// ω²(1 - b²), excess kurtosis 2(π-3) b⁴/(1-b²)².
	skewNormalMoments = func(xi, omega, alpha float64) moments {
		b := alpha / math.Hypot(1, alpha) * math.Sqrt(2/math.Pi)
		return central(xi+omega*b, omega*omega*(1-b*b), 2*(math.Pi-3)*b*b*b*b/((1-b*b)*(1-b*b)))
	}
	// Binomial: nθ, nθ(1-θ), excess kurtosis (1 - 6θ(1-θ))/(nθ(1-θ)); the
	// Bernoulli is n = 1.
	binomialMoments = func(n, p float64) moments {
		v := p * (1 - p)
		return central(n*p, n*v, (1-6*v)/(n*v))
	}
	poissonMoments = func(l float64) moments { return central(l, l, 1/l) }
	// Mean μ, variance μ + μ²/φ, excess kurtosis 6/φ + φ/(μ(μ+φ)) (the
	// negative binomial's 6/r + p²/(r(1-p)) with r = φ, p = φ/(μ+φ)).
	negBinomial2Moments = func(mu, phi float64) moments {
		return central(mu, mu+mu*mu/phi, 6/phi+phi/(mu*(mu+phi)))
	}
)

// betaBinomialPMF is C(n, k) B(k+α, n-k+β)/B(α, β).
func betaBinomialPMF(n int, a, b float64) func(k int) float64 {
	lbeta := func(x, y float64) float64 { return lgam(x) + lgam(y) - lgam(x+y) }
	return func(k int) float64 {
		if k < 0 || k > n {
			return 0
		}
		fn, fk := float64(n), float64(k)
		return math.Exp(lgam(fn+1) - lgam(fk+1) - lgam(fn-fk+1) + lbeta(fk+a, fn-fk+b) - lbeta(a, b))
	}
}

// orderedLogisticPMF is Stan's ordered_logistic: P(y = k) = σ(η - c_{k-1}) -
// σ(η - c_k) on 1..K, with σ(η - c_0) = 1 and σ(η - c_K) = 0.
func orderedLogisticPMF(eta float64, c []float64) func(k int) float64 {
	above := func(k int) float64 { // P(y > k) = σ(η - c_k)
		switch {
		case k < 1:
			return 1
		case k > len(c):
			return 0
		}
		return sigmoid(eta - c[k-1])
	}
	return func(k int) float64 {
		if k < 1 || k > len(c)+1 {
			return 0
		}
		return above(k-1) - above(k)
	}
}

// labelPMF is θ_k on the labels 1..K.
func labelPMF(theta []float64) func(k int) float64 {
	return func(k int) float64 {
		if k < 1 || k > len(theta) {
			return 0
		}
		return theta[k-1]
	}
}

// momentCases are the generators of a scalar variate with finite fourth
// moments, at one or two argument settings each (a second where the
// sampler takes another branch: gonum's gamma below α = 0.2, its binomial
// below 25 trials or below a mean of 1, its Poisson from λ = 10).
var momentCases = []struct {
	name string
	args [][]float64
	want moments
}{
	{"normal", sc(1, 2), central(1, 4, 0)},
	// Variance νσ²/(ν-2), excess kurtosis 6/(ν-4).
	{"student_t", sc(10, 1, 2), central(1, 10*4/8.0, 1)},
	// Laplace: variance 2σ², excess kurtosis 3.
	{"double_exponential", sc(1, 2), central(1, 8, 3)},
	// Logistic: variance σ²π²/3, excess kurtosis 6/5.
	{"logistic", sc(1, 2), central(1, 4*math.Pi*math.Pi/3, 1.2)},
	// Rate β: mean 1/β, variance 1/β², excess kurtosis 6.
	{"exponential", sc(2), central(0.5, 0.25, 6)},
	{"gamma", sc(2.5, 1.5), gammaMoments(2.5, 1.5)},
	{"gamma", sc(0.1, 2), gammaMoments(0.1, 2)},
	{"inv_gamma", sc(9, 2), invGammaMoments(9, 2)},
	{"beta", sc(2, 3), betaMoments(2, 3)},
	{"beta", sc(0.05, 0.1), betaMoments(0.05, 0.1)},
	{"lognormal", sc(0.2, 0.5), lognormalMoments(0.2, 0.5)},
	// Uniform on [α, β]: variance (β-α)²/12, excess kurtosis -6/5.
	{"uniform", sc(-1, 3), central(1, 16.0/12, -1.2)},
	{"half_normal", sc(2), halfNormalMoments(2)},
	{"weibull", sc(1.5, 2), weibullMoments(1.5, 2)},
	{"weibull", sc(0.7, 0.5), weibullMoments(0.7, 0.5)},
	{"skew_normal", sc(1, 2, 3), skewNormalMoments(1, 2, 3)},
	{"skew_normal", sc(0, 1, -1), skewNormalMoments(0, 1, -1)},
	// Gumbel: mean μ + βγ (Euler's γ), variance π²β²/6, excess kurtosis 12/5.
	{"gumbel", sc(1, 2), central(1+2*0.57721566490153286, math.Pi*math.Pi*4/6, 2.4)},
	{"pareto", sc(1.5, 9), paretoMoments(1.5, 9)},
	// χ²(ν) is gamma(ν/2, rate ½); its inverses inv_gamma(ν/2, scale ½)
	// and, scaled, inv_gamma(ν/2, scale νs²/2).
	{"chi_square", sc(3), gammaMoments(1.5, 0.5)},
	{"chi_square", sc(0.3), gammaMoments(0.15, 0.5)},
	{"inv_chi_square", sc(18), invGammaMoments(9, 0.5)},
	{"scaled_inv_chi_square", sc(18, 0.7), invGammaMoments(9, 18*0.49/2)},
	{"rayleigh", sc(2), rayleighMoments(2)},
	{"frechet", sc(9, 2), frechetMoments(9, 2)},
	{"loglogistic", sc(2, 9), loglogisticMoments(2, 9)},
	{"exp_mod_normal", sc(1, 2, 0.5), expModNormalMoments(1, 2, 0.5)},
	{"pareto_type_2", sc(1, 2, 9), paretoType2Moments(1, 2, 9)},
	{"bernoulli", sc(0.3), binomialMoments(1, 0.3)},
	{"bernoulli_logit", sc(0.5), binomialMoments(1, sigmoid(0.5))},
	{"binomial", sc(10, 0.3), binomialMoments(10, 0.3)},
	{"binomial", sc(100, 0.004), binomialMoments(100, 0.004)},
	{"binomial", sc(200, 0.7), binomialMoments(200, 0.7)},
	{"binomial_logit", sc(20, 1), binomialMoments(20, sigmoid(1))},
	{"binomial_logit", sc(50, -2), binomialMoments(50, sigmoid(-2))},
	{"poisson", sc(3.5), poissonMoments(3.5)},
	{"poisson", sc(40), poissonMoments(40)},
	{"poisson_log", sc(math.Log(25)), poissonMoments(25)},
	{"neg_binomial_2", sc(4, 2.5), negBinomial2Moments(4, 2.5)},
	{"neg_binomial_2", sc(30, 0.5), negBinomial2Moments(30, 0.5)},
	{"neg_binomial_2_log", sc(math.Log(4), 2.5), negBinomial2Moments(4, 2.5)},
	{"beta_binomial", sc(10, 2, 3), pmfMoments(betaBinomialPMF(10, 2, 3), 10)},
	{"beta_binomial", sc(30, 0.3, 0.6), pmfMoments(betaBinomialPMF(30, 0.3, 0.6), 30)},
	{"ordered_logistic", [][]float64{{0.5}, {-1, 0.5, 2}}, pmfMoments(orderedLogisticPMF(0.5, []float64{-1, 0.5, 2}), 4)},
	{"categorical", [][]float64{{0.2, 0, 0.5, 0.3}}, pmfMoments(labelPMF([]float64{0.2, 0, 0.5, 0.3}), 4)},
	{"categorical_logit", [][]float64{{1, -1, 0.5}}, pmfMoments(labelPMF(softmaxRow([]float64{1, -1, 0.5})), 3)},
}

func TestRNGMoments(t *testing.T) {
	for _, c := range momentCases {
		label := c.name + labelOf(c.args)
		checkMoments(t, label, drawScalars(t, c.name, c.args, nDraws), c.want)
	}
}

// TestRNGBetaBinomialMeanVariance checks the pmf sums that give the
// beta-binomial's moments against its closed-form mean nα/(α+β) and
// variance nαβ(α+β+n)/((α+β)²(α+β+1)).
func TestRNGBetaBinomialMeanVariance(t *testing.T) {
	n, a, b := 30.0, 0.3, 0.6
	m := pmfMoments(betaBinomialPMF(30, a, b), 30)
	s := a + b
	if mean, v := n*a/s, n*a*b*(s+n)/(s*s*(s+1)); math.Abs(m.mean-mean) > 1e-12*mean || math.Abs(m.variance-v) > 1e-10*v {
		t.Errorf("beta_binomial(30, 0.3, 0.6) pmf moments %v, want %v, %v", m, mean, v)
	}
}

// TestRNGQuantiles checks the heavy-tailed generators, whose fourth moments
// are infinite, at quantiles x_q of the exact distribution: the fraction
// of draws at or below x_q is binomial, so it lies within 5 standard
// errors √(q(1-q)/n) of q.
func TestRNGQuantiles(t *testing.T) {
	qs := []float64{0.05, 0.25, 0.5, 0.75, 0.95}
	cases := []struct {
		name     string
		args     [][]float64
		quantile func(q float64) float64
	}{
		// Cauchy: μ + σ tan(π(q - ½)).
		{"cauchy", sc(1, 2), func(q float64) float64 { return 1 + 2*math.Tan(math.Pi*(q-0.5)) }},
		// Half-Cauchy: σ tan(πq/2).
		{"half_cauchy", sc(2), func(q float64) float64 { return 2 * math.Tan(math.Pi*q/2) }},
		{"student_t", sc(3, 1, 2), distuv.StudentsT{Mu: 1, Sigma: 2, Nu: 3}.Quantile},
		{"student_t", sc(0.8, 0, 1), distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 0.8}.Quantile},
	}
	for _, c := range cases {
		xs := drawScalars(t, c.name, c.args, nDraws)
		n := float64(len(xs))
		for _, q := range qs {
			xq := c.quantile(q)
			below := 0
			for _, x := range xs {
				if x <= xq {
					below++
				}
			}
			if f, se := float64(below)/n, math.Sqrt(q*(1-q)/n); math.Abs(f-q) > 5*se {
				t.Errorf("%s%v: %.4f of the draws at or below the %.2f quantile %.4g (5 SE %.4f)", c.name, c.args, f, q, xq, 5*se)
			}
		}
	}
}

// rngExceptions are the densities without a generator, and why.
var rngExceptions = map[string]string{
	// Its variate's shape (K×K) is the value of the argument K, which the
	// table's OutRank cannot express: stdlib.LKJCorrCholeskyDraw and
	// LKJCorrDraw instead, which the compiler's lkj_corr_cholesky_rng(K,
	// eta) and lkj_corr_rng(K, eta) call.
	"lkj_corr_cholesky": "variate shape set by an argument's value",
	"lkj_corr":          "variate shape set by an argument's value",
	// Likelihood shorthands for a linear predictor (being added to the
	// table in parallel); Stan has no _glm_rng either: the generated block
	// draws from bernoulli_logit_rng(alpha + x * beta) and the like.
	"bernoulli_logit_glm": "a likelihood shorthand; Stan has no rng",
	"poisson_log_glm":     "a likelihood shorthand; Stan has no rng",
	"normal_id_glm":       "a likelihood shorthand; Stan has no rng",
}

// rngExtraArgs are the generators that take arguments after the density's
// (how many), as Stan's do: multinomial_rng(theta, N) needs the number of
// trials that the density reads off its variate's counts.
var rngExtraArgs = map[string]int{"multinomial": 1, "multinomial_logit": 1}

// TestRNGCoverage: every density of the language has a generator (unless
// listed in rngExceptions), with the density's arguments after the variate,
// in order (then rngExtraArgs' own), the same integer arguments, and an
// integer variate exactly
// where the density's variate is an integer. And every generator has a
// moment case here.
func TestRNGCoverage(t *testing.T) {
	for _, name := range stdlib.Names() {
		d, _ := stdlib.Lookup(name)
		g, ok := stdlib.LookupRNG(name)
		if !ok {
			if _, skip := rngExceptions[name]; !skip {
				t.Errorf("density %s has no generator (add one, or list it in rngExceptions)", name)
			}
			continue
		}
		args, ints := g.Args, g.Int
		if extra, ok := rngExtraArgs[name]; ok && len(args) > extra {
			args, ints = args[:len(args)-extra], ints[:len(ints)-extra]
		}
		if !slices.Equal(args, d.Args[1:]) || !slices.Equal(ints, d.Int[1:]) || g.IntOut != d.Int[0] {
			t.Errorf("%s: generator args %v ints %v intOut %v; density args %v ints %v",
				name, g.Args, g.Int, g.IntOut, d.Args, d.Int)
		}
	}
	tested := map[string]bool{"cauchy": true, "half_cauchy": true, "von_mises": true}
	for _, c := range momentCases {
		tested[c.name] = true
	}
	for _, c := range vectorCases {
		tested[c.name] = true
	}
	for _, name := range multivariateMoreRNGs {
		tested[name] = true
	}
	for _, name := range stdlib.RNGNames() {
		g, _ := stdlib.LookupRNG(name)
		if !tested[name] {
			t.Errorf("generator %s has no moment test", name)
		}
		if g.Name != name || len(g.Args) != len(g.Int) || len(g.Args) != len(g.Rank) || g.Draw == nil {
			t.Errorf("LookupRNG(%q) = %+v", name, g)
		}
	}
	if !slices.IsSorted(stdlib.RNGNames()) {
		t.Error("RNGNames not sorted")
	}
}

// TestRNGOutOfDomain: arguments outside the domain make Draw report false,
// as do NaN and ±Inf in any argument of a scalar generator.
func TestRNGOutOfDomain(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	bad := map[string][][][]float64{
		"normal":                {sc(0, 0), sc(0, -1)},
		"student_t":             {sc(0, 0, 1), sc(-1, 0, 1), sc(3, 0, 0)},
		"cauchy":                {sc(0, 0), sc(0, -2)},
		"double_exponential":    {sc(0, 0)},
		"logistic":              {sc(1, -1)},
		"exponential":           {sc(0), sc(-1)},
		"gamma":                 {sc(0, 1), sc(1, 0), sc(-1, 1)},
		"inv_gamma":             {sc(0, 1), sc(1, -1)},
		"beta":                  {sc(0, 1), sc(1, 0)},
		"lognormal":             {sc(0, 0)},
		"uniform":               {sc(1, 1), sc(2, 1)},
		"half_normal":           {sc(0), sc(-1)},
		"half_cauchy":           {sc(0)},
		"weibull":               {sc(0, 1), sc(1, 0)},
		"skew_normal":           {sc(0, 0, 1), sc(0, -1, 1)},
		"von_mises":             {sc(0, -1)},
		"gumbel":                {sc(0, 0), sc(0, -1)},
		"pareto":                {sc(0, 1), sc(1, 0), sc(-1, 1)},
		"chi_square":            {sc(0), sc(-1)},
		"inv_chi_square":        {sc(0), sc(-1)},
		"scaled_inv_chi_square": {sc(0, 1), sc(1, 0), sc(1, -1)},
		"rayleigh":              {sc(0), sc(-1)},
		"frechet":               {sc(0, 1), sc(1, 0)},
		"loglogistic":           {sc(0, 1), sc(1, -1)},
		"exp_mod_normal":        {sc(0, 0, 1), sc(0, 1, 0), sc(0, -1, 1)},
		"pareto_type_2":         {sc(0, 0, 1), sc(0, 1, 0), sc(0, -1, 1)},
		"bernoulli":             {sc(1.5), sc(-0.1)},
		"binomial":              {sc(5, 1.5), sc(5, -0.5), sc(-1, 0.5), sc(2.5, 0.5), sc(1<<31, 0.5)},
		"binomial_logit":        {sc(-1, 0), sc(2.5, 0)},
		"beta_binomial":         {sc(5, 0, 1), sc(5, 1, -1), sc(-1, 1, 1), sc(0.5, 1, 1)},
		// Stan's bound: a rate of 2^30 or more does not fit its int.
		"poisson":            {sc(-1), sc(1 << 30), sc(1e300)},
		"poisson_log":        {sc(21), sc(800)},
		"neg_binomial_2":     {sc(0, 1), sc(1, 0), sc(1e12, 1e6)},
		"neg_binomial_2_log": {sc(0, 0), sc(30, 1e6)},
		"categorical":        {{{0.5, 0.6}}, {{-0.1, 1.1}}, {{nan, 1}}, {{}}},
		"categorical_logit":  {{{1, inf}}, {{nan, 0}}, {{}}},
		"ordered_logistic":   {{{0}, {1, 0.5}}, {{0}, {1, 1}}, {{nan}, {0, 1}}, {{0}, {0, inf}}},
		"multi_normal_diag":  {{{0, 0}, {1, 0}}, {{0, nan}, {1, 1}}, {{0, 0}, {1, -inf}}},
		"multi_normal_cholesky": {
			{{0, 0}, {1, 0, 1, 0}}, {{0, 0}, {1, 0, 1, -1}}, {{inf, 0}, {1, 0, 0, 1}}, {{0, 0}, {1, 0, nan, 1}}},
		"multi_normal": {
			{{0, 0}, {1, 0.5, 0, 1}},  // not symmetric
			{{0, 0}, {1, 2, 2, 1}},    // not positive definite
			{{0, 0}, {1, 0, 0, 0}},    // singular
			{{nan, 0}, {1, 0, 0, 1}},  // μ not finite
			{{0, 0}, {inf, 0, 0, 1}}}, // Σ not finite
		"dirichlet": {{{1, 0}}, {{1, -1}}, {{1, nan}}, {{1, inf}}},
	}
	for name, cases := range bad {
		g, ok := stdlib.LookupRNG(name)
		if !ok {
			t.Errorf("no generator %s", name)
			continue
		}
		for _, args := range cases {
			expectRefused(t, g, args)
		}
	}
	// Every scalar generator refuses a NaN or an infinity anywhere.
	for _, name := range stdlib.RNGNames() {
		g, _ := stdlib.LookupRNG(name)
		if slices.Max(append(g.Rank, 0)) > 0 {
			continue
		}
		for i := range g.Args {
			for _, v := range []float64{nan, inf, -inf} {
				args := sc(slices.Repeat([]float64{0.5}, len(g.Args))...)
				args[i][0] = v
				expectRefused(t, g, args)
			}
		}
	}
	// The edges of the domain are in it.
	good := map[string][][][]float64{
		"poisson":          {sc(0), sc(1<<30 - 1)},
		"bernoulli":        {sc(0), sc(1)},
		"binomial":         {sc(0, 0.5), sc(5, 0), sc(5, 1), sc(math.MaxInt32, 1e-9)},
		"binomial_logit":   {sc(10, 800), sc(10, -800)},
		"von_mises":        {sc(1, 0), sc(-100, 1e-10), sc(0, 1e12)},
		"dirichlet":        {{{1e-300, 1e-300, 1e-300}}, {{1e300, 1}}},
		"categorical":      {{{1}}, {{0, 1, 0}}},
		"ordered_logistic": {{{0}, {}}, {{1e10}, {-1, 1}}},
	}
	for name, cases := range good {
		g, _ := stdlib.LookupRNG(name)
		for _, args := range cases {
			out := make([]float64, max(len(args[0]), 1))
			if !g.Draw(newRand(name), args, out) || slices.ContainsFunc(out, math.IsNaN) {
				t.Errorf("%s%v: refused, or NaN: %v", name, args, out)
			}
		}
	}
}

func expectRefused(t *testing.T, g stdlib.RNG, args [][]float64) {
	t.Helper()
	k := 1
	if g.OutRank == 1 {
		k = len(args[0])
	}
	if g.Draw(newRand(g.Name), args, make([]float64, max(k, 1))) {
		t.Errorf("%s%v: Draw accepted arguments outside the domain", g.Name, args)
	}
}
