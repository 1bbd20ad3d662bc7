package compile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	ad "github.com/temper-ppl/temper/autodiff"
)

// Value is one data field: a row-major array and the file it came from.
// Its elements are Values, float64s, or Stored, the elements in a
// narrower type: int fields are kept in the narrowest integer type their
// declaration allows (see narrowInts), which readers of CSV, Parquet and
// .npy fill directly and binding makes of the others.
type Value struct {
	Shape  []int
	Values []float64 // nil when Stored holds the elements
	Stored ad.Stored // the elements in their own type (int8 ... int64), or nil
	Source string    // the file that supplied it, for error messages
}

// Len is the number of elements.
func (v *Value) Len() int {
	if v.Stored != nil {
		return v.Stored.Len()
	}
	return len(v.Values)
}

// At is element i (row-major) as a float64.
func (v *Value) At(i int) float64 {
	switch s := v.Stored.(type) {
	case nil:
		return v.Values[i]
	case ad.StoredSlice[int8]:
		return float64(s[i])
	case ad.StoredSlice[uint8]:
		return float64(s[i])
	case ad.StoredSlice[int16]:
		return float64(s[i])
	case ad.StoredSlice[uint16]:
		return float64(s[i])
	case ad.StoredSlice[int32]:
		return float64(s[i])
	case ad.StoredSlice[int64]:
		return float64(s[i])
	}
	x := make([]float64, 1)
	v.Stored.Float64s(x, i)
	return x[0]
}

// Float64s is the elements as float64s: Values, or a copy of Stored's.
func (v *Value) Float64s() []float64 {
	if v.Stored == nil {
		return v.Values
	}
	out := make([]float64, v.Stored.Len())
	v.Stored.Float64s(out, 0)
	return out
}

// Data maps declared names to values.
type Data map[string]*Value

// ReadDataFile reads a data file by its extension: .json (Stan-style JSON),
// .csv (see ReadCSV), Apache Parquet's .parquet (ReadParquet, binding
// columns as a CSV's), or NumPy's .npy (the field named after the file) and
// .npz (a field per member; see ReadNPY). decls are the declared data
// fields, which CSV needs to bind its columns.
func ReadDataFile(path string, decls []FieldDecl) (Data, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return ReadNPY(path)
	case ".npz":
		return ReadNPZ(path)
	case ".csv": // streamed: the file's text is never held whole
		return readCSVFile(path, decls)
	case ".parquet", ".parq", ".pq":
		return ReadParquet(path, decls)
	}
	if strings.ToLower(filepath.Ext(path)) == ".json" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return ReadJSON(path, raw)
	}
	return nil, fmt.Errorf("%s: unknown data format %q (use .json, .csv, .parquet, .npy or .npz)", path, filepath.Ext(path))
}

// ReadJSON reads Stan-style JSON: an object whose members are numbers or
// (nested) arrays of numbers, rectangular.
func ReadJSON(name string, raw []byte) (Data, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of data fields: %v", name, err)
	}
	data := Data{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := &Value{Source: name}
		if err := flattenJSON(obj[k], 0, v); err != nil {
			return nil, fmt.Errorf("%s: field %q: %v", name, k, err)
		}
		data[k] = v
	}
	return data, nil
}

// flattenJSON appends the numbers of x to v, fixing v.Shape from the first
// element at each depth and rejecting ragged arrays.
func flattenJSON(x any, depth int, v *Value) error {
	switch x := x.(type) {
	case json.Number:
		if depth != len(v.Shape) {
			return fmt.Errorf("ragged array: a number where an array of %d was expected", v.Shape[depth])
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", x)
		}
		v.Values = append(v.Values, f)
		return nil
	case string:
		// Stan's JSON writes non-finite values as strings.
		switch x {
		case "NaN":
			v.Values = append(v.Values, math.NaN())
		case "Inf", "Infinity", "+Inf", "+Infinity":
			v.Values = append(v.Values, math.Inf(1))
		case "-Inf", "-Infinity":
			v.Values = append(v.Values, math.Inf(-1))
		default:
			return fmt.Errorf("%q is not a number", x)
		}
		return nil
	case []any:
		if len(v.Values) == 0 && depth == len(v.Shape) {
			v.Shape = append(v.Shape, len(x))
		} else if depth >= len(v.Shape) || v.Shape[depth] != len(x) {
			return fmt.Errorf("ragged array: an array of %d where %s was expected", len(x), describeExpected(v, depth))
		}
		if len(x) == 0 {
			return fmt.Errorf("empty array")
		}
		for _, e := range x {
			if err := flattenJSON(e, depth+1, v); err != nil {
				return err
			}
		}
		return nil
	case nil:
		return fmt.Errorf("null is not a number")
	}
	return fmt.Errorf("%v is not a number or an array", x)
}

