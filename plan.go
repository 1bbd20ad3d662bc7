package temper

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/internal/checkpoint"
	"github.com/temper-ppl/temper/internal/settings"
)

// The plan's constants.
const (
	// nutsBudget is the predicted wall time under which auto runs NUTS:
	// a run that takes a minute is one a user waits for, and on the
	// posteriors where the stochastic-gradient samplers are weakest
	// (hierarchies, funnels) NUTS is right.
	nutsBudget = 60 * time.Second
	// escalateBudget is the predicted wall time under which a failing
	// run is escalated to NUTS; above it the warning says which command
	// would run it.
	escalateBudget = 10 * time.Minute
	// guessLeapfrogs is the leapfrog steps a NUTS transition is predicted
	// to take before any has run: a tree of depth 5, what Stan's warm-up
	// reaches on posteriors its metric fits (German credit takes 38; a
	// normal mean 3).
	guessLeapfrogs = 31
	// exactWarmup is the iterations of Stan's warm-up that NUTS runs
	// before burn and iters (infer's default warmup setting).
	exactWarmup = 1000
	// sgWarmupSteps is what the stochastic-gradient warm-up costs in
	// steps of the run's evaluator, about: the optimiser's windows and
	// the settling (infer/warmup.go), a few hundred to a few thousand.
	sgWarmupSteps = 1500
	// scaledRows is the most rows the plan times a full-data gradient
	// on; above it, a gradient on that many rows is scaled to N.
	scaledRows = 100_000
	// proxyRowCost is the time of one row of one parameter of a full-data
	// gradient assumed where the plan must not depend on a clock (array
	// jobs, whose tasks must all choose alike): German credit's gradient
	// is 59 µs for 1,000 rows × 49 parameters, 1.2 ns each on the 2-core
	// machine the README was measured on; 2 ns leaves room for models whose
	// rows cost more.
	proxyRowCost = 2 * time.Nanosecond
)

// Plan is what sampler = auto chose for a run, and why.
type Plan struct {
	// Sampler is the preset chosen, Reason the sentence that says why.
	Sampler string
	Reason  string
	// GradientFull is the measured time of one full-data gradient on one
	// core, GradientBatch that of one step of the stochastic-gradient run
	// (every chain at its batch); both zero when the choice needed no
	// measurement. Measured says they come from the clock rather than the
	// proxy of array jobs.
	GradientFull, GradientBatch time.Duration
	Measured                    bool
	// PredictedNUTS and PredictedSG are the predicted wall times of the
	// two runs.
	PredictedNUTS, PredictedSG time.Duration
	// Batch is the minibatch of the stochastic-gradient run (0: every
	// row).
	Batch int
	// Settings, for a resumed run, are the settings of the checkpoint's
	// sampler, every one of them.
	Settings map[string]string
}

// auto reports whether o leaves the sampler to the plan (Plan).
func (o Options) auto() bool { return settings.IsAuto(o.Sampler) }

// Plan chooses the sampler of a run whose options name none (or "auto"):
// NUTS, exact, where its predicted wall time is under a minute, else
// SGHMC with its warm-up on minibatches. Some options decide by
// themselves (planFixed): a batch, synthetic noise, a GPU, float32 or
// settings that sghmc takes run SGHMC, settings only nuts takes run NUTS,
// a resumed run its checkpoint's sampler. Options that name a sampler
// return a Plan of that sampler.
func (m *Model) Plan(opts Options) (Plan, error) {
	p, fixed, err := m.planFixed(opts)
	if err != nil || fixed {
		return p, err
	}
	opts = opts.withDefaults()
	if err := p.predict(m, opts); err != nil {
		return Plan{}, err
	}
	source := "measured"
	if m.NumData() > scaledRows {
		source = "measured on 100,000 rows and scaled to all" // scaledRows
	}
	if !p.Measured {
		source = "estimated at 2 ns a row and parameter, the same in every task of an array job"
	}
	if p.PredictedNUTS <= nutsBudget {
		return p.chose("nuts", "a full-data gradient takes %s (%s): NUTS should take about %s, under the %s that auto gives it",
			roundDuration(p.GradientFull), source, roundDuration(p.PredictedNUTS), nutsBudget), nil
	}
	return p.chose("sghmc", "a full-data gradient takes %s (%s): NUTS would take about %s, over the %s that auto gives it; SGHMC on %s should take %s",
		roundDuration(p.GradientFull), source, roundDuration(p.PredictedNUTS), nutsBudget, batchWords(p.Batch), roundDuration(p.PredictedSG)), nil
}

