package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
)

// progress shows iterations/s and the time left on a terminal, and nothing
// when stderr is a file or a pipe (CI logs, tests).
type progress struct {
	bar *progressbar.ProgressBar
	out io.Writer
}

func newProgress(stderr io.Writer, quiet bool) *progress {
	if quiet || !isTerminal(stderr) {
		return &progress{}
	}
	return &progress{out: stderr}
}

func (p *progress) update(done, total int) {
	if p.out == nil {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.out),
			progressbar.OptionSetDescription("sampling"),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("it"),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100_000_000), // redraw at most every 0.1 s
			progressbar.OptionClearOnFinish(),
		)
	}
	if done%64 == 0 || done == total {
		p.bar.Set(done)
	}
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
