package temper

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/internal/settings"
)

// Attempt is one run of a sampler = auto run: the plan's choice first,
// then each step of the escalation table that the judgement called for.
type Attempt struct {
	// Number counts the attempts from 1.
	Number int
	// Sampler is the preset run, Settings the settings the escalation
	// gave it (adapt_delta = 0.95), Why the sentence that says why it ran.
	Sampler  string
	Settings map[string]string
	Why      string
	// NonCentred names the centred hierarchies the attempt sampled
	// non-centred (x ~ normal(mu, tau) as x: real<offset=mu,
	// multiplier=tau>).
	NonCentred []string
	// Options are the attempt's run options, its sampler named.
	Options Options
	// Result is the attempt's, once it has run (for the attempts before
	// the last: Result.Attempts).
	Result *Result
	// step is the escalation's row ("" for the plan's choice), and reason
	// what the judgement found, which Why tells with the run it was of.
	step, reason string
}

// escalation is one row of the table: when the judgement of a run says
// why, and the step applies to the run's sampler, the step's run is
// tried if its predicted time is affordable. A new step (tempering when
// chains sit in different modes) is one more row.
type escalation struct {
	name string
	// why says what in r calls for the step; "" when nothing does.
	why func(r *Result) string
	// next is the step's sampler and settings after a run of o; false
	// when the step does not apply to o's sampler or is spent.
	next func(o Options) (sampler string, settings map[string]string, ok bool)
	// cost predicts the step's wall time from the run before it.
	cost func(m *Model, r *Result) (time.Duration, error)
	// nonCentre says the step samples the model with its centred
	// hierarchies rewritten, at the sampler's default settings.
	nonCentre bool
	// adjust, if set, changes the step's run options.
	adjust func(o *Options)
}

// The escalation's limits: adapt_delta goes up in two steps, and a dense
// metric is tried up to denseMetricMax parameters (its Cholesky factor
// and products cost D² a leapfrog step).
var adaptDeltaSteps = []float64{0.95, 0.99}

const denseMetricMax = 1000

