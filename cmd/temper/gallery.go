package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/summary"
	"github.com/temper-ppl/temper/internal/runfiles"
)

const galleryUsage = "usage: temper gallery [--check] [--slow] [--only NAME] [--root DIR]\n       temper gallery --html DIR [--root DIR]"

// galleryPage is one page of the gallery: one or more runs of the models
// of examples/, the figures temper plot draws of them, and, for a page
// that compares samplers, its tables beside the paper's. Fast and slow
// pages are made by the same code; they differ in how CI checks them.
type galleryPage struct {
	name, title, shows string
	// dir is the example folder the page is written in (default name) and
	// file its Markdown there (default gallery.md), so that a folder can
	// hold its fast page and a slow comparison beside it.
	dir, file string
	// slow marks a page whose runs take minutes: temper gallery --slow or
	// --only NAME makes it, and --check verifies it without running it in
	// full (checkSlowPage): CI cannot spend minutes a page.
	slow bool
	// reduced is a slow page's reduced check: how its runs are made
	// smaller, in seconds, for --check to compare the headline figures its
	// results record with those the page recorded (gallery_reduced.go).
	reduced *reducedRuns
	// runs are the page's runs; none is model.ppl with its infer block.
	runs    []galleryRun
	figures []galleryFigure
	// about is Markdown after the model's own comment: what the comparison
	// is and which of the paper's tables or figures it reproduces.
	about string
	// size is the runs' size beside the paper's, for a slow page.
	size string
	// results is the page's tables, made from its runs' folders: temper's
	// numbers beside the paper's. A page without it shows the posterior of
	// its first run.
	results func(*galleryRuns) (string, error)
}

// galleryRun is one run of a page: a model with the flags that change its
// infer block (the sampler, its settings, the size).
type galleryRun struct {
	// label names the run in the page (captions, tables) and its output
	// folder; the first run of a page may have none.
	label string
	// model is the model file, relative to the page's folder (default
	// model.ppl); ../NAME/model.ppl is another example's.
	model string
	args  []string // temper run's flags over the infer block; {dir} is the page's folder
	// seeds, if any, repeat the run once per seed (--seed s); figures show
	// the first.
	seeds []int
	// bench runs temper bench --json with args instead of temper run: the
	// MNIST MLP, whose images temper run cannot read. Its folder holds
	// bench.json and, with --out, the draws of the last configuration.
	bench bool
	// program, if set, runs an example's own Go program with args and
	// --out instead of temper run: the Fashion-MNIST experiment, whose
	// images temper run cannot read either.
	program *galleryProgram
}

