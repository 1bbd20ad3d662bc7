package temper

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/runfiles"
	"github.com/temper-ppl/temper/internal/settings"
)

// drawsWriter writes the header of a draws file for a run of m with opts
// to w: the comments first (such as the command that ran), then the
// sampler with all its settings and the run's sizes. Pass its Write as
// opts.OnDraw (or call it from there), and Flush at the end.
func (m *Model) drawsWriter(w io.Writer, opts Options, comments ...string) (*runfiles.Writer, error) {
	opts = opts.withDefaults()
	if opts.auto() {
		// The header names the sampler: where sampler auto's choice rests
		// on the clock, only the run knows it (Options.OnAttempt).
		p, fixed, err := m.planFixed(opts)
		switch {
		case err != nil:
			return nil, err
		case !fixed:
			return nil, errors.New("sampler auto chooses its sampler when the run starts, by the measured cost of a gradient: open the draws writer in Options.OnAttempt, whose Attempt names it, or name a sampler")
		}
		opts.Sampler = p.Sampler
	}
	s, settings, err := opts.sampler()
	if err != nil {
		return nil, err
	}
	return newDrawsWriter(w, m, s, settings, opts, comments)
}

// createDrawsFile creates the draws file at path for a run of m with opts
// and returns its writer, as drawsWriter; Close closes the file.
func (m *Model) createDrawsFile(path string, opts Options, comments ...string) (*runfiles.Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := m.drawsWriter(f, opts, comments...)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.Own(f)
	return w, nil
}

func newDrawsWriter(w io.Writer, m *Model, s infer.Sampler, settings map[string]string, opts Options, comments []string) (*runfiles.Writer, error) {
	return runfiles.NewWriter(w, drawsHeader(m, s, settings, opts, comments), opts.KeepAll, len(s.StatNames()))
}

// drawsHeader is the header of a run's draws file: the comments, the
// sampler and run settings, then the columns.
func drawsHeader(m *Model, s infer.Sampler, settings map[string]string, opts Options, comments []string) draws.Header {
	columns := m.runColumns(opts)
	if opts.KeepAll {
		columns = append(columns, "replica__", "temperature__", "lr__")
	}
	if _, cyclical := s.Schedule.(infer.Staged); cyclical && s.Exact == nil { // cyclical SG-MCMC: each draw's cycle, from 1
		columns = append(columns, "cycle__")
	}
	columns = append(columns, s.StatNames()...)
	if opts.Prior {
		comments = append(slices.Clone(comments), "the prior (--prior): the likelihood's ~ statements left out; the generated block's draws are the prior predictive")
	}
	comments = append(slices.Clone(comments),
		samplerComment+describeSampler(s, settings),
		settingsLine(opts),
		"lp__ is minus the minibatch energy; parameters are on their constrained scale, matrices row-major",
	)
	if opts.ChainID > 0 { // what mergeRuns checks of the runs it joins
		comments = append(comments,
			fmt.Sprintf("%s%d: chain %d alone of the run of chains = %d; temper merge joins the runs of its chains", chainIDComment, opts.ChainID, opts.ChainID, opts.Chains),
			modelComment+m.modelFingerprint()+" (its columns, sizes and log density at a fixed point)")
	}
	return draws.Header{Comments: comments, Columns: columns}
}

// The comments that open the lines of a draws file's header which say
// what mergeRuns compares: a run's sampler, settings and model, and the
// chain a run of one chain ran.
const (
	samplerComment = "sampler = "
	chainIDComment = "chain_id = "
	modelComment   = "model fingerprint = "
)

// Save writes the three output files of the run into dir (created if
// needed): draws.csv, with the comments first in its header, summary.csv
// and diagnostics.json, the files temper run --out dir writes.
func (r *Result) Save(dir string, comments ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, runfiles.DrawsFile))
	if err != nil {
		return err
	}
	dw, err := newDrawsWriter(f, r.model, r.sampler, r.settings, r.Options, comments)
	if err == nil {
		err = r.drawSequence(dw.Write)
	}
	if err == nil {
		err = dw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return r.SaveSummaries(dir)
}

