package temper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/internal/settings"
)

// The posteriors statisticians bring that a fixed metric cannot follow:
// hierarchies whose scale is a parameter (centred and non-centred, few
// and many groups), a random-effects logistic regression, a two-parameter
// item-response model, a strongly collinear regression and Neal's funnel.
// Each has an exact reference (quadrature over the hyperparameters, with
// the rest Gaussian given them; linear algebra; the funnel's marginal) or
// one from a long run computed once and kept in
// testdata/calibration_references.json (TEMPER_REFERENCES=1 go test -run
// TestCalibrationReferences . writes it again).

// hierarchyCase is y_j ~ N(θ_j, σ_j), θ_j ~ N(μ, τ), μ ~ N(0, 5),
// τ ~ half-Cauchy(0, 5), written centred, non-centred by hand, or centred
// with Stan's offset and multiplier (sampled non-centred), with its exact
// moments: p(μ, τ | y) ∝ p(μ) p(τ) Π N(y_j | μ, σ_j² + τ²) on a grid (τ
// on a log grid, its Jacobian included), and θ_j | μ, τ, y Gaussian with
// precision 1/σ_j² + 1/τ² (BDA3, section 5.4), its moments mixed over the
// grid.
func hierarchyCase(name string, y, s []float64, form string) calibrationCase {
	const k = 600
	logTau := func(i int) float64 { return math.Log(1e-3) + (math.Log(60)-math.Log(1e-3))*(float64(i)+0.5)/k }
	mu := func(i int) float64 { return -25 + 60*(float64(i)+0.5)/k }
	lp := make([]float64, k*k)
	top := math.Inf(-1)
	for a := range k {
		tau := math.Exp(logTau(a))
		for b := range k {
			m := mu(b)
			v := -m*m/50 + math.Log(tau) - math.Log(1+tau*tau/25) // the half-Cauchy and dτ = τ d log τ
			for j := range y {
				vj := s[j]*s[j] + tau*tau
				v += -0.5*math.Log(vj) - (y[j]-m)*(y[j]-m)/(2*vj)
			}
			lp[a*k+b] = v
			top = max(top, v)
		}
	}
	names := []string{"mu", "tau"}
	for j := range y {
		names = append(names, fmt.Sprintf("theta.%d", j+1))
	}
	s1, s2 := make([]float64, len(names)), make([]float64, len(names))
	w := 0.0
	for a := range k {
		tau := math.Exp(logTau(a))
		for b := range k {
			p := math.Exp(lp[a*k+b] - top)
			m := mu(b)
			w += p
			s1[0], s2[0] = s1[0]+p*m, s2[0]+p*m*m
			s1[1], s2[1] = s1[1]+p*tau, s2[1]+p*tau*tau
			for j := range y {
				prec := 1/(s[j]*s[j]) + 1/(tau*tau)
				mean := (y[j]/(s[j]*s[j]) + m/(tau*tau)) / prec
				s1[2+j] += p * mean
				s2[2+j] += p * (mean*mean + 1/prec)
			}
		}
	}
	c := calibrationCase{name: name, data: map[string]any{"y": y, "sigma": s}, mean: map[string]float64{}, sd: map[string]float64{}}
	for i, n := range names {
		c.mean[n] = s1[i] / w
		c.sd[n] = math.Sqrt(s2[i]/w - c.mean[n]*c.mean[n])
	}
	head := "data { J: int  y: real[J]  sigma: real<lower=0>[J] }\n"
	like := "\n  for j in plate(J) { y[j] ~ normal(theta[j], sigma[j]) } }"
	switch form {
	case "centred":
		c.src = head + "param { mu: real  tau: real<lower=0>  theta: real[J] }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  theta ~ normal(mu, tau)" + like
	case "affine":
		c.src = head + "param { mu: real  tau: real<lower=0>  theta: real<offset=mu, multiplier=tau>[J] }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  theta ~ normal(mu, tau)" + like
	default:
		c.src = head + "param { mu: real  tau: real<lower=0>  eta: real[J] }\ntransformed param { theta = mu + tau * eta }\nmodel { mu ~ normal(0, 5)  tau ~ cauchy(0, 5)  eta ~ normal(0, 1)" + like
	}
	return c
}