// galleryProgram is an example's Go program, called in-process by the
// gallery and shown as go run ./examples/DIR/PATH.
type galleryProgram struct {
	path string // the program's package, relative to the example's folder
	// sources are the example's files the program's results depend on
	// besides temper's code (its Go files), relative to the example's
	// folder: inputs of a slow page's hash, as its models are.
	sources []string
	main    func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// galleryFigure is one temper plot of a page.
type galleryFigure struct {
	file, caption string
	args          []string // temper plot's flags after RUN_DIR; {model}, {dir} and {root} are the run's model, the page's folder and the examples folder
	// run is the label of the run the figure shows (default the first).
	run string
}

// pageDir and pageFile are where a page's Markdown is, relative to the
// examples folder.
func (p galleryPage) pageDir() string { return cmpOr(p.dir, p.name) }
func (p galleryPage) pageFile() string {
	return filepath.Join(p.pageDir(), cmpOr(p.file, "gallery.md"))
}

// pageRuns are the page's runs, model.ppl with its infer block by default.
func (p galleryPage) pageRuns() []galleryRun {
	if len(p.runs) == 0 {
		return []galleryRun{{}}
	}
	return p.runs
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// slug is a label as a folder name: DEO* is deo-star, SGNHT (1 chain) is
// sgnht-1-chain.
func slug(label string) string {
	label = strings.ToLower(strings.ReplaceAll(label, "*", "-star"))
	return strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(label, "-"), "-")
}

// modelFile is the run's model, relative to the page's folder.
func (r galleryRun) modelFile() string {
	if r.bench {
		return filepath.Join("..", "mnist", "model.ppl")
	}
	return cmpOr(r.model, "model.ppl")
}

// shownOut is the folder the page's commands write the run to: temper
// run's own (out/NAME) for another example's model run with its infer
// block, else the page's folder's name and the run's label.
func (r galleryRun) shownOut(p galleryPage) string {
	if strings.HasPrefix(r.model, "../") && filepath.Base(r.model) == "model.ppl" && len(r.args) == 0 && len(r.seeds) == 0 {
		return defaultOut(filepath.Join("examples", p.pageDir(), r.model))
	}
	out := filepath.Join("out", p.pageDir())
	if r.label != "" {
		out += "-" + slug(r.label)
	}
	return out
}

// galleryCommand is temper gallery: it runs each page's examples, draws
// their figures and writes the page, examples/DIR/gallery.md (or the
// page's own file), and the gallery's front page, examples/index.md. The
// fast pages are made by default; --slow makes the slow ones, --only NAME
// one page of either kind. With --check it makes the fast pages in a
// scratch folder and fails if any checked-in file differs, as CI does, and
// checks each slow page without running it (checkSlowPage). The fast
// pages are made with the portable kernels (go run -tags purego), whose
// sums do not depend on the processor's vector width, so that any machine
// makes the same bytes.
func galleryCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gallery", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, galleryUsage); fs.PrintDefaults() }
	check := fs.Bool("check", false, "make the fast pages in a scratch folder and fail if a checked-in page or figure differs; check the slow pages' files and inputs without running them")
	slow := fs.Bool("slow", false, "make the slow pages (minutes each) and the index, not the fast pages")
	only := fs.String("only", "", "make this page alone, fast or slow (and not the index)")
	root := fs.String("root", "examples", "the examples folder")
	site := fs.String("html", "", "write the gallery's pages as a static HTML site into this folder (no runs)")
	reduced := fs.String("reduced-figures", "", "print the figures of this slow page's reduced check as JSON (a child process of --check; needs the portable kernels)")
	flags, pos := reorderFlags(args, "check", "slow")
	if err := fs.Parse(flags); err != nil || len(pos) > 0 {
		return badf("%s", galleryUsage)
	}
	if *site != "" {
		return writeSite(*root, *site, stdout)
	}
	if *reduced != "" {
		return printReducedFigures(ctx, *reduced, *root, stdout)
	}
	return makeGallery(ctx, galleryPages, *root, *only, *slow, *check, stdout, stderr)
}

// makeGallery makes (or, with check, checks) the pages the flags select.
func makeGallery(ctx context.Context, pages []galleryPage, root, only string, slow, check bool, stdout, stderr io.Writer) error {
	out := root
	if check {
		tmp, err := os.MkdirTemp("", "temper-gallery-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		out = tmp
	}
	var made, verified []string // paths relative to the examples folder
	var slowProblems []string   // one line per slow page that fails its check
	found := false
	for _, p := range pages {
		if only != "" && p.name != only || only == "" && p.slow != slow && !check {
			continue
		}
		found = true
		if p.slow && check {
			files, err := checkSlowPage(ctx, p, root, stderr)
			if err != nil {
				slowProblems = append(slowProblems, fmt.Sprintf("%s: %v", p.name, err))
			}
			verified = append(verified, files...)
			continue
		}
		start := time.Now()
		files, err := makePage(ctx, p, root, out, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err) // run prints "temper gallery: " before it
		}
		if !check {
			fmt.Fprintf(stderr, "%s: %.1f s\n", p.name, time.Since(start).Seconds())
		}
		made = append(made, files...)
	}
	if only == "" {
		if err := os.WriteFile(filepath.Join(out, "index.md"), galleryIndex(pages), 0o644); err != nil {
			return err
		}
		made = append(made, "index.md")
	} else if !found {
		return badf("temper gallery: no page %q", only)
	}
	if !check {
		_, err := fmt.Fprintf(stdout, "the gallery: %d files in %s\n", len(made), root)
		return err
	}
	var stale []string
	for _, f := range made {
		want, err1 := os.ReadFile(filepath.Join(out, f))
		have, err2 := os.ReadFile(filepath.Join(root, f))
		if err1 != nil || err2 != nil || !bytes.Equal(want, have) {
			stale = append(stale, f)
		}
	}
	var problems []string
	if len(stale) > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d files are stale (%s): regenerate with `go run -tags purego ./cmd/temper gallery` and commit them",
			len(stale), len(made), strings.Join(stale, ", ")))
	}
	if problems = append(problems, slowProblems...); len(problems) > 0 {
		return errors.New(strings.Join(problems, "\ntemper gallery: "))
	}
	msg := fmt.Sprintf("the gallery is current: %d files made again", len(made))
	if len(verified) > 0 {
		msg += fmt.Sprintf("; the slow pages' %d files are there, their figures valid, their inputs unchanged and their reduced checks' figures the same", len(verified))
	}
	_, err := fmt.Fprintln(stdout, msg)
	return err
}

