// Package runfiles names and writes the files of a run's output folder,
// as temper run --out DIR, the REPL's :save and temper merge lay it out:
// the draws file (draws.csv) streamed during the run, the summaries, and
// a file per chain in CmdStan's layout for R and ArviZ. The root package
// writes them; the command and the REPL find them here.
package runfiles

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
)

// The output files of a run, as temper run --out DIR writes them.
const (
	DrawsFile       = "draws.csv"        // every kept draw, Stan's CSV conventions
	SummaryFile     = "summary.csv"      // param,mean,sd,mcse,q5,q50,q95,ess_bulk,ess_tail,rhat
	DiagnosticsFile = "diagnostics.json" // settings, speed, worst R-hat and ESS, replica exchange
)

// ChainFile is the name of chain c's file (c from 0) in CmdStan's layout:
// draws_1.csv, draws_2.csv, ...
func ChainFile(c int) string { return fmt.Sprintf("draws_%d.csv", c+1) }

// ChainFiles lists the files of CmdStan's layout in dir, in chain order:
// draws_1.csv, draws_2.csv, ..., or the chains a run of one chain of many
// (temper.Options.ChainID) or a merge of some wrote, such as draws_3.csv alone.
func ChainFiles(dir string) []string {
	paths, _ := filepath.Glob(filepath.Join(dir, "draws_*.csv"))
	type numbered struct {
		path string
		n    int
	}
	var files []numbered
	for _, p := range paths {
		digits := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "draws_"), ".csv")
		if n, err := strconv.Atoi(digits); err == nil && n > 0 && ChainFile(n-1) == filepath.Base(p) {
			files = append(files, numbered{p, n})
		}
	}
	slices.SortFunc(files, func(a, b numbered) int { return a.n - b.n })
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.path
	}
	return out
}

// RemoveStaleChainFiles removes the chain files in dir of chains (from 1)
// that are not keep's, left by an earlier run into the same folder, so
// that a reader of the folder sees the last run's chains alone.
func RemoveStaleChainFiles(dir string, keep []int) error {
	for _, old := range ChainFiles(dir) {
		if !slices.ContainsFunc(keep, func(n int) bool { return filepath.Base(old) == ChainFile(n-1) }) {
			if err := os.Remove(old); err != nil {
				return err
			}
		}
	}
	return nil
}

// ModelName names a model by its file, as temper run names its output
// folder and the draws files their model: NAME for NAME.ppl, DIR for
// DIR/model.ppl.
func ModelName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if dir := filepath.Base(filepath.Dir(path)); name == "model" && dir != "." && dir != string(filepath.Separator) {
		return dir
	}
	return name
}

// Writer writes a draws file (draws.csv) as a run makes its draws:
// a few # comments that record the sampler and the run's settings, then
// chain,iter,lp__ and the parameters on their constrained scale; with
// KeepAll the columns replica__, temperature__ and lr__, under a
// cyclical schedule cycle__, and for the exact samplers Stan's sampler
// diagnostics (accept_stat__, stepsize__, ...). Rows reach the underlying writer at least
// every 100 rows or second (see draws.Writer), so an interrupted run loses
// nothing that Flush is called for.
type Writer struct {
	w                 *draws.Writer
	closer            io.Closer // the file the writer opened, or nil
	row               []float64
	keepAll, cyclical bool
	stats             int // the sampler's diagnostics, last
}

// NewWriter writes h, a run's header, to w and returns the writer of its
// rows: keepAll adds the columns replica__, temperature__ and lr__ (they
// end h.Columns, before the cycle and the sampler's stats); stats is the
// number of the sampler's diagnostics, which end every row. Close closes
// w when it is an io.Closer that the caller hands over with Own.
func NewWriter(w io.Writer, h draws.Header, keepAll bool, stats int) (*Writer, error) {
	dw, err := draws.NewWriter(w, h)
	if err != nil {
		return nil, err
	}
	return &Writer{w: dw, row: make([]float64, len(h.Columns)), keepAll: keepAll, cyclical: slices.Contains(h.Columns, "cycle__"), stats: stats}, nil
}

// Write adds a draw's row.
func (w *Writer) Write(d infer.Draw) error {
	if !w.keepAll && !w.cyclical && w.stats == 0 {
		return w.w.Write(d.Chain+1, d.Iter+1, d.Values)
	}
	if len(d.Values) > len(w.row) || len(d.Stats) != w.stats {
		return fmt.Errorf("temper: a draw of %d values and %d diagnostics for %d columns", len(d.Values), len(d.Stats), len(w.row))
	}
	copy(w.row, d.Values)
	copy(w.row[len(w.row)-w.stats:], d.Stats)
	if w.cyclical {
		w.row[len(w.row)-w.stats-1] = float64(d.Cycle + 1)
	}
	if w.keepAll {
		extra := w.row[len(d.Values):]
		extra[0], extra[1], extra[2] = float64(d.Level+1), d.Temperature, d.LR
	}
	return w.w.Write(d.Chain+1, d.Iter+1, w.row)
}

// WriteRow adds a row already numbered, chain and iter from 1, such as
// one of an earlier file that a resumed run keeps.
func (w *Writer) WriteRow(chain, iter int, values []float64) error {
	return w.w.Write(chain, iter, values)
}

// Flush passes every buffered row on to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

// Close flushes, and closes the file if the writer opened it
// (Own).
func (w *Writer) Close() error {
	err := w.Flush()
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// Own hands f to w, for Close to close it after the last flush.
func (w *Writer) Own(f io.Closer) { w.closer = f }
