package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/cpu"
)

// A slow page's reduced check. The hash at a slow page's end covers its
// inputs (models, data, flags, prose) but not temper's code, so a change
// to a sampler or the warm-up could leave its figures stale with the hash
// unchanged; a hash over the code would instead make every slow page stale
// at any change to infer/, tens of minutes of runs. So each slow page also
// has a reduced check: its runs made again smaller (fewer iterations and
// seeds: seconds), and the page's own results function (gallery_results.go)
// run on them, which records the page's headline figures as it computes
// them (galleryRuns.headline). The page records those figures when it is
// made; temper gallery --check makes the reduced runs again and fails when
// a figure has moved beyond its tolerance. A run is deterministic for a
// given seed and code, so a figure moves only where the code its runs go
// through (or the results function) changed what it computes. What the
// check cannot see: code that the smaller runs never reach (a schedule's
// late iterations, a seed or a row the reduction drops), and a change that
// moves every figure by less than its tolerance.

// reducedRuns is how a slow page's runs are made smaller for its check.
type reducedRuns struct {
	// args are the flags appended to a run's own (the later of two equal
	// flags wins); {dir} in them is the page's folder.
	args func(galleryRun) []string
	// seeds is how many of a run's seeds are kept, the first ones (0: all).
	seeds int
}

// sameArgs gives every run the same reduced flags.
func sameArgs(args ...string) func(galleryRun) []string {
	return func(galleryRun) []string { return args }
}

// reducedArgs are the flags the reduced check appends to r's.
func (p galleryPage) reducedArgs(r galleryRun) []string {
	if p.reduced == nil || p.reduced.args == nil {
		return nil
	}
	return p.reduced.args(r)
}

// reducedPage is the page with its runs made smaller, with the examples
// folder root: each run's flags with the reduced ones after them, and its
// first seeds only.
func reducedPage(p galleryPage, root string) galleryPage {
	dir := filepath.Join(root, p.pageDir())
	var runs []galleryRun
	for _, r := range p.pageRuns() {
		r.args = slices.Clone(r.args)
		for _, a := range p.reducedArgs(r) {
			r.args = append(r.args, strings.ReplaceAll(a, "{dir}", dir))
		}
		if n := p.reduced.seeds; n > 0 && len(r.seeds) > n {
			r.seeds = r.seeds[:n]
		}
		runs = append(runs, r)
	}
	p.runs = runs
	return p
}

// tolerance is how far a reduced check's figure may move from the value
// the page recorded: |new - recorded| ≤ abs + rel·|recorded|. A change of
// the code a run goes through sends its chains along other paths and moves
// a figure by about its Monte Carlo error in the reduced run, each well
// above its tolerance below. The reduced runs compute on the portable
// kernels wherever the page is made, so on amd64 the same code gives the
// same bits; the tolerances absorb only a rewrite that reorders sums
// without changing what is computed, which moves these figures by about
// 1e-12 (as the assembly kernels' sums do: the samplers on minibatches and
// the two-dimensional targets give the same figures to ten digits on
// either, since coupled chains on a log-concave posterior contract and a
// swap decided otherwise by a rounding error is rarer than once in these
// runs; NUTS, whose warm-up follows every rounding, is why the check
// keeps to the portable kernels).
type tolerance struct{ abs, rel float64 }

var (
	// tolSD is for a Δmean/sd, which the pages print to 0.001. The
	// reduced runs' Monte Carlo error of one is about 1/√ESS, 0.03 at an
	// ESS of 1,000; the stale German credit pages' worst mean moved 0.005
	// (0.045 to 0.040) between two warm-ups, 2.5 times this.
	tolSD = tolerance{abs: 0.002}
	// tolPercent is for an sd's error in percent, which the pages print
	// to 0.1: its Monte Carlo error in a reduced run is 1/√(2 ESS), about
	// 2 points; the stale pages' moved a point (5.5% to 4.5%).
	tolPercent = tolerance{abs: 0.1}
	// tolShare is for a share of the draws (a mode's weight, a total
	// variation, a swap rate) or a test accuracy, printed to 0.001 (one
	// image of a thousand): Monte Carlo errors in the reduced runs are
	// 0.005 and more.
	tolShare = tolerance{abs: 0.001}
	// tolRelative is for an ESS, a rate of round trips, a count of modes,
	// a χ² or a step size: 0.1%, where an ESS's Monte Carlo error is 10%
	// and more, and an adapted step's between seeds a few percent.
	tolRelative = tolerance{rel: 0.001}
	// tolNLL is for a test NLL per image, printed to 0.001. The reduced
	// Fashion-MNIST runs are a few iterations long, their networks still
	// near chance (an NLL near log 10 = 2.303), and the samplers' NLLs
	// differ there by 0.001 to 0.1, so a change to a sampler moves one by
	// far more than 1e-4.
	tolNLL = tolerance{abs: 1e-4}
)