func describeExpected(v *Value, depth int) string {
	if depth >= len(v.Shape) {
		return "a number"
	}
	return fmt.Sprintf("an array of %d", v.Shape[depth])
}

// FieldDecl is what CSV binding needs to know of a declared data field.
type FieldDecl struct {
	Name string
	Rank int
	Int  bool
}

// ReadCSV binds the columns of a CSV file with a header to data fields, one
// row per observation:
//
//   - a column named like a field of rank 1 binds that field (length = rows);
//   - columns named F.1, F.2, ... bind the rank-2 field F, in that order;
//   - if exactly one rank-2 field is still unbound, every remaining column
//     binds it, in file order (so `y` then 48 feature columns fill y[N] and
//     X[N, D]);
//   - int scalars that size the data (N, D) are not read from CSV: the
//     binder infers them from the shapes (see Bind).
//
// Empty cells and NaN are kept as NaN and rejected by Bind with their
// position.
func ReadCSV(name string, raw []byte, decls []FieldDecl) (Data, error) {
	return readCSV(name, bytes.NewReader(raw), decls)
}

// csvTarget is where a column's cells go: the field's values, the row
// width (1 for a vector, D for a matrix) and the column's place in a row.
type csvTarget struct {
	field         string
	width, offset int
}

// csvLines reads the lines of a CSV text: a line without quotes, the
// common case, is split in place; a line with one goes through
// encoding/csv (a quoted cell may not span lines). Blank lines are skipped,
// as encoding/csv skips them.
type csvLines struct {
	br     *bufio.Reader
	lineNo int // the physical line last read, from 1
	cells  [][]byte
}

func (l *csvLines) next() ([][]byte, error) {
	for {
		line, _, err := readLine(l.br)
		if err != nil {
			return nil, err
		}
		l.lineNo++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if bytes.IndexByte(line, '"') < 0 {
			l.cells = splitComma(l.cells[:0], line)
			return l.cells, nil
		}
		rec, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", l.lineNo, err)
		}
		l.cells = l.cells[:0]
		for _, c := range rec {
			l.cells = append(l.cells, []byte(c))
		}
		return l.cells, nil
	}
}

// csvTable is where a CSV's rows go: each field's values, row-major, and
// each column's field and place in a row.
type csvTable struct {
	name    string
	header  []string
	fields  []string
	widths  []int
	fieldOf []int
	targets []csvTarget
	values  [][]float64
}

func newCSVTable(name string, header []string, decls []FieldDecl) (*csvTable, error) {
	targets, widths, err := bindColumns(name, header, decls)
	if err != nil {
		return nil, err
	}
	t := &csvTable{name: name, header: header, targets: targets, fields: slices.Sorted(maps.Keys(widths))}
	for _, f := range t.fields {
		t.widths = append(t.widths, widths[f])
	}
	t.fieldOf = make([]int, len(header))
	for c, tg := range targets {
		t.fieldOf[c] = slices.Index(t.fields, tg.field)
	}
	t.values = make([][]float64, len(t.fields))
	return t, nil
}

// grow makes room for rows more rows.
func (t *csvTable) grow(rows int) {
	for f, w := range t.widths {
		t.values[f] = slices.Grow(t.values[f], rows*w)
	}
}

// put parses record rec into row row, which the values already hold.
func (t *csvTable) put(rec [][]byte, row, lineNo int) error {
	if len(rec) != len(t.header) {
		return fmt.Errorf("%s:%d: %d fields, and the header has %d", t.name, lineNo, len(rec), len(t.header))
	}
	for c, cell := range rec {
		v, err := parseCell(cell)
		if err != nil {
			return fmt.Errorf("%s:%d: column %q: %q is not a number", t.name, lineNo, t.header[c], bytes.TrimSpace(cell))
		}
		tg := &t.targets[c]
		t.values[t.fieldOf[c]][row*tg.width+tg.offset] = v
	}
	return nil
}

// data is the table's fields, of rows rows.
func (t *csvTable) data(rows int, decls []FieldDecl) (Data, error) {
	if rows == 0 {
		return nil, fmt.Errorf("%s: needs a header row and at least one data row", t.name)
	}
	data := Data{}
	for f, field := range t.fields {
		v := &Value{Shape: []int{rows}, Values: slices.Clip(t.values[f][:rows*t.widths[f]]), Source: t.name}
		if byRank(decls, field) == 2 {
			v.Shape = append(v.Shape, t.widths[f])
		}
		data[field] = v
	}
	return data, nil
}