// galleryRuns are a page's runs once made, for its results.
type galleryRuns struct {
	root, dir string // the examples folder, and the page's folder in it
	byLabel   map[string]*galleryRunOut
	labels    []string // the runs' labels, in the page's order
	seconds   float64  // the runs' total wall time
	// headlines are the figures the results recorded for a slow page's
	// reduced check, in the order recorded.
	headlines []headline
	// facts are figures the results recorded for a fast page's answer
	// (gallery_cases.go), by name.
	facts map[string]any
}

// galleryRunOut is one run's output folders, one per seed.
type galleryRunOut struct {
	run     galleryRun
	dirs    []string
	seconds float64
	stderr  string // the runs' warnings
}

// get is the run of that label.
func (g *galleryRuns) get(label string) (*galleryRunOut, error) {
	r, ok := g.byLabel[label]
	if !ok {
		return nil, fmt.Errorf("the page has no run %q", label)
	}
	return r, nil
}

// diagnostics decodes the diagnostics.json of the run's i-th seed into v.
func (r *galleryRunOut) diagnostics(i int, v any) error {
	return jsonFile(filepath.Join(r.dirs[i], runfiles.DiagnosticsFile), v)
}

// draws reads the draws of the run's i-th seed.
func (r *galleryRunOut) draws(i int) (*draws.Table, error) { return readDraws([]string{r.dirs[i]}) }

