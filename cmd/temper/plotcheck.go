package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/loo"
	"github.com/temper-ppl/temper/infer/plots"
)

// checkKinds are temper plot's model checks.
var checkKinds = []string{"khat", "ppc", "ppc-stat", "loo-pit"}

// checkSpec is what a predictive check plots: the data field and the
// generated quantity that replicates it, of the model whose data they are.
// With log1p, ppc draws log(1 + y) and log(1 + y_rep): a long tail of
// counts (the roaches' reach 300) leaves the bulk of them in one bin
// otherwise.
type checkSpec struct {
	model, y, yrep, stat string
	log1p                bool
}

// plotCheck draws one of the model checks of a run.
func plotCheck(dir, kind string, c checkSpec, out string, stdout io.Writer) error {
	t, err := readDraws([]string{dir})
	if err != nil {
		return badf("temper plot: %v", err)
	}
	if out == "" {
		out = kind + ".svg"
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			out = filepath.Join(dir, out)
		}
	}
	if kind == "khat" {
		r, err := runLoo(dir)
		if err != nil {
			return err
		}
		k := make([]float64, r.N)
		for i, p := range r.Pointwise {
			k[i] = p.K
		}
		if err := plots.WriteKhat(out, k, r.KThreshold); err != nil {
			return badf("temper plot: %v", err)
		}
		_, err = fmt.Fprintf(stdout, "khat plot of %d observations in %s\n", r.N, out)
		return err
	}
	if c.model == "" || c.y == "" || c.yrep == "" {
		return badf("temper plot: --kind %s needs --model MODEL.ppl (whose data it reads), --y (the data field) and --yrep (the generated quantity replicating it)", kind)
	}
	m, err := temper.CompileFile(c.model, nil)
	if err != nil {
		return err
	}
	y, counts, err := m.Compiled().DataValues(c.y)
	if err != nil {
		return badf("temper plot: %v", err)
	}
	reps, err := replications(t, c.yrep, len(y))
	if err != nil {
		return badf("temper plot: %v", err)
	}
	what := "replications"
	if madeWithPrior(dir) {
		what = "prior predictive replications"
	}
	if c.log1p && kind != "ppc" {
		return badf("temper plot: --log1p is for --kind ppc, not %s", kind)
	}
	switch kind {
	case "ppc":
		name := c.y
		if c.log1p {
			if y, err = logOnePlus(y, "the data's "+c.y); err != nil {
				return badf("temper plot: %v", err)
			}
			for d := range reps {
				if reps[d], err = logOnePlus(reps[d], c.yrep); err != nil {
					return badf("temper plot: %v", err)
				}
			}
			name, counts = "log(1 + "+c.y+")", false
		}
		err = plots.WritePPC(out, name, y, counts, reps, what)
	case "ppc-stat":
		f, ok := statistics[c.stat]
		if !ok {
			return badf("temper plot: --stat %s: want mean, sd, median, min, max or zeros", c.stat)
		}
		ts := make([]float64, len(reps))
		for d, r := range reps {
			ts[d] = f(r)
		}
		err = plots.WritePPCStat(out, c.y, c.stat, f(y), ts)
	case "loo-pit":
		var pit []float64
		if pit, err = looPIT(t, y, counts, reps); err == nil {
			err = plots.WriteLooPIT(out, c.y, pit)
		}
	}
	if err != nil {
		return badf("temper plot: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "%s plot of %s against %s in %s\n", kind, c.y, c.yrep, out)
	return err
}

// logOnePlus is log(1 + x) of each value, which must be above -1.
func logOnePlus(x []float64, what string) ([]float64, error) {
	out := make([]float64, len(x))
	for i, v := range x {
		if !(v > -1) {
			return nil, fmt.Errorf("--log1p: %s has the value %g, where log(1 + y) is undefined", what, v)
		}
		out[i] = math.Log1p(v)
	}
	return out, nil
}

// statistics are ppc-stat's test statistics.
var statistics = map[string]func([]float64) float64{
	"mean": func(x []float64) float64 { return stat.Mean(x, nil) },
	"sd":   func(x []float64) float64 { return stat.StdDev(x, nil) },
	"median": func(x []float64) float64 {
		s := slices.Clone(x)
		slices.Sort(s)
		return stat.Quantile(0.5, stat.Empirical, s, nil)
	},
	"min": slices.Min[[]float64],
	"max": slices.Max[[]float64],
	"zeros": func(x []float64) float64 { // the share of zeros, which counts' models often miss
		n := 0
		for _, v := range x {
			if v == 0 {
				n++
			}
		}
		return float64(n) / float64(len(x))
	},
}

// replications are the draws' replicated data sets: for each draw, the
// columns NAME.1 ... NAME.n, chains one after the other.
func replications(t *draws.Table, name string, n int) ([][]float64, error) {
	var cols []int
	for i := range n {
		k := t.Index(fmt.Sprintf("%s.%d", name, i+1))
		if k < 0 && n == 1 {
			k = t.Index(name)
		}
		if k < 0 {
			return nil, fmt.Errorf("the draws have no column %s.%d: --yrep names the generated quantity with one value per observation (%d)", name, i+1, n)
		}
		cols = append(cols, k)
	}
	if t.Index(fmt.Sprintf("%s.%d", name, n+1)) >= 0 {
		return nil, fmt.Errorf("%s has more values than the data's %d", name, n)
	}
	reps := make([][]float64, len(t.Chain))
	for d := range reps {
		reps[d] = make([]float64, n)
		for i, k := range cols {
			reps[d][i] = t.Values[k][d]
		}
	}
	return reps, nil
}

// looPIT is each observation's probability integral transform under its
// leave-one-out predictive distribution, Σ_s w_is 1[y_rep,si ≤ y_i] with
// the PSIS weights of its log-likelihood (loo's loo_pit). For counts the
// transform is randomised, Σ w 1[y_rep < y] + u·Σ w 1[y_rep = y] with u
// uniform (Czado, Gneiting & Held 2009), which is uniform when the model
// is calibrated, as the plain one for counts is not.
func looPIT(t *draws.Table, y []float64, counts bool, reps [][]float64) ([]float64, error) {
	var cols []string
	for _, c := range t.Columns {
		if strings.HasPrefix(c, "log_lik.") {
			cols = append(cols, c)
		}
	}
	if len(cols) != len(y) {
		return nil, fmt.Errorf("loo-pit weighs the draws by their pointwise log-likelihood: the run has %d log_lik columns for %d observations; run it with --log-lik", len(cols), len(y))
	}
	ll, rEff, err := logLikMatrix(t)
	if err != nil {
		return nil, err
	}
	// logLikMatrix stacks the chains; the replications come in file order:
	// put them in the same order.
	order := make([]int, len(t.Chain))
	for d := range order {
		order[d] = d
	}
	slices.SortStableFunc(order, func(a, b int) int { return t.Chain[a] - t.Chain[b] })
	pit := make([]float64, len(y))
	col := make([]float64, len(ll))
	rng := rand.New(rand.NewPCG(1, 1)) // the same figure from the same run
	for i := range y {
		for d := range ll {
			col[d] = ll[d][i]
		}
		w := loo.Weights(col, rEff[i])
		var below, at float64
		for d, o := range order {
			switch {
			case reps[o][i] < y[i]:
				below += w[d]
			case reps[o][i] == y[i]:
				at += w[d]
			}
		}
		pit[i] = below + at
		if counts {
			pit[i] = below + rng.Float64()*at
		}
		pit[i] = math.Min(1, pit[i])
	}
	return pit, nil
}