// readHeader reads the header line and binds the columns.
func readHeader(name string, l *csvLines, decls []FieldDecl) (*csvTable, error) {
	first, err := l.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: needs a header row and at least one data row", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	header := make([]string, len(first))
	for c, h := range first {
		header[c] = string(h)
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte-order mark
	return newCSVTable(name, header, decls)
}

// readCSV streams the records of r straight into the fields' arrays, the
// bindings decided from the header before any row is read: no record is
// kept, and each value is stored once, where the model reads it.
func readCSV(name string, r io.Reader, decls []FieldDecl) (Data, error) {
	l := &csvLines{br: bufio.NewReaderSize(r, 1<<20)}
	t, err := readHeader(name, l, decls)
	if err != nil {
		return nil, err
	}
	rows := 0
	for {
		rec, err := l.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for f, w := range t.widths {
			t.values[f] = append(t.values[f], make([]float64, w)...)
		}
		if err := t.put(rec, rows, l.lineNo); err != nil {
			return nil, err
		}
		rows++
	}
	return t.data(rows, decls)
}

// readCSVFile reads a CSV file in two passes: the first counts its rows
// and finds where each of the goroutines' parts begins, so that the fields'
// arrays are allocated once at their size (the peak memory is the data's
// own, not a growing copy's), and the second parses the parts in parallel.
// A file with a quote in it is read in one part.
func readCSVFile(path string, decls []FieldDecl) (Data, error) {
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	parts := max(1, min(runtime.GOMAXPROCS(0), 8, int(size>>22))) // at least 4 MB a part
	plan, err := planCSV(f, size, parts)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if plan.quoted {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return readCSV(path, f, decls)
	}
	l := &csvLines{br: bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)}
	t, err := readHeader(path, l, decls)
	if err != nil {
		return nil, err
	}
	for fi, w := range t.widths {
		t.values[fi] = make([]float64, plan.rows*w)
	}
	errs := make([]error, len(plan.starts))
	var wg sync.WaitGroup
	for p := range plan.starts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			end := size
			if p+1 < len(plan.starts) {
				end = plan.starts[p+1].offset
			}
			st := plan.starts[p]
			part := &csvLines{br: bufio.NewReaderSize(io.NewSectionReader(f, st.offset, end-st.offset), 1<<20), lineNo: st.line}
			row := st.row
			for {
				rec, err := part.next()
				if err == io.EOF {
					return
				}
				if err == nil && row >= plan.rows {
					err = fmt.Errorf("the file changed while it was read")
				}
				if err == nil {
					err = t.put(rec, row, part.lineNo)
				}
				if err != nil {
					errs[p] = err
					return
				}
				row++
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return t.data(plan.rows, decls)
}

// openFile opens a data file, with its size.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// csvPlan is the first pass's finding: the data rows (non-blank lines after
// the header), whether a quote occurs, and where each part begins.
type csvPlan struct {
	rows   int
	quoted bool
	starts []csvStart
}

// csvStart is where a part begins: its byte offset, the data rows before
// it, and the physical lines before it.
type csvStart struct {
	offset    int64
	row, line int
}

// planCSV counts the rows of the CSV in r and splits them into parts of
// about equal bytes, each beginning at a line's start.
func planCSV(r io.Reader, size int64, parts int) (csvPlan, error) {
	var plan csvPlan
	br := bufio.NewReaderSize(r, 1<<20)
	var offset int64
	line, header := 0, true
	next := int64(0) // the offset at which the next part may begin
	for {
		text, raw, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return plan, err
		}
		start := offset
		offset += int64(raw)
		line++
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if bytes.IndexByte(text, '"') >= 0 {
			plan.quoted = true
		}
		if header {
			header = false
			continue
		}
		if start >= next && len(plan.starts) < parts {
			plan.starts = append(plan.starts, csvStart{offset: start, row: plan.rows, line: line - 1})
			next = start + (size-start)/int64(parts-len(plan.starts)+1)
		}
		plan.rows++
	}
	return plan, nil
}

// readLine returns the next line without its end (\n or \r\n), valid
// until the next call, and the bytes it took with its end; io.EOF after the
// last.
func readLine(br *bufio.Reader) ([]byte, int, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull { // a line longer than the buffer
		long := slices.Clone(line)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err != nil && err != io.EOF {
		return nil, 0, err
	}
	if err == io.EOF && len(line) == 0 {
		return nil, 0, io.EOF
	}
	raw := len(line)
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), raw, nil
}

// splitComma appends the comma-separated cells of line to dst.
func splitComma(dst [][]byte, line []byte) [][]byte {
	for {
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return append(dst, line)
		}
		dst = append(dst, line[:i])
		line = line[i+1:]
	}
}