// holds reports whether now is within the tolerance of recorded; a NaN
// (an R-hat of too few draws) holds only against a NaN.
func (t tolerance) holds(recorded, now float64) bool {
	if math.IsNaN(recorded) || math.IsNaN(now) {
		return math.IsNaN(recorded) && math.IsNaN(now)
	}
	return math.Abs(now-recorded) <= t.abs+t.rel*math.Abs(recorded)
}

func (t tolerance) String() string {
	if t.rel > 0 {
		return fmt.Sprintf("%g%%", 100*t.rel)
	}
	return strconv.FormatFloat(t.abs, 'g', -1, 64)
}

// headline is a figure of a page's results that its reduced check
// compares.
type headline struct {
	name  string
	value float64
	tol   tolerance
}

// headline records a figure of the page's results for its reduced check;
// the name says what it is and of which run, as the page's tables do.
func (g *galleryRuns) headline(name string, value float64, tol tolerance) {
	g.headlines = append(g.headlines, headline{name, value, tol})
}

// reducedFigures makes a slow page's reduced runs and returns the
// headline figures its results function records of them, computed on the
// portable kernels, CI's (go run -tags purego): where this process has
// the assembly ones, a page of the gallery is checked in a child process
// that has not (reducedInChild). The assembly kernels' sums differ from
// the portable ones in the last bits, and a run of NUTS, whose warm-up and
// trees branch on every acceptance, then takes other paths: its figures
// would differ between a page made with go run and CI's check. The
// samplers on minibatches and the pages' two-dimensional targets give the
// same figures to ten digits on either. A page outside the gallery (a
// test's) is checked in this process, on its kernels.
func reducedFigures(ctx context.Context, p galleryPage, root string) ([]headline, error) {
	inGallery := slices.ContainsFunc(galleryPages, func(q galleryPage) bool { return q.name == p.name })
	if !portableKernels() && inGallery {
		return reducedInChild(ctx, p.name, root)
	}
	return reducedFiguresHere(ctx, p, root)
}

// portableKernels reports whether this process computes on the portable
// kernels of autodiff/kernel: other architectures than amd64, or a CPU
// (as GODEBUG describes it) with neither AVX2 nor AVX-512, whatever the
// build's tags.
func portableKernels() bool {
	return runtime.GOARCH != "amd64" || !cpu.X86.HasAVX2 && !cpu.X86.HasAVX512F
}

// portableGODEBUG turns off the CPU features that the assembly kernels
// need (those of golang.org/x/sys/cpu, which the kernels read at start).
// The Go runtime reads them too, but its math keeps its FMA, which needs
// AVX and FMA, not AVX2.
const portableGODEBUG = "cpu.avx512f=off,cpu.avx2=off"

// reducedInChild runs the reduced check of the gallery's page name in a
// new temper process on the portable kernels: temper gallery
// --reduced-figures NAME, which prints the figures as JSON.
func reducedInChild(ctx context.Context, name, root string) ([]headline, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "gallery", "--root", root, "--reduced-figures", name)
	cmd.Env = append(os.Environ(), "GODEBUG="+strings.Trim(os.Getenv("GODEBUG")+","+portableGODEBUG, ","), galleryChild+"=1")
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("its reduced check in a child process: %v: %s", err, strings.TrimSpace(errOut.String()))
	}
	var figures []reducedFigure
	if err := json.Unmarshal(out, &figures); err != nil {
		return nil, fmt.Errorf("its reduced check in a child process said %q: %v", out, err)
	}
	hs := make([]headline, len(figures))
	for i, f := range figures {
		hs[i] = headline{f.Name, f.Value, tolerance{f.Abs, f.Rel}}
	}
	return hs, nil
}

// galleryChild is set in the environment of reducedInChild's process, for
// a test binary (whose TestMain runs the command) to know it is one.
const galleryChild = "TEMPER_GALLERY_CHILD"

// reducedFigure is a headline as the child process prints it.
type reducedFigure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Abs   float64 `json:"abs"`
	Rel   float64 `json:"rel"`
}

// printReducedFigures is temper gallery --reduced-figures NAME: the
// reduced check of the page of that name, made in this process, its
// figures printed as JSON (reducedInChild reads them).
func printReducedFigures(ctx context.Context, name, root string, stdout io.Writer) error {
	i := slices.IndexFunc(galleryPages, func(p galleryPage) bool { return p.name == name && p.slow })
	if i < 0 {
		return badf("temper gallery: no slow page %q", name)
	}
	if !portableKernels() {
		return fmt.Errorf("temper gallery --reduced-figures: this process has the assembly kernels; run it with GODEBUG=%s", portableGODEBUG)
	}
	hs, err := reducedFiguresHere(ctx, galleryPages[i], root)
	if err != nil {
		return err
	}
	figures := make([]reducedFigure, len(hs))
	for i, h := range hs {
		figures[i] = reducedFigure{h.name, h.value, h.tol.abs, h.tol.rel}
	}
	return json.NewEncoder(stdout).Encode(figures)
}

