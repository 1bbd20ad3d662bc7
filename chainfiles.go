package temper

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// saveChainFiles writes the target level's draws of each chain into its
// own file in CmdStan's layout (runfiles.ChainFile), which R's rstan::read_stan_csv,
// cmdstanr and ArviZ's from_cmdstan read as one chain each: CmdStan's
// comment header (model, num_samples, num_warmup, save_warmup, thin, the
// algorithm and its settings, id, seed), the sampler diagnostics as
// columns ending in __ before the parameters (lp__, and cycle__ for a
// cyclical schedule), the warm-up's result after the header and the
// timings at the end. Files of other chains, of an earlier run into the
// same folder, are removed, so that a reader of the folder sees this run
// alone.
func (r *Result) saveChainFiles(dir string) error {
	var mine []int
	for c := range r.Draws {
		mine = append(mine, r.ChainNumber(c))
	}
	if err := runfiles.RemoveStaleChainFiles(dir, mine); err != nil {
		return err
	}
	columns := append([]string{"lp__"}, r.StatColumns...)
	if r.Cycle != nil {
		columns = append(columns, "cycle__")
	}
	// The parameters in CmdStan's column-major order (draws.ColumnMajor),
	// which rstan::extract assumes when it builds a matrix's draws.
	order := draws.ColumnMajor(r.Columns[1:])
	for _, p := range order {
		columns = append(columns, r.Columns[1+p])
	}
	row := make([]float64, len(columns))
	for c, chain := range r.Draws {
		f, err := os.Create(filepath.Join(dir, runfiles.ChainFile(r.ChainNumber(c)-1)))
		if err != nil {
			return err
		}
		err = r.writeChain(f, c, chain, columns, order, row)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *Result) writeChain(f *os.File, c int, chain [][]float64, columns []string, order []int, row []float64) error {
	w, err := draws.NewWriter(f, draws.Header{Comments: r.cmdstanHeader(c, len(chain), f.Name()), Columns: columns, OneChain: true})
	if err != nil {
		return err
	}
	if t := r.Tuning; t != nil {
		if err := w.Comment("Adaptation terminated", fmt.Sprintf("Step size = %g", t.StepSize),
			"(temper's warm-up: the step size of the sampler's dynamics in the metric's coordinates)"); err != nil {
			return err
		}
	}
	if r.Exact != nil {
		if err := w.Comment(adaptationLines(r.Exact[c])...); err != nil {
			return err
		}
	}
	for i, d := range chain {
		row[0] = d[0]
		rest := row[1:]
		if r.Stats != nil {
			copy(rest, r.Stats[c][i])
			rest = rest[len(r.StatColumns):]
		}
		if r.Cycle != nil {
			rest[0] = float64(r.Cycle[c][i] + 1)
			rest = rest[1:]
		}
		for i, p := range order {
			rest[i] = d[1+p]
		}
		if err := w.Write(r.ChainNumber(c), i+1, row); err != nil {
			return err
		}
	}
	sampling := r.Elapsed - r.Warmup
	return w.Comment("",
		fmt.Sprintf(" Elapsed Time: %.3f seconds (Warm-up)", r.Warmup.Seconds()),
		fmt.Sprintf("               %.3f seconds (Sampling)", sampling.Seconds()),
		fmt.Sprintf("               %.3f seconds (Total)", r.Elapsed.Seconds()),
		"")
}

// cmdstanHeader is the configuration CmdStan writes before the columns,
// with temper's sampler where CmdStan names its algorithm. The times are
// the whole run's, all chains together, as temper runs them in one pass.
func (r *Result) cmdstanHeader(c, kept int, path string) []string {
	name := "temper_model"
	if r.model != nil {
		name = runfiles.ModelName(r.model.cm.SourceName())
	}
	o := r.Options
	lines := []string{
		"model = " + name,
		"method = sample (Default)",
		"  sample",
		fmt.Sprintf("    num_samples = %d", kept),
		fmt.Sprintf("    num_warmup = %d", r.State.Burn), // the exact samplers' warm-up and the burn-in
		"    save_warmup = 0",
		fmt.Sprintf("    thin = %d", o.Thin),
		"    algorithm = " + r.sampler.Name,
	}
	settings := samplerSettings(r.sampler, r.settings)
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		lines = append(lines, "      "+k+" = "+settings[k])
	}
	return append(lines,
		fmt.Sprintf("id = %d", r.ChainNumber(c)),
		"random",
		fmt.Sprintf("  seed = %d", o.Seed),
		"output",
		"  file = "+filepath.Base(path),
		"temper: "+settingsLine(o),
		"temper: lp__ is minus the minibatch energy; parameters are on their constrained scale, matrices row-major",
	)
}

// adaptationLines are the lines CmdStan writes after the columns of an
// adapted run: the step size and the inverse metric its warm-up chose.
func adaptationLines(x infer.ExactReport) []string {
	lines := []string{"Adaptation terminated", fmt.Sprintf("Step size = %g", x.StepSize)}
	format := func(v []float64) string {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.FormatFloat(x, 'g', 6, 64)
		}
		return strings.Join(parts, ", ")
	}
	if !x.Dense {
		return append(lines, "Diagonal elements of inverse mass matrix:", format(x.InvMetric))
	}
	lines = append(lines, "Elements of inverse mass matrix:")
	d := int(math.Sqrt(float64(len(x.InvMetric))))
	for i := range d {
		lines = append(lines, format(x.InvMetric[i*d:(i+1)*d]))
	}
	return lines
}
