package sbc_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/sbc"
)

// By hand: ranks 0, 0, 1, 3 among 3 draws in 2 bins ({0, 1} and {2, 3})
// count 3 and 1 where 2 and 2 are expected: χ² = 1 on 1 degree of
// freedom, whose upper tail is 2(1 − Φ(1)) = 0.3173.
func TestSBCRankUniformityByHand(t *testing.T) {
	got, err := sbc.RankUniformity([]int{0, 0, 1, 3}, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Counts, []int{3, 1}) || !slices.Equal(got.Expected, []float64{2, 2}) || got.DF != 1 {
		t.Errorf("counts %v, expected %v, df %d; want [3 1], [2 2], 1", got.Counts, got.Expected, got.DF)
	}
	if math.Abs(got.Statistic-1) > 1e-12 || math.Abs(got.PValue-0.3173105) > 1e-6 {
		t.Errorf("χ² %v, p %v; want 1 and 0.3173105", got.Statistic, got.PValue)
	}
	// 5 rank values in 2 bins: {0, 1} and {2, 3, 4}, expected in
	// proportion 2 : 3.
	got, err = sbc.RankUniformity([]int{0, 1, 2, 3, 4}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Counts, []int{2, 3}) || !slices.Equal(got.Expected, []float64{2, 3}) || got.Statistic != 0 || got.PValue != 1 {
		t.Errorf("unequal bins: counts %v, expected %v, χ² %v, p %v; want [2 3], [2 3], 0, 1", got.Counts, got.Expected, got.Statistic, got.PValue)
	}
	for _, bad := range []struct {
		ranks       []int
		draws, bins int
	}{{[]int{0, 4}, 3, 2}, {[]int{-1}, 3, 2}, {[]int{0}, 3, 5}, {[]int{0}, 3, 1}, {nil, 3, 2}} {
		if _, err := sbc.RankUniformity(bad.ranks, bad.draws, bad.bins); err == nil {
			t.Errorf("ranks %v among %d draws in %d bins: no error", bad.ranks, bad.draws, bad.bins)
		}
	}
}

func TestSBCBins(t *testing.T) {
	for _, c := range []struct{ n, draws, want int }{
		{100, 99, 20},  // 20 bins of 5 rank values, 5 expected in each
		{1000, 99, 20}, // no more than 20
		{60, 99, 11},   // 12 bins would have some of 8 rank values, expecting 60·8/100 = 4.8; 11 have 9 or 10
		{100, 100, 16}, // 101 values: 20 to 17 bins have bins of 5 values, expecting 100·5/101 = 4.95; 16 have 6 or 7
		{9, 99, 0},     // two bins would expect 4.5 each
		{10, 1, 2},
	} {
		if got := sbc.Bins(c.n, c.draws); got != c.want {
			t.Errorf("SBCBins(%d, %d) = %d, want %d", c.n, c.draws, got, c.want)
		}
	}
}

// Ties are shared out at random: truth 1 among 0, 1, 1, 2 has rank 1, 2
// or 3, each a third of the time.
func TestSBCRankTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[int]int{}
	const n = 3000
	for range n {
		counts[sbc.Rank(1, []float64{0, 1, 1, 2}, rng)]++
	}
	// Each count is binomial(3000, 1/3): sd 25.8, so 130 is 5 sd.
	for r := 1; r <= 3; r++ {
		if math.Abs(float64(counts[r])-n/3) > 130 {
			t.Errorf("rank %d drawn %d times of %d, want about %d (all: %v)", r, counts[r], n, n/3, counts)
		}
	}
	if got := sbc.Rank(0.5, []float64{3, 0, 1, -2}, rng); got != 2 {
		t.Errorf("rank of 0.5 among 3, 0, 1, -2 = %d, want 2", got)
	}
}

