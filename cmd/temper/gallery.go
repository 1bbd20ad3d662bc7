package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/infer/summary"
)

const galleryUsage = "usage: temper gallery [--check] [--only NAME] [--root DIR]\n       temper gallery --html DIR [--root DIR]"

// galleryPage is one example of the gallery: a model of examples/, run
// with its infer block, and the figures that show what it is about.
type galleryPage struct {
	name, title, shows string
	figures            []galleryFigure
}

// galleryFigure is one temper plot of a page.
type galleryFigure struct {
	file, caption string
	args          []string // temper plot's flags after RUN_DIR
	// model, if set, is another model file of the page's folder whose run
	// the figure shows (the centred form beside the non-centred one).
	model string
}

// galleryPages are the pages, in the index's order. Each runs in seconds,
// so that CI regenerates them all.
var galleryPages = []galleryPage{
	{"eight-schools", "Eight schools", "a hierarchy with a funnel, non-centred; SGHMC with the default warm-up",
		[]galleryFigure{
			{"trace.svg", "The draws of mu and tau against the iteration, a colour per chain, beside their histograms.", []string{"--kind", "trace", "--params", "mu,tau"}, ""},
			{"rank.svg", "Rank plots: each chain's share of the ranks among all draws is flat when the chains agree.", []string{"--kind", "rank", "--params", "mu,tau"}, ""},
			{"pair.svg", "mu, tau and the first school's effect against each other: the funnel in tau.", []string{"--kind", "pair", "--params", "mu,tau,theta.1"}, ""},
		}},
	{"logistic", "German credit: Bayesian logistic regression", "the README's first command, checked against Stan's NUTS posterior",
		[]galleryFigure{
			{"trace.svg", "The intercept and the first two coefficients over the iterations, beside their histograms.", []string{"--kind", "trace", "--params", "alpha,beta.1,beta.2"}, ""},
			{"density.svg", "Each chain's density of the same three: the chains agree.", []string{"--kind", "density", "--params", "alpha,beta.1,beta.2"}, ""},
			{"acf.svg", "Autocorrelation of each chain: the draws decorrelate within a few iterations.", []string{"--kind", "acf", "--params", "alpha,beta.1"}, ""},
		}},
	{"radon", "Radon: varying intercepts by county", "a multilevel regression whose intercepts are indexed by data, a[county[n]]",
		[]galleryFigure{
			{"trace.svg", "The mean intercept, the floor effect and the first county's intercept over the iterations.", []string{"--kind", "trace", "--params", "mu,b,a.1"}, ""},
			{"pair.svg", "The same three against each other.", []string{"--kind", "pair", "--params", "mu,b,a.1"}, ""},
		}},
	{"dirichlet", "A poll's answer shares: simplex parameters", "simplex[K][J] with a Dirichlet prior, the first region's shares",
		[]galleryFigure{
			{"density.svg", "Each chain's density of the first region's four shares.", []string{"--kind", "density", "--params", "theta.1"}, ""},
			{"rank.svg", "Their rank plots: flat when the chains agree.", []string{"--kind", "rank", "--params", "theta.1.1,theta.1.2"}, ""},
		}},
	{"varying-slopes", "Correlated varying slopes: an LKJ prior on a Cholesky factor", "cholesky_factor_corr with lkj_corr_cholesky, and multi_normal_cholesky",
		[]galleryFigure{
			{"trace.svg", "The population means and scales over the iterations.", []string{"--kind", "trace", "--params", "mu.1,mu.2,tau.1,tau.2"}, ""},
			{"pair.svg", "The scales and the correlation factor's free entry against each other.", []string{"--kind", "pair", "--params", "tau.1,tau.2,L.2.1"}, ""},
		}},
	{"funnel", "Neal's funnel with NUTS: divergences, and the reparameterisation that removes them", "the exact sampler nuts with Stan's warm-up, on the centred and the non-centred funnel",
		[]galleryFigure{
			{"pair.svg", "The non-centred form: v against x_1 traces the whole funnel, neck and mouth, without a divergent transition.", []string{"--kind", "pair", "--params", "v,x.1,z.1"}, ""},
			{"trace.svg", "The non-centred form: v's draws over the iterations and their histogram, N(0, 3²).", []string{"--kind", "trace", "--params", "v"}, ""},
			{"centred-pair.svg", "The centred form (centred.ppl): the divergent transitions (red) gather at the neck, which the chains cannot enter; v's histogram is cut off below -3, and temper run warns of divergences, E-BFMI and R-hat.", []string{"--kind", "pair", "--params", "v,x.1"}, "centred.ppl"},
		}},
	{"cosine2d", "Replica exchange on a multi-modal target (DEO*-SGD)", "a 16-level ladder of step sizes with the deterministic even-odd scheme of seed 000",
		[]galleryFigure{
			{"index.svg", "The replica index process: each replica's level over the exchange rounds, the first to make a round trip in colour.", []string{"--kind", "index"}, ""},
			{"ladder.svg", "The step-size ladder over the run, as the adaptive ladder spaces it toward equal swap rates.", []string{"--kind", "ladder"}, ""},
			{"swaps.svg", "The swap rate of each adjacent pair of levels, with its attempts.", []string{"--kind", "swaps"}, ""},
		}},
	{"mog25", "Cyclical SGLD on a mixture of 25 Gaussians", "seed 002's mode coverage: the draws over the target's density, modes counted",
		[]galleryFigure{
			{"modes.svg", "The draws over the target's density; a filled centre has more than 100 draws within 0.25 (seed 002, Table 4).", []string{"--kind", "modes", "--model", "{model}", "--modes", "{dir}/modes.csv"}, ""},
			{"schedule.svg", "The cyclical step size, the exploration stage of each cycle shaded.", []string{"--kind", "schedule"}, ""},
		}},
}