// parseCell reads a number; an empty cell and NA are NaN (which binding
// then rejects with its position).
func parseCell(cell []byte) (float64, error) {
	cell = bytes.TrimSpace(cell)
	if len(cell) == 0 || string(cell) == "NA" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(unsafe.String(unsafe.SliceData(cell), len(cell)), 64)
}

func byRank(decls []FieldDecl, name string) int {
	for _, d := range decls {
		if d.Name == name {
			return d.Rank
		}
	}
	return 0
}

// bindColumns decides from the header where each column goes (ReadCSV's
// rules), and each field's row width.
func bindColumns(name string, header []string, decls []FieldDecl) ([]csvTarget, map[string]int, error) {
	byName := map[string]FieldDecl{}
	for _, d := range decls {
		byName[d.Name] = d
	}
	targets := make([]csvTarget, len(header))
	used := make([]bool, len(header))
	widths := map[string]int{}
	matrices := map[string][]int{} // F -> columns of F.1, F.2, ...
	for c, h := range header {
		h = strings.TrimSpace(h)
		if d, ok := byName[h]; ok && d.Rank == 1 {
			targets[c], used[c], widths[h] = csvTarget{field: h, width: 1}, true, 1
			continue
		}
		if base, idx, ok := strings.Cut(h, "."); ok {
			if d, ok := byName[base]; ok && d.Rank == 2 {
				if j, err := strconv.Atoi(idx); err == nil && j == len(matrices[base])+1 {
					matrices[base] = append(matrices[base], c)
					used[c] = true
				}
			}
		}
	}
	var unbound []string
	for _, d := range decls {
		if _, ok := matrices[d.Name]; !ok && d.Rank == 2 {
			unbound = append(unbound, d.Name)
		}
	}
	var rest []int
	for c := range header {
		if !used[c] {
			rest = append(rest, c)
		}
	}
	if len(rest) > 0 {
		if len(unbound) != 1 {
			return nil, nil, fmt.Errorf("%s: columns %s bind no data field (name a column after a vector field, F.1, F.2, ... after a matrix field F, or declare exactly one matrix to take the remaining columns)",
				name, quoteColumns(header, rest))
		}
		matrices[unbound[0]] = rest
	}
	for f, cs := range matrices {
		widths[f] = len(cs)
		for j, c := range cs {
			targets[c] = csvTarget{field: f, width: len(cs), offset: j}
		}
	}
	return targets, widths, nil
}

func quoteColumns(header []string, cs []int) string {
	var q []string
	for i, c := range cs {
		if i == 3 {
			q = append(q, fmt.Sprintf("and %d more", len(cs)-3))
			break
		}
		q = append(q, strconv.Quote(header[c]))
	}
	return strings.Join(q, ", ")
}

// Merge combines data from several files; a field given twice is an error.
func Merge(parts ...Data) (Data, error) {
	out := Data{}
	for _, p := range parts {
		for k, v := range p {
			if prev, ok := out[k]; ok {
				return nil, fmt.Errorf("data field %q is given twice, by %s and %s", k, prev.Source, v.Source)
			}
			out[k] = v
		}
	}
	return out, nil
}

// ReadAll reads and merges data files.
func ReadAll(paths []string, decls []FieldDecl) (Data, error) {
	var parts []Data
	for _, p := range paths {
		d, err := ReadDataFile(p, decls)
		if err != nil {
			return nil, err
		}
		parts = append(parts, d)
	}
	return Merge(parts...)
}

// FromGo converts Go values to Data: float64 or int scalars, and slices or
// nested slices of them.
func FromGo(values map[string]any) (Data, error) {
	data := Data{}
	for k, x := range values {
		v := &Value{Source: "Go value"}
		if err := flattenGo(x, 0, v); err != nil {
			return nil, fmt.Errorf("data field %q: %v", k, err)
		}
		data[k] = v
	}
	return data, nil
}

func flattenGo(x any, depth int, v *Value) error {
	switch x := x.(type) {
	case float64:
		v.Values = append(v.Values, x)
		return nil
	case int:
		v.Values = append(v.Values, float64(x))
		return nil
	case []float64:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case []int:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case [][]float64:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case [][]int:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case []any:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	}
	return fmt.Errorf("unsupported type %T", x)
}

func flattenGoSlice(n, depth int, v *Value, at func(int) any) error {
	if len(v.Values) == 0 && depth == len(v.Shape) {
		v.Shape = append(v.Shape, n)
	} else if depth >= len(v.Shape) || v.Shape[depth] != n {
		return fmt.Errorf("ragged array of length %d at depth %d", n, depth)
	}
	if n == 0 {
		return fmt.Errorf("empty array")
	}
	for i := range n {
		if err := flattenGo(at(i), depth+1, v); err != nil {
			return err
		}
	}
	return nil
}