// A "sampler" that draws exactly from the conjugate normal posterior
// (mu ~ N(0, 1), 10 observations y ~ N(mu, 1): N(Σy/11, 1/11)), and the
// same posterior shifted by half its sd, or 30% too narrow, or 30% too
// wide, ranked as SBC ranks: the exact one passes the test at the
// Bonferroni threshold and the broken ones fail it by far. 1,000
// replications of 99 draws take a few milliseconds.
func TestSBCRejectsBrokenSamplers(t *testing.T) {
	const (
		reps, draws, n = 1000, 99, 10
	)
	bins := sbc.Bins(reps, draws)
	for _, c := range []struct {
		name         string
		shift, scale float64 // in posterior sds
		reject       bool
	}{
		{"exact", 0, 1, false},
		{"shifted by 0.5 sd", 0.5, 1, true},
		{"30% too narrow", 0, 0.7, true},
		{"30% too wide", 0, 1.3, true},
	} {
		rng := rand.New(rand.NewPCG(3, 4))
		ranks := make([][]int, reps)
		post := make([]float64, draws)
		for r := range ranks {
			mu := rng.NormFloat64()
			sum := 0.0
			for range n {
				sum += mu + rng.NormFloat64()
			}
			mean, sd := sum/(n+1), 1/math.Sqrt(n+1)
			for i := range post {
				post[i] = mean + c.shift*sd + c.scale*sd*rng.NormFloat64()
			}
			ranks[r] = []int{sbc.Rank(mu, post, rng)}
		}
		test, err := sbc.RankUniformity(column(ranks, 0), draws, bins)
		if err != nil {
			t.Fatal(err)
		}
		test.Param = "mu"
		res := &sbc.Result{Params: []string{"mu"}, Ranks: ranks, Tests: []sbc.RankTest{test},
			Options: sbc.Options{Draws: draws, Alpha: sbc.DefaultAlpha}}
		t.Logf("%s: χ² %.1f on %d df, p = %.3g", c.name, test.Statistic, test.DF, test.PValue)
		// The exact sampler's p-value is uniform: it falls below the
		// threshold 0.001 for one seed in 1,000. The broken ones' are
		// below 1e-10 (their χ² is several times its degrees of freedom),
		// far from the threshold, so the test is no borderline case.
		switch rejected := res.Rejected(); {
		case c.reject && (len(rejected) != 1 || test.PValue > 1e-10):
			t.Errorf("%s: p = %.3g, rejected %v; want p < 1e-10 and mu rejected", c.name, test.PValue, rejected)
		case !c.reject && len(rejected) != 0:
			t.Errorf("%s: p = %.3g, rejected %v; want no rejection", c.name, test.PValue, rejected)
		}
	}
}

func column(rows [][]int, k int) []int {
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r[k]
	}
	return out
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", "sbc", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

// normalGenerator is the generator of examples/sbc/normal.ppl: mu from
// N(0, 1), then n observations from N(mu, 1).
func normalGenerator(n int) sbc.Generator {
	return func(rng *rand.Rand) (map[string]float64, map[string]any) {
		mu := rng.NormFloat64()
		y := make([]float64, n)
		for i := range y {
			y[i] = mu + rng.NormFloat64()
		}
		return map[string]float64{"mu": mu}, map[string]any{"N": n, "y": y}
	}
}

// hierarchyGenerator is the generator of examples/sbc/hierarchy.ppl with
// four groups of known standard errors 1, 1.5, 2 and 1: mu from N(0, 2²),
// tau half-normal, eta standard normal, theta = mu + tau·eta, and y.
func hierarchyGenerator(rng *rand.Rand) (map[string]float64, map[string]any) {
	sigma := []float64{1, 1.5, 2, 1}
	mu, tau := 2*rng.NormFloat64(), math.Abs(rng.NormFloat64())
	truth := map[string]float64{"mu": mu, "tau": tau}
	y := make([]float64, len(sigma))
	for j := range y {
		eta := rng.NormFloat64()
		theta := mu + tau*eta
		truth[index("eta", j)], truth[index("theta", j)] = eta, theta
		y[j] = theta + sigma[j]*rng.NormFloat64()
	}
	return truth, map[string]any{"J": len(sigma), "y": y, "sigma": sigma}
}

