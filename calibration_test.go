package temper_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
)

// A calibration case is a model with its exact posterior means and sds.
type calibrationCase struct {
	name      string
	src       string
	data      map[string]any
	mean, sd  map[string]float64
	skipNames []string // samplers the case is not for
}

// check compares a run's summary with the case's exact moments: every
// mean within 0.1 sd and every sd within 10%. It reports the columns (all
// of them when testing verbosely, else the ones off) and whether any is.
func (c calibrationCase) check(res *temper.Result) (report []string, anyBad bool) {
	for _, s := range res.Summary() {
		want, ok := c.mean[s.Name]
		if !ok {
			continue
		}
		sd := c.sd[s.Name]
		bad := math.Abs(s.Mean-want) > 0.1*sd || math.Abs(s.SD/sd-1) > 0.1
		if bad || testing.Verbose() {
			report = append(report, fmt.Sprintf("%s: mean %.5g (exact %.5g, off %.2f sd), sd %.4g (exact %.4g, %+.1f%%), ESS %.0f%s",
				s.Name, s.Mean, want, math.Abs(s.Mean-want)/sd, s.SD, sd, 100*(s.SD/sd-1), s.ESSBulk, map[bool]string{true: "  ← off", false: ""}[bad]))
		}
		anyBad = anyBad || bad
	}
	return report, anyBad
}

// checkLong compares a long run's summary with the case's exact moments,
// with tolerances from the run's own Monte Carlo error: a mean within
// 0.05 sd plus 4 standard errors (sd/√ESS), an sd within 3% (the tuned
// step's bias at η·λ = 0.1 is +2.6%) plus 4 standard errors of a normal's
// sd (sd/√(2 ESS)).
func (c calibrationCase) checkLong(res *temper.Result) (report []string, anyBad bool) {
	for _, s := range res.Summary() {
		want, ok := c.mean[s.Name]
		if !ok {
			continue
		}
		sd := c.sd[s.Name]
		meanTol, sdTol := 0.05+4/math.Sqrt(s.ESSBulk), 0.03+4/math.Sqrt(2*s.ESSBulk)
		bad := math.Abs(s.Mean-want) > meanTol*sd || math.Abs(s.SD/sd-1) > sdTol
		if bad || testing.Verbose() {
			report = append(report, fmt.Sprintf("%s: mean off %.3f sd (tolerance %.3f), sd %+.1f%% (tolerance %.1f%%), ESS %.0f%s",
				s.Name, math.Abs(s.Mean-want)/sd, meanTol, 100*(s.SD/sd-1), 100*sdTol, s.ESSBulk, map[bool]string{true: "  ← off", false: ""}[bad]))
		}
		anyBad = anyBad || bad
	}
	return report, anyBad
}