// collinearCase is a regression of y on 12 predictors on raw scales (sds
// from 0.5 to 500) whose pairwise correlations are 0.97, with the noise
// sd known: its posterior is Gaussian, (XᵀX/σ² + I/100²)⁻¹ around the
// least-squares fit shrunk by the prior.
func collinearCase(rng *rand.Rand) calibrationCase {
	const n, d, sigma = 500, 12, 2.0
	x := make([][]float64, n)
	y := make([]float64, n)
	design := mat.NewDense(n, d+1, nil)
	for i := range x {
		common := rng.NormFloat64()
		x[i] = make([]float64, d)
		row := []float64{1}
		eta := 3.0
		for j := range x[i] {
			scale := 0.5 * math.Pow(1000, float64(j)/(d-1))
			x[i][j] = scale * (math.Sqrt(0.97)*common + math.Sqrt(0.03)*rng.NormFloat64())
			eta += x[i][j] / scale
			row = append(row, x[i][j])
		}
		y[i] = eta + sigma*rng.NormFloat64()
		design.SetRow(i, row)
	}
	var prec mat.Dense
	prec.Mul(design.T(), design)
	prec.Scale(1/(sigma*sigma), &prec)
	for j := range d + 1 {
		prec.Set(j, j, prec.At(j, j)+1e-4)
	}
	var cov mat.Dense
	if err := cov.Inverse(&prec); err != nil {
		panic(err)
	}
	var xty, m mat.VecDense
	xty.MulVec(design.T(), mat.NewVecDense(n, y))
	xty.ScaleVec(1/(sigma*sigma), &xty)
	m.MulVec(&cov, &xty)
	c := calibrationCase{name: "collinear regression",
		src:  "data { N: int  D: int  X: real[N, D]  y: real[N] }\nparam { a: real  b: real[D] }\nmodel { a ~ normal(0, 100)  b ~ normal(0, 100)\n  for n in plate(N) { y[n] ~ normal(a + dot(X[n], b), 2) } }",
		data: map[string]any{"X": x, "y": y}, mean: map[string]float64{}, sd: map[string]float64{}}
	for j := range d + 1 {
		name := "a"
		if j > 0 {
			name = fmt.Sprintf("b.%d", j)
		}
		c.mean[name], c.sd[name] = m.AtVec(j), math.Sqrt(cov.At(j, j))
	}
	return c
}

// referenceCases are the cases without an exact posterior, whose
// references come from long runs (TestCalibrationReferences).
func referenceCases() []calibrationCase {
	rng := rand.New(rand.NewPCG(31, 7))
	// Random-effects logistic: 12 groups of 10-60 trials, logit p_j = μ +
	// τ η_j, non-centred.
	const groups = 12
	trials, successes := make([]int, groups), make([]int, groups)
	for j := range groups {
		trials[j] = 10 + rng.IntN(51)
		p := 1 / (1 + math.Exp(-(-0.5 + 0.8*rng.NormFloat64())))
		for range trials[j] {
			if rng.Float64() < p {
				successes[j]++
			}
		}
	}
	logistic := calibrationCase{name: "random-effects logistic",
		src:  "data { J: int  n: int[J]  k: int[J] }\nparam { mu: real  tau: real<lower=0>  eta: real[J] }\nmodel { mu ~ normal(0, 2)  tau ~ normal(0, 1)  eta ~ normal(0, 1)\n  for j in plate(J) { k[j] ~ binomial_logit(n[j], mu + tau * eta[j]) } }",
		data: map[string]any{"n": trials, "k": successes}}
	// Two-parameter item response: 20 items × 100 persons, abilities
	// N(0, 1), discriminations log-normal, difficulties N(0, σ_b).
	const items, persons = 20, 100
	var item, person, correct []int
	disc, diff := make([]float64, items), make([]float64, items)
	for i := range items {
		disc[i], diff[i] = math.Exp(0.3*rng.NormFloat64()), rng.NormFloat64()
	}
	for p := range persons {
		ability := rng.NormFloat64()
		for i := range items {
			item, person = append(item, i+1), append(person, p+1)
			y := 0
			if rng.Float64() < 1/(1+math.Exp(-disc[i]*(ability-diff[i]))) {
				y = 1
			}
			correct = append(correct, y)
		}
	}
	irt := calibrationCase{name: "item response (2PL)",
		src: `data { N: int  I: int  P: int  item: int[N]  person: int[N]  y: int<lower=0, upper=1>[N] }
param { theta: real[P]  log_a: real[I]  b: real[I]  sigma_b: real<lower=0> }
model {
  theta ~ normal(0, 1)
  log_a ~ normal(0, 0.5)
  sigma_b ~ normal(0, 2)
  b ~ normal(0, sigma_b)
  for n in plate(N) { y[n] ~ bernoulli_logit(exp(log_a[item[n]]) * (theta[person[n]] - b[item[n]])) }
}`,
		data: map[string]any{"I": items, "P": persons, "item": item, "person": person, "y": correct}}
	return []calibrationCase{logistic, irt}
}