// logisticGenerator is the generator of examples/sbc/logistic.ppl: 50
// rows of 3 standard-normal covariates, the coefficients from N(0, 1),
// and y from the logistic model.
func logisticGenerator(rng *rand.Rand) (map[string]float64, map[string]any) {
	const n, d = 50, 3
	alpha := rng.NormFloat64()
	beta := make([]float64, d)
	truth := map[string]float64{"alpha": alpha}
	for k := range beta {
		beta[k] = rng.NormFloat64()
		truth[index("beta", k)] = beta[k]
	}
	x, y := make([][]float64, n), make([]int, n)
	for i := range x {
		x[i] = make([]float64, d)
		eta := alpha
		for k := range x[i] {
			x[i][k] = rng.NormFloat64()
			eta += x[i][k] * beta[k]
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return truth, map[string]any{"N": n, "D": d, "X": x, "y": y}
}

// boundedGenerator is the generator of examples/sbc/bounded.ppl: p from
// beta(2, 2) (the median of three uniforms), then 20 Bernoulli trials.
func boundedGenerator(rng *rand.Rand) (map[string]float64, map[string]any) {
	u := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
	slices.Sort(u)
	p := u[1]
	y := make([]int, 20)
	for i := range y {
		if rng.Float64() < p {
			y[i] = 1
		}
	}
	return map[string]float64{"p": p}, map[string]any{"N": len(y), "y": y}
}

// index is the column of element i (from 0) of a vector: beta.1 for 0.
func index(name string, i int) string { return name + "." + string(rune('1'+i)) }

// checkRan asserts what holds for any sampler, calibrated or not: every
// completed replication has a rank of each parameter in 0..Draws, the
// tests' counts sum to the completed replications, and the p-values are
// probabilities.
func checkRan(t *testing.T, res *sbc.Result, params []string) {
	t.Helper()
	if !slices.Equal(res.Params, params) {
		t.Fatalf("ranked %v, want %v", res.Params, params)
	}
	n := res.Completed()
	if n+len(res.Failures) != res.Options.Replications || n == 0 {
		t.Errorf("%d replications completed and %d failed of %d", n, len(res.Failures), res.Options.Replications)
	}
	for r, row := range res.Ranks {
		for k, x := range row {
			if x < 0 || x > res.Options.Draws {
				t.Errorf("replication %d: rank of %s = %d, outside 0..%d", r, params[k], x, res.Options.Draws)
			}
		}
	}
	for _, test := range res.Tests {
		sum := 0
		for _, c := range test.Counts {
			sum += c
		}
		if sum != n || !(test.PValue >= 0 && test.PValue <= 1) || test.DF != len(test.Counts)-1 {
			t.Errorf("%s: counts sum to %d of %d replications, p = %v, df %d for %d bins", test.Param, sum, n, test.PValue, test.DF, len(test.Counts))
		}
	}
}

// SBC of the SG samplers on the conjugate normal model at their defaults:
// they are approximate (the step size's bias, the warm-up's), so the test
// reports how far from uniform the ranks are and asserts only that the
// machinery ran. 100 replications × 990 iterations of 1 chain, ranked
// among 99 draws.
func TestSBCNormalSGSamplers(t *testing.T) {
	src := readTestdata(t, "normal.ppl")
	for _, sampler := range []string{"sghmc", "sgld"} {
		t.Run(sampler, func(t *testing.T) {
			start := time.Now()
			res, err := sbc.Run(context.Background(), "normal.ppl", src, normalGenerator(10),
				sbc.Options{Run: temper.Options{Sampler: sampler, Seed: 1}})
			if err != nil {
				t.Fatal(err)
			}
			checkRan(t, res, []string{"mu"})
			var table strings.Builder
			res.WriteTable(&table)
			t.Logf("%s in %.1fs:\n%s", sampler, time.Since(start).Seconds(), table.String())
		})
	}
}

// A sampler broken on purpose: SGHMC at temperature 0.5 draws from the
// posterior raised to the power 2, whose sd is 29% too small, far more
// than the step size's bias. 400 replications (1.6 s) reject it with
// p = 6e-19 at seed 1 (at temperature 1, p = 0.61); the test asks for
// p < 1e-8, so that no seed or change of random stream is near the edge.
func TestSBCCatchesColdSampler(t *testing.T) {
	res, err := sbc.Run(context.Background(), "normal.ppl", readTestdata(t, "normal.ppl"), normalGenerator(10),
		sbc.Options{Replications: 400, Run: temper.Options{Seed: 1, Settings: map[string]any{"temperature": 0.5}}})
	if err != nil {
		t.Fatal(err)
	}
	checkRan(t, res, []string{"mu"})
	test := res.Tests[0]
	t.Logf("temperature 0.5: χ² %.1f on %d df, p = %.3g", test.Statistic, test.DF, test.PValue)
	if rejected := res.Rejected(); !slices.Equal(rejected, []string{"mu"}) || test.PValue > 1e-8 {
		t.Errorf("p = %.3g, rejected %v; want p < 1e-8 and mu rejected", test.PValue, rejected)
	}
	// Too narrow a posterior leaves the true value outside its draws
	// more often than uniform ranks would: the extreme bins are fuller
	// than expected.
	last := len(test.Counts) - 1
	if float64(test.Counts[0]) < 2*test.Expected[0] || float64(test.Counts[last]) < 2*test.Expected[last] {
		t.Errorf("the end bins hold %d and %d ranks, expected %.0f each; want both doubled: %v", test.Counts[0], test.Counts[last], test.Expected[0], test.Counts)
	}
}

// The three models of the exact samplers' SBC tests (sbcModels), run with
// SGHMC and SGLD at their defaults. They are approximate (the tuned step's
// bias keeps sds within about 5%), but SBC at these sizes sees only
// errors several times larger: a posterior 29% too narrow is rejected at
// p = 6e-19 with 400 replications (TestSBCCatchesColdSampler), one 30%
// too wide at p < 1e-13 with 1,000 (TestSBCRejectsBrokenSamplers), while
// a 5% error in an sd moves a χ² statistic by less than its own spread.
// So the ranks are judged by the exact samplers' test (uniform over the
// bins at α = 0.001 split over the parameters) and every replication must
// run: a failure here is a fault, not the step's bias. The hierarchy's
// bulk ESS is about 0.05 per iteration under SGHMC: 4,000 iterations give
// the 99 draws ranked, and 50 replications keep it near 5 s; SGLD mixes
// slower still there (its runs double to reach the ESS, 25 s), so it is
// run on the other two. Seed 1, when this was written: smallest p 0.0067
// on the hierarchy (mu), 0.069 on the logistic regression, 0.68 on the
// bounded parameter; the Bonferroni threshold is 1e-4 for the hierarchy's
// ten parameters.
func TestSBCModelsSG(t *testing.T) {
	if testing.Short() {
		t.Skip("six calibrations; skipped with -short")
	}
	for _, sampler := range []string{"sghmc", "sgld"} {
		for _, c := range sbcModels {
			if sampler == "sgld" && c.file == "hierarchy.ppl" {
				continue
			}
			t.Run(sampler+"/"+c.file, func(t *testing.T) {
				opts := sbc.Options{Run: temper.Options{Sampler: sampler, Seed: 1}}
				if c.file == "hierarchy.ppl" {
					opts.Replications, opts.Run.Iters = 50, 4000
				}
				checkUniform(t, calibrate(t, c.file, c.gen, c.params, opts))
			})
		}
	}
}

// programGenerator is the generator of examples/sbc/NAME.ppl made by
// its program NAME_gen.ppl with data, and the model's source.
func programGenerator(t *testing.T, name string, data map[string]any) (sbc.Generator, string) {
	t.Helper()
	prog, err := sbc.CompileGenerator(name+"_gen.ppl", readTestdata(t, name+"_gen.ppl"), data)
	if err != nil {
		t.Fatal(err)
	}
	src := readTestdata(t, name+".ppl")
	gen, err := prog.For(name+".ppl", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return gen, src
}

// A generator program (examples/sbc/normal_gen.ppl) makes the generator
// of its model: mu is the truth, y.1 ... y.10 make the data y, and N
// comes from the program's data.
func TestSBCGeneratorProgram(t *testing.T) {
	gen, src := programGenerator(t, "normal", map[string]any{"N": 10})
	truth, data := gen(rand.New(rand.NewPCG(1, 1)))
	if len(truth) != 1 {
		t.Fatalf("truth %v, want mu alone", truth)
	}
	m, err := temper.Compile("normal.ppl", src, data)
	if err != nil {
		t.Fatal(err)
	}
	if m.NumData() != 10 {
		t.Errorf("the data have %d rows, want N = 10", m.NumData())
	}
	res, err := sbc.Run(context.Background(), "normal.ppl", src, gen,
		sbc.Options{Run: temper.Options{Seed: 1}, Replications: 20})
	if err != nil {
		t.Fatal(err)
	}
	checkRan(t, res, []string{"mu"})
}

// The hierarchy's generator program (examples/sbc/hierarchy_gen.ppl)
// draws every parameter and theta, a transformed parameter, and the
// data y; sigma and J come from its data; the model compiles with them.
func TestSBCHierarchyGeneratorProgram(t *testing.T) {
	gen, src := programGenerator(t, "hierarchy", map[string]any{"J": 4, "sigma": []float64{1, 1.5, 2, 1}})
	truth, data := gen(rand.New(rand.NewPCG(1, 2)))
	var keys []string
	for k := range truth {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"eta.1", "eta.2", "eta.3", "eta.4", "mu", "tau", "theta.1", "theta.2", "theta.3", "theta.4"}; !slices.Equal(keys, want) {
		t.Errorf("truth %v, want %v", keys, want)
	}
	for j := 1; j <= 4; j++ {
		eta, theta := truth[index("eta", j-1)], truth[index("theta", j-1)]
		if d := theta - (truth["mu"] + truth["tau"]*eta); math.Abs(d) > 1e-12 || truth["tau"] < 0 {
			t.Errorf("theta.%d = %v, mu + tau·eta = %v, tau %v", j, theta, theta-d, truth["tau"])
		}
	}
	if _, err := temper.Compile("hierarchy.ppl", src, data); err != nil {
		t.Errorf("the model does not take the generated data: %v", err)
	}
}

// What a generator gets wrong stops the calibration with an error that
// says what: a parameter without its truth, a truth that is no column, a
// value outside its bounds, data that do not fit, and too few
// replications for a test.
func TestSBCErrors(t *testing.T) {
	src := readTestdata(t, "bounded.ppl")
	with := func(edit func(truth map[string]float64, data map[string]any)) sbc.Generator {
		return func(rng *rand.Rand) (map[string]float64, map[string]any) {
			truth, data := boundedGenerator(rng)
			edit(truth, data)
			return truth, data
		}
	}
	for _, c := range []struct {
		name string
		gen  sbc.Generator
		opts sbc.Options
		want string
	}{
		{"no truth", with(func(truth map[string]float64, _ map[string]any) { delete(truth, "p") }), sbc.Options{}, "truth has no p"},
		{"unknown column", with(func(truth map[string]float64, _ map[string]any) { truth["q"] = 1 }), sbc.Options{}, "truth has q, which is no column"},
		{"out of bounds", with(func(truth map[string]float64, _ map[string]any) { truth["p"] = 1.5 }), sbc.Options{}, "p = 1.5, outside its bounds [0, 1]"},
		{"bad data", with(func(_ map[string]float64, data map[string]any) { data["y"] = []int{2} }), sbc.Options{}, "do not fit the model"},
		{"too few", boundedGenerator, sbc.Options{Replications: 9}, "too few for a χ² test"},
		{"unknown sampler", boundedGenerator, sbc.Options{Run: temper.Options{Sampler: "nope"}}, "nope"},
	} {
		_, err := sbc.Run(context.Background(), "bounded.ppl", src, c.gen, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// Cancelling stops the calibration: the replications ranked so far are
// tested and returned with the context's error.
func TestSBCCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := sbc.Run(ctx, "bounded.ppl", readTestdata(t, "bounded.ppl"), boundedGenerator, sbc.Options{
		Run:           temper.Options{Seed: 1},
		OnReplication: func(done, total int) { cancel() },
	})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("error %v, result %v; want context.Canceled and the replications so far", err, res)
	}
	if n := res.Completed(); n < 1 || n == res.Options.Replications || len(res.Tests) != 1 {
		t.Errorf("%d of %d replications completed, %d tests; want some, not all, and p's test", n, res.Options.Replications, len(res.Tests))
	}
}

// sbcModels are the calibration models of examples/sbc with their
// generators and the columns ranked.
var sbcModels = []struct {
	file   string
	gen    sbc.Generator
	params []string
}{
	{"hierarchy.ppl", hierarchyGenerator, []string{"mu", "tau", "eta.1", "eta.2", "eta.3", "eta.4", "theta.1", "theta.2", "theta.3", "theta.4"}},
	{"logistic.ppl", logisticGenerator, []string{"alpha", "beta.1", "beta.2", "beta.3"}},
	{"bounded.ppl", boundedGenerator, []string{"p"}},
}

// TestSBCExact calibrates the exact samplers (Talts et al. 2018): nuts,
// hmc and mala at their defaults but for a warm-up of 500 iterations, on
// a normal hierarchy, a logistic regression and a bounded parameter, each
// with 200 replications ranked among 99 draws of one chain. Every
// parameter's ranks must pass the χ² test of uniformity over 20 bins at
// α = 0.001 split over the model's parameters (Bonferroni): a correct
// sampler fails one model's test with probability at most 0.001, the nine
// together at most 0.009, and with the seed fixed the outcome is fixed
// too. A posterior shifted by 0.5 sd or 30% too wide fails this test at
// p below 1e-13 with 1,000 replications (TestSBCRejectsBrokenSamplers);
// with 200 the statistic is a fifth, still far past the threshold for a
// shift of 0.5 sd (p about 1e-6).
func TestSBCExact(t *testing.T) {
	if testing.Short() {
		t.Skip("nine calibrations of 200 replications; skipped with -short")
	}
	for _, sampler := range []string{"nuts", "hmc", "mala"} {
		for _, c := range sbcModels {
			t.Run(sampler+"/"+c.file, func(t *testing.T) {
				opts := sbc.Options{Replications: 200, Run: temper.Options{Sampler: sampler, Seed: 1, Settings: map[string]any{"warmup": 500}}}
				checkUniform(t, calibrate(t, c.file, c.gen, c.params, opts))
			})
		}
	}
}

// checkUniform fails the test when a calibration rejected the uniformity
// of a parameter's ranks or lost a replication.
func checkUniform(t *testing.T, res *sbc.Result) {
	t.Helper()
	if rejected := res.Rejected(); len(rejected) > 0 || len(res.Failures) > 0 {
		t.Errorf("ranks not uniform for %v (%d failed replications)", rejected, len(res.Failures))
	}
}

// calibrate runs SBC of the model file of examples/sbc with gen and opts,
// checks that the machinery ranked params, and logs the tests' table.
func calibrate(t *testing.T, file string, gen sbc.Generator, params []string, opts sbc.Options) *sbc.Result {
	t.Helper()
	start := time.Now()
	res, err := sbc.Run(context.Background(), file, readTestdata(t, file), gen, opts)
	if err != nil {
		t.Fatal(err)
	}
	checkRan(t, res, params)
	var table strings.Builder
	res.WriteTable(&table)
	t.Logf("%s in %.1fs:\n%s", opts.Run.Sampler, time.Since(start).Seconds(), table.String())
	return res
}

// bimodalGenerator draws examples/sbc/bimodal.ppl's theta from its prior
// N(0, 2²) and ten observations y ~ N(theta², 1).
func bimodalGenerator(rng *rand.Rand) (map[string]float64, map[string]any) {
	theta := 2 * rng.NormFloat64()
	y := make([]float64, 10)
	for i := range y {
		y[i] = theta*theta + rng.NormFloat64()
	}
	return map[string]float64{"theta": theta}, map[string]any{"N": len(y), "y": y}
}

// TestSBCParallelTempering calibrates pt on a bimodal posterior (the data
// see theta only through theta²): its ranks must pass the χ² test of
// uniformity at α = 0.001, as the exact samplers' do on unimodal ones
// (TestSBCExact). NUTS on the same replications sits in the mode its
// chain found, so that the true theta, in the other mode half the time,
// ranks at an end: its test must reject. Seed 1, 100 replications: pt
// p = 0.44, NUTS p = 2e-7.
func TestSBCParallelTempering(t *testing.T) {
	if testing.Short() {
		t.Skip("two calibrations; skipped with -short")
	}
	for _, c := range []struct {
		sampler string
		uniform bool
	}{{"pt", true}, {"nuts", false}} {
		opts := sbc.Options{Replications: 100, Run: temper.Options{Sampler: c.sampler, Seed: 1, Settings: map[string]any{"warmup": 300}}}
		res, err := sbc.Run(context.Background(), "bimodal.ppl", readTestdata(t, "bimodal.ppl"), bimodalGenerator, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkRan(t, res, []string{"theta"})
		var table strings.Builder
		res.WriteTable(&table)
		t.Logf("%s:\n%s", c.sampler, table.String())
		if rejected := len(res.Rejected()) > 0; rejected == c.uniform || len(res.Failures) > 0 {
			t.Errorf("%s: rejected %v (want %v), %d failed replications", c.sampler, res.Rejected(), !c.uniform, len(res.Failures))
		}
	}
}