// calibrationCases are posteriors known exactly (DESIGN.md section 6, the
// issue's calibration suite): conjugate normal with known and with unknown
// scale, Poisson-gamma, a linear regression on raw-scale predictors in the
// hundreds with an ill-conditioned design, a probability near its lower
// bound, and a two-level hierarchical normal model with known scales.
func calibrationCases(t *testing.T) []calibrationCase {
	rng := rand.New(rand.NewPCG(42, 1))
	var cases []calibrationCase

	// Normal mean, known sd 2, prior N(0, 10²): posterior precision
	// 1/100 + n/4, mean (Σy/4)/precision.
	{
		y := make([]float64, 50)
		sum := 0.0
		for i := range y {
			y[i] = 1.5 + 2*rng.NormFloat64()
			sum += y[i]
		}
		prec := 1.0/100 + float64(len(y))/4
		cases = append(cases, calibrationCase{name: "normal mean",
			src:  "data { N: int  y: real[N] }\nparam { mu: real }\nmodel { mu ~ normal(0, 10)\n  for n in plate(N) { y[n] ~ normal(mu, 2) } }",
			data: map[string]any{"y": y}, mean: map[string]float64{"mu": sum / 4 / prec}, sd: map[string]float64{"mu": 1 / math.Sqrt(prec)}})
	}
	// Normal with unknown sd (flat prior on sigma > 0): 200 draws of
	// N(center, 2.2²), mu ~ normal(0, priorSD); moments by quadrature on a
	// grid over ±8 posterior sds.
	normalMeanSD := func(name string, center, priorSD float64) calibrationCase {
		y := make([]float64, 200)
		for i := range y {
			y[i] = center + 2.2*rng.NormFloat64()
		}
		mean, sd := gridMoments(func(mu, sigma float64) float64 {
			lp := -mu * mu / (2 * priorSD * priorSD)
			for _, v := range y {
				lp += -math.Log(sigma) - (v-mu)*(v-mu)/(2*sigma*sigma)
			}
			return lp
		}, [2]float64{center - 1, center + 1}, [2]float64{1.5, 3})
		return calibrationCase{name: name,
			src:  fmt.Sprintf("data { N: int  y: real[N] }\nparam { mu: real  sigma: real<lower=0> }\nmodel { mu ~ normal(0, %g)\n  for n in plate(N) { y[n] ~ normal(mu, sigma) } }", priorSD),
			data: map[string]any{"y": y}, mean: map[string]float64{"mu": mean[0], "sigma": mean[1]}, sd: map[string]float64{"mu": sd[0], "sigma": sd[1]}}
	}
	cases = append(cases, normalMeanSD("normal mean and sd", 3, 10))
	// The same, 40 units from where the chains start (uniform in (-2, 2)):
	// the warm-up's optimiser must travel to the mode before it measures
	// the curvature, or the metric and step come from a point where sigma
	// is stretched to cover a residual of 40.
	cases = append(cases, normalMeanSD("far from the start", 40, 100))
	// Poisson-gamma: λ ~ gamma(2, 0.5), y ~ poisson(λ): Gamma(2 + Σy, 0.5 + n).
	{
		y := make([]float64, 40)
		sum := 0.0
		for i := range y {
			y[i] = float64(poisson(rng, 4.2))
			sum += y[i]
		}
		a, b := 2+sum, 0.5+float64(len(y))
		cases = append(cases, calibrationCase{name: "poisson-gamma",
			src:  "data { N: int  y: int<lower=0>[N] }\nparam { lambda: real<lower=0> }\nmodel { lambda ~ gamma(2, 0.5)\n  for n in plate(N) { y[n] ~ poisson(lambda) } }",
			data: map[string]any{"y": y}, mean: map[string]float64{"lambda": a / b}, sd: map[string]float64{"lambda": math.Sqrt(a) / b}})
	}
	// Linear regression y = a + Xb + N(0, 5²) with predictors on raw scales
	// (around 300 and 50, correlated: the design's condition number is
	// about 1e3) and N(0, 100²) priors: a Gaussian posterior.
	{
		const n = 100
		x1, x2, y := make([]float64, n), make([]float64, n), make([]float64, n)
		design := mat.NewDense(n, 3, nil)
		for i := range n {
			x1[i] = 300 + 40*rng.NormFloat64()
			x2[i] = 50 + 0.15*(x1[i]-300) + 3*rng.NormFloat64()
			y[i] = 10 + 0.2*x1[i] - 0.7*x2[i] + 5*rng.NormFloat64()
			design.SetRow(i, []float64{1, x1[i], x2[i]})
		}
		var prec mat.Dense
		prec.Mul(design.T(), design)
		prec.Scale(1.0/25, &prec)
		for j := range 3 {
			prec.Set(j, j, prec.At(j, j)+1e-4)
		}
		var cov mat.Dense
		if err := cov.Inverse(&prec); err != nil {
			t.Fatal(err)
		}
		var xty, m mat.VecDense
		xty.MulVec(design.T(), mat.NewVecDense(n, y))
		xty.ScaleVec(1.0/25, &xty)
		m.MulVec(&cov, &xty)
		names := []string{"a", "b.1", "b.2"}
		c := calibrationCase{name: "raw-scale regression",
			src:  "data { N: int  x1: real[N]  x2: real[N]  y: real[N] }\nparam { a: real  b: real[2] }\nmodel { a ~ normal(0, 100)  b ~ normal(0, 100)\n  for n in plate(N) { y[n] ~ normal(a + b[1] * x1[n] + b[2] * x2[n], 5) } }",
			data: map[string]any{"x1": x1, "x2": x2, "y": y}, mean: map[string]float64{}, sd: map[string]float64{}}
		for j, name := range names {
			c.mean[name], c.sd[name] = m.AtVec(j), math.Sqrt(cov.At(j, j))
		}
		cases = append(cases, c)
	}
	// A probability near its lower bound: 1 success in 300 trials under a
	// beta(1, 1) prior: Beta(2, 300), mean 0.0066.
	{
		a, b := 2.0, 300.0
		cases = append(cases, calibrationCase{name: "near a bound",
			src:  "data { k: int  n: int }\nparam { p: real<lower=0, upper=1> }\nmodel { p ~ beta(1, 1)\n  k ~ binomial(n, p) }",
			data: map[string]any{"k": 1, "n": 300}, mean: map[string]float64{"p": a / (a + b)}, sd: map[string]float64{"p": math.Sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)))}})
	}
	// Two levels: y_j ~ N(θ_j, σ_j), θ_j ~ N(μ, τ = 5), μ ~ N(0, 20²), the
	// eight schools' data with τ known: Gaussian, marginally μ has
	// precision 1/400 + Σ 1/(σ_j² + τ²), and θ_j | y its conditional mixed
	// over μ.
	{
		y := []float64{28, 8, -3, 7, -1, 1, 18, 12}
		s := []float64{15, 10, 16, 11, 9, 11, 10, 18}
		const tau = 5.0
		precMu, num := 1.0/400, 0.0
		for j := range y {
			w := 1 / (s[j]*s[j] + tau*tau)
			precMu += w
			num += w * y[j]
		}
		mMu, vMu := num/precMu, 1/precMu
		c := calibrationCase{name: "hierarchical normal",
			src:  "data { J: int  y: real[J]  s: real[J] }\nparam { mu: real  theta: real[J] }\nmodel { mu ~ normal(0, 20)\n  theta ~ normal(mu, 5)\n  y ~ normal(theta, s) }",
			data: map[string]any{"y": y, "s": s}, mean: map[string]float64{"mu": mMu}, sd: map[string]float64{"mu": math.Sqrt(vMu)}}
		for j := range y {
			// θ_j | μ, y ~ N((y_j/σ² + μ/τ²)/p, 1/p), p = 1/σ² + 1/τ².
			p := 1/(s[j]*s[j]) + 1/(tau*tau)
			k := 1 / (tau * tau) / p // the weight of μ
			name := fmt.Sprintf("theta.%d", j+1)
			c.mean[name] = y[j]/(s[j]*s[j])/p + k*mMu
			c.sd[name] = math.Sqrt(1/p + k*k*vMu)
		}
		cases = append(cases, c)
	}
	return cases
}