// escalations is the table, in the order its rows are tried: a run is
// escalated by the first row that applies.
var escalations = []escalation{
	{
		// Chains in separate modes: no single-chain kernel carries a chain
		// between them, and only a ladder weighs them (modes.go).
		name: "tempering",
		// After an exact run only: a stochastic-gradient run whose chains
		// disagree goes to NUTS first (the next row), whose chains show
		// whether the posterior has modes or the SG kernel could not mix.
		why: func(r *Result) string {
			if r.Exchange != nil || r.Exact == nil || r.Search != nil && len(r.Search.Relabelled) > 0 {
				return "" // label switching is said, not tempered across
			}
			if n := len(r.regions(r.Finished())); n > 1 {
				return fmt.Sprintf("the chains sit in %d separate modes and never crossed between them", n)
			}
			// Chains that disagree although NUTS moved freely (no
			// divergence, no tree cut short), on parameters whose draws
			// have two humps: they crossed a barrier too seldom for their
			// shares of each side to agree.
			_, div := exactCount(r, func(e infer.ExactReport) int { return e.Divergent })
			_, depth := exactCount(r, func(e infer.ExactReport) int { return e.MaxDepthHits })
			if div > 0 || depth > 0 {
				return ""
			}
			if names := r.valleyColumns(r.Finished()); len(names) > 0 {
				return fmt.Sprintf("the chains disagree (split R-hat %.3g) on %s, whose draws have two humps, although every transition was sound: modes that the chains cross between too seldom",
					r.Diagnostics().MaxRhat, listWords(names[:min(len(names), namedAtMost)])+more(len(names)))
			}
			return ""
		},
		next: func(o Options) (string, map[string]string, bool) {
			return "pt", nil, o.Sampler != "pt" && (o.Device == "" || o.Device == "cpu")
		},
		adjust: temperingAdjust,
		cost: func(m *Model, r *Result) (time.Duration, error) {
			t, err := predictedNUTS(m, r)
			return temperingCost(t, r.Options), err
		},
	},
	{
		name: "nuts",
		why: func(r *Result) string {
			if r.Exact != nil || r.Exchange != nil || r.Cycle != nil {
				return ""
			}
			return r.failing()
		},
		// Not for a run on a GPU, whose replicas move there: the exact
		// kernel's chains would leave it for the CPU.
		next: func(o Options) (string, map[string]string, bool) {
			return "nuts", nil, o.Sampler != "nuts" && (o.Device == "" || o.Device == "cpu")
		},
		cost: predictedNUTS,
	},
	{
		// Divergences in a model with a centred hierarchy: the funnel's
		// neck, which a higher adapt_delta narrows at a cost and only a
		// reparameterisation takes away (Betancourt & Girolami 2015).
		name:      "non-centre",
		nonCentre: true,
		why: func(r *Result) string {
			n, div := exactCount(r, func(e infer.ExactReport) int { return e.Divergent })
			if div == 0 {
				return "" // before the rewrite is looked for: it compiles the model again
			}
			names := centredHierarchies(r)
			if len(names) == 0 {
				return ""
			}
			return fmt.Sprintf("%d of %d transitions diverged, and %s %s a centred hierarchy", div, n, listWords(names), map[bool]string{true: "is", false: "are"}[len(names) == 1])
		},
		next: func(o Options) (string, map[string]string, bool) { return o.Sampler, nil, len(o.nonCentre) == 0 },
		// The non-centred form's trajectories are no longer.
		cost: func(_ *Model, r *Result) (time.Duration, error) { return r.Elapsed, nil },
	},
	{
		name: "adapt_delta",
		why: func(r *Result) string {
			if n, div := exactCount(r, func(e infer.ExactReport) int { return e.Divergent }); div > 0 {
				return fmt.Sprintf("%d of %d transitions diverged", div, n)
			}
			return ""
		},
		next: func(o Options) (string, map[string]string, bool) {
			delta := 0.8
			if v, ok := o.Settings["adapt_delta"]; ok {
				delta, _ = strconv.ParseFloat(fmt.Sprint(v), 64)
			}
			for _, d := range adaptDeltaSteps {
				if d > delta {
					return o.Sampler, map[string]string{"adapt_delta": strconv.FormatFloat(d, 'g', -1, 64)}, true
				}
			}
			return "", nil, false
		},
		// A higher target acceptance takes smaller steps: about twice the
		// leapfrogs from 0.8 to 0.95 and again to 0.99.
		cost: func(_ *Model, r *Result) (time.Duration, error) { return 2 * r.Elapsed, nil },
	},
	{
		name: "dense metric",
		why: func(r *Result) string {
			if len(r.Exact) == 0 || r.Exact[0].Dense || r.Dim() > denseMetricMax {
				return ""
			}
			if n, hits := exactCount(r, func(e infer.ExactReport) int { return e.MaxDepthHits }); hits > 0 {
				return fmt.Sprintf("%d of %d transitions hit the maximum tree depth with a diagonal metric", hits, n)
			}
			return ""
		},
		next: func(o Options) (string, map[string]string, bool) {
			if fmt.Sprint(o.Settings["metric"]) == "dense" {
				return "", nil, false
			}
			return o.Sampler, map[string]string{"metric": "dense"}, true
		},
		// A dense metric's trajectories are no longer than the diagonal's.
		cost: func(_ *Model, r *Result) (time.Duration, error) { return r.Elapsed, nil },
	},
	{
		// Chains that mix but made too few effective draws for the
		// judgement (R-hat a little over its bound, as the largest of a
		// thousand columns' can be at a bulk ESS of 900): where nothing
		// above applies or is affordable (NUTS on a million rows takes
		// hours), the same run four times as long, thinned to the same
		// draws. R-hat's excess from Monte Carlo error shrinks as the ESS
		// grows; a chain stuck apart does not, and stays warned.
		name: "longer",
		why: func(r *Result) string {
			if r.Exchange != nil || r.Cycle != nil {
				return ""
			}
			f := r.failing()
			d := r.Diagnostics()
			if f == "" || len(r.Finished()) < len(r.Draws) || d.MaxRhat > longerRhat || d.MinESSBulk < float64(longerESSPerChain*len(r.Finished())) {
				return ""
			}
			if _, div := exactCount(r, func(e infer.ExactReport) int { return e.Divergent }); div > 0 {
				return ""
			}
			return f + ", although the chains mix"
		},
		next: func(o Options) (string, map[string]string, bool) {
			return o.Sampler, nil, o.defaultIters && !o.lengthened
		},
		adjust: func(o *Options) {
			o.Iters, o.Thin, o.lengthened = longerFactor*o.Iters, longerFactor*o.Thin, true
		},
		cost: func(_ *Model, r *Result) (time.Duration, error) { return longerFactor * r.Elapsed, nil },
	},
}

