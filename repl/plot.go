package repl

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer/plots"
	"github.com/temper-ppl/temper/infer/summary"
)

// maxPlotRows bounds the parameters of one plot: rows beyond it are too
// small to read.
const maxPlotRows = 6

// plot draws the last run's draws: [KIND] PARAM... [FILE], KIND one of
// plots.Kinds (trace, the default: each draw against its iteration beside
// the histogram), FILE named by an image extension (default
// KIND-PARAM.svg, or PARAM.svg for a trace).
func (s *Session) plot(args []string) {
	if !s.needResult() {
		return
	}
	kind := "trace"
	if slices.Contains(plots.ExchangeKinds, args[0]) {
		s.plotExchange(args)
		return
	}
	if slices.Contains(plots.Kinds, args[0]) {
		kind, args = args[0], args[1:]
	}
	path := ""
	if n := len(args); n > 1 && filepath.Ext(args[n-1]) != "" && !slices.Contains(s.result.Columns, args[n-1]) {
		path, args = args[n-1], args[:n-1]
	}
	if len(args) == 0 {
		s.errorf("usage: :plot [%s] PARAM... [FILE]\n", strings.Join(plots.Kinds, "|"))
		return
	}
	cols, err := selectColumns(s.result.Columns, args)
	if err != nil {
		s.errorf("%v\n", err)
		return
	}
	if len(cols) > maxPlotRows {
		s.errorf("%s name %d columns (%s, ...): plot at most %d of them\n", strings.Join(args, ", "), len(cols), strings.Join(cols[:3], ", "), maxPlotRows)
		return
	}
	if path == "" {
		path = strings.Join(cols, "_") + ".svg"
		if kind != "trace" {
			path = kind + "-" + path
		}
	}
	if err := plots.Write(path, kind, columnsOf{s}, cols, s.result.Iters); err != nil {
		s.printError(err)
		return
	}
	if len(cols) == 1 {
		st := summary.Summarize(cols[0], s.column(cols[0]))
		s.printf("%s plot of %s (mean %.4g, sd %.4g, R-hat %.3f) in %s\n", kind, cols[0], st.Mean, st.SD, st.Rhat, path)
		return
	}
	s.printf("%s plot of %s in %s\n", kind, strings.Join(cols, ", "), path)
}

// plotExchange draws the first chain's ladder of a replica-exchange run:
// KIND [FILE], KIND one of plots.ExchangeKinds.
func (s *Session) plotExchange(args []string) {
	kind := args[0]
	if len(s.result.Exchange) == 0 {
		s.errorf("%s plots a replica-exchange run's ladder; the last run has none\n", kind)
		return
	}
	path := kind + ".svg"
	if len(args) > 1 {
		path = args[1]
	}
	// The swaps of every chain's ladder, as temper plot reads them from
	// diagnostics.json; the index process and ladder of the first.
	r := s.result.Exchange[0]
	attempts, accepts := make([]int, len(r.Attempts)), make([]int, len(r.Accepts))
	for _, c := range s.result.Exchange {
		for p := range attempts {
			attempts[p] += c.Attempts[p]
			accepts[p] += c.Accepts[p]
		}
	}
	ex := plots.NewExchange(r.IndexEvery, r.Index, r.LadderTrace, r.Ladder, attempts, accepts)
	if err := plots.WriteExchange(path, kind, ex); err != nil {
		s.printError(err)
		return
	}
	s.printf("%s plot of chain 1's ladder in %s\n", kind, path)
}

// columnsOf is the last run's draws as plots.Source.
type columnsOf struct{ s *Session }

func (c columnsOf) ByChain(column string) [][]float64 { return c.s.column(column) }

// column is the last run's draws of a column that selectColumns found in
// it, so that Column's error (no such column) cannot arise.
func (s *Session) column(name string) [][]float64 {
	chains, _ := s.result.Column(name)
	return chains
}
