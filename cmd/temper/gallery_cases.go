package main

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/summary"
)

// The fast pages are written as case studies, as Stan's case studies and
// the BlackJAX Sampling Book are: the question, the model, the run, the
// checks (convergence diagnostics, the judge's verdict, the figures) and
// the answer. The question and answer of each are below; the answer is a
// text/template whose every number comes from the page's runs, so that
// temper gallery makes it again with them.

// caseStudy is a fast page's narrative: question is Markdown (what the
// analysis asks, its data and their source), answer a text/template over
// the page's first run (a *caseRun; see caseFuncs for the rest).
type caseStudy struct{ question, answer string }

// caseRun is a run of a page as its answer's template reads it.
type caseRun struct {
	label string
	dir   string // the run's folder (its first seed's)
	model string // the model file
	root  string // the examples folder
	t     *draws.Table
	diag  caseDiagnostics
	stats map[string]summary.Stats
}

// caseDiagnostics is what the checks read of a run's diagnostics.json.
type caseDiagnostics struct {
	runDiagnostics
	Sampler    string  `json:"sampler"`
	MinESSTail float64 `json:"min_ess_tail"`
	Attempts   []struct {
		Attempt  int               `json:"attempt"`
		Sampler  string            `json:"sampler"`
		Settings map[string]string `json:"settings"`
		Why      string            `json:"why"`
	} `json:"attempts"`
	raw map[string]any
}

// number is a figure of a page, printed with three significant digits
// (whole numbers from 1,000 on); printf's verbs format it otherwise.
type number float64

func (n number) String() string {
	v := float64(n)
	switch {
	case math.Abs(v) >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v == 0:
		return "0"
	}
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if strings.Contains(s, "e") { // small: as a decimal
		s = strconv.FormatFloat(v, 'f', min(10, 2-int(math.Floor(math.Log10(math.Abs(v))))), 64)
	}
	return s
}

// loadCaseRun reads a run's draws and diagnostics.
func loadCaseRun(g *galleryRuns, p galleryPage, label string) (*caseRun, error) {
	r, err := g.get(label)
	if err != nil {
		return nil, err
	}
	c := &caseRun{label: label, dir: r.dirs[0], model: filepath.Join(g.dir, r.run.modelFile()), root: g.root, stats: map[string]summary.Stats{}}
	if c.t, err = r.draws(0); err != nil {
		return nil, err
	}
	if err := r.diagnostics(0, &c.diag); err != nil {
		return nil, err
	}
	if err := r.diagnostics(0, &c.diag.raw); err != nil {
		return nil, err
	}
	return c, nil
}

// summary is a column's posterior summary, over its chains.
func (c *caseRun) summary(col string) (summary.Stats, error) {
	if s, ok := c.stats[col]; ok {
		return s, nil
	}
	if c.t.Index(col) < 0 {
		return summary.Stats{}, fmt.Errorf("run %q has no column %s", c.label, col)
	}
	s := summary.Summarize(col, c.t.ByChain(col))
	c.stats[col] = s
	return s, nil
}

func (c *caseRun) stat(col string, f func(summary.Stats) float64) (number, error) {
	s, err := c.summary(col)
	return number(f(s)), err
}

// Mean, SD, Q5, Q50 and Q95 are a column's posterior mean, sd and
// quantiles.
func (c *caseRun) Mean(col string) (number, error) {
	return c.stat(col, func(s summary.Stats) float64 { return s.Mean })
}
func (c *caseRun) SD(col string) (number, error) {
	return c.stat(col, func(s summary.Stats) float64 { return s.SD })
}
func (c *caseRun) Q5(col string) (number, error) {
	return c.stat(col, func(s summary.Stats) float64 { return s.Q5 })
}
func (c *caseRun) Q50(col string) (number, error) {
	return c.stat(col, func(s summary.Stats) float64 { return s.Q50 })
}
func (c *caseRun) Q95(col string) (number, error) {
	return c.stat(col, func(s summary.Stats) float64 { return s.Q95 })
}

// Interval is a column's central 90% posterior interval, "a to b".
func (c *caseRun) Interval(col string) (string, error) {
	s, err := c.summary(col)
	return fmt.Sprintf("%v to %v", number(s.Q5), number(s.Q95)), err
}