// The "longer" step's bounds: a run whose R-hat is at most longerRhat and
// whose smallest bulk ESS is at least longerESSPerChain a chain runs
// longerFactor times as long.
const (
	longerRhat        = 1.05
	longerESSPerChain = 25
	longerFactor      = 4
)

// temperingAdjust lengthens a ladder run for its mode masses, which need
// many passages of the ladder: a run of the default length runs five
// times as long, kept every fifth iteration (the same 2,000 draws a
// chain). The 25 equal modes of seed 002's grid came out at TV 0.053 from
// the exact masses at 2,000 iterations, the multinomial error of about
// 2,000 independent draws.
func temperingAdjust(o *Options) {
	if o.defaultIters {
		o.Iters, o.Thin = 5*o.Iters, 5*o.Thin
	}
}

// temperingCost predicts a pt run's time from a NUTS run's, nuts, of the
// options o: its 8 starting levels each a NUTS chain (the hotter ones on
// wider, smoother laws and no longer trajectories), the sampling five
// times as long where temperingAdjust lengthens it.
func temperingCost(nuts time.Duration, o Options) time.Duration {
	iters := float64(o.Burn + o.Iters)
	scale := 1.0
	if o.defaultIters {
		scale = (exactWarmup + 5*iters) / (exactWarmup + iters)
	}
	return time.Duration(8 * scale * float64(nuts))
}

// predictedNUTS is the plan's prediction of a NUTS run's wall time for the
// run r's model and options, made now if r's plan did not time the
// full-data gradient.
func predictedNUTS(m *Model, r *Result) (time.Duration, error) {
	p := r.Plan
	if p == nil || p.GradientFull == 0 {
		var q Plan
		if err := q.predict(m, r.Options); err != nil {
			return 0, err
		}
		return q.PredictedNUTS, nil
	}
	return p.PredictedNUTS, nil
}

// exactCount sums an exact run's transitions after warm-up over its
// chains, and those that count counts.
func exactCount(r *Result, count func(infer.ExactReport) int) (transitions, counted int) {
	for _, e := range r.Exact {
		transitions, counted = transitions+e.Transitions, counted+count(e)
	}
	return transitions, counted
}

// centredHierarchies names the parameters of r's model that NonCentred
// would rewrite; nil when there are none, or r's model is already.
func centredHierarchies(r *Result) []string {
	if r.model == nil || len(r.Options.nonCentre) > 0 {
		return nil
	}
	_, names, err := r.model.nonCentredModel()
	if err != nil {
		return nil
	}
	return names
}

// maxAttempts bounds an escalating run: the plan's choice and three
// steps.
const maxAttempts = 4

// Dim is the number of unconstrained parameters of the run's model; 0
// for a Result read from files.
func (r *Result) Dim() int {
	if r.model == nil {
		return 0
	}
	return r.model.Dim()
}

// emptyResult is the Result of an attempt whose warm-up failed: no
// draws, stopped by err.
func (m *Model) emptyResult(opts Options, err error) *Result {
	s, settings, _ := opts.sampler()
	inner := &infer.Result{Sampler: s.Name, Columns: m.runColumns(opts), Draws: make([][][]float64, opts.Chains), StatColumns: s.StatNames(),
		State: &infer.State{Chains: opts.Chains, Levels: 1, Dim: m.Dim()}}
	if inner.StatColumns != nil {
		inner.Stats = make([][][]float64, opts.Chains)
	}
	r := &Result{Result: inner, Options: opts, model: m, sampler: s, settings: settings, Stopped: err}
	r.Warnings = []string{err.Error()}
	return r
}

// failing says how the run fails Stan's convergence checks (split R-hat
// above 1.01, bulk ESS below 100 per chain) or lost chains; "" if it
// does not.
func (r *Result) failing() string {
	if r.DrawsPerChain() == 0 && r.Stopped != nil {
		return "the run failed: " + r.Stopped.Error()
	}
	if lost := len(r.Draws) - len(r.Finished()); lost > 0 {
		return fmt.Sprintf("%d of %d chains diverged", lost, len(r.Draws))
	}
	d := r.Diagnostics()
	chains := len(r.Finished())
	switch {
	case d.MaxRhat > maxRhat:
		return fmt.Sprintf("split R-hat is %.3g", d.MaxRhat)
	case d.MinESSBulk < float64(minESSPerChain*chains):
		return fmt.Sprintf("bulk ESS is %.0f, below %d per chain", d.MinESSBulk, minESSPerChain)
	}
	return ""
}

