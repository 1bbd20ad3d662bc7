package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/compile"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/loo"
	"github.com/temper-ppl/temper/infer/summary"
)

// subsampledLoo is temper loo --subsample: PSIS-LOO for large data by the
// difference estimator of package loo (Magnusson et al. 2019). It needs
// no log_lik columns: each draw's parameters are mapped back to θ
// (compile.Model.Unconstrain), the m sampled rows' log-likelihoods are
// evaluated at every draw, and every row's at the draws' mean θ̂, the
// approximation π̃_i = log p(y_i | θ̂).
func subsampledLoo(dir, modelPath string, m int, seed uint64, stdout io.Writer) error {
	model, err := temper.CompileFile(modelPath, nil)
	if err != nil {
		return err
	}
	cm := model.Compiled()
	n := cm.NumData()
	if m < 2 || m > n {
		return badf("temper loo: --subsample %d: want 2 to the model's %d observations", m, n)
	}
	t, err := readDraws([]string{dir})
	if err != nil {
		return badf("temper loo: %v", err)
	}
	thetas, chainOf, err := unconstrainDraws(t, cm.Params(), cm.Unconstrain)
	if err != nil {
		return badf("temper loo: %s against %s: %v", dir, modelPath, err)
	}
	mean := make([]float64, cm.Dim())
	for _, th := range thetas {
		for i, v := range th {
			mean[i] += v / float64(len(thetas))
		}
	}
	full, err := cm.LogLik()
	if err != nil {
		return badf("temper loo: %v", err)
	}
	approx := make([]float64, n)
	full.Eval(approx, mean)
	rows := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(n)[:m]
	some, err := cm.LogLikRows(rows)
	if err != nil {
		return badf("temper loo: %v", err)
	}
	ll := make([][]float64, len(thetas))
	for d, th := range thetas {
		ll[d] = make([]float64, m)
		some.Eval(ll[d], th)
	}
	rEff := make([]float64, m)
	for j := range rEff {
		byChain := map[int][]float64{}
		var ids []int
		for d := range ll {
			c := chainOf[d]
			if _, ok := byChain[c]; !ok {
				ids = append(ids, c)
			}
			byChain[c] = append(byChain[c], math.Exp(ll[d][j]))
		}
		var chains [][]float64
		for _, c := range ids {
			chains = append(chains, byChain[c])
		}
		if rEff[j] = summary.ESS(chains) / float64(len(ll)); math.IsNaN(rEff[j]) || rEff[j] <= 0 {
			rEff[j] = 1
		}
	}
	est, err := loo.Subsample(approx, rows, ll, rEff)
	if err != nil {
		return badf("temper loo: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "Computed from %d draws, PSIS-LOO of %d of %d observations drawn at random (seed %d), the rest by the difference estimator around log p(y_i | posterior mean)\n\nelpd_loo  %.1f  se %.1f  subsampling se %.2f\nlooic     %.1f  se %.1f\n",
		len(thetas), m, n, seed, est.ELPD, est.ELPDSE, est.SubsamplingSE, -2*est.ELPD, 2*est.ELPDSE)
	if err == nil && len(est.Sample.HighK()) > 0 {
		_, err = fmt.Fprintf(stdout, "\nwarning: %d of the %d sampled observations have Pareto k above %.2f: their elpd_loo is too optimistic\n", len(est.Sample.HighK()), m, est.Sample.KThreshold)
	}
	return err
}

// unconstrainDraws maps every draw's parameter columns back to θ, and
// says which chain each draw is of.
func unconstrainDraws(t *draws.Table, params []compile.ParamInfo, unconstrain func(map[string][]float64) ([]float64, error)) ([][]float64, []int, error) {
	cols := make([][]int, len(params))
	for p, info := range params {
		for _, name := range draws.FlatNames(info.Name, info.Shape) {
			k := t.Index(name)
			if k < 0 {
				return nil, nil, fmt.Errorf("the draws have no column %s", name)
			}
			cols[p] = append(cols[p], k)
		}
	}
	thetas := make([][]float64, len(t.Chain))
	values := map[string][]float64{}
	for d := range thetas {
		for p, info := range params {
			v := make([]float64, len(cols[p]))
			for i, k := range cols[p] {
				v[i] = t.Values[k][d]
			}
			values[info.Name] = v
		}
		th, err := unconstrain(values)
		if err != nil {
			return nil, nil, fmt.Errorf("draw %d: %v", d+1, err)
		}
		thetas[d] = th
	}
	return thetas, slices.Clone(t.Chain), nil
}