// makeRuns runs each of a page's runs (each seed) into a scratch folder.
// The caller removes the folders.
func makeRuns(ctx context.Context, p galleryPage, root string) (*galleryRuns, error) {
	dir := filepath.Join(root, p.pageDir())
	g := &galleryRuns{root: root, dir: dir, byLabel: map[string]*galleryRunOut{}}
	for _, r := range p.pageRuns() {
		if _, dup := g.byLabel[r.label]; dup {
			return g, fmt.Errorf("two runs labelled %q", r.label)
		}
		o := &galleryRunOut{run: r}
		g.byLabel[r.label] = o
		g.labels = append(g.labels, r.label)
		seeds := r.seeds
		if len(seeds) == 0 {
			seeds = []int{0}
		}
		start := time.Now()
		for _, s := range seeds {
			d, err := os.MkdirTemp("", "temper-gallery-run-")
			if err != nil {
				return g, err
			}
			o.dirs = append(o.dirs, d)
			var so, se strings.Builder
			if r.program != nil {
				args := append(slices.Clone(r.args), "--out", d)
				if s != 0 {
					args = append(args, "--seed", strconv.Itoa(s))
				}
				if err := r.program.main(ctx, args, &so, &se); err != nil {
					return g, fmt.Errorf("%s: %v", r.program.command(p, nil), err)
				}
				o.stderr += se.String()
				continue
			}
			args := []string{"run", filepath.Join(dir, r.modelFile()), "--out", d, "--quiet"}
			for _, a := range r.args {
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			if r.bench {
				args = append(append([]string{"bench"}, r.args...), "--json", "--out", d)
			}
			if s != 0 {
				args = append(args, "--seed", strconv.Itoa(s))
			}
			if code := run(ctx, args, &so, &se); code != 0 && code != exitWarnings {
				return g, fmt.Errorf("temper %s exited %d: %s", strings.Join(args[:2], " "), code, se.String())
			}
			if r.bench {
				if err := os.WriteFile(filepath.Join(d, "bench.json"), []byte(so.String()), 0o644); err != nil {
					return g, err
				}
			}
			o.stderr += se.String()
		}
		o.seconds = time.Since(start).Seconds()
		g.seconds += o.seconds
	}
	return g, nil
}

// makePage runs a page's examples, draws its figures into
// out/DIR/figures and writes its Markdown; it returns the files, relative
// to out.
func makePage(ctx context.Context, p galleryPage, root, out string, stderr io.Writer) ([]string, error) {
	dir := filepath.Join(root, p.pageDir())
	var hash string
	if p.slow { // before the runs: a page whose inputs cannot be read is not run
		var err error
		if hash, err = pageInputsHash(p, root); err != nil {
			return nil, err
		}
	}
	runs, err := makeRuns(ctx, p, root)
	defer removeRuns(runs)
	if err != nil {
		return nil, err
	}
	figures := filepath.Join(out, p.pageDir(), "figures")
	if err := os.MkdirAll(figures, 0o755); err != nil {
		return nil, err
	}
	files := []string{p.pageFile()}
	commands := runCommands(p)
	for _, f := range p.figures {
		r, err := runs.get(f.run)
		if err != nil {
			return nil, fmt.Errorf("figure %s: %v", f.file, err)
		}
		sub := strings.NewReplacer("{model}", filepath.Join(dir, r.run.modelFile()), "{dir}", dir, "{root}", root)
		shownSub := strings.NewReplacer("{model}", filepath.Join("examples", p.pageDir(), r.run.modelFile()), "{dir}", filepath.Join("examples", p.pageDir()), "{root}", "examples")
		from := r.run.shownOut(p)
		if len(r.run.seeds) > 0 {
			from = filepath.Join(from, strconv.Itoa(r.run.seeds[0]))
		}
		args := []string{"plot", r.dirs[0]}
		shown := []string{"temper", "plot", from}
		for _, a := range f.args {
			args, shown = append(args, sub.Replace(a)), append(shown, shownSub.Replace(a))
		}
		args = append(args, "--out", filepath.Join(figures, f.file))
		var so, se strings.Builder
		if code := run(ctx, args, &so, &se); code != 0 {
			return nil, fmt.Errorf("temper plot %s exited %d: %s", f.file, code, se.String())
		}
		commands = append(commands, strings.Join(shown, " ")+" --out "+f.file)
		files = append(files, filepath.Join(p.pageDir(), "figures", f.file))
	}
	var body string
	if p.results != nil {
		if body, err = p.results(runs); err != nil {
			return nil, fmt.Errorf("its results: %v", err)
		}
	} else {
		t, err := runs.byLabel[p.pageRuns()[0].label].draws(0)
		if err != nil {
			return nil, err
		}
		var stats []summary.Stats
		for _, c := range t.Params() {
			stats = append(stats, summary.Summarize(c, t.ByChain(c)))
		}
		body = summaryMarkdown(stats, 10)
	}
	var models []pageModel
	for _, r := range p.pageRuns() {
		path := filepath.Join(dir, r.modelFile())
		if slices.ContainsFunc(models, func(m pageModel) bool { return m.path == path }) {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		models = append(models, pageModel{path, filepath.ToSlash(filepath.Join("examples", p.pageDir(), r.modelFile())), string(src)})
	}
	_, noReadme := os.Stat(filepath.Join(dir, "README.md"))
	var page []byte
	if p.slow {
		took := fmt.Sprintf("The runs took %s on %s.", duration(runs.seconds), machine())
		page = galleryPageText(p, models, noReadme == nil, commands, body, took)
	} else {
		first, err := loadCaseRun(runs, p, p.pageRuns()[0].label)
		if err != nil {
			return nil, err
		}
		checks, err := caseChecks(runs, p)
		if err != nil {
			return nil, fmt.Errorf("its checks: %v", err)
		}
		answer, err := caseAnswer(runs, p, first)
		if err != nil {
			return nil, err
		}
		page = casePageText(p, models, noReadme == nil, commands, checks, body, answer)
	}
	if p.slow {
		start := time.Now()
		figures, err := reducedFigures(ctx, p, root)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "%s: reduced check %.1f s\n", p.name, time.Since(start).Seconds())
		page = append(page, reducedComment(figures)...)
		page = append(page, fmt.Sprintf("<!-- %s %s -->\n", slowHashMark, hash)...)
	}
	return files, os.WriteFile(filepath.Join(out, p.pageFile()), page, 0o644)
}

// pageModel is a model file a page shows.
type pageModel struct{ path, shown, src string }

// runCommands are the commands that make a page's runs, as a reader types
// them from the repository's root.
func runCommands(p galleryPage) []string {
	var commands []string
	for _, r := range p.pageRuns() {
		out := r.shownOut(p)
		if r.program != nil {
			commands = append(commands, r.program.command(p, append(slices.Clone(r.args), "--out", out)))
			continue
		}
		if r.bench {
			commands = append(commands, fmt.Sprintf("temper bench %s --json --out %s > %s.json", strings.Join(r.args, " "), out, out))
			continue
		}
		model := filepath.Join("examples", p.pageDir(), r.modelFile())
		cmd := []string{"temper", "run", model}
		for _, a := range r.args {
			cmd = append(cmd, strings.ReplaceAll(a, "{dir}", filepath.Join("examples", p.pageDir())))
		}
		switch {
		case len(r.seeds) > 0:
			seeds := make([]string, len(r.seeds))
			for i, s := range r.seeds {
				seeds[i] = strconv.Itoa(s)
			}
			commands = append(commands, fmt.Sprintf("for s in %s; do %s --seed $s --out %s/$s --quiet; done", strings.Join(seeds, " "), strings.Join(cmd, " "), out))
			continue
		case out != defaultOut(model):
			cmd = append(cmd, "--out", out)
		}
		commands = append(commands, strings.Join(cmd, " "))
	}
	return commands
}

// command is the program run with args as a reader types it from the
// repository's root.
func (g *galleryProgram) command(p galleryPage, args []string) string {
	pkg := "./" + filepath.ToSlash(filepath.Join("examples", p.pageDir(), g.path))
	return strings.Join(append([]string{"go", "run", pkg}, args...), " ")
}

// galleryPageText is a page's Markdown: the model's own comment as prose,
// the model, the commands, the results (the posterior, or the tables of a
// comparison) and the figures.
func galleryPageText(p galleryPage, models []pageModel, hasReadme bool, commands []string, results, took string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.title)
	if p.slow {
		writeByline(&b, fmt.Sprintf("%s. A slow page: made by `temper gallery --only %s` and checked by CI on its runs made smaller ([how](../index.md))", capitalise(p.shows), p.name), hasReadme)
	} else {
		writeByline(&b, fmt.Sprintf("%s. Made by `temper gallery` ([how](../index.md))", capitalise(p.shows)), hasReadme)
	}
	body := writeModelProse(&b, p, models)
	if len(models) == 1 {
		fmt.Fprintf(&b, "## The model\n\n```stan\n%s\n```\n\n", body)
	} else {
		b.WriteString("## The models\n\n")
		for i, m := range models {
			src := m.src
			if i == 0 {
				src = body
			}
			fmt.Fprintf(&b, "`%s`:\n\n```stan\n%s\n```\n\n", m.shown, strings.TrimSpace(src))
		}
	}
	fmt.Fprintf(&b, "## Run it\n\n```sh\n%s\n```\n\n", strings.Join(commands, "\n"))
	if p.results != nil {
		b.WriteString("## Results\n\n_Computed from the runs' folders by `temper gallery` (cmd/temper/gallery_results.go)._\n\n" + strings.TrimSpace(results) + "\n\n")
		if size := strings.TrimSpace(p.size); p.slow || size != "" {
			if p.slow {
				size = strings.TrimSpace(size + "\n\n" + took)
			}
			b.WriteString("## Size\n\n" + size + "\n\n")
		}
	} else {
		b.WriteString("## The posterior (seed 1, the infer block's settings)\n\n" + results)
		b.WriteString("\n")
	}
	b.WriteString("## Figures\n\n")
	for _, f := range p.figures {
		caption := f.caption
		if len(p.pageRuns()) > 1 && p.slow {
			caption = fmt.Sprintf("**%s.** %s", cmpOr(f.run, p.pageRuns()[0].label), caption)
		}
		fmt.Fprintf(&b, "![%s](figures/%s)\n\n%s\n\n", strings.TrimSuffix(f.file, ".svg"), f.file, caption)
	}
	return []byte(b.String())
}

