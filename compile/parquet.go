package compile

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// Apache Parquet files are read through github.com/parquet-go/parquet-go,
// a maintained pure-Go implementation (no cgo: the default build stays
// pure Go) that decodes every encoding and compression codec of the format.
// A file is a flat table: each top-level column a leaf of a numeric
// physical type (BOOLEAN as 0/1, INT32, INT64, FLOAT, DOUBLE; signed or
// unsigned integers), bound to data fields as a CSV's columns are
// (ReadCSV). Its row groups are read on parallel goroutines, each column's
// pages decoded into blocks of rows that are scattered into the fields'
// arrays, allocated once at their size: the peak memory is the data's own
// plus a few pages per goroutine.

// parquetBlock is the rows a goroutine moves from every column to the
// fields' arrays at a time: a block of 20 float64 columns is 640 KB, so
// that the scattered writes stay in the L2 cache.
const parquetBlock = 1024

// maxExactInt is 2^53: integers beyond it are not all float64s.
const maxExactInt = 1 << 53

// ReadParquet reads an Apache Parquet file and binds its columns to data
// fields by ReadCSV's rules: a column named after a vector field binds it,
// columns F.1, F.2, ... the matrix F, and the remaining columns fill the
// one matrix field left, in file order. Integer columns keep their values
// exactly (a value beyond 2^53, which a float64 does not hold, is
// refused); a missing value (null) or NaN is refused with its column and
// row.
func ReadParquet(path string, decls []FieldDecl) (data Data, err error) {
	defer func() { // a malformed file must not crash the caller
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("%s: a malformed Parquet file: %v", path, r)
		}
	}()
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pf, err := parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%s: not a Parquet file: %v", path, err)
	}
	var cols []parquetColumn
	var header []string
	for _, c := range pf.Root().Columns() {
		pc, err := newParquetColumn(path, c)
		if err != nil {
			return nil, err
		}
		cols, header = append(cols, pc), append(header, c.Name())
	}
	t, err := newCSVTable(path, header, decls)
	if err != nil {
		return nil, err
	}
	rows := int(pf.NumRows())
	if rows == 0 || len(header) == 0 {
		return nil, fmt.Errorf("%s: needs at least one column and one row", path)
	}
	for f, w := range t.widths {
		t.values[f] = make([]float64, rows*w)
	}
	groups := pf.RowGroups()
	first := make([]int, len(groups)) // each row group's first row in the file
	for g := 1; g < len(groups); g++ {
		first[g] = first[g-1] + int(groups[g-1].NumRows())
	}
	work := make(chan int, len(groups))
	for g := range groups {
		work <- g
	}
	close(work)
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(groups)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range work {
				errs[g] = t.readRowGroup(groups[g], first[g], cols)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t.data(rows, decls)
}

// parquetColumn is a top-level column of a file, with how its values
// become float64s.
type parquetColumn struct {
	file, name string
	index      int // among the file's leaf columns
	kind       parquet.Kind
	unsigned   bool
	maxDef     byte // the definition level of a value that is not null
}

// newParquetColumn checks that c is a flat column of numbers.
func newParquetColumn(path string, c *parquet.Column) (parquetColumn, error) {
	pc := parquetColumn{file: path, name: c.Name(), index: c.Index(), maxDef: byte(c.MaxDefinitionLevel())}
	if !c.Leaf() || c.Repeated() {
		return pc, fmt.Errorf("%s: column %q is a nested or repeated column; temper reads flat tables of numbers (a column per vector field, F.1, F.2, ... per matrix)", path, c.Name())
	}
	typ := c.Type()
	pc.kind = typ.Kind()
	switch pc.kind {
	case parquet.Boolean, parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return pc, fmt.Errorf("%s: column %q holds %s values (text or bytes), not numbers", path, c.Name(), pc.kind)
	default:
		return pc, fmt.Errorf("%s: column %q holds %s values, not numbers", path, c.Name(), pc.kind)
	}
	if lt := typ.LogicalType(); lt != nil && lt.Value != nil {
		it, ok := lt.Value.(*format.IntType)
		if !ok {
			return pc, fmt.Errorf("%s: column %q holds %s values, not plain numbers", path, c.Name(), lt)
		}
		pc.unsigned = !it.IsSigned
	} else if ct := typ.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			pc.unsigned = true
		case deprecated.Int8, deprecated.Int16, deprecated.Int32, deprecated.Int64:
		default:
			return pc, fmt.Errorf("%s: column %q holds %v values, not plain numbers", path, c.Name(), *ct)
		}
	}
	return pc, nil
}

// readRowGroup moves the row group's columns, a block of rows at a time,
// into the table's arrays, from row first of the file on.
func (t *csvTable) readRowGroup(g parquet.RowGroup, first int, cols []parquetColumn) error {
	chunks := g.ColumnChunks()
	cursors := make([]*parquetCursor, len(cols))
	for c, col := range cols {
		cursors[c] = &parquetCursor{col: col, pages: chunks[col.index].Pages(), row: first}
		defer cursors[c].pages.Close()
	}
	block := make([]float64, parquetBlock)
	n := int(g.NumRows())
	for start := 0; start < n; start += parquetBlock {
		m := min(parquetBlock, n-start)
		for c := range cols {
			if err := cursors[c].fill(block[:m]); err != nil {
				return err
			}
			tg := &t.targets[c]
			dst := t.values[t.fieldOf[c]][(first+start)*tg.width+tg.offset:]
			for i, v := range block[:m] {
				dst[i*tg.width] = v
			}
		}
	}
	return nil
}

