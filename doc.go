// Package temper embeds temper's model language and samplers in a Go
// program: compile a model from source text with data given as Go values,
// sample it under a context, receive the draws as they are made, and get
// the summaries, diagnostics and files that the temper command writes.
//
//	m, err := temper.Compile("line.ppl", src, map[string]any{
//		"x": []float64{1, 2, 3, 4},
//		"y": []float64{1.1, 2.0, 2.9, 4.2},
//	})
//	if err != nil {
//		log.Fatal(err) // a diagnostic with the source line and a caret
//	}
//	res, err := m.Sample(ctx, temper.Options{}) // the defaults: SGHMC, step and metric tuned by the warm-up
//	if err != nil {
//		log.Fatal(err) // cancellation returns the draws made so far with ctx's error
//	}
//	res.WriteTable(os.Stdout) // mean, sd, MCSE, quantiles, ESS, R-hat
//
// # Models
//
// Compile parses, checks and compiles a model (the language is described in
// docs/language.md) and binds its data. Data are a map from the data
// block's names to Go values: numbers (float64, int and the other numeric
// kinds), slices and arrays of them nested to any depth (rectangular), and
// gonum matrices and vectors (any mat.Matrix or mat.Vector, a *mat.Dense or
// *mat.VecDense say). Sizes such as N are inferred from the shapes when not
// given. CompileFile reads a .ppl file and the data files its infer block
// names. A problem in the source or the data is an *Error, whose message
// shows each diagnostic under its source line.
//
// A *Model is safe for concurrent use: several goroutines may sample it, or
// evaluate its log density, at once. Each run and each LogDensity call uses
// an evaluator of its own (evaluators hold their buffers, so one is never
// shared between goroutines), and two models share no state.
//
// # Sampling
//
// Options choose the sampler and the run; its zero value is sensible:
// sampler auto (NUTS where a full-data gradient makes it affordable, else
// SGHMC on minibatches with its step size and metric from the warm-up;
// parallel tempering where a mode search finds several modes; a failing
// run escalated), 4 chains of 2,000 iterations, seed 0. Sampler names
// auto or a preset (the exact nuts, hmc, mala and pt; the stochastic-
// gradient sgd, msgd, sgld, sghmc, sgnht, adaptive_langevin,
// cyclical_sgld, cyclical_sghmc, snapshot, reld, resgld, m_resgld,
// f_resgld, deo_sgd, deo_msgd, deo_psgd, renhd, renhd_reld:
// infer.SamplerNames lists them and infer.SamplerDoc describes them) and
// Settings overrides any of its settings, the parts
// included, so that any composition of dynamics, exchange test, swap scheme
// and ladder can be built: {"dynamics": "hamiltonian", "exchange":
// "deterministic", "ladder": "adaptive_lr", "replicas": 8}. The infer block
// of a model gives its own defaults through Model.InferOptions.
//
// Model.Sample runs to the end (or to cancellation) and returns a *Result
// holding every kept draw; Options.OnDraw sees each draw as it is made, and
// Model.Draws is the same stream as an iterator. Cancelling the context
// stops the run promptly and keeps the draws made so far.
//
// # Results
//
// A Result gives the draws per chain and column (Column), the posterior
// summary that temper run prints (Summary, WriteTable), the convergence and
// replica-exchange diagnostics (Diagnostics: R-hat, ESS, swap rates, round
// trips), the run's judgement as sentences that say what to change
// (Warnings, Judge, WriteWarnings), and the files temper run --out writes (Save): draws.csv in Stan's
// CSV conventions, summary.csv and diagnostics.json. A DrawsWriter streams
// draws.csv during a run instead, so that an interrupted process keeps every
// draw.
package temper