// gridMoments are the posterior means and sds of two parameters under the
// log density lp, by the midpoint rule on a 400 × 400 grid over the box.
func gridMoments(lp func(a, b float64) float64, ra, rb [2]float64) (mean, sd [2]float64) {
	const k = 400
	top := math.Inf(-1)
	vals := make([]float64, k*k)
	for i := range k {
		for j := range k {
			a := ra[0] + (ra[1]-ra[0])*(float64(i)+0.5)/k
			b := rb[0] + (rb[1]-rb[0])*(float64(j)+0.5)/k
			vals[i*k+j] = lp(a, b)
			top = max(top, vals[i*k+j])
		}
	}
	var w, s1, s2 [2]float64
	for i := range k {
		for j := range k {
			a := ra[0] + (ra[1]-ra[0])*(float64(i)+0.5)/k
			b := rb[0] + (rb[1]-rb[0])*(float64(j)+0.5)/k
			p := math.Exp(vals[i*k+j] - top)
			for d, x := range [2]float64{a, b} {
				w[d] += p
				s1[d] += p * x
				s2[d] += p * x * x
			}
		}
	}
	for d := range 2 {
		mean[d] = s1[d] / w[d]
		sd[d] = math.Sqrt(s2[d]/w[d] - mean[d]*mean[d])
	}
	return mean, sd
}