// reducedFiguresHere is reducedFigures in this process.
func reducedFiguresHere(ctx context.Context, p galleryPage, root string) ([]headline, error) {
	if p.reduced == nil || p.results == nil {
		return nil, fmt.Errorf("a slow page needs a reduced check and a results function that records its headline figures")
	}
	rp := reducedPage(p, root)
	runs, err := makeRuns(ctx, rp, root)
	defer removeRuns(runs)
	if err != nil {
		return nil, fmt.Errorf("its reduced runs: %v", err)
	}
	if _, err := rp.results(runs); err != nil {
		return nil, fmt.Errorf("its results of the reduced runs: %v", err)
	}
	if len(runs.headlines) == 0 {
		return nil, fmt.Errorf("its results function records no headline figure (galleryRuns.headline) for the reduced check")
	}
	seen := map[string]bool{}
	for _, h := range runs.headlines {
		if seen[h.name] || strings.Contains(h.name, "\n") || strings.Contains(h.name, "--") {
			return nil, fmt.Errorf("headline figure %q: names must be unique, on one line, without --", h.name)
		}
		seen[h.name] = true
	}
	return runs.headlines, nil
}

// removeRuns removes the runs' scratch folders.
func removeRuns(g *galleryRuns) {
	if g == nil {
		return
	}
	for _, r := range g.byLabel {
		for _, d := range r.dirs {
			os.RemoveAll(d)
		}
	}
}

// reducedMark starts the comment in which a slow page records its reduced
// check's figures, one "name = value" a line (the last " = " splits it).
const reducedMark = "temper gallery reduced check"

// reducedComment is the comment that records the figures in a page.
func reducedComment(figures []headline) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- %s: the headline figures of this page's runs made smaller (cmd/temper/gallery_reduced.go), which temper gallery --check makes again\n", reducedMark)
	for _, f := range figures {
		fmt.Fprintf(&b, "%s = %s\n", f.name, strconv.FormatFloat(f.value, 'g', 10, 64))
	}
	b.WriteString("-->\n")
	return b.String()
}

// recordedFigures reads the figures a page recorded, in order.
func recordedFigures(page []byte) ([]headline, error) {
	m := regexp.MustCompile(`(?s)<!-- ` + reducedMark + `[^\n]*\n(.*?)-->`).FindSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("records no figures of its reduced check")
	}
	var out []headline
	for _, line := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		i := strings.LastIndex(line, " = ")
		if i < 0 {
			return nil, fmt.Errorf("records a figure of its reduced check that does not read as name = value: %q", line)
		}
		name, value := line[:i], line[i+len(" = "):]
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("records a figure of its reduced check that does not read as name = value: %q", line)
		}
		out = append(out, headline{name: name, value: v})
	}
	return out, nil
}

// checkReduced makes a slow page's reduced runs again and compares their
// figures with those the page recorded, saying for each that moved its
// recorded and new value and its tolerance, then remake, how to make the
// page again.
func checkReduced(ctx context.Context, p galleryPage, root string, page []byte, remake string, stderr io.Writer) error {
	recorded, err := recordedFigures(page)
	if err != nil {
		return fmt.Errorf("%s %v: %s", p.pageFile(), err, remake)
	}
	start := time.Now()
	now, err := reducedFigures(ctx, p, root)
	if err != nil {
		return fmt.Errorf("%s: %v: %s", p.pageFile(), err, remake)
	}
	fmt.Fprintf(stderr, "%s: reduced check %.1f s\n", p.name, time.Since(start).Seconds())
	byName := map[string]headline{}
	for _, h := range now {
		byName[h.name] = h
	}
	var moved []string
	for _, r := range recorded {
		h, ok := byName[r.name]
		if !ok {
			moved = append(moved, fmt.Sprintf("%s: recorded %s, no longer computed", r.name, fmtFigure(r.value)))
			continue
		}
		delete(byName, r.name)
		if !h.tol.holds(r.value, h.value) {
			moved = append(moved, fmt.Sprintf("%s: recorded %s, now %s (tolerance %s)", r.name, fmtFigure(r.value), fmtFigure(h.value), h.tol))
		}
	}
	for _, h := range now {
		if _, ok := byName[h.name]; ok {
			moved = append(moved, fmt.Sprintf("%s: now %s, not recorded", h.name, fmtFigure(h.value)))
		}
	}
	if len(moved) > 0 {
		return fmt.Errorf("%s: its reduced check's figures moved since the page was made (the code its runs and results go through computes something else now):\n  %s\n  %s", p.pageFile(), strings.Join(moved, "\n  "), remake)
	}
	return nil
}

// fmtFigure is a figure with the digits that tell two apart.
func fmtFigure(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
