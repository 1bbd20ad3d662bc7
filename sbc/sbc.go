// Package sbc runs simulation-based calibration (Talts et al. 2018) of
// temper's samplers on a model: a Generator (a Go function, or a
// generator program compiled by CompileGenerator) draws a truth and data
// from the prior, the sampler runs on the data, and the ranks of the truth
// among the draws, uniform for a calibrated sampler, are tested with
// Pearson's χ² per parameter (Run, Result.Rejected). temper sbc is its
// command.
package sbc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/godata"
	"github.com/temper-ppl/temper/internal/hook"
	"github.com/temper-ppl/temper/internal/settings"
	"github.com/temper-ppl/temper/internal/words"
	"github.com/temper-ppl/temper/lang"
)

// Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari &
// Gelman 2018, arXiv:1804.06788, Algorithm 1): draw θ̃ from the prior and
// data ỹ given θ̃, sample the posterior given ỹ, and rank θ̃ among L
// posterior draws. Averaged over the prior, the posterior given data drawn
// from the prior is the prior again, so under a sampler that draws from
// the posterior the rank of every scalar parameter is uniform on
// {0, ..., L}; a shifted posterior piles the ranks at one end, one too
// narrow at both ends, one too wide in the middle.

// Generator draws one replication of simulation-based calibration from
// rng: the parameters from the prior (truth: constrained values by column
// name, "mu", "theta.3", every parameter's column and optionally
// transformed parameters') and the data given them (data: the model's
// data fields, as Compile takes them).
type Generator func(rng *rand.Rand) (truth map[string]float64, data map[string]any)

// DefaultAlpha is the family-wise significance level of SBC's verdict:
// a parameter rejects uniformity when its χ² p-value is below
// DefaultAlpha divided by the number of parameters (Bonferroni), so a
// sampler that draws from the posterior is rejected with probability at
// most 0.001 whatever the number of parameters. A test at a fixed seed is
// deterministic; 0.001 is the chance that changing the seed (or any
// random stream) makes a correct sampler's test fail, small enough for a
// test suite that runs every commit, while a shift of half a posterior sd
// over 1,000 replications gives p-values below 1e-20, and SGHMC at
// temperature 0.5 (a posterior 29% too narrow) over 400 gives 6e-19
// (sbc_test.go).
const DefaultAlpha = 0.001

// Options configure SBC.
type Options struct {
	// Run is the sampler and its run on each replication's data, as
	// temper.Model.Sample takes it, with these defaults: 1 chain (the
	// replications are what make a calibration long), and Iters 10·Draws
	// per chain, so that draws whose bulk ESS is a tenth of their number
	// still thin to Draws about independent ones. Run.Seed seeds the whole
	// calibration: replication r draws from its own stream, so that its
	// draws do not depend on Workers. Checkpoints, starting points and the
	// callbacks (OnDraw, Progress) cannot be set.
	Run temper.Options
	// Replications is N, the number of simulated data sets (default 100).
	Replications int
	// Draws is L, the posterior draws each true value is ranked among
	// (default 99, so that the ranks take 100 values).
	Draws int
	// Bins is the number of bins of the χ² test of the ranks (default
	// Bins(Replications, Draws): the most bins, at most 20, whose
	// expected counts are all at least 5).
	Bins int
	// Alpha is the family-wise significance level (default
	// DefaultAlpha).
	Alpha float64
	// Doublings is the most times a replication is sampled again, with
	// twice the iterations each time, while some parameter's bulk ESS is
	// below Draws (default 3, up to 8·Run.Iters; negative: never): the
	// ranks need about independent draws (Talts et al., section 5).
	Doublings int
	// Workers is the number of replications sampled at once (default
	// GOMAXPROCS); each run then evaluates its model on one thread unless
	// Run.Threads says otherwise.
	Workers int
	// OnReplication, if set, is called after each replication with the
	// number done and the total, from one goroutine at a time.
	OnReplication func(done, total int)
}