// SaveSummaries writes summary.csv and diagnostics.json into dir, beside a
// draws.csv that the run streamed during the run, and the draws again
// in CmdStan's layout, a file per chain (runfiles.ChainFile), for R and ArviZ.
func (r *Result) SaveSummaries(dir string) error {
	r.announce(r.Options.Progress, "writing the chain files and the summaries to "+dir)
	if err := r.saveChainFiles(dir); err != nil {
		return err
	}
	stats := r.Summary()
	if err := writeSummaryFile(filepath.Join(dir, runfiles.SummaryFile), stats); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(jsonSafe(r.diagnosticsJSON(stats)), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, runfiles.DiagnosticsFile), append(raw, '\n'), 0o644)
}

// Summary is the posterior summary of every column (lp__ first): mean, sd,
// Monte Carlo standard error, 5/50/95% quantiles, bulk and tail ESS and
// split R-hat, over the draws of the target level of the chains that
// finished (a chain that diverged is left out: Finished). It is computed
// once (the judgement, the table and summary.csv all read it: ESS and
// R-hat are FFTs over every column) and again only after prepend.
func (r *Result) Summary() []summary.Stats {
	if r.stats == nil {
		r.stats = make([]summary.Stats, len(r.Columns))
		parallelFor(len(r.Columns), func(col int) { r.stats[col] = summary.Summarize(r.Columns[col], r.Chains(col)) })
	}
	return slices.Clone(r.stats)
}

// WriteTable prints the summary as temper run does, an aligned table, and
// for a replica-exchange run an account of its ladders: swap rates by
// pair, round trips, the final ladder and correction buffer. When chains
// diverged it first says how many chains the summary is of. The warnings
// are WriteWarnings', which temper run writes to standard error.
func (r *Result) WriteTable(w io.Writer) error {
	switch n := len(r.Finished()); {
	case n == 0:
		if _, err := fmt.Fprintf(w, "no chain finished: nothing to summarise\n"); err != nil {
			return err
		}
	case n < len(r.Draws):
		if _, err := fmt.Fprintf(w, "summary of %d of the %d chains (the others diverged)\n", n, len(r.Draws)); err != nil {
			return err
		}
		fallthrough
	default:
		if err := summary.Table(w, r.Summary()); err != nil {
			return err
		}
	}
	if err := r.writeExact(w); err != nil {
		return err
	}
	if err := r.writeExchange(w); err != nil {
		return err
	}
	if r.Exchange != nil && r.model != nil {
		return r.writeModes(w)
	}
	return nil
}

// writeExact writes, for an exact sampler's run, each chain's adapted
// step size and what its transitions after warm-up did: mean leapfrog
// steps, tree depth and acceptance, divergences, trees cut at the maximum
// depth, and E-BFMI; nothing for the other samplers.
func (r *Result) writeExact(w io.Writer) error {
	if r.Exact == nil {
		return nil
	}
	if _, err := fmt.Fprintf(w, "\n%-6s %10s %9s %6s %7s %9s %9s %7s\n", "chain", "step size", "leapfrogs", "depth", "accept", "divergent", "max depth", "E-BFMI"); err != nil {
		return err
	}
	for c, x := range r.Exact {
		depth, hits := "-", "-"
		if x.MaxDepth > 0 { // NUTS
			depth, hits = fmt.Sprintf("%.2f", x.MeanTreeDepth), fmt.Sprint(x.MaxDepthHits)
		}
		if _, err := fmt.Fprintf(w, "%-6d %10.4g %9.1f %6s %7.3f %9d %9s %7s\n", r.ChainNumber(c), x.StepSize, x.MeanLeapfrogs, depth, x.MeanAccept, x.Divergent, hits, formatFinite(x.EBFMI, "%.2f")); err != nil {
			return err
		}
	}
	return nil
}

