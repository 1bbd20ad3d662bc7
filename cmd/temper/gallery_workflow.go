package main

import (
	"fmt"
	"strings"

	"github.com/temper-ppl/temper/infer/loo"
)

// The workflow page: the roaches' negative binomial regression checked
// against its prior predictive, its posterior predictive and PSIS-LOO,
// and compared with a Poisson regression by elpd_loo, as Stan's case
// studies walk it.

var workflowPage = galleryPage{name: "workflow", title: "The Bayesian workflow: prior predictive, fit, posterior predictive, LOO and comparison",
	shows: "the roaches' negative binomial regression checked against its prior and posterior predictive (the share of zeros, LOO-PIT) and PSIS-LOO, and compared with a Poisson regression by elpd_loo",
	runs: []galleryRun{
		{label: "prior predictive", args: []string{"--prior"}},
		{label: "negative binomial", args: []string{"--log-lik"}},
		{label: "Poisson", model: "poisson.ppl", args: []string{"--log-lik"}},
	},
	about: "`--prior` samples the priors alone, the generated block's `y_rep` then the prior predictive: data sets the model thinks plausible before it sees the counts. `--log-lik` adds each draw's pointwise log-likelihood, from which `temper loo` estimates the expected log predictive density of a new apartment's count by PSIS-LOO, flagging the observations whose Pareto k̂ makes their estimate unreliable, and `temper compare` ranks the two models by it. The predictive checks set the share of zeros among the counts, which a Poisson regression cannot produce in number, and the LOO-PIT values, uniform for a calibrated model, beside the data's.",
	figures: []galleryFigure{
		{file: "prior-zeros.svg", run: "prior predictive", caption: "The prior predictive: the share of zeros among 262 counts drawn from the priors alone, against the data's: the priors allow data sets like the observed one, and many others.", args: []string{"--kind", "ppc-stat", "--model", "{model}", "--y", "y", "--yrep", "y_rep", "--stat", "zeros"}},
		{file: "zeros-negbin.svg", run: "negative binomial", caption: "The negative binomial's posterior predictive share of zeros: the data's is a typical value.", args: []string{"--kind", "ppc-stat", "--model", "{model}", "--y", "y", "--yrep", "y_rep", "--stat", "zeros"}},
		{file: "zeros-poisson.svg", run: "Poisson", caption: "The Poisson regression's: the data's share of zeros lies in the upper tail of its replications', which its single rate cannot spread.", args: []string{"--kind", "ppc-stat", "--model", "{model}", "--y", "y", "--yrep", "y_rep", "--stat", "zeros"}},
		{file: "loo-pit-negbin.svg", run: "negative binomial", caption: "The negative binomial's LOO-PIT (randomised for counts): inside the uniform's band.", args: []string{"--kind", "loo-pit", "--model", "{model}", "--y", "y", "--yrep", "y_rep"}},
		{file: "loo-pit-poisson.svg", run: "Poisson", caption: "The Poisson regression's LOO-PIT: an S-shape, too many observations in both tails of their predictive distributions, which are too narrow.", args: []string{"--kind", "loo-pit", "--model", "{model}", "--y", "y", "--yrep", "y_rep"}},
		{file: "khat-poisson.svg", run: "Poisson", caption: "The Poisson regression's Pareto k̂: the apartments its fit cannot reconcile lie far above the threshold.", args: []string{"--kind", "khat"}},
	},
	results: workflowResults}

func workflowResults(g *galleryRuns) (string, error) {
	type fit struct {
		label string
		r     *loo.Result
	}
	var fits []fit
	for _, label := range []string{"negative binomial", "Poisson"} {
		run, err := g.get(label)
		if err != nil {
			return "", err
		}
		r, err := runLoo(run.dirs[0])
		if err != nil {
			return "", err
		}
		fits = append(fits, fit{label, r})
	}
	var rows [][]string
	for _, f := range fits {
		rows = append(rows, []string{f.label, fmt.Sprintf("%.1f ± %.1f", f.r.ELPD, f.r.ELPDSE), fmt.Sprintf("%.1f", f.r.PLoo), fmt.Sprintf("%.1f", f.r.LooIC), fmt.Sprintf("%d", len(f.r.HighK()))})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "PSIS-LOO of each model (`temper loo`), %d draws of %d observations; k̂ above %.2f makes an observation's estimate unreliable:\n\n", fits[0].r.S, fits[0].r.N, fits[0].r.KThreshold)
	b.WriteString(mdTable([]string{"model", "elpd_loo", "p_loo", "looic", "k̂ above the threshold"}, rows))
	diff := make([]float64, fits[0].r.N)
	for i := range diff {
		diff[i] = fits[1].r.Pointwise[i].ELPD - fits[0].r.Pointwise[i].ELPD
	}
	d, se := loo.Total(diff)
	var dirs []string
	for _, label := range []string{"Poisson", "negative binomial"} {
		run, err := g.get(label)
		if err != nil {
			return "", err
		}
		dirs = append(dirs, run.dirs[0])
	}
	var table strings.Builder
	if err := compareLooNamed(dirs, []string{"poisson", "negbin"}, &table); err != nil {
		return "", err
	}
	g.fact("elpd difference", fmt.Sprintf("%.1f", -d))
	g.fact("elpd difference in SEs", fmt.Sprintf("%.1f", -d/se))
	g.fact("Poisson high k", len(fits[1].r.HighK()))
	g.fact("negative binomial high k", len(fits[0].r.HighK()))
	fmt.Fprintf(&b, "\n`temper compare poisson negbin` (the two runs' folders) ranks the negative binomial first: the Poisson regression's elpd_loo is %.1f lower, %.1f standard errors of the difference, which is itself optimistic for the Poisson, whose high k̂ observations' estimates are too high:\n\n```\n%s```\n", -d, -d/se, table.String())
	return b.String(), nil
}