// galleryCommand is temper gallery: it runs each page's example with its
// infer block, draws its figures and writes its page,
// examples/NAME/gallery.md, and the gallery's front page,
// examples/index.md. With --check it writes them to a scratch folder
// instead and fails if any checked-in file differs, as CI does. The
// pages are made with the portable kernels (go run -tags purego), whose
// sums do not depend on the processor's vector width, so that any machine
// makes the same bytes.
func galleryCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gallery", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, galleryUsage); fs.PrintDefaults() }
	check := fs.Bool("check", false, "regenerate into a scratch folder and fail if a checked-in page or figure differs")
	only := fs.String("only", "", "make this page alone (and not the index)")
	root := fs.String("root", "examples", "the examples folder")
	site := fs.String("html", "", "write the gallery's pages as a static HTML site into this folder (no runs)")
	flags, pos := reorderFlags(args, "check")
	if err := fs.Parse(flags); err != nil || len(pos) > 0 {
		return badf("%s", galleryUsage)
	}
	if *site != "" {
		return writeSite(*root, *site, stdout)
	}
	out := *root
	if *check {
		tmp, err := os.MkdirTemp("", "temper-gallery-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		out = tmp
	}
	var made []string // paths relative to the examples folder
	for _, p := range galleryPages {
		if *only != "" && p.name != *only {
			continue
		}
		files, err := makePage(ctx, p, *root, out, stderr)
		if err != nil {
			return fmt.Errorf("temper gallery: %s: %w", p.name, err)
		}
		made = append(made, files...)
	}
	if *only == "" {
		if err := os.WriteFile(filepath.Join(out, "index.md"), galleryIndex(), 0o644); err != nil {
			return err
		}
		made = append(made, "index.md")
	} else if len(made) == 0 {
		return badf("temper gallery: no page %q", *only)
	}
	if !*check {
		_, err := fmt.Fprintf(stdout, "the gallery: %d files in %s\n", len(made), *root)
		return err
	}
	var stale []string
	for _, f := range made {
		want, err1 := os.ReadFile(filepath.Join(out, f))
		have, err2 := os.ReadFile(filepath.Join(*root, f))
		if err1 != nil || err2 != nil || !bytes.Equal(want, have) {
			stale = append(stale, f)
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("temper gallery: %d of %d files are stale (%s): regenerate with `go run -tags purego ./cmd/temper gallery` and commit them",
			len(stale), len(made), strings.Join(stale, ", "))
	}
	_, err := fmt.Fprintf(stdout, "the gallery is current: %d files\n", len(made))
	return err
}

// makePage runs a page's example, draws its figures into
// out/NAME/figures and writes out/NAME/gallery.md; it returns the files,
// relative to out.
func makePage(ctx context.Context, p galleryPage, root, out string, stderr io.Writer) ([]string, error) {
	dir := filepath.Join(root, p.name)
	model := filepath.Join(dir, "model.ppl")
	var so, se strings.Builder
	runs := map[string]string{} // model file → its run's folder
	runOf := func(file string) (string, error) {
		if d, ok := runs[file]; ok {
			return d, nil
		}
		d, err := os.MkdirTemp("", "temper-gallery-run-")
		if err != nil {
			return "", err
		}
		runs[file] = d
		if code := run(ctx, []string{"run", filepath.Join(dir, file), "--out", d, "--quiet"}, &so, &se); code != 0 {
			return "", fmt.Errorf("temper run %s exited %d: %s", file, code, se.String())
		}
		return d, nil
	}
	defer func() {
		for _, d := range runs {
			os.RemoveAll(d)
		}
	}()
	run1, err := runOf("model.ppl")
	if err != nil {
		return nil, err
	}
	figures := filepath.Join(out, p.name, "figures")
	if err := os.MkdirAll(figures, 0o755); err != nil {
		return nil, err
	}
	files := []string{filepath.Join(p.name, "gallery.md")}
	var commands []string
	for _, f := range p.figures {
		from, shownFrom := run1, filepath.Join("out", p.name)
		if f.model != "" {
			if from, err = runOf(f.model); err != nil {
				return nil, err
			}
			name := strings.TrimSuffix(f.model, filepath.Ext(f.model))
			shownFrom = filepath.Join("out", name)
			if cmd := fmt.Sprintf("temper run examples/%s/%s --out %s", p.name, f.model, shownFrom); !slices.Contains(commands, cmd) {
				commands = append(commands, cmd)
			}
		}
		args := append([]string{"plot", from}, f.args...)
		shown := append([]string{"temper", "plot", shownFrom}, f.args...)
		for i := range args {
			args[i] = strings.NewReplacer("{model}", model, "{dir}", dir).Replace(args[i])
		}
		for i := range shown {
			shown[i] = strings.NewReplacer("{model}", filepath.Join("examples", p.name, "model.ppl"), "{dir}", filepath.Join("examples", p.name)).Replace(shown[i])
		}
		args = append(args, "--out", filepath.Join(figures, f.file))
		so.Reset()
		se.Reset()
		if code := run(ctx, args, &so, &se); code != 0 {
			return nil, fmt.Errorf("temper plot %s exited %d: %s", f.file, code, se.String())
		}
		commands = append(commands, strings.Join(shown, " ")+" --out "+f.file)
		files = append(files, filepath.Join(p.name, "figures", f.file))
	}
	src, err := os.ReadFile(model)
	if err != nil {
		return nil, err
	}
	t, err := readDraws([]string{run1})
	if err != nil {
		return nil, err
	}
	var stats []summary.Stats
	for _, c := range t.Params() {
		stats = append(stats, summary.Summarize(c, t.ByChain(c)))
	}
	_, noReadme := os.Stat(filepath.Join(dir, "README.md"))
	page := galleryPageText(p, string(src), noReadme == nil, commands, stats)
	return files, os.WriteFile(filepath.Join(out, p.name, "gallery.md"), page, 0o644)
}

// galleryPageText is a page's Markdown: the model's own comment as prose,
// the model, the commands, the posterior summary and the figures.
func galleryPageText(p galleryPage, src string, hasReadme bool, commands []string, stats []summary.Stats) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.title)
	fmt.Fprintf(&b, "_%s. Made by `temper gallery` ([how](../index.md))", capitalise(p.shows))
	if hasReadme {
		b.WriteString("; the example's own page is [README.md](README.md)")
	}
	b.WriteString("._\n\n")
	var prose, body []string
	inHeader := true
	for _, line := range strings.Split(src, "\n") {
		if inHeader && strings.HasPrefix(line, "//") {
			prose = append(prose, strings.TrimPrefix(strings.TrimPrefix(line, "//"), " "))
			continue
		}
		inHeader = false
		body = append(body, line)
	}
	b.WriteString(strings.TrimSpace(strings.Join(prose, "\n")) + "\n\n")
	fmt.Fprintf(&b, "## The model\n\n```stan\n%s\n```\n\n", strings.TrimSpace(strings.Join(body, "\n")))
	fmt.Fprintf(&b, "## Run it\n\n```sh\ntemper run examples/%s/model.ppl\n%s\n```\n\n", p.name, strings.Join(commands, "\n"))
	b.WriteString("## The posterior (seed 1, the infer block's settings)\n\n")
	b.WriteString(summaryMarkdown(stats, 10))
	b.WriteString("\n## Figures\n\n")
	for _, f := range p.figures {
		fmt.Fprintf(&b, "![%s](figures/%s)\n\n%s\n\n", strings.TrimSuffix(f.file, ".svg"), f.file, f.caption)
	}
	return []byte(b.String())
}