// casePageText is a fast page's Markdown, a case study: the question;
// the model, its own comment as prose; the commands; the checks (the
// runs' diagnostics, the results or the posterior, the figures); and the
// answer, its numbers from the runs.
func casePageText(p galleryPage, models []pageModel, hasReadme bool, commands []string, checks, results, answer string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.title)
	writeByline(&b, fmt.Sprintf("%s. A case study made by `temper gallery`, every number on it from the runs ([how](../index.md))", capitalise(p.shows)), hasReadme)
	fmt.Fprintf(&b, "## Question\n\n%s\n\n", strings.TrimSpace(caseStudies[p.name].question))
	b.WriteString("## Model\n\n")
	body := writeModelProse(&b, p, models)
	for i, m := range models {
		src := strings.TrimSpace(m.src)
		if i == 0 {
			src = body
		}
		if len(models) > 1 {
			fmt.Fprintf(&b, "`%s`:\n\n", m.shown)
		}
		fmt.Fprintf(&b, "```stan\n%s\n```\n\n", src)
	}
	fmt.Fprintf(&b, "## Run\n\n```sh\n%s\n```\n\n", strings.Join(commands, "\n"))
	b.WriteString("## Checks\n\n" + strings.TrimSpace(checks) + "\n\n")
	if p.results != nil {
		b.WriteString("### Results\n\n_Computed from the runs' folders by `temper gallery` (cmd/temper/gallery_results.go)._\n\n" + strings.TrimSpace(results) + "\n\n")
	} else {
		settings := "the infer block's settings"
		if len(p.pageRuns()[0].args) > 0 {
			settings = "the command above"
		}
		b.WriteString("### The posterior (seed 1, " + settings + ")\n\n" + strings.TrimSpace(results) + "\n\n")
	}
	b.WriteString("### Figures\n\n")
	for _, f := range p.figures {
		fmt.Fprintf(&b, "![%s](figures/%s)\n\n%s\n\n", strings.TrimSuffix(f.file, ".svg"), f.file, f.caption)
	}
	fmt.Fprintf(&b, "## Answer\n\n%s\n", answer)
	return []byte(b.String())
}