// Result is what simulation-based calibration found.
type Result struct {
	// Params are the columns ranked, in the model's order: every
	// parameter's and the transformed parameters' the generator gave.
	Params []string
	// Ranks[r][k] is replication r's rank of Params[k]: the number of its
	// Draws posterior draws below the true value (ties broken at random),
	// 0 to Draws. The row of a failed replication is nil, as are those
	// of replications not run when the context was cancelled.
	Ranks [][]int
	// Tests are the χ² tests of uniformity of each parameter's ranks.
	Tests []RankTest
	// MinESS[r] is the lowest bulk ESS among the Params' draws of
	// replication r, before thinning (NaN for a failed replication).
	// Below Draws, the thinned draws are correlated and the ranks vary
	// more than uniform ones: the test rejects a correct sampler more
	// often than Alpha says.
	MinESS []float64
	// Iters[r] is the iterations per chain of replication r's last run:
	// Run.Iters, or a doubling of it (0 for a failed replication).
	Iters []int
	// Failures are the replications whose run failed (every chain
	// diverged, or it kept fewer than Draws draws); they are left out of
	// the tests.
	Failures []Failure
	// Options are the calibration's, defaults filled in.
	Options Options
	// Elapsed is the calibration's wall time.
	Elapsed time.Duration
}

// Failure is a replication whose run gave no ranks.
type Failure struct {
	Replication int // counted from 0
	Err         error
}

// RankTest is Pearson's χ² test that ranks on {0, ..., L} are uniform:
// the ranks are counted in bins of consecutive values, and
// Σ (count − expected)² / expected is compared with the χ² distribution
// of Bins − 1 degrees of freedom.
type RankTest struct {
	Param     string
	Edges     []int     // bin b holds the ranks Edges[b] to Edges[b+1] − 1
	Counts    []int     // the ranks in each bin
	Expected  []float64 // each bin's count under uniform ranks
	Statistic float64   // χ²
	DF        int       // degrees of freedom: bins − 1
	PValue    float64   // P(χ²_DF ≥ Statistic)
}

// Bins is the number of bins SBC tests n ranks on {0, ..., draws}
// with: the most bins, at most 20 and at most draws + 1, whose expected
// counts are all at least 5, the usual condition for the χ²
// approximation of Pearson's statistic. More bins would see finer
// departures from uniform, but a sampler's are smooth (a shift, a wrong
// width), and the extra degrees of freedom dilute them: at 1,000
// replications a posterior 30% too wide gives p = 1e-6 in 100 bins and
// 1e-14 in 20 (TestSBCRejectsBrokenSamplers). Talts et al. draw their histograms in 20 bins too. It
// is 0 when n is too small for two bins.
func Bins(n, draws int) int {
	values := draws + 1
	for b := min(values, n/5, 20); b >= 2; b-- {
		if float64(n)*float64(values/b)/float64(values) >= 5 { // the narrowest bin has values/b ranks
			return b
		}
	}
	return 0
}

// RankUniformity tests that ranks on {0, ..., draws} are uniform with
// Pearson's χ² over bins bins of consecutive values, as equal in width as
// draws + 1 allows (bin b holds the ranks from ⌊b(L+1)/B⌋ up to
// ⌊(b+1)(L+1)/B⌋), each expected to hold its share of the ranks.
func RankUniformity(ranks []int, draws, bins int) (RankTest, error) {
	values := draws + 1
	switch {
	case draws < 1:
		return RankTest{}, fmt.Errorf("ranks among %d draws: need at least 1", draws)
	case bins < 2 || bins > values:
		return RankTest{}, fmt.Errorf("%d bins for ranks of %d values: need 2 to %d", bins, values, values)
	case len(ranks) == 0:
		return RankTest{}, errors.New("no ranks to test")
	}
	edges := make([]int, bins+1) // bin b holds ranks edges[b] to edges[b+1]-1
	for b := range edges {
		edges[b] = b * values / bins
	}
	t := RankTest{Edges: edges, Counts: make([]int, bins), Expected: make([]float64, bins), DF: bins - 1}
	for _, r := range ranks {
		if r < 0 || r > draws {
			return RankTest{}, fmt.Errorf("rank %d outside 0 to %d", r, draws)
		}
		b, _ := slices.BinarySearch(edges, r+1) // the first edge above r
		t.Counts[b-1]++
	}
	n := float64(len(ranks))
	for b := range bins {
		e := n * float64(edges[b+1]-edges[b]) / float64(values)
		d := float64(t.Counts[b]) - e
		t.Expected[b] = e
		t.Statistic += d * d / e
	}
	t.PValue = distuv.ChiSquared{K: float64(t.DF)}.Survival(t.Statistic)
	return t, nil
}