// autoCases are the cases of TestCalibrationAuto, with their references.
func autoCases(t *testing.T) []calibrationCase {
	schools := []float64{28, 8, -3, 7, -1, 1, 18, 12}
	schoolSDs := []float64{15, 10, 16, 11, 9, 11, 10, 18}
	rng := rand.New(rand.NewPCG(11, 3))
	many, manySDs := make([]float64, 40), make([]float64, 40)
	for j := range many {
		manySDs[j] = 2 + 4*rng.Float64()
		many[j] = 1 + 3*rng.NormFloat64() + manySDs[j]*rng.NormFloat64()
	}
	cases := []calibrationCase{
		hierarchyCase("hierarchy, 8 groups, non-centred", schools, schoolSDs, "non-centred"),
		hierarchyCase("hierarchy, 8 groups, centred", schools, schoolSDs, "centred"),
		hierarchyCase("hierarchy, 8 groups, offset and multiplier", schools, schoolSDs, "affine"),
		hierarchyCase("hierarchy, 40 groups, non-centred", many, manySDs, "non-centred"),
		hierarchyCase("hierarchy, 40 groups, centred", many, manySDs, "centred"),
		collinearCase(rng),
		// Neal's funnel, non-centred: v ~ N(0, 3) exactly; the x_i have
		// mean 0 and sd exp(9/4) but tails too heavy for a 10% check.
		{name: "funnel, non-centred", src: "param { v: real  z: real[9] }\ntransformed param { x = exp(v / 2) * z }\nmodel { v ~ normal(0, 3)  z ~ normal(0, 1) }",
			mean: map[string]float64{"v": 0}, sd: map[string]float64{"v": 3}},
	}
	refs := readReferences(t)
	for _, c := range referenceCases() {
		r, ok := refs[c.name]
		if !ok {
			t.Fatalf("no reference for %s in testdata/calibration_references.json", c.name)
		}
		c.mean, c.sd = r.Mean, r.SD
		cases = append(cases, c)
	}
	return cases
}

// knownLimits are the cases that the defaults do not get right: each must
// warn instead (the README lists them).
// None now: the centred eight schools, whose NUTS runs diverge in the
// funnel's neck at every adapt_delta up to 0.99, are sampled non-centred
// by the escalation.
var knownLimits = map[string]string{}

