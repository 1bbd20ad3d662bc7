package main

import (
	"cmp"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"

	"github.com/temper-ppl/temper"
)

// progress shows iterations/s and the time left on a terminal, with the
// swap rate, cycle and stopped chains beside the bar (progressLabel), and
// nothing when stderr is a file or a pipe (CI logs, tests).
type progress struct {
	bar   *progressbar.ProgressBar
	out   io.Writer
	label string
	fixed string // a label of its own, for counts other than iterations
	every int    // redraw every this many
}

func newProgress(stderr io.Writer, quiet bool) *progress {
	if quiet || !isTerminal(stderr) {
		return &progress{}
	}
	return &progress{out: stderr, every: 64}
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
// temper.DescribeProgress adds.
func progressLabel(pr temper.Progress) string {
	if note := temper.DescribeProgress(pr); note != "" {
		return "sampling (" + note + ")"
	}
	return "sampling"
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
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