// nextStep finds the escalation the run r of opts calls for: the step's
// attempt, whose Why (in words that follow "because") names the run as
// label, and the row; ok is false when none applies.
func nextStep(r *Result, opts Options, label string) (next Attempt, row escalation, ok bool) {
	steps := nextSteps(r, opts, label)
	if len(steps) == 0 {
		return Attempt{}, escalation{}, false
	}
	return steps[0].Attempt, steps[0].row, true
}

// step is an escalation the judgement calls for: its row, and the attempt
// it would run.
type step struct {
	Attempt
	row escalation
}

// nextSteps are the escalations the run r of opts calls for, in the
// table's order: sampleAuto takes the first it can afford.
func nextSteps(r *Result, opts Options, label string) []step {
	var out []step
	for _, e := range escalations {
		why := e.why(r)
		if why == "" {
			continue
		}
		sampler, settings, applies := e.next(opts)
		if !applies {
			continue
		}
		o := opts
		o.Sampler = sampler
		if sampler != opts.Sampler || e.nonCentre {
			o.Settings = nil
		} else {
			o.Settings = maps.Clone(opts.Settings)
		}
		if e.nonCentre {
			o.nonCentre = centredHierarchies(r)
		}
		if e.adjust != nil {
			e.adjust(&o)
		}
		for k, v := range settings {
			if o.Settings == nil {
				o.Settings = map[string]any{}
			}
			o.Settings[k] = v
		}
		out = append(out, step{Attempt{Sampler: sampler, Settings: settings, NonCentred: o.nonCentre, Options: o, step: e.name, reason: why,
			Why: fmt.Sprintf("in %s (%s) %s", label, opts.Sampler, why)}, e})
	}
	return out
}