// TestCalibrationAuto samples each case with the defaults alone (sampler
// auto, its plan and escalation), and asks what TestCalibrationDefaults
// asks: every mean within 0.1 posterior sd of the reference, every sd
// within 10%. The runs are 4 chains × 2,000 draws of NUTS (the plan's
// choice on data this small), whose bulk ESS is in the thousands here, so
// the Monte Carlo error of a mean is below 0.03 sd and of an sd below 2%;
// the references from long runs add about 0.005 sd and 0.5% (ESS over
// 40,000). A known limit must warn instead. Each case's sampler, attempts,
// worst errors and time are logged for the README's table.
func TestCalibrationAuto(t *testing.T) {
	for _, c := range autoCases(t) {
		t.Run(c.name, func(t *testing.T) {
			m, err := temper.Compile("case.ppl", c.src, c.data)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := m.Sample(context.Background(), temper.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			elapsed := time.Since(start)
			report, bad := c.check(res)
			worstMean, worstSD := 0.0, 0.0
			for _, s := range res.Summary() {
				if want, ok := c.mean[s.Name]; ok {
					worstMean = max(worstMean, math.Abs(s.Mean-want)/c.sd[s.Name])
					worstSD = max(worstSD, math.Abs(s.SD/c.sd[s.Name]-1))
				}
			}
			var attempts []string
			for _, a := range res.Attempts {
				attempts = append(attempts, a.Describe())
			}
			// The last run's settings are its options' (its non-centring is
			// the attempt before it's step, named there).
			last := map[string]string{}
			for k, v := range res.Options.Settings {
				last[k] = fmt.Sprint(v)
			}
			attempts = append(attempts, res.Result.Sampler+settings.Format(last))
			t.Logf("%s: %s; worst mean %.3f sd, worst sd %.1f%%, %.1f s", c.name, strings.Join(attempts, " → "), worstMean, 100*worstSD, elapsed.Seconds())
			if limit, known := knownLimits[c.name]; known {
				if !strings.Contains(strings.Join(res.Warnings, "\n"), limit) {
					t.Errorf("a known limit without its warning (%q): %q", limit, res.Warnings)
				}
				return
			}
			if bad {
				t.Errorf("off with the defaults:\n  %s", strings.Join(report, "\n  "))
			}
			// Every case has one mode: a mode search or a judgement that
			// sent one to the ladder saw modes that are not there (the
			// collinear regression's ridge once did, at 20 times NUTS's
			// time).
			if slices.Contains(attempts, "pt") {
				t.Errorf("a posterior of one mode ran pt: %s", strings.Join(attempts, " → "))
			}
		})
	}
}

// reference is a case's long-run moments.
type reference struct {
	Mean, SD map[string]float64
	// How they were made.
	Sampler string
	Draws   int
	MinESS  float64
}

func readReferences(t *testing.T) map[string]reference {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "calibration_references.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs map[string]reference
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	return refs
}

// TestCalibrationReferences writes the references of the cases without an
// exact posterior, with TEMPER_REFERENCES=1: NUTS with a dense metric at
// adapt_delta 0.95, 4 chains × 25,000 draws after a warm-up of 2,000
// (minutes; run once, and the file committed).
func TestCalibrationReferences(t *testing.T) {
	if os.Getenv("TEMPER_REFERENCES") == "" {
		t.Skip("a generator, not a check, and not run in CI: TEMPER_REFERENCES=1 writes testdata/calibration_references.json")
	}
	refs := map[string]reference{}
	for _, c := range referenceCases() {
		m, err := temper.Compile("case.ppl", c.src, c.data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Sample(context.Background(), temper.Options{Sampler: "nuts", Seed: 12345, Iters: 25_000,
			Settings: map[string]any{"metric": "dense", "adapt_delta": 0.95, "warmup": 2000}})
		if err != nil {
			t.Fatal(err)
		}
		r := reference{Mean: map[string]float64{}, SD: map[string]float64{}, Sampler: res.SamplerDescription(), Draws: 4 * 25_000, MinESS: math.Inf(1)}
		for _, s := range res.Summary()[1 : m.Dim()+1] {
			r.Mean[s.Name], r.SD[s.Name] = s.Mean, s.SD
			r.MinESS = min(r.MinESS, s.ESSBulk)
		}
		if len(res.Warnings) > 0 {
			t.Errorf("%s: the reference run warns: %q", c.name, res.Warnings)
		}
		refs[c.name] = r
		t.Logf("%s: min bulk ESS %.0f", c.name, r.MinESS)
	}
	raw, err := json.MarshalIndent(refs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "calibration_references.json"), append(raw, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