// Rank is the rank of truth among draws: the number of draws below
// it, plus a uniform share of those equal to it (a stuck chain's repeated
// draws, a parameter at its bound), drawn from rng, so that ties do not
// bias the rank.
func Rank(truth float64, draws []float64, rng *rand.Rand) int {
	below, equal := 0, 0
	for _, d := range draws {
		switch {
		case d < truth:
			below++
		case d == truth:
			equal++
		}
	}
	if equal > 0 {
		below += rng.IntN(equal + 1)
	}
	return below
}

// thinEvenly keeps l of the draws, evenly spaced: the middle of each of l
// equal stretches.
func thinEvenly(draws []float64, l int) []float64 {
	out := make([]float64, l)
	for i := range out {
		out[i] = draws[(2*i+1)*len(draws)/(2*l)]
	}
	return out
}

// withDefaults fills the zero fields that have defaults.
func (o Options) withDefaults() Options {
	o.Replications, o.Draws = cmp.Or(o.Replications, 100), cmp.Or(o.Draws, 99)
	o.Bins = cmp.Or(o.Bins, Bins(o.Replications, o.Draws))
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.Workers, o.Doublings = cmp.Or(o.Workers, runtime.GOMAXPROCS(0)), cmp.Or(o.Doublings, 3)
	o.Run.Chains = cmp.Or(o.Run.Chains, 1)
	o.Run.Iters = cmp.Or(o.Run.Iters, (10*o.Draws+o.Run.Chains-1)/o.Run.Chains)
	if o.Run.Threads == 0 && o.Workers > 1 {
		o.Run.Threads = 1
	}
	if settings.IsAuto(o.Run.Sampler) {
		// A calibration checks one sampler: the stochastic-gradient
		// default, as before sampler auto, unless one is named.
		o.Run.Sampler = "sghmc"
	}
	o.Run = hook.WithDefaults(o.Run).(temper.Options)
	return o
}

// check reports options SBC cannot run.
func (o Options) check() error {
	r := o.Run
	switch {
	case o.Replications < 0 || o.Draws < 0 || o.Bins < 0 || o.Workers < 0:
		return fmt.Errorf("sbc: replications, draws, bins and workers must not be negative")
	case o.Bins < 2:
		return fmt.Errorf("sbc: %d replications are too few for a χ² test of ranks among %d draws: it needs two bins expected to hold 5 ranks each", o.Replications, o.Draws)
	case o.Bins > o.Draws+1:
		return fmt.Errorf("sbc: %d bins for ranks of %d values (0 to %d draws)", o.Bins, o.Draws+1, o.Draws)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("sbc: alpha must be in (0, 1), got %g", o.Alpha)
	case r.Checkpoint != "" || r.Resume != "":
		return fmt.Errorf("sbc: a calibration's runs take no checkpoint or resume")
	case r.Init != nil || r.InitFile != "":
		return fmt.Errorf("sbc: a calibration's runs start at random (Init and InitFile cannot be set)")
	case r.OnDraw != nil || r.Progress != nil:
		return fmt.Errorf("sbc: a calibration runs many samplers at once: use OnReplication, not Run.OnDraw or Run.Progress")
	case r.KeepAll:
		return fmt.Errorf("sbc: the ranks are of the target level's draws: KeepAll cannot be set")
	case r.Chains*(r.Iters/r.Thin) < o.Draws:
		return fmt.Errorf("sbc: %d chains × %d iterations thinned by %d keep fewer than the %d draws to rank among", r.Chains, r.Iters, r.Thin, o.Draws)
	}
	return nil
}