// summaryMarkdown is the first rows of a posterior summary as a Markdown
// table, with the count of rows not shown.
func summaryMarkdown(stats []summary.Stats, rows int) string {
	var b strings.Builder
	b.WriteString("| parameter | mean | sd | 5% | 50% | 95% | bulk ESS | R-hat |\n|---|---|---|---|---|---|---|---|\n")
	for i, s := range stats {
		if i == rows {
			fmt.Fprintf(&b, "\n(and %d more)\n", len(stats)-rows)
			break
		}
		fmt.Fprintf(&b, "| %s |", s.Name)
		for _, v := range []float64{s.Mean, s.SD, s.Q5, s.Q50, s.Q95, s.ESSBulk, s.Rhat} {
			fmt.Fprintf(&b, " %s |", strconv.FormatFloat(v, 'g', 4, 64))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// galleryIndex is examples/index.md: a thumbnail and a line per page.
func galleryIndex() []byte {
	var b strings.Builder
	b.WriteString("# The temper gallery\n\n")
	b.WriteString("Each page runs one example of this folder with its infer block and the default seed, and shows the model, the commands, the posterior and the figures `temper plot` draws of it. `temper gallery` makes them (`go run -tags purego ./cmd/temper gallery`, the portable kernels, so that every machine makes the same bytes); CI runs `temper gallery --check` and fails when a page is stale; `temper gallery --html DIR` writes the pages as a static site to read offline.\n\n")
	b.WriteString("| | page | what it shows |\n|---|---|---|\n")
	for _, p := range galleryPages {
		fmt.Fprintf(&b, "| <a href=\"%s/gallery.md\"><img src=\"%s/figures/%s\" width=\"240\" alt=\"%s\"></a> | [%s](%s/gallery.md) | %s |\n",
			p.name, p.name, p.figures[0].file, p.title, p.title, p.name, p.shows)
	}
	b.WriteString("\nThe other examples (roaches, mog5, mnist, german-credit) have their READMEs, with the tests that check them against references.\n")
	return []byte(b.String())
}