// formatFinite formats v, or "-" when it is NaN.
func formatFinite(v float64, format string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

// WriteWarnings writes each of the run's warnings (Warnings: the run's
// own and Judge's) as a line "warning: ...".
func (r *Result) WriteWarnings(w io.Writer) error {
	for _, warning := range r.Warnings {
		if _, err := fmt.Fprintf(w, "warning: %s\n", warning); err != nil {
			return err
		}
	}
	return nil
}

// Diagnostics are a run's convergence and replica-exchange diagnostics,
// the figures of diagnostics.json.
type Diagnostics struct {
	Sampler       string // the preset's name
	Replicas      int    // ladder size P (1 without replica exchange)
	IterationsRun int    // burn-in included; fewer than planned if the run stopped early
	DrawsPerChain int
	Seconds       float64
	// IterationsPerSecond counts iterations of all chains at once.
	IterationsPerSecond float64
	// MaxRhat, MinESSBulk and MinESSTail are the worst split R-hat and
	// effective sample sizes over the parameters (lp__ excluded); NaN when
	// none is defined (too few draws).
	MaxRhat, MinESSBulk, MinESSTail float64
	Completed                       bool
	StoppedBy                       string // Result.Stopped's message, when set
	// ChainsFinished counts the chains the summary is of; Failures are the
	// chains that diverged and stopped, Restarts the hottest levels of
	// ladders restarted from their neighbour.
	ChainsFinished     int
	Failures, Restarts []infer.Failure
	// Warnings say what a user should know of the run and what to change.
	Warnings []string
	// Exchange is nil without replica exchange.
	Exchange *ExchangeDiagnostics
}

// ExchangeDiagnostics say what the ladders of a replica-exchange run did
// (Diagnostics.Exchange): swap rates and round trips show whether the
// ladder mixes.
type ExchangeDiagnostics struct {
	Scheme string
	Window int
	// SwapAttempts and SwapAccepts count, per adjacent pair (p, p+1), the
	// swaps tried and made, summed over the chains; SwapRates are their
	// ratios, NaN for a pair never tried.
	SwapAttempts, SwapAccepts []int
	SwapRates                 []float64
	// RoundTrips counts passages target → hottest → target of any replica,
	// summed over the chains; RoundTripsPer1000 is per chain and 1,000
	// iterations.
	RoundTrips        int
	RoundTripsPer1000 float64
	// Barrier is the communication barrier Λ = Σ_p r_p of the ladder,
	// averaged over the chains (infer.ExchangeReport.Barrier); Rejection
	// is each pair's rejection rate r_p, averaged the same way.
	Barrier   float64
	Rejection []float64
	// Ladder is chain 1's final ladder, CorrectionBuffer its final buffer C
	// of a deterministic exchange (HasBuffer).
	Ladder           []infer.Level
	CorrectionBuffer float64
	HasBuffer        bool
	// EvaluationsPerRound is the mean number of chunks the Barker test's
	// exchange minibatch grew to per round (0 for other tests).
	EvaluationsPerRound float64
	// Chains are the reports of every chain's ladder.
	Chains []*infer.ExchangeReport
}

// Diagnostics computes the run's diagnostics.
func (r *Result) Diagnostics() Diagnostics {
	return r.diagnostics(r.Summary())
}

func (r *Result) diagnostics(stats []summary.Stats) Diagnostics {
	d := Diagnostics{
		Sampler:       r.Result.Sampler,
		Replicas:      r.Replicas,
		IterationsRun: r.Iterations,
		DrawsPerChain: r.DrawsPerChain(),
		Seconds:       r.Elapsed.Seconds(),
		// Each iteration steps every chain.
		IterationsPerSecond: float64(r.Iterations) / r.Elapsed.Seconds(),
		MaxRhat:             worst(stats, func(s summary.Stats) float64 { return s.Rhat }, true),
		MinESSBulk:          worst(stats, func(s summary.Stats) float64 { return s.ESSBulk }, false),
		MinESSTail:          worst(stats, func(s summary.Stats) float64 { return s.ESSTail }, false),
		Completed:           r.Stopped == nil,
		ChainsFinished:      len(r.Finished()),
		Failures:            r.Failures,
		Restarts:            r.Restarts,
		Warnings:            r.Warnings,
	}
	if r.Stopped != nil {
		d.StoppedBy = r.Stopped.Error()
	}
	if r.Exchange == nil {
		return d
	}
	pairs := r.Replicas - 1
	x := &ExchangeDiagnostics{
		Scheme: r.Exchange[0].Scheme, Window: r.Exchange[0].Window,
		SwapAttempts: make([]int, pairs), SwapAccepts: make([]int, pairs), SwapRates: make([]float64, pairs),
		RoundTripsPer1000: roundTripsPer1000(r.Result),
		Ladder:            r.Exchange[0].Ladder,
		CorrectionBuffer:  r.Exchange[0].Buffer, HasBuffer: r.Exchange[0].HasBuffer,
		Chains: r.Exchange,
	}
	if e := r.Exchange[0]; e.Rounds > 0 {
		x.EvaluationsPerRound = float64(e.ExchangeEvaluations) / float64(e.Rounds)
	}
	for _, e := range r.Exchange {
		for p := range pairs {
			x.SwapAttempts[p] += e.Attempts[p]
			x.SwapAccepts[p] += e.Accepts[p]
		}
		x.RoundTrips += e.RoundTrips
	}
	x.Rejection = make([]float64, pairs)
	for _, e := range r.Exchange {
		x.Barrier += e.Barrier() / float64(len(r.Exchange))
		for p := range pairs {
			if e.Acceptance != nil {
				x.Rejection[p] += (1 - e.Acceptance[p]) / float64(len(r.Exchange))
			} else {
				x.Rejection[p] += (1 - e.SwapRate(p)) / float64(len(r.Exchange))
			}
		}
	}
	for p := range pairs {
		x.SwapRates[p] = math.NaN()
		if x.SwapAttempts[p] > 0 {
			x.SwapRates[p] = float64(x.SwapAccepts[p]) / float64(x.SwapAttempts[p])
		}
	}
	d.Exchange = x
	return d
}

// diagnosticsJSON is the content of diagnostics.json.
func (r *Result) diagnosticsJSON(stats []summary.Stats) map[string]any {
	d := r.diagnostics(stats)
	o := r.Options
	diag := map[string]any{
		"sampler":            d.Sampler,
		"replicas":           d.Replicas,
		"options":            r.settings,
		"iterations_run":     d.IterationsRun,
		"draws_per_chain":    d.DrawsPerChain,
		"seconds":            d.Seconds,
		"warmup_seconds":     r.Warmup.Seconds(), // before the first kept draw: warm-up and burn-in
		"iterations_per_sec": d.IterationsPerSecond,
		"max_rhat":           finiteOrNil(d.MaxRhat),
		"min_ess_bulk":       finiteOrNil(d.MinESSBulk),
		"min_ess_tail":       finiteOrNil(d.MinESSTail),
		"completed":          d.Completed,
		"chains_finished":    d.ChainsFinished,
		"warnings":           append([]string{}, d.Warnings...),
	}
	for _, kv := range o.recordedSettings() {
		diag[kv.key] = kv.value
	}
	if o.ChainID > 0 {
		diag["chain_id"] = o.ChainID
	}
	if t := r.Tuning; t != nil {
		metric := "diagonal"
		if t.Dense {
			metric = "dense"
		}
		w := map[string]any{"step_size": t.StepSize, "metric": metric, "lambda_max": t.LambdaMax,
			"noise_ratio": t.NoiseRatio, "settle_steps": t.Settled}
		if len(t.Moved) > 0 { // chains from 1, as everywhere in the output
			moved := make([]int, len(t.Moved))
			for i, c := range t.Moved {
				moved[i] = c + 1
			}
			w["moved_chains"] = moved
		}
		if t.ControlVariate {
			w["control_variate"] = true
		}
		if t.Recentred > 0 { // the control variate's centre moved to the settled chains' mean
			w["recentred_sds"] = t.Recentred
		}
		diag["warmup"] = w
	}
	if r.Exact != nil {
		diag["exact"] = r.exactJSON()
	}
	if r.Exchange != nil && r.model != nil {
		diag["modes"] = r.modesJSON()
	}
	if s := r.Search; s != nil {
		var modes []map[string]any
		names := r.Columns[1 : 1+r.paramColumns()]
		for _, md := range s.Modes {
			at := map[string]float64{}
			for j, name := range names {
				at[name] = md.At[j]
			}
			modes = append(modes, map[string]any{"at": at, "log_density": md.LogDensity, "laplace_share": finiteOrNil(md.Share), "starts": md.Starts})
		}
		entry := map[string]any{"starts": s.Starts, "seconds": s.Elapsed.Seconds(), "modes": modes}
		if len(s.Relabelled) > 0 {
			entry["relabelled"] = s.Relabelled
		}
		diag["mode_search"] = entry
	} else if r.searchNote != "" {
		diag["mode_search"] = map[string]any{"not_run": r.searchNote}
	}
	if p := r.Plan; p != nil {
		diag["plan"] = planJSON(p)
		attempts := []map[string]any{}
		for _, a := range append(slices.Clone(r.Attempts), r.attempt) {
			entry := map[string]any{"attempt": a.Number, "sampler": a.Sampler, "why": a.Why}
			if len(a.Settings) > 0 {
				entry["settings"] = a.Settings
			}
			if len(a.NonCentred) > 0 {
				entry["non_centred"] = a.NonCentred
			}
			if a.Result != nil { // an attempt replaced: where temper run keeps its files, and its time
				entry["folder"] = filepath.Join("attempts", fmt.Sprintf("%d-%s", a.Number, a.Sampler))
				entry["seconds"] = a.Result.Elapsed.Seconds()
			}
			attempts = append(attempts, entry)
		}
		diag["attempts"] = attempts
	}
	if tr := o.Transport; tr != nil {
		diag["processes"] = tr.Size() // a run split across processes (mpirun)
	}
	if r.MovedOnDevice { // the replicas moved on the model's device, not only evaluated there
		diag["moved_on_device"] = true
	}
	if len(d.Failures) > 0 {
		diag["failures"] = failuresJSON(d.Failures)
	}
	if len(d.Restarts) > 0 {
		diag["restarts"] = failuresJSON(d.Restarts)
	}
	if r.Stopped != nil {
		diag["stopped_by"] = d.StoppedBy
	}
	if x := d.Exchange; x != nil {
		exchangeJSON(diag, x, r.Result)
	}
	if e := r.Evidence; e != nil {
		diag["log_z"] = e.LogZ
		diag["log_z_se"] = finiteOrNil(e.LogZSE)
		diag["log_z_method"] = "stepping stones on the power path"
		diag["log_z_ti"] = e.LogZTI
		diag["log_z_ti_se"] = finiteOrNil(e.LogZTISE)
		diag["log_z_ti_discretisation_bound"] = finiteOrNil(e.LogZTIBound)
		diag["log_z_levels"] = e.Levels
		diag["log_z_noise_correction"] = e.Noise // the largest Δβ²σ̄²/2 of the minibatch energies (0: full data)
	}
	return diag
}

// planJSON is what sampler = auto chose and measured, for
// diagnostics.json.
func planJSON(p *Plan) map[string]any {
	out := map[string]any{"sampler": p.Sampler, "reason": p.Reason}
	if p.GradientFull > 0 {
		out["gradient_full_seconds"] = p.GradientFull.Seconds()
		out["gradient_batch_seconds"] = p.GradientBatch.Seconds()
		out["measured"] = p.Measured
		out["predicted_nuts_seconds"] = p.PredictedNUTS.Seconds()
		out["predicted_sg_seconds"] = p.PredictedSG.Seconds()
		out["sg_batch"] = p.Batch
	}
	return out
}

// exchangeJSON adds what the ladders did to diagnostics.json: swap
// attempts, acceptances and rates per adjacent pair (summed over chains),
// round trips, the window, and per chain the final ladder, the correction
// buffer and the replica index process.
func exchangeJSON(diag map[string]any, x *ExchangeDiagnostics, res *infer.Result) {
	var chains []map[string]any
	for _, r := range x.Chains {
		ladder := make([]map[string]any, len(r.Ladder))
		for l, lv := range r.Ladder {
			// β = 1/T; the power path's prior has T = +Inf and an SGD level T = 0, which JSON lacks.
			ladder[l] = map[string]any{"lr": lv.LR, "temperature": finiteOrNil(lv.Temperature), "beta": finiteOrNil(1 / lv.Temperature)}
		}
		c := map[string]any{
			"round_trips":          r.RoundTrips,
			"mean_round_trip_time": finiteOrNil(r.MeanRoundTripTime * float64(max(1, res.Iterations/max(1, r.Rounds)))),
			"ladder":               ladder,
			"index_process":        map[string]any{"every_rounds": r.IndexEvery, "levels": r.Index},
			"ladder_trace":         map[string]any{"every_rounds": r.IndexEvery, "values": r.LadderTrace},
		}
		if r.HasBuffer {
			c["correction_buffer"] = r.Buffer
		}
		if r.Acceptance != nil {
			c["acceptance"] = r.Acceptance
		}
		chains = append(chains, c)
	}
	rates := make([]any, len(x.SwapRates))
	for p, v := range x.SwapRates {
		rates[p] = finiteOrNil(v)
	}
	diag["scheme"] = x.Scheme
	diag["window"] = x.Window
	diag["swap_attempts"] = x.SwapAttempts
	diag["swap_accepts"] = x.SwapAccepts
	diag["swap_rate"] = rates
	diag["round_trips"] = x.RoundTrips
	diag["round_trips_per_1000"] = x.RoundTripsPer1000
	diag["barrier"] = finiteOrNil(x.Barrier)
	diag["rejection_rate"] = x.Rejection
	diag["ladder"] = chains[0]["ladder"]
	if x.HasBuffer {
		diag["correction_buffer"] = x.CorrectionBuffer
	}
	if x.EvaluationsPerRound > 0 {
		diag["exchange_evaluations_per_round"] = x.EvaluationsPerRound
	}
	diag["exchange_by_chain"] = chains
}

// settingsLine is the draws file's record of the run settings: key =
// value, ... for every run key that is a field of Options.
func settingsLine(o Options) string {
	var parts []string
	for _, kv := range o.recordedSettings() {
		parts = append(parts, fmt.Sprintf("%s = %v", kv.key, kv.value))
	}
	return strings.Join(parts, ", ")
}

// failuresJSON lists divergences for diagnostics.json: chain and replica
// counted from 1, as the draws file counts them.
func failuresJSON(fs []infer.Failure) []map[string]any {
	out := make([]map[string]any, len(fs))
	for i, f := range fs {
		out[i] = map[string]any{"chain": f.Chain + 1, "replica": f.Replica + 1, "iteration": f.Iteration, "what": f.What, "value": fmt.Sprint(f.Value)}
	}
	return out
}

// DrawsPerChain is the draws of a chain that finished (every one has as
// many), or of chain 1 when none did.
func (r *Result) DrawsPerChain() int {
	if f := r.Finished(); len(f) > 0 {
		return len(r.Draws[f[0]])
	}
	return len(r.Draws[0])
}

// roundTripsPer1000 is the round trips of one ladder per 1,000 iterations,
// averaged over the chains (the figure seed 000 reports).
func roundTripsPer1000(res *infer.Result) float64 {
	if res.Iterations == 0 {
		return 0
	}
	trips := 0
	for _, r := range res.Exchange {
		trips += r.RoundTrips
	}
	return 1000 * float64(trips) / float64(len(res.Exchange)) / float64(res.Iterations)
}

// writeExchange writes a short account of the ladders under the summary.
func (r *Result) writeExchange(w io.Writer) error {
	if r.Exchange == nil {
		return nil
	}
	x := r.diagnostics(nil).Exchange
	var rates []string
	for _, v := range x.SwapRates {
		if math.IsNaN(v) {
			rates = append(rates, "-")
		} else {
			rates = append(rates, fmt.Sprintf("%.2f", v))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nreplica exchange: %d replicas, scheme %s, %.1f round trips per 1,000 iterations per chain\n", r.Replicas, x.Scheme, x.RoundTripsPer1000)
	fmt.Fprintf(&b, "swap rates by pair: %s\n", strings.Join(rates, " "))
	fmt.Fprintf(&b, "communication barrier Λ = %.2f (the sum of the pairs' rejection rates; about 2Λ + 1 levels carry a replica between the ends fastest)\n", x.Barrier)
	var ladder []string
	for _, lv := range x.Ladder {
		ladder = append(ladder, fmt.Sprintf("(%.3g, %.3g)", lv.LR, lv.Temperature))
	}
	if r.Evidence != nil { // the power path: β tempers the likelihood alone, down to the prior
		ladder = ladder[:0]
		for _, lv := range x.Ladder {
			ladder = append(ladder, fmt.Sprintf("(%.3g, %.3g)", lv.LR, 1/lv.Temperature))
		}
		fmt.Fprintf(&b, "final ladder of chain 1 on the power path (lr, β of the likelihood): %s\n", strings.Join(ladder, " "))
		fmt.Fprintf(&b, "%v\n", *r.Evidence)
	} else {
		fmt.Fprintf(&b, "final ladder of chain 1 (lr, temperature): %s\n", strings.Join(ladder, " "))
	}
	if x.HasBuffer {
		fmt.Fprintf(&b, "correction buffer of chain 1: %.4g\n", x.CorrectionBuffer)
	}
	if x.EvaluationsPerRound > 0 {
		fmt.Fprintf(&b, "Barker exchange minibatch: %.2f evaluations per round\n", x.EvaluationsPerRound)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describeSampler is the sampler with every setting that applies to it.
func describeSampler(s infer.Sampler, overrides map[string]string) string {
	return s.Name + settings.Format(samplerSettings(s, overrides))
}

// samplerSettings is every setting of s, the overrides over the preset's
// defaults, with an automatic DEO window resolved; the overrides alone if
// the preset is unknown.
func samplerSettings(s infer.Sampler, overrides map[string]string) map[string]string {
	all, err := infer.SamplerOptions(s.Name, overrides)
	if err != nil {
		return overrides
	}
	if s.Replicas > 1 && s.Scheme.Kind == infer.DEO {
		all["window"] = fmt.Sprint(s.Scheme.Window) // auto resolved
	}
	return all
}

// worst is the largest (or smallest) finite value of a statistic over the
// parameters, lp__ excluded; NaN if there is none.
func worst(stats []summary.Stats, f func(summary.Stats) float64, largest bool) float64 {
	best := math.NaN()
	for _, s := range stats {
		if s.Name == "lp__" {
			continue
		}
		v := f(s)
		if v != v || v > 1e300 || v < -1e300 {
			continue
		}
		if best != best || (largest && v > best) || (!largest && v < best) {
			best = v
		}
	}
	return best
}

func finiteOrNil(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// jsonSafe replaces non-finite floats, which JSON cannot hold, by strings.
func jsonSafe(m map[string]any) map[string]any {
	for k, v := range m {
		if f, ok := v.(float64); ok && (f != f || f > 1e308 || f < -1e308) {
			m[k] = fmt.Sprint(f)
		}
	}
	return m
}

// exactJSON is what an exact sampler's chains did, for diagnostics.json:
// per chain the adapted step size and metric, and after warm-up the
// transitions, divergences, maximum-depth hits, mean leapfrog steps and
// acceptance, and E-BFMI.
func (r *Result) exactJSON() []map[string]any {
	out := make([]map[string]any, len(r.Exact))
	for c, x := range r.Exact {
		metric := "diagonal"
		if x.Dense {
			metric = "dense"
		}
		out[c] = map[string]any{"chain": r.ChainNumber(c), "step_size": x.StepSize, "metric": metric, "inv_metric": x.InvMetric,
			"transitions": x.Transitions, "divergent": x.Divergent, "max_depth_hits": x.MaxDepthHits,
			"mean_leapfrogs": x.MeanLeapfrogs, "mean_tree_depth": x.MeanTreeDepth, "mean_accept_stat": x.MeanAccept, "e_bfmi": finiteOrNil(x.EBFMI)}
	}
	return out
}