// Run runs simulation-based calibration of the sampler opts.Run chooses
// on the model whose source is src (named name in diagnostics): for each
// of opts.Replications replications, gen draws the true parameters and
// the data, the model is compiled with the data and sampled, opts.Draws
// draws are kept evenly spaced over every chain's draws, and each true
// value is ranked among them; then the ranks of each parameter are tested
// for uniformity (RankUniformity).
//
// Ranks among correlated draws vary more than uniform ones, so that a
// correct sampler looks miscalibrated; Talts et al. (section 5) thin the
// draws by their ESS. Here every replication keeps the same number of
// draws, L = opts.Draws, so that every rank is on the scale {0, ..., L}:
// a run whose bulk ESS is below L for some parameter is made again with
// twice the iterations (opts.Doublings times at most), and L draws evenly
// spaced over a run whose ESS is at least L are at least one
// autocorrelation time apart. The ESS of each replication is reported
// (Result.MinESS, LowESS).
//
// A replication whose run fails is reported in Result.Failures and the
// others go on; a generator whose data do not fit the model, a truth that
// misses a parameter or names no column, and options that cannot run stop
// the calibration with an error. When ctx is cancelled SBC returns the
// replications done so far, tested, with ctx's error.
func Run(ctx context.Context, name, src string, gen Generator, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	f, err := hook.ParseCheck(name, []byte(src))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	c := &calibration{src: []byte(src), file: f, gen: gen, opts: opts, ranked: derivedNames(f)}
	n := opts.Replications
	res := &Result{Options: opts, Ranks: make([][]int, n), MinESS: make([]float64, n), Iters: make([]int, n)}
	runErr := c.run(ctx, res)
	res.Elapsed = time.Since(start)
	cancelled := errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded)
	switch {
	case runErr != nil && !cancelled:
		return nil, runErr
	case res.Params == nil: // cancelled before any replication got as far as its columns
		return nil, cmp.Or(runErr, errors.New("sbc: no replication ran"))
	}
	if err := res.test(); err != nil && runErr == nil {
		runErr = err
	}
	return res, runErr
}

// calibration is one SBC run's fixed parts.
type calibration struct {
	src    []byte
	file   *lang.File
	gen    Generator
	opts   Options
	ranked map[string]bool // the names whose columns may be ranked: parameters and transformed parameters

	mu     sync.Mutex
	params []string // the columns ranked, fixed by the first replication to get them
}

// derivedNames are the parameters' and transformed parameters' names.
func derivedNames(f *lang.File) map[string]bool {
	names := map[string]bool{}
	if f.Param != nil {
		for _, d := range f.Param.Decls {
			names[d.Name] = true
		}
	}
	if f.TransformedParam != nil {
		for _, s := range f.TransformedParam.Stmts {
			if d, ok := s.(*lang.Define); ok {
				names[d.Name] = true
			}
		}
	}
	return names
}

// run samples the replications on opts.Workers goroutines, filling res.
// It returns the first error that stops the calibration.
func (c *calibration) run(ctx context.Context, res *Result) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan int)
	var (
		wg   sync.WaitGroup
		done int
		mu   sync.Mutex // done, res.Failures and OnReplication
	)
	for range min(c.opts.Workers, c.opts.Replications) {
		wg.Go(func() {
			for r := range jobs {
				ranks, ess, iters, err := c.replication(ctx, r)
				var failure *replicationFailure
				switch {
				case errors.As(err, &failure):
					mu.Lock()
					res.Failures = append(res.Failures, Failure{Replication: r, Err: failure.err})
					mu.Unlock()
				case err != nil:
					cancel(err)
					continue
				}
				res.Ranks[r], res.MinESS[r], res.Iters[r] = ranks, ess, iters
				mu.Lock()
				done++
				if c.opts.OnReplication != nil {
					c.opts.OnReplication(done, c.opts.Replications)
				}
				mu.Unlock()
			}
		})
	}
	for r := range c.opts.Replications {
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- r:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	res.Params = c.params
	slices.SortFunc(res.Failures, func(a, b Failure) int { return a.Replication - b.Replication })
	for r, ranks := range res.Ranks {
		if ranks == nil {
			res.MinESS[r] = math.NaN()
		}
	}
	return context.Cause(ctx)
}

// replicationFailure is a replication's run that failed: the calibration
// goes on without it.
type replicationFailure struct{ err error }

func (f *replicationFailure) Error() string { return f.err.Error() }

