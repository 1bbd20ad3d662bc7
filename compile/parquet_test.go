package compile_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/temper-ppl/temper/compile"
)

// parquetRow is a row of the test files: an int outcome and features of
// every numeric type, one optional (no nulls), one dictionary-encoded, one
// unsigned and one boolean.
type parquetRow struct {
	Y    int64    `parquet:"y"`
	A    float64  `parquet:"a"`
	B    *float32 `parquet:"b,optional"`
	C    int32    `parquet:"c,dict"`
	D    uint16   `parquet:"d"`
	Flag bool     `parquet:"flag"`
}

func parquetRows(n int) []parquetRow {
	rows := make([]parquetRow, n)
	for i := range rows {
		b := float32(i) / 8
		rows[i] = parquetRow{Y: int64(i % 2), A: math.Sin(float64(i)) * 1e3, B: &b, C: int32(i%5 - 2), D: uint16(60000 + i%7), Flag: i%3 == 0}
	}
	return rows
}

// writeParquet writes rows with parquet-go, in row groups of groupRows
// and small pages, so that a reader must cross both.
func writeParquet[T any](t *testing.T, path string, rows []T, groupRows int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.MaxRowsPerRowGroup(groupRows), parquet.PageBufferSize(512))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReadParquet writes 10,000 rows with parquet-go (row groups of 3,000,
// pages of 512 bytes) and reads them through ReadDataFile, as temper's
// --data reads a file, against the same table written as CSV: y binds
// y[N] and the other five columns fill X[N, 5] in file order, with every
// value the CSV's (the float32 column's values are exact in both: eighths).
// Named F.1, F.2, ... the columns bind the matrix F instead.
func TestReadParquet(t *testing.T) {
	dir := t.TempDir()
	rows := parquetRows(10000)
	path := filepath.Join(dir, "d.parquet")
	writeParquet(t, path, rows, 3000)
	var csv strings.Builder
	csv.WriteString("y,a,b,c,d,flag\n")
	for _, r := range rows {
		flag := 0
		if r.Flag {
			flag = 1
		}
		fmt.Fprintf(&csv, "%d,%s,%g,%d,%d,%d\n", r.Y, fmt.Sprint(r.A), *r.B, r.C, r.D, flag)
	}
	csvPath := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(csvPath, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	decls := []compile.FieldDecl{{Name: "N", Int: true}, {Name: "y", Rank: 1, Int: true}, {Name: "X", Rank: 2}}
	got, err := compile.ReadDataFile(path, decls)
	if err != nil {
		t.Fatal(err)
	}
	want, err := compile.ReadDataFile(csvPath, decls)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"y", "X"} {
		g, w := got[name], want[name]
		if g == nil || !slices.Equal(g.Shape, w.Shape) || !slices.Equal(g.Values, w.Values) || g.Source != path {
			t.Errorf("%s: the Parquet file's %v is not the CSV's %v", name, g, w.Shape)
		}
	}
	if x := got["X"].Values; x[5*7+3] != 60000 || x[5*3+4] != 1 || x[5*7+2] != 0 {
		t.Errorf("row 8 of X is %v, want c = 0 and d = 60000; flag of row 4 %v, want 1", x[5*7:5*8], x[5*3+4])
	}

	type named struct {
		F1 float64 `parquet:"F.1"`
		Y  int32   `parquet:"y"`
		F2 float64 `parquet:"F.2"`
	}
	path = filepath.Join(dir, "named.parquet")
	writeParquet(t, path, []named{{1, 0, 2}, {3, 1, 4}}, 1)
	d, err := compile.ReadDataFile(path, []compile.FieldDecl{{Name: "y", Rank: 1, Int: true}, {Name: "F", Rank: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d["F"].Values, []float64{1, 2, 3, 4}) || !slices.Equal(d["F"].Shape, []int{2, 2}) || !slices.Equal(d["y"].Values, []float64{0, 1}) {
		t.Errorf("F.1, y, F.2 bound F = %v %v and y = %v", d["F"].Shape, d["F"].Values, d["y"].Values)
	}
}

// TestParquetErrors: a missing value or NaN is refused with its column and
// row, and so are integers a float64 does not hold, text, nested columns
// and a file that is not Parquet.
func TestParquetErrors(t *testing.T) {
	dir := t.TempDir()
	decls := []compile.FieldDecl{{Name: "y", Rank: 1}, {Name: "X", Rank: 2}}
	read := func(name string, write func(path string)) error {
		path := filepath.Join(dir, name)
		write(path)
		_, err := compile.ReadDataFile(path, decls)
		return err
	}
	type optional struct {
		Y *float64 `parquet:"y,optional"`
		X float64  `parquet:"x"`
	}
	nullAt := func(n, at int) []optional {
		rows := make([]optional, n)
		for i := range rows {
			if i != at {
				v := float64(i)
				rows[i].Y = &v
			}
		}
		return rows
	}
	type big struct {
		Y int64 `parquet:"y"`
	}
	type text struct {
		Y float64 `parquet:"y"`
		S string  `parquet:"name"`
	}
	type nested struct {
		Y float64   `parquet:"y"`
		L []float64 `parquet:"l,list"`
	}
	for _, c := range []struct {
		name  string
		write func(path string)
		want  string
	}{
		{"null.parquet", func(p string) { writeParquet(t, p, nullAt(5000, 3210), 2000) }, `null.parquet: column "y", row 3211: a missing value (null)`},
		{"nan.parquet", func(p string) {
			rows := nullAt(50, -1)
			rows[31].X = math.NaN()
			writeParquet(t, p, rows, 20)
		}, `nan.parquet: column "x", row 32: NaN`},
		{"big.parquet", func(p string) { writeParquet(t, p, []big{{1}, {1<<53 + 1}}, 10) }, `big.parquet: column "y", row 2: the integer 9007199254740992 is at or beyond 2^53`},
		{"text.parquet", func(p string) { writeParquet(t, p, []text{{1, "a"}}, 10) }, `text.parquet: column "name" holds BYTE_ARRAY values (text or bytes), not numbers`},
		{"nested.parquet", func(p string) { writeParquet(t, p, []nested{{1, []float64{2}}}, 10) }, `nested.parquet: column "l" is a nested or repeated column`},
		{"bad.parquet", func(p string) { os.WriteFile(p, []byte("y,x\n1,2\n"), 0o644) }, "bad.parquet: not a Parquet file"},
	} {
		if err := read(c.name, c.write); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