// sampleAuto runs a sampler = auto run: the plan's choice, then the
// escalation table's steps while the judgement calls for one and it is
// affordable (opts.Escalate), each attempt announced to OnAttempt.
func (m *Model) sampleAuto(ctx context.Context, opts Options) (*Result, error) {
	plan, err := m.Plan(opts)
	if err != nil {
		return nil, err
	}
	o := opts
	o.Sampler = plan.Sampler
	if plan.Settings != nil {
		o.Settings = map[string]any{}
		for k, v := range plan.Settings {
			o.Settings[k] = v
		}
	}
	// Settings given by hand (lr = 1e-4) are a choice of kernel the
	// escalation does not overrule, as a sampler named is not; nor does
	// it run for one part of a run (a resumed one, an array job's task,
	// a process of several).
	escalate := opts.Escalate != "never" && len(opts.Settings) == 0 && opts.Resume == "" && opts.ChainID == 0 && (opts.Transport == nil || opts.Transport.Size() <= 1)
	a := Attempt{Number: 1, Sampler: plan.Sampler, Why: plan.Reason, Options: o}
	// Before NUTS, the mode search: modes that independent chains could
	// each fall into start the run on the ladder instead.
	var search *ModeSearch
	var searchNote string
	var searchCost time.Duration
	if escalate && plan.Sampler == "nuts" && m.Dim() > 0 {
		var err error
		if search, err = m.searchModes(opts.Seed); err != nil {
			searchNote = err.Error()
		} else if cost := temperingCost(plan.PredictedNUTS, opts); search.distinct() && cost > escalateBudget {
			searchCost = cost // too costly to start on: the judgement names the modes and the command
		} else if search.distinct() {
			a.Sampler, a.step = "pt", "tempering"
			a.Options.Sampler, a.Options.Settings = "pt", nil
			temperingAdjust(&a.Options)
			a.Why = fmt.Sprintf("the mode search found %d modes (%d ascents in %s)", len(search.Modes), search.Starts, roundDuration(search.Elapsed))
		}
	}
	var done []Attempt
	for {
		if opts.OnAttempt != nil {
			var earlier *Result
			if len(done) > 0 {
				earlier = done[len(done)-1].Result
			}
			if err := opts.OnAttempt(a, earlier); err != nil {
				return nil, err
			}
		}
		res, err := m.sampleOnce(ctx, a.Options)
		if res == nil && errors.Is(err, infer.ErrWarmup) {
			// A warm-up that failed made no draws: the attempt is an empty
			// run, stopped by the failure, and the judgement's table
			// decides as for a run that failed.
			res = m.emptyResult(a.Options, err)
			err = nil
		}
		if res == nil {
			return nil, err
		}
		res.Plan, res.Attempts, res.attempt = &plan, done, a
		res.Search, res.searchNote, res.searchCost = search, searchNote, searchCost
		if ctx.Err() != nil || err != nil && !errors.Is(err, infer.ErrDiverged) {
			return res, err
		}
		res.mayEscalate = escalate
		res.judge() // without the advice that sampleOnce's judgement gave a run that may not escalate
		steps := nextSteps(res, a.Options, fmt.Sprintf("attempt %d", a.Number))
		if len(steps) == 0 {
			return res, err
		}
		if !escalate { // the judgement says what would run (escalationAdvice)
			if res.DrawsPerChain() == 0 && res.Stopped != nil {
				return nil, res.Stopped
			}
			return res, err
		}
		// The first step that is affordable runs; where none is, the
		// first is what the warning advises.
		var next Attempt
		var cost time.Duration
		found := false
		for i, st := range steps {
			c, cerr := st.row.cost(m, res)
			if cerr != nil {
				return res, errors.Join(err, cerr)
			}
			if i == 0 {
				next, cost = st.Attempt, c
			}
			if a.Number < maxAttempts && c <= escalateBudget {
				next, found = st.Attempt, true
				break
			}
		}
		if !found {
			why := fmt.Sprintf("it would take about %s, more than the %s sampler = auto spends on its own", roundDuration(cost), escalateBudget)
			if a.Number >= maxAttempts {
				why = fmt.Sprintf("sampler = auto stops after %d attempts", maxAttempts)
			}
			advice := fmt.Sprintf("%s: %s would be the next step, not taken: %s; run it with %s", next.Why, next.Describe(), why, settingsToRun(next))
			if res.DrawsPerChain() == 0 && res.Stopped != nil {
				return nil, fmt.Errorf("%w; %s", res.Stopped, advice)
			}
			res.addWarning(advice)
			return res, err
		}
		a.Result = res
		done = append(done, a)
		next.Number = a.Number + 1
		next.Options.attempt = a.Number
		a = next
	}
}

// settingsToRun says how to run an attempt by hand: sampler = nuts,
// adapt_delta = 0.95 (temper run --sampler nuts --set adapt_delta=0.95).
func settingsToRun(a Attempt) string {
	set, flags := "sampler = "+a.Sampler, "--sampler "+a.Sampler
	for _, k := range slices.Sorted(maps.Keys(a.Settings)) {
		set += fmt.Sprintf(", %s = %s", k, a.Settings[k])
		flags += fmt.Sprintf(" --set %s=%s", k, a.Settings[k])
	}
	return fmt.Sprintf("%s (temper run %s)", set, flags)
}

// adviceMark begins the judgement's warning of a run that could not
// escalate, so that temper merge knows it for a judgement to redo.
const adviceMark = "sampler auto would escalate"

// escalationAdvice is the judgement's warning of a run that did not
// escalate (a sampler named, settings given, escalate = never, one chain
// of an array job) and that the table would escalate: what it would run
// and how; "" when none applies, or when the run's own warning already
// says it (adapt_delta, in the divergences' warning).
func (r *Result) escalationAdvice() string {
	if r.mayEscalate {
		return ""
	}
	next, _, ok := nextStep(r, r.Options, "this run")
	if !ok || next.step == "adapt_delta" || next.step == "tempering" { // their own warnings say what to run
		return ""
	}
	return fmt.Sprintf("%s this run (%s) to %s: %s; run it with %s", adviceMark, r.Options.Sampler, next.Describe(), next.reason, settingsToRun(next))
}

// Describe is the attempt's sampler with the settings the escalation gave
// it: nuts(adapt_delta=0.95).
func (a Attempt) Describe() string {
	if len(a.NonCentred) > 0 {
		return a.Sampler + settings.Format(a.Settings) + ", " + listWords(a.NonCentred) + " non-centred"
	}
	return a.Sampler + settings.Format(a.Settings)
}