// replication draws, samples and ranks replication r: its ranks of the
// calibration's columns and the lowest bulk ESS among them.
func (c *calibration) replication(ctx context.Context, r int) ([]int, float64, int, error) {
	rng := rand.New(rand.NewPCG(c.opts.Run.Seed, uint64(r)))
	run := c.opts.Run
	run.Seed = rng.Uint64()
	truth, data := c.gen(rng)
	d, err := godata.Convert(data)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("sbc: replication %d: the generator's data: %w", r+1, err)
	}
	model, err := hook.CompileFile(c.file, c.src, d)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("sbc: replication %d: the generator's data do not fit the model: %w", r+1, err)
	}
	m := model.(*temper.Model)
	cols, err := c.columns(m, truth)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("sbc: replication %d: %w", r+1, err)
	}
	var (
		res    *temper.Result
		minESS float64
	)
	for doubling := 0; ; doubling++ {
		if res, err = m.Sample(ctx, run); res == nil { // options that cannot run
			return nil, 0, 0, fmt.Errorf("sbc: %w", err)
		}
		switch {
		case ctx.Err() != nil:
			return nil, 0, 0, context.Cause(ctx)
		case err != nil:
			return nil, 0, 0, &replicationFailure{err}
		}
		minESS = math.Inf(1)
		for _, col := range cols {
			chains, err := res.Column(col)
			if err != nil {
				return nil, 0, 0, fmt.Errorf("sbc: %w", err)
			}
			e := summary.ESSBulk(chains)
			if math.IsNaN(e) { // draws that never moved
				e = 0
			}
			minESS = min(minESS, e)
		}
		if !(minESS < float64(c.opts.Draws)) || doubling >= c.opts.Doublings {
			break
		}
		run.Iters, run.Seed = 2*run.Iters, rng.Uint64()
	}
	ranks := make([]int, len(cols))
	for k, col := range cols {
		chains, err := res.Column(col)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("sbc: %w", err)
		}
		pool := slices.Concat(chains...)
		if len(pool) < c.opts.Draws {
			return nil, 0, 0, &replicationFailure{fmt.Errorf("the run kept %d draws of %s, fewer than the %d to rank among", len(pool), col, c.opts.Draws)}
		}
		ranks[k] = Rank(truth[col], thinEvenly(pool, c.opts.Draws), rng)
	}
	return ranks, minESS, run.Iters, nil
}

// columns checks a replication's truth against the compiled model and
// returns the columns to rank, in the model's order: every key must be a
// column of a parameter or transformed parameter, with a finite value
// inside the parameter's bounds; every parameter must have its truth; and
// every replication must give the same columns.
func (c *calibration) columns(m *temper.Model, truth map[string]float64) ([]string, error) {
	var cols []string
	outputs := m.Compiled().OutputNames()
	for _, col := range outputs {
		base, _, _ := strings.Cut(col, ".")
		if _, ok := truth[col]; ok && c.ranked[base] {
			cols = append(cols, col)
		}
	}
	if len(cols) < len(truth) {
		for k := range truth {
			base, _, _ := strings.Cut(k, ".")
			if !slices.Contains(outputs, k) || !c.ranked[base] {
				return nil, fmt.Errorf("the generator's truth has %s, which is no column of the model's parameters or transformed parameters (%s)", k, strings.Join(firstNames(m.ParamColumns(), 6), ", "))
			}
		}
	}
	for _, col := range m.ParamColumns() {
		if _, ok := truth[col]; !ok {
			return nil, fmt.Errorf("the generator's truth has no %s: a generator draws every parameter from its prior and names them all", col)
		}
	}
	if err := checkSupport(m, truth); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.params == nil {
		c.params = cols
	} else if !slices.Equal(cols, c.params) {
		return nil, fmt.Errorf("the generator's truth names %s, where an earlier replication's named %s", strings.Join(firstNames(cols, 6), ", "), strings.Join(firstNames(c.params, 6), ", "))
	}
	return cols, nil
}

// checkSupport reports a true value that is not finite or lies outside
// its parameter's declared bounds.
func checkSupport(m *temper.Model, truth map[string]float64) error {
	for k, v := range truth {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the generator's truth has %s = %v", k, v)
		}
	}
	for _, p := range m.Params() {
		if p.Kind != "" {
			continue // simplexes and the like: their own checks are the transform's
		}
		for k, v := range truth {
			if base, _, _ := strings.Cut(k, "."); base == p.Name && (v < p.Lower || v > p.Upper) {
				return fmt.Errorf("the generator's truth has %s = %g, outside its bounds [%g, %g]", k, v, p.Lower, p.Upper)
			}
		}
	}
	return nil
}

// firstNames are the first n names, then "..." if there are more.
func firstNames(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	return append(slices.Clone(names[:n]), "...")
}

