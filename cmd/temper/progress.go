package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/temper-ppl/temper"
)

// progress shows iterations/s and the time left on a terminal, with the
// swap rate, cycle and stopped chains beside the bar (progressLabel); when
// stderr is a file or a pipe (a Slurm or CI log) it writes a line instead
// every lineEvery (TEMPER_PROGRESS_SECONDS, default 10 s), so that a log
// shows a long run's progress and nothing of a short one.
type progress struct {
	bar   *progressbar.ProgressBar
	out   io.Writer
	label string
	fixed string // a label of its own, for counts other than iterations
	every int    // redraw every this many

	lines       io.Writer // the log's, in line mode
	lineEvery   time.Duration
	start, last time.Time
}

// defaultLineEvery is the line mode's interval.
const defaultLineEvery = 10 * time.Second

func newProgress(stderr io.Writer, quiet bool) *progress {
	switch {
	case quiet:
		return &progress{}
	case !isTerminal(stderr):
		every := defaultLineEvery
		if s, err := strconv.ParseFloat(os.Getenv("TEMPER_PROGRESS_SECONDS"), 64); err == nil && s > 0 {
			every = time.Duration(s * float64(time.Second))
		}
		now := time.Now()
		return &progress{lines: stderr, lineEvery: every, start: now, last: now}
	}
	return &progress{out: stderr, every: 64}
}

// line writes the line mode's line when its interval has passed.
func (p *progress) line(pr temper.Progress) {
	now := time.Now()
	if now.Sub(p.last) < p.lineEvery || pr.Total == 0 {
		return
	}
	p.last = now
	elapsed := now.Sub(p.start)
	rate := float64(pr.Done) / elapsed.Seconds()
	left := ""
	if rate > 0 && pr.Done < pr.Total {
		left = fmt.Sprintf(", about %s left", (time.Duration(float64(pr.Total-pr.Done) / rate * float64(time.Second))).Round(time.Second))
	}
	fmt.Fprintf(p.lines, "%s: %d of %d (%.0f%%), %.0f/s%s\n", cmp.Or(p.fixed, progressLabel(pr)), pr.Done, pr.Total, 100*float64(pr.Done)/float64(pr.Total), rate, left)
}

// newCountProgress is a bar of things other than iterations, each slow
// enough to redraw after: temper sbc's replications.
func newCountProgress(stderr io.Writer, quiet bool, label string) *progress {
	p := newProgress(stderr, quiet)
	p.fixed, p.every = label, 1
	return p
}

// count is update for a count of done of total.
func (p *progress) count(done, total int) { p.update(temper.Progress{Done: done, Total: total}) }

func (p *progress) update(pr temper.Progress) {
	if pr.Stage != "" {
		p.stage(pr.Stage)
		return
	}
	if p.lines != nil {
		p.line(pr)
		return
	}
	if p.out == nil {
		return
	}
	if p.bar == nil {
		p.label = cmp.Or(p.fixed, progressLabel(pr))
		p.bar = progressbar.NewOptions(pr.Total,
			progressbar.OptionSetWriter(p.out),
			progressbar.OptionSetDescription(p.label),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100_000_000), // redraw at most every 0.1 s
			progressbar.OptionClearOnFinish(),
		)
	}
	if pr.Done%p.every == 0 || pr.Done == pr.Total {
		if label := cmp.Or(p.fixed, progressLabel(pr)); label != p.label {
			p.label = label
			p.bar.Describe(label)
		}
		p.bar.Set(pr.Done)
	}
}

// progressLabel is the bar's description: "sampling", then what
// Progress.Describe adds.
func progressLabel(pr temper.Progress) string {
	if note := pr.Describe(); note != "" {
		return "sampling (" + note + ")"
	}
	return "sampling"
}

// stage ends the bar and writes a line for a long step after sampling, on
// a terminal and in a log alike (quiet writes none).
func (p *progress) stage(what string) {
	p.finish()
	if w := cmp.Or(p.lines, p.out); w != nil {
		fmt.Fprintf(w, "%s …\n", what)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
