package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/loo"
	"github.com/temper-ppl/temper/infer/summary"
)

// looCommand is temper loo: PSIS-LOO and WAIC of a run written with
// --log-lik, from its log_lik.1 ... log_lik.N columns, printed as R's loo
// prints them, with the observations whose Pareto k̂ is too high to trust.
func looCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "also write each observation's elpd_loo, p_loo, looic, Pareto k and relative efficiency to this CSV")
	subsample := fs.Int("subsample", 0, "for large data: PSIS-LOO of this many observations drawn at random, the rest by the difference estimator around log p(y_i | posterior mean) (needs --model; no --log-lik run)")
	model := fs.String("model", "", "with --subsample: the model, whose data the run's draws are evaluated on")
	seed := fs.Uint64("seed", 1, "with --subsample: the seed of the observations drawn")
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil {
		return badf("temper loo: %v", err)
	}
	if len(pos) != 1 {
		return badf("usage: temper loo RUN_DIR|DRAWS.csv (a run written with --log-lik), or temper loo RUN_DIR --subsample M --model MODEL.ppl")
	}
	if *subsample > 0 {
		if *model == "" {
			return badf("temper loo: --subsample evaluates the draws on the model's data: give --model MODEL.ppl")
		}
		return subsampledLoo(pos[0], *model, *subsample, *seed, stdout)
	}
	res, err := runLoo(pos[0])
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writePointwise(*out, res); err != nil {
			return fmt.Errorf("writing %s: %w", *out, err)
		}
	}
	return writeLoo(stdout, res)
}

// writePointwise writes each observation's terms as a CSV, as loo's
// pointwise matrix and diagnostics hold them.
func writePointwise(path string, r *loo.Result) error {
	var b strings.Builder
	b.WriteString("observation,elpd_loo,p_loo,looic,pareto_k,r_eff\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for i, p := range r.Pointwise {
		fmt.Fprintf(&b, "%d,%s,%s,%s,%s,%s\n", i+1, f(p.ELPD), f(p.PLoo), f(-2*p.ELPD), f(p.K), f(p.REff))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// runLoo reads a run's pointwise log-likelihood and computes PSIS-LOO,
// each observation's relative efficiency r_eff = ESS/S of its ratios'
// reciprocals p(y_i | θ) over the chains (loo's relative_eff).
func runLoo(path string) (*loo.Result, error) {
	t, err := readDraws([]string{path})
	if err != nil {
		return nil, badf("temper loo: %v", err)
	}
	ll, rEff, err := logLikMatrix(t)
	if err != nil {
		return nil, badf("temper loo: %s: %v", path, err)
	}
	r, err := loo.Compute(ll, rEff)
	if err != nil {
		return nil, badf("temper loo: %s: %v", path, err)
	}
	return r, nil
}

// logLikMatrix is the S × N matrix of a draws table's log_lik columns,
// chains one after the other, and each column's relative efficiency.
func logLikMatrix(t *draws.Table) ([][]float64, []float64, error) {
	var cols []string
	for _, c := range t.Columns {
		if strings.HasPrefix(c, "log_lik.") {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil, nil, fmt.Errorf("no log_lik columns: run the model with --log-lik (log_lik = true in its infer block)")
	}
	var ll [][]float64
	rEff := make([]float64, len(cols))
	for i, c := range cols {
		chains := t.ByChain(c)
		s, exp := 0, make([][]float64, len(chains))
		for k, ch := range chains {
			exp[k] = make([]float64, len(ch))
			for d, v := range ch {
				if i == 0 {
					ll = append(ll, make([]float64, len(cols)))
				}
				ll[s][i] = v
				exp[k][d] = math.Exp(v)
				s++
			}
		}
		rEff[i] = summary.ESS(exp) / float64(s)
		if math.IsNaN(rEff[i]) || rEff[i] <= 0 {
			rEff[i] = 1 // too few draws a chain to estimate it: as independent draws
		}
	}
	return ll, rEff, nil
}

// writeLoo prints PSIS-LOO and WAIC as loo's print does.
func writeLoo(w io.Writer, r *loo.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Computed from %d by %d log-likelihood matrix (PSIS-LOO)\n\n", r.S, r.N)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tEstimate\tSE\t")
	fmt.Fprintf(tw, "elpd_loo\t%.1f\t%.1f\t\n", r.ELPD, r.ELPDSE)
	fmt.Fprintf(tw, "p_loo\t%.1f\t%.1f\t\n", r.PLoo, r.PLooSE)
	fmt.Fprintf(tw, "looic\t%.1f\t%.1f\t\n", r.LooIC, r.LooICSE)
	fmt.Fprintf(tw, "elpd_waic\t%.1f\t%.1f\t\n", r.ELPDWAIC, r.ELPDWAICSE)
	fmt.Fprintf(tw, "p_waic\t%.1f\t%.1f\t\n", r.PWAIC, r.PWAICSE)
	fmt.Fprintf(tw, "waic\t%.1f\t%.1f\t\n", r.WAIC, r.WAICSE)
	if err := tw.Flush(); err != nil {
		return err
	}
	high := r.HighK()
	if len(high) == 0 {
		fmt.Fprintf(&b, "\nAll Pareto k estimates are good (k < %.2f).\n", r.KThreshold)
	} else {
		var list []string
		for _, i := range high[:min(len(high), 10)] {
			list = append(list, fmt.Sprintf("%d (k = %.2f)", i+1, r.Pointwise[i].K))
		}
		more := ""
		if len(high) > 10 {
			more = fmt.Sprintf(" and %d more", len(high)-10)
		}
		fmt.Fprintf(&b, "\nwarning: %d of %d observations have Pareto k above %.2f, where their leave-one-out estimates are unreliable: %s%s. Their elpd_loo is too optimistic; refit without each (exact LOO) or use a model less sensitive to them.\n",
			len(high), r.N, r.KThreshold, strings.Join(list, ", "), more)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