// test fills res.Tests from the ranks of the replications that ran.
func (res *Result) test() error {
	res.Tests = make([]RankTest, len(res.Params))
	for k, p := range res.Params {
		var ranks []int
		for _, row := range res.Ranks {
			if row != nil {
				ranks = append(ranks, row[k])
			}
		}
		if len(ranks) == 0 {
			return errors.New("sbc: no replication ran to the end")
		}
		bins := min(res.Options.Bins, max(2, Bins(len(ranks), res.Options.Draws)))
		t, err := RankUniformity(ranks, res.Options.Draws, bins)
		if err != nil {
			return fmt.Errorf("sbc: %s: %w", p, err)
		}
		t.Param = p
		res.Tests[k] = t
	}
	return nil
}

// Threshold is the p-value below which a parameter rejects uniformity:
// Alpha divided by the number of parameters tested (Bonferroni), so that
// the chance that any parameter of a correct sampler rejects is at most
// Alpha.
func (res *Result) Threshold() float64 {
	return res.Options.Alpha / float64(max(1, len(res.Tests)))
}

// Rejected are the parameters whose ranks reject uniformity at
// Threshold.
func (res *Result) Rejected() []string {
	var out []string
	for _, t := range res.Tests {
		if t.PValue < res.Threshold() {
			out = append(out, t.Param)
		}
	}
	return out
}

// Completed is the number of replications that gave ranks.
func (res *Result) Completed() int {
	n := 0
	for _, row := range res.Ranks {
		if row != nil {
			n++
		}
	}
	return n
}

// LowESS is the number of replications whose draws had a bulk ESS below
// Draws for some parameter (MinESS).
func (res *Result) LowESS() int {
	n := 0
	for _, e := range res.MinESS {
		if e < float64(res.Options.Draws) {
			n++
		}
	}
	return n
}

