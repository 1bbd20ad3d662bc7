// Package temper embeds temper's model language and samplers in a Go
// program: compile a model with its data given as Go values, sample it
// under a context, and read the draws, the summaries and the run's
// warnings.
//
//	m, err := temper.Compile("line.ppl", src, map[string]any{
//		"x": []float64{1, 2, 3, 4},
//		"y": []float64{1.1, 2.0, 2.9, 4.2},
//	})
//	if err != nil {
//		return err // a *temper.Error: each diagnostic under its source line
//	}
//	res, err := m.Sample(ctx, temper.Options{Seed: 1}) // sampler auto, 4 chains × 2000
//	if err != nil {
//		return err // on cancellation res still holds the draws made so far
//	}
//	res.WriteTable(os.Stdout)         // mean, sd, MCSE, quantiles, ESS, R-hat
//	beta, err := res.Column("beta.1") // one column's draws, a slice per chain
//
// Data are a map from the data block's names to numbers, slices and
// arrays of them nested to any depth, or gonum matrices and vectors; sizes
// such as N are inferred from the shapes. CompileFile reads a .ppl file
// and the data files its infer block names, and Model.InferOptions is that
// block's Options.
//
// The zero Options run sampler auto (NUTS where a full-data gradient makes
// it affordable, else SGHMC on minibatches, escalated when the run fails;
// Model.Plan says what it chooses and why); Options.Sampler names any
// other (docs/samplers.md). Options.OnDraw sees each draw as it is made,
// and Model.Draws is the same run as an iterator. A Result gives the draws
// (Column, Draws), the summary (Summary, WriteTable), the diagnostics, the
// warnings that say what to change (WriteWarnings), and the files temper
// run writes (Save).
//
// A *Model is safe for concurrent use: each run and each LogDensity call
// has its own evaluator. Simulation-based calibration is package sbc; the
// command line, the REPL and the gallery are built on this package and on
// internal ones.
package temper