// parquetCursor reads a column chunk's values in order, a page at a time.
type parquetCursor struct {
	col   parquetColumn
	pages parquet.Pages
	buf   []float64 // the current page's values
	pos   int       // the next of buf
	row   int       // the file's row of buf[pos], for errors
	read  []parquet.Value
}

// fill sets dst to the next len(dst) values.
func (p *parquetCursor) fill(dst []float64) error {
	for len(dst) > 0 {
		if p.pos == len(p.buf) {
			if err := p.next(); err != nil {
				return err
			}
		}
		n := copy(dst, p.buf[p.pos:])
		dst, p.pos, p.row = dst[n:], p.pos+n, p.row+n
	}
	return nil
}

// next decodes the next page into buf, refusing a null, a NaN and an
// integer that a float64 does not hold exactly.
func (p *parquetCursor) next() error {
	page, err := p.pages.ReadPage()
	if err == io.EOF {
		return fmt.Errorf("%s: column %q ends before row %d of its row group", p.col.file, p.col.name, p.row+1)
	}
	if err != nil {
		return fmt.Errorf("%s: column %q near row %d: %v", p.col.file, p.col.name, p.row+1, err)
	}
	defer parquet.Release(page)
	n := int(page.NumValues())
	if page.NumNulls() > 0 {
		for i, level := range page.DefinitionLevels() {
			if level != p.col.maxDef {
				return fmt.Errorf("%s: column %q, row %d: a missing value (null)", p.col.file, p.col.name, p.row+i+1)
			}
		}
	}
	p.buf, p.pos = grow(p.buf, n), 0
	if !p.decode(page) {
		if err := p.decodeValues(page); err != nil {
			return err
		}
	}
	for i, v := range p.buf {
		switch {
		case v != v:
			return fmt.Errorf("%s: column %q, row %d: NaN", p.col.file, p.col.name, p.row+i+1)
		case p.col.kind == parquet.Int64 && math.Abs(v) >= maxExactInt: // float64(x) rounds to at least 2^53 just when |x| ≥ 2^53
			return fmt.Errorf("%s: column %q, row %d: the integer %.0f is at or beyond 2^53, where float64s no longer hold every integer", p.col.file, p.col.name, p.row+i+1, v)
		}
	}
	return nil
}

// decode converts a page without nulls from its typed values, or through
// its dictionary; false when the page is of another form.
func (p *parquetCursor) decode(page parquet.Page) bool {
	values := page.Data()
	var index []int32
	if dict := page.Dictionary(); dict != nil {
		if values.Kind() != encoding.Int32 {
			return false
		}
		index, values = values.Int32(), dict.Page().Data()
	}
	n := len(p.buf)
	if index != nil && len(index) != n {
		return false
	}
	switch {
	case values.Kind() == encoding.Double && (index != nil || len(values.Double()) == n):
		convert(p.buf, values.Double(), index, func(x float64) float64 { return x })
	case values.Kind() == encoding.Float && (index != nil || len(values.Float()) == n):
		convert(p.buf, values.Float(), index, func(x float32) float64 { return float64(x) })
	case values.Kind() == encoding.Int32 && (index != nil || len(values.Int32()) == n):
		if p.col.unsigned {
			convert(p.buf, values.Int32(), index, func(x int32) float64 { return float64(uint32(x)) })
		} else {
			convert(p.buf, values.Int32(), index, func(x int32) float64 { return float64(x) })
		}
	case values.Kind() == encoding.Int64 && (index != nil || len(values.Int64()) == n):
		if p.col.unsigned {
			convert(p.buf, values.Int64(), index, func(x int64) float64 { return float64(uint64(x)) })
		} else {
			convert(p.buf, values.Int64(), index, func(x int64) float64 { return float64(x) })
		}
	default:
		return false
	}
	return true
}

// convert sets dst[i] to f(src[i]), or to f(src[index[i]]) through a
// dictionary's index.
func convert[T any](dst []float64, src []T, index []int32, f func(T) float64) {
	if index == nil {
		for i, x := range src[:len(dst)] {
			dst[i] = f(x)
		}
		return
	}
	for i, k := range index {
		dst[i] = f(src[k])
	}
}

// decodeValues converts a page value by value: the form of any page
// (booleans, optional columns' pages).
func (p *parquetCursor) decodeValues(page parquet.Page) error {
	if p.read == nil {
		p.read = make([]parquet.Value, 1024)
	}
	r := page.Values()
	for i := 0; i < len(p.buf); {
		n, err := r.ReadValues(p.read[:min(len(p.read), len(p.buf)-i)])
		for _, v := range p.read[:n] {
			if v.IsNull() {
				return fmt.Errorf("%s: column %q, row %d: a missing value (null)", p.col.file, p.col.name, p.row+i+1)
			}
			p.buf[i] = p.col.float(v)
			i++
		}
		switch {
		case err != nil && err != io.EOF:
			return fmt.Errorf("%s: column %q near row %d: %v", p.col.file, p.col.name, p.row+i+1, err)
		case n == 0 && i < len(p.buf):
			return fmt.Errorf("%s: column %q near row %d: the page ends before its %d values", p.col.file, p.col.name, p.row+i+1, len(p.buf))
		}
	}
	return nil
}

// float is a value of the column as a float64.
func (c parquetColumn) float(v parquet.Value) float64 {
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return 1
		}
		return 0
	case parquet.Int32:
		if c.unsigned {
			return float64(uint32(v.Int32()))
		}
		return float64(v.Int32())
	case parquet.Int64:
		if c.unsigned {
			return float64(uint64(v.Int64()))
		}
		return float64(v.Int64())
	case parquet.Float:
		return float64(v.Float())
	}
	return v.Double()
}