// WriteTable writes the test of each parameter (χ², degrees of freedom,
// p-value, verdict) and the calibration's verdict, with what may weaken
// it: failed replications and draws whose ESS was below Draws.
func (res *Result) WriteTable(w io.Writer) error {
	rows := [][]string{{"param", "chi2", "df", "p", "verdict"}}
	for _, t := range res.Tests {
		verdict := "uniform"
		if t.PValue < res.Threshold() {
			verdict = "not uniform"
		}
		rows = append(rows, []string{t.Param, fmt.Sprintf("%.1f", t.Statistic), fmt.Sprint(t.DF), fmt.Sprintf("%.3g", t.PValue), verdict})
	}
	var b strings.Builder
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for _, row := range rows {
		for i, cell := range row {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", widths[i], cell)
			} else {
				fmt.Fprintf(&b, "  %*s", widths[i], cell)
			}
		}
		b.WriteByte('\n')
	}
	n, bins := res.Completed(), 0
	if len(res.Tests) > 0 {
		bins = len(res.Tests[0].Counts)
	}
	fmt.Fprintf(&b, "\nranks of %d replications among %d draws each, in %d bins; ", n, res.Options.Draws, bins)
	if rejected := res.Rejected(); len(rejected) > 0 {
		fmt.Fprintf(&b, "%d of %d parameters reject uniformity (%s)", len(rejected), len(res.Tests), strings.Join(firstNames(rejected, 6), ", "))
	} else {
		fmt.Fprintf(&b, "no parameter rejects uniformity")
	}
	fmt.Fprintf(&b, " at p < %.3g = %g / %s (Bonferroni: a sampler that draws from the posterior fails with probability at most %g)\n",
		res.Threshold(), res.Options.Alpha, words.Plural(len(res.Tests), "parameter", "parameters"), res.Options.Alpha)
	var ess []float64
	for _, e := range res.MinESS {
		if !math.IsNaN(e) {
			ess = append(ess, e)
		}
	}
	if len(ess) > 0 {
		slices.Sort(ess)
		fmt.Fprintf(&b, "each replication's lowest bulk ESS: median %.0f, least %.0f, of %s × %d iterations", ess[len(ess)/2], ess[0], words.Plural(res.Options.Run.Chains, "chain", "chains"), res.Options.Run.Iters)
		doubled, most := 0, 0
		for _, it := range res.Iters {
			if it > res.Options.Run.Iters {
				doubled, most = doubled+1, max(most, it)
			}
		}
		if doubled > 0 {
			fmt.Fprintf(&b, " (%s sampled again with more, up to %d, for an ESS of %d)", words.Plural(doubled, "replication", "replications"), most, res.Options.Draws)
		}
		b.WriteByte('\n')
	}
	if low := res.LowESS(); low > 0 {
		fmt.Fprintf(&b, "warning: in %d of %d replications some parameter's bulk ESS was below the %d draws ranked: the ranks vary more than uniform ones and the test is too strict; raise iters\n", low, n, res.Options.Draws)
	}
	if len(res.Failures) > 0 {
		fmt.Fprintf(&b, "warning: %d replications failed and are left out (replication %d: %v)\n", len(res.Failures), res.Failures[0].Replication+1, res.Failures[0].Err)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// The files Result.Save writes.
const (
	RanksFile  = "ranks.csv" // WriteRanks
	ResultFile = "sbc.json"  // the options, the tests and the failures
)

// Save writes the ranks (RanksFile) and the calibration's options,
// tests and failures (ResultFile) into dir.
func (res *Result) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var ranks strings.Builder
	if err := res.WriteRanks(&ranks); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, RanksFile), []byte(ranks.String()), 0o644); err != nil {
		return err
	}
	type test struct {
		Param     string    `json:"param"`
		Statistic float64   `json:"chi2"`
		DF        int       `json:"df"`
		PValue    float64   `json:"p"`
		Reject    bool      `json:"reject"`
		Edges     []int     `json:"edges"`
		Counts    []int     `json:"counts"`
		Expected  []float64 `json:"expected"`
	}
	type failure struct {
		Replication int    `json:"replication"` // from 1, as in ranks.csv
		Err         string `json:"error"`
	}
	o := res.Options
	out := struct {
		Sampler      string         `json:"sampler"`
		Settings     map[string]any `json:"settings,omitempty"`
		Chains       int            `json:"chains"`
		Iters        int            `json:"iters"`
		Burn         int            `json:"burn"`
		Thin         int            `json:"thin"`
		Seed         uint64         `json:"seed"`
		Replications int            `json:"replications"`
		Completed    int            `json:"completed"`
		Draws        int            `json:"draws"`
		Alpha        float64        `json:"alpha"`
		Threshold    float64        `json:"threshold"`
		Rejected     []string       `json:"rejected"`
		LowESS       int            `json:"low_ess_replications"`
		Elapsed      float64        `json:"elapsed_seconds"`
		Tests        []test         `json:"tests"`
		Failures     []failure      `json:"failures"`
	}{Sampler: o.Run.Sampler, Settings: o.Run.Settings, Chains: o.Run.Chains, Iters: o.Run.Iters, Burn: o.Run.Burn, Thin: o.Run.Thin,
		Seed: o.Run.Seed, Replications: o.Replications, Completed: res.Completed(), Draws: o.Draws, Alpha: o.Alpha,
		Threshold: res.Threshold(), Rejected: append([]string{}, res.Rejected()...), LowESS: res.LowESS(), Elapsed: res.Elapsed.Seconds(),
		Tests: []test{}, Failures: []failure{}}
	for _, t := range res.Tests {
		out.Tests = append(out.Tests, test{t.Param, t.Statistic, t.DF, t.PValue, t.PValue < res.Threshold(), t.Edges, t.Counts, t.Expected})
	}
	for _, f := range res.Failures {
		out.Failures = append(out.Failures, failure{f.Replication + 1, f.Err.Error()})
	}
	raw, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ResultFile), append(raw, '\n'), 0o644)
}