// writeByline writes a page's italic line under its title: what it
// shows and how it is made, and a link to the example's README if it has
// one.
func writeByline(b *strings.Builder, line string, hasReadme bool) {
	b.WriteString("_" + line)
	if hasReadme {
		b.WriteString("; the example's own page is [README.md](README.md)")
	}
	b.WriteString("._\n\n")
}

// writeModelProse writes the first model's own comment and the page's
// about as prose, and returns that model's source without its comment.
func writeModelProse(b *strings.Builder, p galleryPage, models []pageModel) string {
	prose, body := headerComment(models[0].src)
	if prose != "" {
		b.WriteString(prose + "\n\n")
	}
	if p.about != "" {
		b.WriteString(strings.TrimSpace(p.about) + "\n\n")
	}
	return body
}

// headerComment splits a model's source into the comment it opens with
// (lines of //, or one /* */ block), as prose, and the rest.
func headerComment(src string) (prose, body string) {
	if rest, ok := strings.CutPrefix(src, "/*"); ok {
		if comment, after, ok := strings.Cut(rest, "*/"); ok {
			lines := strings.Split(comment, "\n")
			for i := range lines {
				lines[i] = strings.TrimSpace(lines[i])
			}
			return strings.TrimSpace(strings.Join(lines, "\n")), strings.TrimSpace(after)
		}
	}
	var text, code []string
	inHeader := true
	for _, line := range strings.Split(src, "\n") {
		if inHeader && strings.HasPrefix(line, "//") {
			text = append(text, strings.TrimPrefix(strings.TrimPrefix(line, "//"), " "))
			continue
		}
		inHeader = false
		code = append(code, line)
	}
	return strings.TrimSpace(strings.Join(text, "\n")), strings.TrimSpace(strings.Join(code, "\n"))
}

// slowHashMark starts the comment at the end of a slow page that records
// the hash of its inputs.
const slowHashMark = "temper gallery inputs sha256"