// planFixed is the part of Plan that no clock decides: a named sampler, a
// checkpoint's, or options that only one family can run; fixed is false
// when the choice is left to the measured costs.
func (m *Model) planFixed(opts Options) (p Plan, fixed bool, err error) {
	opts = opts.withDefaults()
	if !opts.auto() {
		return Plan{Sampler: opts.Sampler, Reason: "named by the run's options"}, true, nil
	}
	if err := opts.runOptions().Validate(m.Dim()); err != nil {
		return Plan{}, false, err
	}
	if opts.Resume != "" {
		name, settings, err := checkpointSampler(opts.Resume)
		if err != nil {
			return Plan{}, false, err
		}
		return Plan{Sampler: name, Settings: settings, Reason: "the sampler of the checkpoint being resumed"}, true, nil
	}
	if err := opts.checkAuto(); err != nil {
		return Plan{}, false, err
	}
	settings, err := opts.settings()
	if err != nil {
		return Plan{}, false, err
	}
	n := m.NumData()
	p = Plan{Batch: sgBatch(opts.Batch, n)}
	fixed = true
	switch {
	case len(settings) > 0 && takes("sghmc", settings) == nil:
		// Settings that sghmc takes (lr, friction) run it, as they did
		// when it was the default: a step size given by hand runs as
		// before. nuts takes lr too, as its leapfrog step.
		p = p.chose("sghmc", "the settings given (%s) are the stochastic-gradient samplers'", settingList(settings))
	case len(settings) > 0:
		p = p.chose("nuts", "the settings given (%s) are the exact samplers'", settingList(settings))
	case opts.Batch > 0 && opts.Batch < n:
		p = p.chose("sghmc", "batch = %d was given: minibatches are for the stochastic-gradient samplers", opts.Batch)
	case opts.EnergyNoise != 0 || opts.GradNoise != 0:
		p = p.chose("sghmc", "synthetic gradient noise was given, which the exact samplers do not take")
	case opts.Device != "" && opts.Device != "cpu":
		p = p.chose("sghmc", "device = %s: the stochastic-gradient samplers move on the device", opts.Device)
	case opts.Precision == "float32":
		p = p.chose("sghmc", "precision = float32 is for networks, which the stochastic-gradient samplers run")
	case opts.KeepAll:
		p = p.chose("sghmc", "keep = all keeps the levels of a ladder, which only the stochastic-gradient kernel has")
	case opts.Transport != nil && opts.Transport.Size() > 1:
		p = p.chose("sghmc", "the run is split across %d processes, which the exact samplers' independent chains do not need", opts.Transport.Size())
	default:
		fixed = false
	}
	return p, fixed, nil
}

func (p Plan) chose(sampler, format string, args ...any) Plan {
	p.Sampler, p.Reason = sampler, fmt.Sprintf(format, args...)
	return p
}

// takes is nil if sampler accepts the settings, else its error.
func takes(sampler string, settings map[string]string) error {
	_, err := infer.NewSampler(sampler, settings)
	return err
}

// settingList names the settings: "lr = 0.01, friction = 2".
func settingList(settings map[string]string) string {
	keys := slices.Sorted(maps.Keys(settings))
	for i, k := range keys {
		keys[i] = k + " = " + settings[k]
	}
	return strings.Join(keys, ", ")
}

// sgBatch is the minibatch a tuned stochastic-gradient run takes of n
// rows when given batch (infer's rule: every row up to 10,000, then
// max(1,000, n/100)); 0 is every row.
func sgBatch(batch, n int) int {
	if batch == 0 && n > 10_000 {
		batch = max(1_000, n/100)
	}
	if batch >= n {
		return 0
	}
	return batch
}

func batchWords(batch int) string {
	if batch == 0 {
		return "every row"
	}
	return fmt.Sprintf("minibatches of %d", batch)
}

