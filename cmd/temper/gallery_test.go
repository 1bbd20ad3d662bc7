package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/template"

	"github.com/temper-ppl/temper/infer/summary"
)

// TestGalleryCheck makes one page into a copy of its example and checks
// it: current at once, stale after a change, with the file named. (CI
// runs the check on the checked-in pages with the portable kernels.)
func TestGalleryCheck(t *testing.T) {
	root := t.TempDir()
	dst := copyExample(t, root, "eight-schools", "model.ppl", "schools.json")
	gallery := func(args ...string) (int, string) {
		var stdout, stderr strings.Builder
		code := run(context.Background(), append([]string{"gallery", "--root", root, "--only", "eight-schools"}, args...), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	if code, out := gallery(); code != 0 {
		t.Fatalf("temper gallery: exit %d: %s", code, out)
	}
	page, err := os.ReadFile(filepath.Join(dst, "gallery.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A case study: its sections in order, every row of the posterior (the
	// 34 columns past the tenth folded), the answer's numbers filled in.
	at := 0
	for _, want := range []string{"## Question", "## Model", "```stan", "## Run", "## Checks", "| `nuts`", "### The posterior", "<details><summary>all 34 rows</summary>", "| exceeds.8 |", "</details>", "![pair](figures/pair.svg)", "![ppc](figures/ppc.svg)", "## Answer", "mu, the mean effect, is "} {
		i := strings.Index(string(page[at:]), want)
		if i < 0 {
			t.Fatalf("the page lacks %q after byte %d:\n%s", want, at, page)
		}
		at += i
	}
	if strings.Contains(string(page), "{{") || strings.Contains(string(page), "more)") {
		t.Errorf("the page has a template left or rows hidden:\n%s", page)
	}
	if code, out := gallery("--check"); code != 0 || !strings.Contains(out, "the gallery is current: 5 files") {
		t.Fatalf("temper gallery --check of a fresh page: exit %d: %s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dst, "gallery.md"), append(page, "edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := gallery("--check"); code == 0 || !strings.Contains(out, "1 of 5 files are stale (eight-schools/gallery.md)") {
		t.Errorf("temper gallery --check of an edited page: exit %d: %s", code, out)
	}
}

// TestGallerySlowPage makes a slow page of two runs into a copy of an
// example and checks it as CI does, without running it in full: current
// at once; then failing, with the reason, when a figure is not SVG, when a
// linked figure is missing, and when a model changed since the page was
// made (TestGalleryReducedCheck has the code's changes).
func TestGallerySlowPage(t *testing.T) {
	root := filepath.Join(t.TempDir(), "examples")
	dst := copyExample(t, root, "eight-schools", "model.ppl", "schools.json")
	page := schoolsPage()
	page.results = schoolsResults(0)
	pages := []galleryPage{page}
	gallery := func(check bool) (error, string) {
		var stdout, stderr strings.Builder
		err := makeGallery(context.Background(), pages, root, "", !check, check, &stdout, &stderr)
		return err, stdout.String()
	}
	if err, out := gallery(false); err != nil {
		t.Fatalf("temper gallery --slow: %v %s", err, out)
	}
	md, err := os.ReadFile(filepath.Join(dst, "seeds.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| first | 200 |", "**second.** tau.", "--out out/eight-schools-second", "## Size", "<!-- " + slowHashMark} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
	index, err := os.ReadFile(filepath.Join(root, "index.md"))
	if err != nil || !strings.Contains(string(index), "[Two seeds](eight-schools/seeds.md)") {
		t.Errorf("the index does not link the slow page: %v\n%s", err, index)
	}
	// Its thumbnail 280 px wide, floated beside its line rather than in a
	// table's cell, where it would shrink to the cell's share.
	if want := `<img src="eight-schools/figures/seeds-trace.svg" width="280" align="left"`; !strings.Contains(string(index), want) || strings.Contains(string(index), "|---|") {
		t.Errorf("the index's thumbnail is not %s outside a table:\n%s", want, index)
	}
	if err, out := gallery(true); err != nil || !strings.Contains(out, "the slow pages' 3 files are there") || !strings.Contains(string(md), "<!-- "+reducedMark) {
		t.Fatalf("temper gallery --check of a fresh slow page: %v %s", err, out)
	}
	breaks := []struct {
		name, want string
		change     func(path string) error
		path       string
	}{
		{"not SVG", "is not a well-formed SVG file", func(p string) error { return os.WriteFile(p, []byte("<svg><g></svg>"), 0o644) }, "figures/seeds-trace.svg"},
		{"missing", "seeds-rank.svg: no such file", os.Remove, "figures/seeds-rank.svg"},
		{"model edited", "was made from other inputs", func(p string) error {
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, append(raw, "\n// edited\n"...), 0o644)
		}, "model.ppl"},
	}
	for _, b := range breaks {
		path := filepath.Join(dst, b.path)
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.change(path); err != nil {
			t.Fatal(err)
		}
		if err, _ := gallery(true); err == nil || !strings.Contains(err.Error(), b.want) || !strings.Contains(err.Error(), "--only schools-seeds") {
			t.Errorf("%s: temper gallery --check says %v, want %q and how to remake the page", b.name, err, b.want)
		}
		if err := os.WriteFile(path, saved, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err, _ := gallery(true); err != nil {
		t.Errorf("temper gallery --check after the files are restored: %v", err)
	}
}

// schoolsPage is a slow page of two short runs of the eight schools, whose
// reduced check makes them shorter still.
func schoolsPage() galleryPage {
	short := []string{"--iters", "200", "--chains", "2"}
	return galleryPage{name: "schools-seeds", dir: "eight-schools", file: "seeds.md", title: "Two seeds", shows: "a test", slow: true,
		runs:    []galleryRun{{label: "first", args: short}, {label: "second", args: append(short, "--seed", "2")}},
		reduced: &reducedRuns{args: sameArgs("--iters", "50")},
		figures: []galleryFigure{
			{file: "seeds-trace.svg", caption: "mu.", run: "first", args: []string{"--kind", "trace", "--params", "mu"}},
			{file: "seeds-rank.svg", caption: "tau.", run: "second", args: []string{"--kind", "rank", "--params", "tau"}},
		}}
}

// schoolsResults is the schools page's table, the draws per chain, and
// its headline figure for the reduced check, the first run's mean of mu,
// which it moves by shift: a results function whose code changed.
func schoolsResults(shift float64) func(*galleryRuns) (string, error) {
	return func(g *galleryRuns) (string, error) {
		mu, err := runMean(g, "first", "mu")
		if err != nil {
			return "", err
		}
		g.headline("first: mean of mu", mu+shift, tolShare)
		a, err := g.first("first")
		if err != nil {
			return "", err
		}
		b, err := g.first("second")
		return mdTable([]string{"run", "draws per chain"}, [][]string{{"first", strconv.Itoa(a.diag.DrawsPerChain)}, {"second", strconv.Itoa(b.diag.DrawsPerChain)}}), err
	}
}

// runMean is the mean of a column over the chains of a run's first seed.
func runMean(g *galleryRuns, label, col string) (float64, error) {
	r, err := g.first(label)
	if err != nil {
		return 0, err
	}
	xs, err := pooled(r.draws, col)
	return mean(xs), err
}

// TestGalleryReducedCheck makes the schools page, then checks it after
// changes of the code that the hash of its inputs cannot see: its results
// function moving the figure by less than its tolerance passes; by more,
// or a run going through other code (a program run whose main changed,
// here: another seed), fails, naming the page, the figure, the recorded
// and new values and the command that remakes the page.
func TestGalleryReducedCheck(t *testing.T) {
	root := filepath.Join(t.TempDir(), "examples")
	copyExample(t, root, "eight-schools", "model.ppl", "schools.json")
	seed := "1"
	program := &galleryProgram{path: "sampler", main: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		// A sampler of the page's own: temper run with a seed of its code.
		var out string
		for i, a := range args {
			if a == "--out" {
				out = args[i+1]
			}
		}
		var se strings.Builder
		if code := run(ctx, []string{"run", filepath.Join(root, "eight-schools", "model.ppl"), "--out", out, "--quiet", "--iters", "50", "--chains", "2", "--seed", seed}, stdout, &se); code != 0 {
			return fmt.Errorf("exit %d: %s", code, se.String())
		}
		return nil
	}}
	page := schoolsPage()
	page.runs = append(page.runs, galleryRun{label: "program", program: program})
	results := func(shift float64) func(*galleryRuns) (string, error) {
		return func(g *galleryRuns) (string, error) {
			tau, err := runMean(g, "program", "tau")
			if err != nil {
				return "", err
			}
			g.headline("program: mean of tau", tau, tolShare)
			return schoolsResults(shift)(g)
		}
	}
	check := func(p galleryPage) error {
		var stdout, stderr strings.Builder
		return makeGallery(context.Background(), []galleryPage{p}, root, "", false, true, &stdout, &stderr)
	}
	page.results = results(0)
	var stdout, stderr strings.Builder
	if err := makeGallery(context.Background(), []galleryPage{page}, root, "", true, false, &stdout, &stderr); err != nil {
		t.Fatalf("temper gallery --slow: %v %s", err, stderr.String())
	}
	if err := check(page); err != nil {
		t.Fatalf("temper gallery --check of a fresh page: %v", err)
	}
	page.results = results(tolShare.abs / 2)
	if err := check(page); err != nil {
		t.Errorf("a figure moved by half its tolerance: %v", err)
	}
	page.results = results(0.01)
	err := check(page)
	for _, want := range []string{"schools-seeds: eight-schools/seeds.md: its reduced check's figures moved", "first: mean of mu: recorded", ", now ", "(tolerance 0.001)", "go run ./cmd/temper gallery --only schools-seeds"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the results function changed: temper gallery --check says %v, want %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "program: mean of tau") {
		t.Errorf("a figure that did not move is named: %v", err)
	}
	page.results, seed = results(0), "2"
	if err := check(page); err == nil || !strings.Contains(err.Error(), "program: mean of tau: recorded") || strings.Contains(err.Error(), "mean of mu") {
		t.Errorf("a run's code changed: temper gallery --check says %v, want the program's figure alone", err)
	}
}

// copyExample copies files of the example folder name into root/name,
// which it returns.
func copyExample(t *testing.T, root, name string, files ...string) string {
	t.Helper()
	dst := filepath.Join(root, name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join("..", "..", "examples", name, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestInRepo: a page's input is hashed by its bytes only inside the
// repository, so that a data set kept beside the checkout (which CI does
// not have) leaves the hash the same on every machine.
func TestInRepo(t *testing.T) {
	root := filepath.Join("..", "..", "examples")
	for _, c := range []struct {
		path string
		want bool
	}{
		{filepath.Join(root, "mog5", "model.ppl"), true},
		{filepath.Join(root, "mog5", "missing.ppl"), false},
		{filepath.Join(root, "..", "..", "shared", "data", "mnist"), false},
		{filepath.Join(root, "..", ".."), false},
	} {
		if got := inRepo(root, c.path); got != c.want {
			t.Errorf("inRepo(%s, %s) = %v, want %v", root, c.path, got, c.want)
		}
	}
}

// TestGalleryCases: every fast page has a question and an answer whose
// template parses, and an answer asking for what the runs lack fails with
// the name of what is missing, so that no page prints a number it did not
// compute.
func TestGalleryCases(t *testing.T) {
	for _, p := range fastPages {
		cs, ok := caseStudies[p.name]
		if !ok || strings.TrimSpace(cs.question) == "" || strings.TrimSpace(cs.answer) == "" {
			t.Errorf("the fast page %s has no case study (question and answer)", p.name)
			continue
		}
		if _, err := template.New(p.name).Funcs(caseFuncs(nil, p, nil)).Parse(cs.answer); err != nil {
			t.Errorf("%s: its answer: %v", p.name, err)
		}
	}
	for name := range caseStudies {
		if !slices.ContainsFunc(fastPages, func(p galleryPage) bool { return p.name == name }) {
			t.Errorf("a case study for %s, which is no fast page", name)
		}
	}
	root := t.TempDir()
	copyExample(t, root, "eight-schools", "model.ppl", "schools.json")
	p := galleryPage{name: "eight-schools", runs: []galleryRun{{args: []string{"--iters", "200", "--chains", "2"}}}}
	runs, err := makeRuns(context.Background(), p, root)
	defer removeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	first, err := loadCaseRun(runs, p, "")
	if err != nil {
		t.Fatal(err)
	}
	for answer, want := range map[string]string{
		`{{.Mean "mu"}} and {{.Interval "tau"}}; {{.Prob "mu" ">" 0 | pct}} {{at (data "y") 1}}`: "",
		`{{.Mean "nu"}}`:             "has no column nu",
		`{{fact "elpd"}}`:            `recorded no "elpd"`,
		`{{.MeanRange "omega"}}`:     "has no columns omega.*",
		`{{at (data "y") 9}}`:        "at 9 of 8 values",
		`{{.Prob "mu" "=" 0 | pct}}`: `op "="`,
	} {
		caseStudies["test"] = caseStudy{answer: answer}
		p.name = "test"
		got, err := caseAnswer(runs, p, first)
		if want == "" && (err != nil || strings.Contains(got, "<no value>")) || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("answer %s: %q, %v; want an error with %q", answer, got, err, want)
		}
	}
	delete(caseStudies, "test")
}

// TestSummaryMarkdown: a short summary is a table of every row; a long
// one its first rows and, folded, all of them; nothing is left out.
func TestSummaryMarkdown(t *testing.T) {
	stats := func(n int) []summary.Stats {
		var s []summary.Stats
		for i := range n {
			s = append(s, summary.Stats{Name: fmt.Sprintf("x.%d", i+1), ESSTail: math.NaN()})
		}
		return s
	}
	short := summaryMarkdown(stats(12), 10)
	if strings.Contains(short, "<details>") || !strings.Contains(short, "| x.12 |") || !strings.Contains(short, "| – |") {
		t.Errorf("12 rows:\n%s", short)
	}
	long := summaryMarkdown(stats(13), 10)
	if strings.Count(long, "| x.10 |") != 2 || strings.Count(long, "| x.13 |") != 1 || !strings.Contains(long, "<details><summary>all 13 rows</summary>\n\n| parameter |") {
		t.Errorf("13 rows:\n%s", long)
	}
}