// pageInputsHash is the hash of what a page's results depend on besides
// temper's code: the page's definition (its runs and their flags, its
// figures, its prose), and the bytes of every model, data file and other
// file of the repository that its runs and figures read. --check compares
// it with the hash a slow page recorded when it was made.
func pageInputsHash(p galleryPage, root string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "page %q %q %q %q %q %t\nabout %q\nsize %q\n", p.name, p.title, p.shows, p.pageDir(), p.pageFile(), p.slow, p.about, p.size)
	dir := filepath.Join(root, p.pageDir())
	var inputs []string
	if p.reduced != nil {
		fmt.Fprintf(h, "reduced seeds %d\n", p.reduced.seeds)
	}
	for _, r := range p.pageRuns() {
		fmt.Fprintf(h, "run %q %q %q %v %t\n", r.label, r.modelFile(), r.args, r.seeds, r.bench)
		if args := p.reducedArgs(r); len(args) > 0 {
			fmt.Fprintf(h, "reduced %q\n", args)
		}
		model := filepath.Join(dir, r.modelFile())
		inputs = append(inputs, model)
		if r.program != nil {
			fmt.Fprintf(h, "program %q\n", r.program.path)
			for _, src := range r.program.sources {
				inputs = append(inputs, filepath.Join(dir, src))
			}
		}
		if !r.bench && r.program == nil {
			data, err := runDataFiles(model, r.args)
			if err != nil {
				return "", fmt.Errorf("run %q: %v", r.label, err)
			}
			inputs = append(inputs, data...)
		}
		for _, a := range r.args {
			if inRepo(root, a) {
				inputs = append(inputs, a)
			}
		}
	}
	for _, f := range p.figures {
		fmt.Fprintf(h, "figure %q %q %q %q\n", f.file, f.caption, f.run, f.args)
		for _, a := range f.args {
			if a = strings.ReplaceAll(a, "{dir}", dir); inRepo(root, a) {
				inputs = append(inputs, a)
			}
		}
	}
	for _, in := range inputs {
		if err := hashFiles(h, root, in); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// inRepo reports whether path names a file or folder of the repository
// (the examples folder's parent). A path outside it, such as the full
// MNIST kept beside the checkout, is an input by its name alone (in the
// run's flags): its bytes are not the repository's, and CI has none.
func inRepo(root, path string) bool {
	rel, err := filepath.Rel(filepath.Dir(filepath.Clean(root)), path)
	if err != nil || rel == ".." || strings.HasPrefix(filepath.ToSlash(rel), "../") {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

// runDataFiles are the data files a temper run of the model with these
// flags reads: its infer block's, or those of --data, and its starting
// points' file (init), if any.
func runDataFiles(model string, args []string) ([]string, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := defineRunFlags(fs, nil)
	if _, err := flags.parse(fs, "run", args); err != nil {
		return nil, err
	}
	_, _, cfg, err := readRunConfig("run", model, defaultConfig(), flags, nil)
	if cfg.opts.InitFile != "" {
		return append(cfg.data, cfg.opts.InitFile), err
	}
	return cfg.data, err
}

// hashFiles adds the file at path, or each file under the folder at path,
// to h: its path relative to the examples folder's parent (with / on every
// system) and its bytes. A path outside the repository (a model of
// another checkout) is named only.
func hashFiles(h io.Writer, root, path string) error {
	repo := filepath.Dir(filepath.Clean(root))
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(repo, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); strings.HasPrefix(rel, "../") {
			_, err := fmt.Fprintf(h, "outside %s\n", rel)
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(raw)
		_, err = fmt.Fprintf(h, "file %s %x\n", rel, sum)
		return err
	})
}

// checkSlowPage checks a slow page without making its runs in full: its
// Markdown is there, every figure it links and every figure it makes is
// there and is a well-formed SVG image, the hash of its inputs that it
// recorded is the hash of the inputs now, and its reduced check's figures
// are those it recorded (checkReduced). It returns the files it checked,
// relative to root.
func checkSlowPage(ctx context.Context, p galleryPage, root string, stderr io.Writer) ([]string, error) {
	remake := fmt.Sprintf("remake it with `go run ./cmd/temper gallery --only %s` (minutes) and commit it", p.name)
	raw, err := os.ReadFile(filepath.Join(root, p.pageFile()))
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, remake)
	}
	files := []string{p.pageFile()}
	links := map[string]bool{}
	for _, m := range regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)\)|<img[^>]*\ssrc="([^"]+)"`).FindAllSubmatch(raw, -1) {
		links[string(m[1])+string(m[2])] = true
	}
	for _, f := range p.figures {
		links["figures/"+f.file] = true
	}
	for _, link := range slices.Sorted(maps.Keys(links)) {
		path := filepath.Join(root, p.pageDir(), filepath.FromSlash(link))
		if err := checkImage(path); err != nil {
			return nil, fmt.Errorf("%s: %v: %s", p.pageFile(), err, remake)
		}
		files = append(files, filepath.Join(p.pageDir(), filepath.FromSlash(link)))
	}
	m := regexp.MustCompile(`<!-- ` + slowHashMark + ` ([0-9a-f]{64})`).FindSubmatch(raw)
	if m == nil {
		return nil, fmt.Errorf("%s records no hash of its inputs: %s", p.pageFile(), remake)
	}
	want, err := pageInputsHash(p, root)
	if err != nil {
		return nil, err
	}
	if string(m[1]) != want {
		return nil, fmt.Errorf("%s was made from other inputs (its models, data, runs' flags, figures or prose have changed since): %s", p.pageFile(), remake)
	}
	if err := checkReduced(ctx, p, root, raw, remake, stderr); err != nil {
		return nil, err
	}
	return files, nil
}

// checkImage checks that the file at path is there and, if it is an SVG
// image, that it parses as XML whose root element is svg.
func checkImage(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(path, ".svg") {
		return nil
	}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s is not a well-formed SVG file: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("%s is not an SVG image (its root element is %q)", path, root)
	}
	return nil
}

// duration is a time in seconds as people say it: 45 s, 2 min 5 s.
func duration(s float64) string {
	n := int(math.Round(s))
	if n < 60 {
		return fmt.Sprintf("%d s", n)
	}
	return fmt.Sprintf("%d min %d s", n/60, n%60)
}

