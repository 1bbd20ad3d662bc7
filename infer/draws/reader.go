package draws

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Table holds the draws of a file, column by column.
type Table struct {
	// Comments are the comment lines in file order, without the '#' and
	// the one space after it.
	Comments []string
	// Columns names the value columns in file order; the chain and iter
	// columns are not among them but in Chain and Iter.
	Columns []string
	// Chain and Iter are each row's chain and iteration. A file without a
	// chain column is one chain, 1; without an iter column, rows are
	// numbered 1, 2, … within each chain in file order.
	Chain, Iter []int
	// Values[k][r] is column Columns[k] of row r.
	Values [][]float64
	// DroppedLine is the line number of the incomplete last line that
	// ReadLenient dropped, 0 if it dropped none. Read never drops a line.
	DroppedLine int
}

// Concat joins the tables of one run's chains, such as the files of
// CmdStan's layout (one chain each, draws_1.csv, draws_2.csv, ...): each
// table's chains follow the previous tables', renumbered 1, 2, ... in
// order. The tables must have the same columns.
func Concat(tables ...*Table) (*Table, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("draws: no tables to join")
	}
	out := &Table{Columns: slices.Clone(tables[0].Columns), Values: make([][]float64, len(tables[0].Columns))}
	for i, t := range tables {
		if !slices.Equal(t.Columns, out.Columns) {
			return nil, fmt.Errorf("draws: table %d has columns %s, table 1 %s", i+1, strings.Join(t.Columns, ","), strings.Join(out.Columns, ","))
		}
		if i == 0 {
			out.Comments = slices.Clone(t.Comments)
		}
		ids := t.ChainIDs()
		base := len(out.ChainIDs())
		for r, c := range t.Chain {
			out.Chain = append(out.Chain, base+1+slices.Index(ids, c))
			out.Iter = append(out.Iter, t.Iter[r])
		}
		for k := range out.Values {
			out.Values[k] = append(out.Values[k], t.Values[k]...)
		}
	}
	return out, nil
}

// Index returns the position of a column in Columns, or -1.
func (t *Table) Index(column string) int {
	return slices.Index(t.Columns, column)
}

// Params returns the parameter columns in file order: those whose names
// do not end in "__" (see IsDiagnostic); chain and iter are not columns.
func (t *Table) Params() []string {
	var params []string
	for _, c := range t.Columns {
		if !IsDiagnostic(c) {
			params = append(params, c)
		}
	}
	return params
}

// ChainIDs returns the distinct chain numbers in ascending order.
func (t *Table) ChainIDs() []int {
	ids := slices.Clone(t.Chain)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// ByChain returns the draws of a column split by chain, chains in the
// order of ChainIDs and draws in file order, the layout that package
// summary takes. It returns nil for a column that is not in the table.
func (t *Table) ByChain(column string) [][]float64 {
	k := t.Index(column)
	if k < 0 {
		return nil
	}
	ids := t.ChainIDs()
	out := make([][]float64, len(ids))
	for r, v := range t.Values[k] {
		m, _ := slices.BinarySearch(ids, t.Chain[r])
		out[m] = append(out[m], v)
	}
	return out
}

// Where returns the table of the rows whose column equals value (all rows
// when the table has no such column): a replica-exchange file written with
// every level keeps them apart by its replica__ column.
func (t *Table) Where(column string, value float64) *Table {
	k := t.Index(column)
	if k < 0 {
		return t
	}
	out := &Table{Comments: t.Comments, Columns: t.Columns, Values: make([][]float64, len(t.Columns)), DroppedLine: t.DroppedLine}
	for r, v := range t.Values[k] {
		if v != value {
			continue
		}
		out.Chain, out.Iter = append(out.Chain, t.Chain[r]), append(out.Iter, t.Iter[r])
		for j := range t.Values {
			out.Values[j] = append(out.Values[j], t.Values[j][r])
		}
	}
	return out
}

// ParseError is an error in a draws file, at a line if Line > 0.
type ParseError struct {
	File string // the path given to ReadFile, "" for Read
	Line int    // 1-based, counting every line of the file
	Msg  string
}

func (e *ParseError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Read parses a draws file (see the package documentation). Errors are
// *ParseError with the line number, or the reader's own error.
func Read(r io.Reader) (*Table, error) {
	return parse(r, "", false)
}

// ReadLenient is Read for the file of a run that may have been killed
// while writing: if the last line does not end in a line break, it is
// dropped and its number recorded in Table.DroppedLine. Writer ends every
// row with a line break, so such a line is one it was cut off writing, even
// if it happens to parse (its last number may have lost digits). Files
// from tools that omit the final line break lose their last draw here; read
// those with Read. Every other error is reported as Read reports it.
func ReadLenient(r io.Reader) (*Table, error) {
	return parse(r, "", true)
}

// ReadFile is Read on the named file, with the path in error messages.
func ReadFile(path string) (*Table, error) {
	return readFile(path, false)
}

// ReadFileLenient is ReadLenient on the named file.
func ReadFileLenient(path string) (*Table, error) {
	return readFile(path, true)
}

func readFile(path string, lenient bool) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f, path, lenient)
}

