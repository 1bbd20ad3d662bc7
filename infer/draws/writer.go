package draws

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Header describes a draws file before its first draw.
type Header struct {
	// Comments are written one per line, each prefixed with "# "; a
	// comment with line breaks becomes several comment lines.
	Comments []string
	// Columns names the values of every row after chain and iter, which
	// the Writer adds in front: lp__, the flattened parameters (see
	// FlatNames), then any extra columns.
	Columns []string
	// OneChain leaves out the chain and iter columns: the file holds one
	// chain, in order, as CmdStan writes a file per chain (the layout
	// that R's rstan::read_stan_csv and ArviZ's from_cmdstan read).
	OneChain bool
}

// A Writer's buffered rows reach the underlying writer after at most
// FlushRows rows or FlushInterval of wall time, whichever comes first.
const (
	FlushRows     = 100
	FlushInterval = time.Second
)

// Writer writes draws to a file in the format of the package documentation.
//
// Rows are buffered, and Write passes them on after at most FlushRows rows
// or FlushInterval since the last flush, so that a run killed without
// warning (Ctrl-C before the caller's handler runs, the OOM killer) loses at
// most a second or a hundred draws; a caller that handles the interrupt
// calls Flush on exit and loses nothing. Each flush hands whole rows to the
// underlying writer in one Write call, so an interrupted run leaves at worst
// a truncated last line, which ReadLenient drops.
//
// A Writer is for use by one goroutine at a time; samplers running chains
// in parallel send their draws to the goroutine that writes.
type Writer struct {
	out       io.Writer
	columns   int
	oneChain  bool
	buf       []byte
	rows      int       // rows in buf
	lastFlush time.Time // when buf was last emptied
	now       func() time.Time
	err       error // the first write error; every later call returns it
}

// NewWriter writes the comments and the header to w and returns a Writer
// for the rows. The header reaches w at once, so that even a run that
// writes no draw leaves a readable file. It fails if a column name is empty,
// repeated, chain or iter (which the Writer adds), or contains a comma, a
// quote or a line break.
func NewWriter(w io.Writer, header Header) (*Writer, error) {
	if err := checkColumns(header.Columns); err != nil {
		return nil, err
	}
	dw := &Writer{out: w, columns: len(header.Columns), oneChain: header.OneChain, now: time.Now}
	dw.appendComments(header.Comments)
	names := header.Columns
	if !header.OneChain {
		names = append([]string{"chain", "iter"}, names...)
	}
	dw.buf = append(dw.buf, strings.Join(names, ",")...)
	dw.buf = append(dw.buf, '\n')
	if err := dw.Flush(); err != nil {
		return nil, err
	}
	return dw, nil
}

// checkColumns rejects names that would make the file unreadable or
// ambiguous (see NewWriter).
func checkColumns(columns []string) error {
	seen := map[string]bool{"chain": true, "iter": true}
	for i, c := range columns {
		switch {
		case c == "":
			return fmt.Errorf("draws: column %d has an empty name", i+1)
		case strings.ContainsAny(c, ",\"\r\n"):
			return fmt.Errorf("draws: column name %q contains a comma, quote or line break", c)
		case seen[c]:
			return fmt.Errorf("draws: column %q appears twice (chain and iter are added by the writer)", c)
		}
		seen[c] = true
	}
	return nil
}

// Write adds the row chain, iter, values…, with values in the order of
// Header.Columns, and flushes if FlushRows rows are buffered or
// FlushInterval has passed since the last flush. A wrong number of values
// is an error and writes nothing; after a failed flush every call returns
// that error.
func (w *Writer) Write(chain, iter int, values []float64) error {
	if w.err != nil {
		return w.err
	}
	if len(values) != w.columns {
		return fmt.Errorf("draws: row of chain %d, iter %d has %d values for %d columns", chain, iter, len(values), w.columns)
	}
	if !w.oneChain {
		w.buf = strconv.AppendInt(w.buf, int64(chain), 10)
		w.buf = append(w.buf, ',')
		w.buf = strconv.AppendInt(w.buf, int64(iter), 10)
		if len(values) > 0 {
			w.buf = append(w.buf, ',')
		}
	}
	for i, v := range values {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = appendFloat(w.buf, v)
	}
	w.buf = append(w.buf, '\n')
	w.rows++
	if w.rows >= FlushRows || w.now().Sub(w.lastFlush) >= FlushInterval {
		return w.Flush()
	}
	return nil
}

// Comment writes comment lines after the rows so far, as CmdStan writes
// its adaptation results after the header and its timings at the end.
func (w *Writer) Comment(lines ...string) error {
	if w.err != nil {
		return w.err
	}
	w.appendComments(lines)
	return w.Flush()
}

// appendComments adds each line as "# line", a line with breaks as several.
func (w *Writer) appendComments(comments []string) {
	for _, c := range comments {
		for _, line := range strings.Split(c, "\n") {
			w.buf = append(w.buf, strings.TrimRight("# "+line, " ")...)
			w.buf = append(w.buf, '\n')
		}
	}
}

// appendFloat writes v as the shortest decimal that reads back exactly;
// strconv spells the special values NaN, +Inf and -Inf, which pandas, R
// and strconv.ParseFloat all read.
func appendFloat(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// Flush passes every buffered row to the underlying writer. Callers flush
// on exit and may flush more often than Write does (after each sampler
// cycle, say); Flush does not sync a file to disk, which an interrupted
// process does not need, as the operating system keeps what was written.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) > 0 {
		if _, err := w.out.Write(w.buf); err != nil {
			w.err = fmt.Errorf("draws: writing draws: %w", err)
			return w.err
		}
	}
	w.buf = w.buf[:0]
	w.rows = 0
	w.lastFlush = w.now()
	return nil
}