// machine names the processor the slow pages' runs took their time on,
// and how busy it was.
func machine() string {
	name := runtime.GOARCH
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`(?m)^model name\s*:\s*(.+)$`).FindSubmatch(raw); m != nil {
			name = strings.TrimSpace(string(m[1]))
		}
	}
	name = fmt.Sprintf("%d × %s", runtime.NumCPU(), name)
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil { // a shared machine's timings are slower
		if f := strings.Fields(string(raw)); len(f) > 0 {
			name += ", load average " + f[0] + " when the page was made"
		}
	}
	return name
}

// summaryMarkdown is a posterior summary as a Markdown table: every row
// when there are at most rows + 2 (a fold that hides two rows hides
// nothing worth it), else the first rows and then, folded in an HTML
// details element, the whole table.
func summaryMarkdown(stats []summary.Stats, rows int) string {
	table := func(stats []summary.Stats) string {
		var b strings.Builder
		b.WriteString("| parameter | mean | sd | 5% | 50% | 95% | bulk ESS | tail ESS | R-hat |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range stats {
			fmt.Fprintf(&b, "| %s |", s.Name)
			for _, v := range []float64{s.Mean, s.SD, s.Q5, s.Q50, s.Q95} {
				fmt.Fprintf(&b, " %s |", strconv.FormatFloat(v, 'g', 4, 64))
			}
			for _, v := range []string{strconv.FormatFloat(s.ESSBulk, 'f', 0, 64), strconv.FormatFloat(s.ESSTail, 'f', 0, 64), strconv.FormatFloat(s.Rhat, 'f', 3, 64)} {
				if v == "NaN" { // a constant, or a 0/1 indicator that never changes in a chain
					v = "–"
				}
				fmt.Fprintf(&b, " %s |", v)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	if len(stats) <= rows+2 {
		return table(stats)
	}
	return fmt.Sprintf("%s\n<details><summary>all %d rows</summary>\n\n%s\n</details>\n", table(stats[:rows]), len(stats), table(stats))
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// galleryIndex is examples/index.md: a thumbnail 280 px wide and a line
// per page, the fast pages first, then the slow ones. The thumbnail floats
// left of its line, not in a table's cell: a table as wide as the page
// shrinks an image in a cell to its share (about 100 px on GitHub).
func galleryIndex(pages []galleryPage) []byte {
	var b strings.Builder
	b.WriteString("# The temper gallery\n\n")
	b.WriteString("Each page runs an example of this folder, with its infer block and the default seed or several runs side by side, and shows the model, the commands, the posterior or the runs' comparison, and the figures `temper plot` draws of them. The pages of this first list are case studies: the question, the model, the run, its checks and the answer, every number on them the runs'. `temper gallery` makes them (`go run -tags purego ./cmd/temper gallery`, the portable kernels, so that every machine makes the same bytes); CI runs `temper gallery --check` and fails when a page is stale; `temper gallery --html DIR` writes the pages as a static site to read offline.\n\n")
	row := func(p galleryPage) {
		link := filepath.ToSlash(p.pageFile())
		fmt.Fprintf(&b, "<a href=\"%s\"><img src=\"%s/figures/%s\" width=\"280\" align=\"left\" alt=\"%s\"></a>\n**[%s](%s)**: %s.\n<br clear=\"left\">\n\n",
			link, p.pageDir(), p.figures[0].file, p.title, p.title, link, p.shows)
	}
	for _, p := range pages {
		if !p.slow {
			row(p)
		}
	}
	if !slices.ContainsFunc(pages, func(p galleryPage) bool { return p.slow }) {
		return []byte(strings.TrimRight(b.String(), "\n") + "\n")
	}
	b.WriteString("## The papers' experiments\n\n")
	b.WriteString("These pages compare samplers as the seed papers do, beside the papers' tables and figures. Their runs take minutes, more than CI should spend, so they are made by hand, `go run ./cmd/temper gallery --slow` (all of them) or `--only NAME` (one), and checked in; `temper gallery --check` checks each without making its runs in full: the page and every figure it links are there, the figures are well-formed SVG, the hash of its inputs (its models, data, runs' flags, figures and prose), recorded at its end, is still theirs, and its reduced check passes: the page's runs made again smaller (fewer iterations and seeds: seconds) on the portable kernels, whose headline figures, computed by the page's own results code, must be those the page recorded when it was made, within tolerances far below their Monte Carlo error (cmd/temper/gallery_reduced.go). A run is deterministic for its seed and code, so a change to temper that moves a page's figures fails the check until the page is made again.\n\n")
	for _, p := range pages {
		if p.slow {
			row(p)
		}
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

// jsonFile decodes the JSON file at path into v.
func jsonFile(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