// parser holds the state of one Read.
type parser struct {
	file    string
	lenient bool
	t       *Table
	header  bool
	chain   int         // field index of the chain column, -1 if none
	iter    int         // field index of the iter column, -1 if none
	value   []int       // for each field, its column in t.Values, or -1
	nextIt  map[int]int // per chain, the iter of its next row when there is no iter column
	row     []float64   // scratch for one row's values
	fields  int         // fields per row
	lineNum int
}

func parse(r io.Reader, file string, lenient bool) (*Table, error) {
	p := &parser{file: file, lenient: lenient, t: &Table{}, nextIt: map[int]int{}}
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if line == "" {
			break
		}
		p.lineNum++
		complete := strings.HasSuffix(line, "\n")
		if perr := p.line(strings.TrimRight(line, "\r\n"), complete); perr != nil {
			return nil, perr
		}
		if err != nil {
			break
		}
	}
	if !p.header {
		msg := "no header row: the file is empty"
		if len(p.t.Comments) > 0 {
			msg = "no header row: the file has only comments"
		}
		return nil, &ParseError{File: file, Msg: msg}
	}
	return p.t, nil
}

// line handles one line; complete is false for a last line without a line
// break.
func (p *parser) line(s string, complete bool) error {
	switch {
	case strings.HasPrefix(s, "#"):
		p.t.Comments = append(p.t.Comments, strings.TrimPrefix(s[1:], " "))
		return nil
	case strings.TrimSpace(s) == "":
		return nil
	case !p.header:
		return p.parseHeader(s)
	case !complete && p.lenient:
		p.t.DroppedLine = p.lineNum
		return nil
	}
	if err := p.parseRow(s); err != nil {
		if !complete {
			err.Msg += " (the last line is incomplete, as when a run is killed mid-write; ReadLenient drops it)"
		}
		return err
	}
	return nil
}

// errorf is a ParseError at the current line.
func (p *parser) errorf(format string, args ...any) *ParseError {
	return &ParseError{File: p.file, Line: p.lineNum, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parseHeader(s string) error {
	p.header = true
	p.chain, p.iter = -1, -1
	seen := map[string]bool{}
	for i, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return p.errorf("column %d of the header has an empty name", i+1)
		case seen[name]:
			return p.errorf("column %q appears twice in the header", name)
		}
		seen[name] = true
		p.fields++
		switch name {
		case "chain":
			p.chain = i
			p.value = append(p.value, -1)
		case "iter":
			p.iter = i
			p.value = append(p.value, -1)
		default:
			p.value = append(p.value, len(p.t.Columns))
			p.t.Columns = append(p.t.Columns, name)
		}
	}
	p.t.Values = make([][]float64, len(p.t.Columns))
	p.row = make([]float64, len(p.t.Columns))
	return nil
}

// parseRow parses a row whole before adding it, so that a bad row leaves
// no column longer than another.
func (p *parser) parseRow(s string) *ParseError {
	fields := strings.Split(s, ",")
	if len(fields) != p.fields {
		return p.errorf("row has %d fields, header has %d", len(fields), p.fields)
	}
	chain, iter := 1, 0
	for i, f := range fields {
		f = strings.TrimSpace(f)
		var err *ParseError
		switch {
		case i == p.chain:
			chain, err = p.parseInt("chain", f)
		case i == p.iter:
			iter, err = p.parseInt("iter", f)
		default:
			p.row[p.value[i]], err = p.parseFloat(p.t.Columns[p.value[i]], f)
		}
		if err != nil {
			return err
		}
	}
	if p.iter < 0 {
		p.nextIt[chain]++
		iter = p.nextIt[chain]
	}
	p.t.Chain = append(p.t.Chain, chain)
	p.t.Iter = append(p.t.Iter, iter)
	for k, v := range p.row {
		p.t.Values[k] = append(p.t.Values[k], v)
	}
	return nil
}

func (p *parser) parseInt(column, f string) (int, *ParseError) {
	n, err := strconv.Atoi(f)
	if err != nil {
		return 0, p.errorf("column %q: %q is not an integer", column, f)
	}
	return n, nil
}

// parseFloat reads any spelling strconv.ParseFloat reads, which includes
// C++'s inf and nan as CmdStan writes them. A number beyond the float64
// range is read as ±Inf (or 0 for an underflow), as a numeric library
// reading the file would.
func (p *parser) parseFloat(column, f string) (float64, *ParseError) {
	v, err := strconv.ParseFloat(f, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, p.errorf("column %q: %q is not a number", column, f)
	}
	return v, nil
}