// Prob is the posterior probability that col op v (op: <, >), the share
// of the draws.
func (c *caseRun) Prob(col, op string, v float64) (number, error) {
	k := c.t.Index(col)
	if k < 0 {
		return 0, fmt.Errorf("run %q has no column %s", c.label, col)
	}
	n := 0
	for _, x := range c.t.Values[k] {
		if op == "<" && x < v || op == ">" && x > v {
			n++
		}
	}
	if op != "<" && op != ">" {
		return 0, fmt.Errorf("Prob: op %q, want < or >", op)
	}
	return number(float64(n) / float64(len(c.t.Values[k]))), nil
}

// columns are the columns of a parameter, prefix.1, prefix.2, ...
func (c *caseRun) columns(prefix string) ([]string, error) {
	var cols []string
	for _, col := range c.t.Columns {
		if strings.HasPrefix(col, prefix+".") {
			cols = append(cols, col)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("run %q has no columns %s.*", c.label, prefix)
	}
	return cols, nil
}

// MeanRange is the smallest and the largest posterior mean of a
// parameter's entries, "a (name) to b (name)".
func (c *caseRun) MeanRange(prefix string) (string, error) {
	cols, err := c.columns(prefix)
	if err != nil {
		return "", err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var loCol, hiCol string
	for _, col := range cols {
		s, _ := c.summary(col)
		if s.Mean < lo {
			lo, loCol = s.Mean, col
		}
		if s.Mean > hi {
			hi, hiCol = s.Mean, col
		}
	}
	return fmt.Sprintf("%v (%s) to %v (%s)", number(lo), loCol, number(hi), hiCol), nil
}

// MeanOfMeans is the average of a parameter's entries' posterior means
// (of the indicators zero.n, the replications' expected share of zeros).
func (c *caseRun) MeanOfMeans(prefix string) (number, error) {
	cols, err := c.columns(prefix)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, col := range cols {
		s, _ := c.summary(col)
		sum += s.Mean
	}
	return number(sum / float64(len(cols))), nil
}

// Excluding counts a parameter's entries whose 90% interval excludes v.
func (c *caseRun) Excluding(prefix string, v float64) (int, error) {
	cols, err := c.columns(prefix)
	n := 0
	for _, col := range cols {
		if s, _ := c.summary(col); s.Q5 > v || s.Q95 < v {
			n++
		}
	}
	return n, err
}

// Strongest is the entry of a parameter whose posterior mean is largest
// in size.
func (c *caseRun) Strongest(prefix string) (string, error) {
	cols, err := c.columns(prefix)
	best, at := -1.0, ""
	for _, col := range cols {
		if s, _ := c.summary(col); math.Abs(s.Mean) > best {
			best, at = math.Abs(s.Mean), col
		}
	}
	return at, err
}

// Count is the number of a parameter's entries.
func (c *caseRun) Count(prefix string) (int, error) {
	cols, err := c.columns(prefix)
	return len(cols), err
}

// Covered counts the mode centres of the CSV file (relative to the page's
// folder) that the draws of x.1 and x.2 cover: more than min draws within
// radius, the rule of seed 002's Table 4.
func (c *caseRun) Covered(file string, radius float64, minDraws int) (int, error) {
	centres, err := readCentres(filepath.Join(filepath.Dir(c.model), file))
	if err != nil {
		return 0, err
	}
	params := c.t.Params()
	if len(params) < 2 {
		return 0, fmt.Errorf("run %q has %d parameters; Covered needs two", c.label, len(params))
	}
	xs, err := pooled(c.t, params[0])
	if err != nil {
		return 0, err
	}
	ys, err := pooled(c.t, params[1])
	if err != nil {
		return 0, err
	}
	return summary.ModeCoverage(xs, ys, centres, radius, minDraws).Covered, nil
}

// MaxRhat, MinESS and MinTailESS are the run's worst split R-hat and
// smallest bulk and tail ESS over its parameters; Divergent its divergent
// transitions; Warnings the judge's warnings; Sampler what ran.
func (c *caseRun) MaxRhat() number    { return number(c.diag.MaxRhat) }
func (c *caseRun) MinESS() number     { return number(c.diag.MinESSBulk) }
func (c *caseRun) MinTailESS() number { return number(c.diag.MinESSTail) }
func (c *caseRun) Warnings() int      { return len(c.diag.Warnings) }
func (c *caseRun) Sampler() string    { return c.diag.Sampler }
func (c *caseRun) Divergent() int {
	n := 0
	for _, e := range c.diag.Exact {
		n += e.Divergent
	}
	return n
}

// Draws is the run's kept draws, all chains.
func (c *caseRun) Draws() int { return len(c.t.Chain) }

// Diagnostic is a number diagnostics.json records at the top level
// (round_trips, window, ...).
func (c *caseRun) Diagnostic(key string) (number, error) {
	v, ok := c.diag.raw[key].(float64)
	if !ok {
		return 0, fmt.Errorf("run %q: diagnostics.json has no number %q", c.label, key)
	}
	return number(v), nil
}

// SwapRates is the range of a ladder run's swap rates between adjacent
// levels, "a to b".
func (c *caseRun) SwapRates() (string, error) {
	r := c.diag.SwapRate
	if len(r) == 0 {
		return "", fmt.Errorf("run %q has no swap rates", c.label)
	}
	return fmt.Sprintf("%v to %v", number(slices.Min(r)), number(slices.Max(r))), nil
}

// Against compares the run with a reference posterior, a file of the
// format temper plot --reference reads (relative to the examples folder).
func (c *caseRun) Against(file string) (*caseComparison, error) {
	path := filepath.Join(c.root, file)
	refs, err := readReferenceFile(path)
	if err != nil {
		return nil, err
	}
	ref := map[string][2]float64{}
	for name, r := range refs {
		m, s := r.Mean, r.SD
		if len(r.Draws) > 1 {
			m, s = stat.MeanStdDev(r.Draws, nil)
		}
		ref[name] = [2]float64{m, s}
	}
	sc, err := compareWithStan(c.t, ref)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var labels struct {
		Parameters map[string]struct {
			Feature string `json:"feature"`
		} `json:"parameters"`
		Truth map[string]float64 `json:"truth"`
	}
	if err := jsonFile(path, &labels); err != nil {
		return nil, err
	}
	features := map[string]string{}
	for name, p := range labels.Parameters {
		features[stanColumn(name)] = p.Feature
	}
	cmp := &caseComparison{MaxZ: number(sc.maxZ), WorstZ: sc.worstZ, MaxSD: number(sc.maxSD), WorstSD: sc.worstSD, Compared: sc.compared, features: features}
	for _, name := range slices.Sorted(maps.Keys(labels.Truth)) {
		s, err := c.summary(stanColumn(name))
		if err != nil {
			return nil, fmt.Errorf("%s: the truth of %s: %v", path, name, err)
		}
		if z := math.Abs(labels.Truth[name]-s.Mean) / s.SD; z > float64(cmp.TruthZ) || cmp.WorstTruth == "" {
			cmp.TruthZ, cmp.WorstTruth = number(z), s.Name
		}
	}
	return cmp, nil
}

// caseComparison is a run against a reference: the largest |Δmean|/sd
// and relative sd error, the parameters they are of, and how many
// parameters were compared; and, where the reference records the values
// the data were simulated with ("truth"), the largest distance of a true
// value from the run's posterior mean in the run's posterior sds, and
// whose it is.
type caseComparison struct {
	MaxZ, MaxSD     number
	WorstZ, WorstSD string
	Compared        int
	TruthZ          number
	WorstTruth      string
	features        map[string]string
}

// Feature is what the reference file says a parameter stands for (its
// "feature" field).
func (c *caseComparison) Feature(col string) (string, error) {
	f, ok := c.features[col]
	if !ok || f == "" {
		return "", fmt.Errorf("the reference names no feature for %s", col)
	}
	return f, nil
}

// caseFuncs are the answer templates' functions: run LABEL (another run
// of the page), data NAME (the first run's model's data field), zeros
// (the share of zeros of some values), pct (a share as a percentage), is
// (a probability after "P(...) "),
// exp, normalQuantile MEAN SD P, and fact NAME (a figure the page's
// results function recorded).
func caseFuncs(g *galleryRuns, p galleryPage, first *caseRun) template.FuncMap {
	return template.FuncMap{
		"run": func(label string) (*caseRun, error) { return loadCaseRun(g, p, label) },
		"data": func(name string) ([]float64, error) {
			m, err := temper.CompileFile(first.model, nil)
			if err != nil {
				return nil, err
			}
			v, _, err := m.Compiled().DataValues(name)
			return v, err
		},
		"at": func(xs []float64, i int) (number, error) {
			if i < 1 || i > len(xs) {
				return 0, fmt.Errorf("at %d of %d values", i, len(xs))
			}
			return number(xs[i-1]), nil
		},
		"zeros": func(xs []float64) number { return number(statistics["zeros"](xs)) },
		"pct":   pct,
		"is":    probIs,
		"exp":   func(v number) number { return number(math.Exp(float64(v))) },
		"normalQuantile": func(mean, sd, p float64) number {
			return number(distuv.Normal{Mu: mean, Sigma: sd}.Quantile(p))
		},
		"fact": func(name string) (any, error) {
			v, ok := g.facts[name]
			if !ok {
				return nil, fmt.Errorf("the page's results recorded no %q", name)
			}
			return v, nil
		},
	}
}

// pct is a share as a whole percentage.
func pct(v number) string { return strconv.FormatFloat(100*float64(v), 'f', 0, 64) + "%" }

// probIs completes "P(...)" with a probability: "= 91%", or, where it
// rounds to 0 or 100% but is not, "< 1%" or "> 99%".
func probIs(v number) string {
	switch x := float64(v); {
	case x >= 0.995 && x < 1:
		return "> 99%"
	case x > 0 && x < 0.005:
		return "< 1%"
	}
	return "= " + pct(v)
}

// fact records a figure of a page's results for its answer's template.
func (g *galleryRuns) fact(name string, v any) {
	if g.facts == nil {
		g.facts = map[string]any{}
	}
	g.facts[name] = v
}

// caseAnswer is the page's answer, its template run over its runs.
func caseAnswer(g *galleryRuns, p galleryPage, first *caseRun) (string, error) {
	cs, ok := caseStudies[p.name]
	if !ok {
		return "", fmt.Errorf("no case study for the page %s (gallery_cases.go)", p.name)
	}
	tmpl, err := template.New(p.name).Funcs(caseFuncs(g, p, first)).Option("missingkey=error").Parse(cs.answer)
	if err != nil {
		return "", fmt.Errorf("its answer: %v", err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, first); err != nil {
		return "", fmt.Errorf("its answer: %v", err)
	}
	return strings.TrimSpace(b.String()), nil
}

// caseChecks is the Checks section's head: a row per run of its
// convergence diagnostics and the judge's verdict, what the sampler
// escalation did, and the judge's warnings (a page with results quotes
// them there).
func caseChecks(g *galleryRuns, p galleryPage) (string, error) {
	var rows [][]string
	var notes []string
	for _, r := range p.pageRuns() {
		c, err := loadCaseRun(g, p, r.label)
		if err != nil {
			return "", err
		}
		d := c.diag
		sampler := "`" + d.Sampler + "`"
		if n := len(d.Attempts); n > 1 {
			last := d.Attempts[n-1]
			var set []string
			for _, k := range slices.Sorted(maps.Keys(last.Settings)) {
				set = append(set, k+" = "+last.Settings[k])
			}
			if len(set) > 0 {
				sampler += ", " + strings.Join(set, ", ")
			}
			notes = append(notes, fmt.Sprintf("%s is attempt %d of the sampler's escalation (`--escalate`): %s.", cmpOr(r.label, "The run"), last.Attempt, last.Why))
		}
		judge := "no warnings"
		if n := len(d.Warnings); n > 0 {
			judge = fmt.Sprintf("%d warning%s", n, map[bool]string{true: "", false: "s"}[n == 1])
			if p.results == nil {
				for _, w := range d.Warnings {
					notes = append(notes, fmt.Sprintf("%s warns: %s", cmpOr(r.label, "The run"), w))
				}
			}
		}
		divergent := "–"
		if len(d.Exact) > 0 {
			divergent = strconv.Itoa(c.Divergent())
		}
		row := []string{sampler, fmt.Sprintf("%d × %d", d.Chains, d.DrawsPerChain), f3(d.MaxRhat), fmt.Sprintf("%.0f", d.MinESSBulk), fmt.Sprintf("%.0f", d.MinESSTail), divergent, judge}
		if len(p.pageRuns()) > 1 {
			row = append([]string{cmpOr(r.label, "model.ppl")}, row...)
		}
		rows = append(rows, row)
	}
	header := []string{"sampler", "chains × draws", "max R-hat", "min bulk ESS", "min tail ESS", "divergent", "the judge"}
	if len(p.pageRuns()) > 1 {
		header = append([]string{"run"}, header...)
	}
	var b strings.Builder
	b.WriteString("Split R-hat below 1.01 and bulk and tail ESS above 100 per chain are Stan's thresholds; the judge (`temper run`'s warnings, kept in `diagnostics.json`) checks them and the failures particular to each sampler.\n\n")
	b.WriteString(mdTable(header, rows))
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String(), nil
}