// WriteRanks writes the ranks as CSV: a column replication (from 1), then
// a column per parameter; a failed replication has no row.
func (res *Result) WriteRanks(w io.Writer) error {
	var b strings.Builder
	b.WriteString("replication," + strings.Join(res.Params, ",") + "\n")
	for r, row := range res.Ranks {
		if row == nil {
			continue
		}
		fmt.Fprint(&b, r+1)
		for _, x := range row {
			fmt.Fprintf(&b, ",%d", x)
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// GeneratorProgram is a compiled generator program: a data block
// (optionally transformed data) and a generated block whose _rng calls
// draw the parameters from their prior and the data given them, as temper
// sbc --generator takes it (docs/language.md). It is safe for concurrent
// use.
type GeneratorProgram struct {
	gen  *compile.Generator
	cols []string
	mu   sync.Mutex // Draw replays one program
}

// CompileGenerator parses, checks and compiles the generator program src
// (named name in diagnostics) with its data, as Compile does a model.
func CompileGenerator(name, src string, data map[string]any) (*GeneratorProgram, error) {
	d, err := godata.Convert(data)
	if err != nil {
		return nil, err
	}
	f, err := hook.ParseCheck(name, []byte(src))
	if err != nil {
		return nil, err
	}
	g, err := compile.CompileGenerator(f, d)
	if err != nil {
		return nil, hook.SourceError(err, []byte(src))
	}
	return &GeneratorProgram{gen: g, cols: g.Columns()}, nil
}

// Columns are the generated block's columns (y.1, ..., y.N for a
// definition in a plate).
func (p *GeneratorProgram) Columns() []string { return slices.Clone(p.cols) }

// For is the Generator of the model whose source is modelSrc (named
// modelName): each draw evaluates the generated block from a seed drawn
// from rng; the columns named after the model's parameters and
// transformed parameters are the truth, and those named after its data
// fields the data (y.1 ... y.N make y, X.1.1 ... X.N.D make X). The model's
// data fields that the program does not generate come from fixed, or else
// from the program's own data (its transformed data included); other
// columns are the program's own business and are left out.
func (p *GeneratorProgram) For(modelName, modelSrc string, fixed map[string]any) (Generator, error) {
	f, err := hook.ParseCheck(modelName, []byte(modelSrc))
	if err != nil {
		return nil, err
	}
	given, err := godata.Convert(fixed)
	if err != nil {
		return nil, err
	}
	ranked := derivedNames(f)
	fields := map[string]bool{}
	for _, d := range compile.DataDecls(f) {
		fields[d.Name] = true
	}
	var (
		truthCols []int // indices into p.cols
		generated []generatedField
	)
	for i, col := range p.cols {
		base, index, _ := strings.Cut(col, ".")
		switch {
		case ranked[base]:
			truthCols = append(truthCols, i)
		case fields[base]:
			if n := len(generated); n == 0 || generated[n-1].name != base {
				generated = append(generated, generatedField{name: base, start: i})
			}
			g := &generated[len(generated)-1]
			if err := g.extend(index); err != nil {
				return nil, fmt.Errorf("%s: column %s: %v", p.gen.Name(), col, err)
			}
		}
	}
	if len(truthCols) == 0 {
		return nil, fmt.Errorf("%s generates none of the parameters of %s (%s): name its definitions after them", p.gen.Name(), modelName, strings.Join(slices.Sorted(maps.Keys(ranked)), ", "))
	}
	data := map[string]any{}
	for name := range fields {
		if slices.ContainsFunc(generated, func(g generatedField) bool { return g.name == name }) {
			continue
		}
		if v, ok := given[name]; ok {
			data[name] = v
		} else if v, ok := p.gen.Data()[name]; ok {
			data[name] = v
		}
	}
	return func(rng *rand.Rand) (map[string]float64, map[string]any) {
		vals := make([]float64, len(p.cols))
		p.mu.Lock()
		p.gen.Draw(vals, rng.Uint64())
		p.mu.Unlock()
		truth := make(map[string]float64, len(truthCols))
		for _, i := range truthCols {
			truth[p.cols[i]] = vals[i]
		}
		out := maps.Clone(data)
		for _, g := range generated {
			out[g.name] = &compile.Value{Shape: slices.Clone(g.shape), Values: vals[g.start : g.start+g.size], Source: p.gen.Name()}
		}
		return truth, out
	}, nil
}

// generatedField is a data field the generator draws: its columns start
// at start, row-major, and its shape is the largest index of each axis.
type generatedField struct {
	name        string
	start, size int
	shape       []int
}

// extend adds the next column of the field, whose index is "" for a
// scalar or "i.j..." (from 1).
func (g *generatedField) extend(index string) error {
	g.size++
	if index == "" {
		return nil
	}
	parts := strings.Split(index, ".")
	if g.shape == nil {
		g.shape = make([]int, len(parts))
	}
	if len(parts) != len(g.shape) {
		return fmt.Errorf("%d indices where earlier columns had %d", len(parts), len(g.shape))
	}
	for a, s := range parts {
		i, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("index %q is not a number", s)
		}
		g.shape[a] = max(g.shape[a], i)
	}
	return nil
}