// predict measures (or, for an array job's task, estimates) the
// gradients and predicts both runs' wall times: NUTS's chains run side by
// side, one core each, for the warm-up, burn and iters at guessLeapfrogs
// gradients a transition; SGHMC's chains move together, one evaluation of
// every chain's batch a step, for its warm-up, burn and iters.
func (p *Plan) predict(m *Model, opts Options) error {
	n, d := m.NumData(), m.Dim()
	if opts.ChainID > 0 {
		p.GradientFull = time.Duration(max(n, 1)*max(d, 1)) * proxyRowCost
		rows := cmp.Or(p.Batch, max(n, 1))
		p.GradientBatch = time.Duration(opts.Chains*rows*max(d, 1)) * proxyRowCost
	} else {
		// Above scaledRows rows a full pass is not timed: it could take
		// seconds, or read from disk data mapped from a file larger than
		// memory; a pass over scaledRows of them, scaled by N, says as
		// much.
		var full time.Duration
		var err error
		if n > scaledRows {
			full, err = m.timeGradient(1, scaledRows, 1)
			full = time.Duration(float64(full) * float64(n) / scaledRows)
		} else {
			full, err = m.timeGradient(1, 0, 1)
		}
		if err != nil {
			return err
		}
		batch, err := m.timeGradient(opts.Chains, p.Batch, opts.Threads)
		if err != nil {
			return err
		}
		p.GradientFull, p.GradientBatch, p.Measured = full, batch, true
	}
	workers := min(opts.Chains, max(1, cmp.Or(opts.Threads, runtime.GOMAXPROCS(0))))
	rounds := (opts.Chains + workers - 1) / workers
	p.PredictedNUTS = time.Duration(rounds*(exactWarmup+opts.Burn+opts.Iters)*guessLeapfrogs) * p.GradientFull
	p.PredictedSG = time.Duration(sgWarmupSteps+opts.Burn+opts.Iters) * p.GradientBatch
	return nil
}

// timeGradient is the median time of one evaluation of the energy and
// gradient of replicas points on batch rows each (0: every row) on
// threads goroutines (0: GOMAXPROCS), after one evaluation not timed; it
// evaluates at least 3 times and until 50 ms have passed, at most 9.
func (m *Model) timeGradient(replicas, batch, threads int) (time.Duration, error) {
	o := target{m: m}.eval
	o.Threads = threads
	ev, err := m.cm.EvaluatorWith(replicas, batch, o)
	if err != nil {
		return 0, err
	}
	d := m.Dim()
	rng := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, replicas*d)
	for i := range theta {
		theta[i] = 4*rng.Float64() - 2 // the starts' box: where a run begins
	}
	var rows []int
	if batch > 0 {
		rows = make([]int, replicas*batch)
		for i := range rows {
			rows[i] = rng.IntN(m.NumData())
		}
	}
	energy, variance, grad := make([]float64, replicas), make([]float64, replicas), make([]float64, replicas*d)
	var times []time.Duration
	var total time.Duration
	for i := 0; i < 10 && (i < 4 || total < 50*time.Millisecond); i++ {
		start := time.Now()
		if err := ev.Evaluate(theta, rows, energy, grad, variance); err != nil {
			return 0, err
		}
		if i > 0 {
			t := time.Since(start)
			times, total = append(times, t), total+t
		}
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// roundDuration prints a duration with three significant digits.
func roundDuration(t time.Duration) string {
	if t <= 0 {
		return "0s"
	}
	digits := int(math.Floor(math.Log10(float64(t)))) - 2
	unit := time.Duration(math.Pow(10, float64(max(digits, 0))))
	return t.Round(unit).String()
}

// checkpointSampler reads the sampler a checkpoint was written by: its
// preset and every setting, as its fingerprint records them.
func checkpointSampler(path string) (string, map[string]string, error) {
	st, err := checkpoint.Read(path)
	if err != nil {
		return "", nil, err
	}
	for _, line := range strings.Split(st.Fingerprint, "\n") {
		if desc, ok := strings.CutPrefix(line, "sampler "); ok {
			name, settings := parseSamplerDescription(desc)
			return name, settings, nil
		}
	}
	return "", nil, fmt.Errorf("%s: %w: it names no sampler", path, infer.ErrBadCheckpoint)
}

// settingBoundary is where one setting of a sampler's description ends
// and the next begins; a value may itself hold ", " (ladder_levels).
var settingBoundary = regexp.MustCompile(`, ([a-z_0-9]+)=`)

// parseSamplerDescription reads describeSampler's text, name(k=v, ...),
// back into the preset and its settings.
func parseSamplerDescription(desc string) (string, map[string]string) {
	name, rest, ok := strings.Cut(desc, "(")
	settings := map[string]string{}
	if !ok {
		return desc, settings
	}
	rest = strings.TrimSuffix(rest, ")")
	starts := settingBoundary.FindAllStringIndex(rest, -1)
	begin := 0
	for i := 0; i <= len(starts); i++ {
		end := len(rest)
		if i < len(starts) {
			end = starts[i][0]
		}
		if k, v, ok := strings.Cut(rest[begin:end], "="); ok {
			settings[k] = v
		}
		if i < len(starts) {
			begin = starts[i][0] + 2
		}
	}
	return name, settings
}