func poisson(rng *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// TestCalibrationLongRuns: TestCalibrationDefaults's 10% on an sd is
// what the defaults promise at 2,000 draws, where an sd's Monte Carlo
// error is 2-3.5%; it cannot see a bias of 5%. Run ten times longer, the
// same samplers must be right within their own Monte Carlo error and the
// tuned step's bias (checkLong): about 5% on an sd and 0.08 sd on a mean
// at the ESS of 10,000 these runs reach. Cyclical SGHMC's four cycles of
// the default run leave its sds 4-9% wide there (one seed); at 40,000
// iterations they are within 4% of the exact ones, as SGHMC's.
func TestCalibrationLongRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("long runs; skipped with -short")
	}
	for _, c := range calibrationCases(t) {
		m, err := temper.Compile(c.name+".ppl", c.src, c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, sampler := range []string{"sghmc", "sgnht", "cyclical_sghmc"} {
			res, err := m.Sample(context.Background(), temper.Options{Sampler: sampler, Seed: 2, Iters: 20000})
			if err != nil {
				t.Errorf("%s with %s: %v", c.name, sampler, err)
				continue
			}
			report, bad := c.checkLong(res)
			if bad {
				t.Fail()
			}
			if len(report) > 0 {
				t.Logf("%s with %s:\n  %s", c.name, sampler, strings.Join(report, "\n  "))
			}
		}
	}
}

// TestCalibrationDefaults samples every calibration case with default
// settings (no lr, batch or burn given) by the default sampler and by
// sghmc, sgnht and cyclical_sghmc named alone, and asks of every parameter
// what the issue asks: the mean within 0.1 posterior sd of the exact one,
// the sd within 10%. The runs are 4 chains × 2,000 draws, whose bulk ESS
// is 400-700 for SGLD and cyclical SGHMC and 800-1,200 for SGHMC and
// SGNHT, so the mean's Monte Carlo error is below 0.05 sd and the sd's
// below 3.5%: the tolerances are two to three standard errors plus the
// tuned step's bias (+2.6% in sd at η·λ = 0.1). Cyclical SGHMC's draws
// come from four cycles, which its ESS overstates: measured with seed 1,
// its sds are 3-9% wide (the worst, 8.8%, on the raw-scale regression),
// within 4% at ten times the draws (TestCalibrationLongRuns, which checks
// every sampler there against its own Monte Carlo error). The default
// sampler (NUTS on these) is within 0.04 sd and 2.1%; SGHMC and SGNHT
// within 0.03 sd and 5.8%.
func TestCalibrationDefaults(t *testing.T) {
	for _, c := range calibrationCases(t) {
		m, err := temper.Compile(c.name+".ppl", c.src, c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, sampler := range []string{"", "sghmc", "sgnht", "cyclical_sghmc"} {
			res, err := m.Sample(context.Background(), temper.Options{Sampler: sampler, Seed: 1})
			if err != nil {
				t.Errorf("%s with %q: %v", c.name, sampler, err)
				continue
			}
			report, bad := c.check(res)
			if bad {
				t.Fail()
			}
			if len(report) > 0 {
				t.Logf("%s with %q (%s):\n  %s", c.name, sampler, res.SamplerDescription(), strings.Join(report, "\n  "))
			}
		}
	}
}
