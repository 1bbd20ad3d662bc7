package compile_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

// BenchmarkReadCSV reads a 100,000 × 21 CSV (y and 20 feature columns
// bound to y[N] and X[N, 20], about 26 MB), reporting MB/s of the file and
// the bytes allocated per byte of data stored (8 per float64).
func BenchmarkReadCSV(b *testing.B) {
	const rows, cols = 100000, 20
	var buf bytes.Buffer
	buf.WriteString("y")
	for j := range cols {
		fmt.Fprintf(&buf, ",x%d", j+1)
	}
	buf.WriteByte('\n')
	rng := rand.New(rand.NewPCG(1, 2))
	for range rows {
		fmt.Fprintf(&buf, "%d", rng.IntN(2))
		for range cols {
			fmt.Fprintf(&buf, ",%.6g", rng.NormFloat64())
		}
		buf.WriteByte('\n')
	}
	path := filepath.Join(b.TempDir(), "d.csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	decls := []compile.FieldDecl{{Name: "N", Int: true}, {Name: "y", Rank: 1, Int: true}, {Name: "X", Rank: 2}}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		d, err := compile.ReadDataFile(path, decls)
		if err != nil {
			b.Fatal(err)
		}
		if len(d["X"].Values) != rows*cols {
			b.Fatalf("X has %d values", len(d["X"].Values))
		}
	}
}

// TestReadCSVInParts reads a 9 MB CSV, which the reader parses in parts
// on several goroutines (one on a single-core machine), and compares it
// with the one-pass reader of the same text: the same values, with blank
// lines and CRLF line ends on the way; an error in the file's second half
// names its physical line.
func TestReadCSVInParts(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString("y,x.1,x.2\n")
	rng := rand.New(rand.NewPCG(3, 4))
	const rows = 300000
	for i := range rows {
		fmt.Fprintf(&buf, "%d,%.17g,%.6g", rng.IntN(2), rng.NormFloat64(), rng.Float64())
		switch {
		case i%1000 == 7:
			buf.WriteString("\r\n")
		case i%977 == 3:
			buf.WriteString("\n\n")
		default:
			buf.WriteByte('\n')
		}
	}
	decls := []compile.FieldDecl{{Name: "y", Rank: 1, Int: true}, {Name: "x", Rank: 2}}
	path := filepath.Join(t.TempDir(), "d.csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := compile.ReadDataFile(path, decls)
	if err != nil {
		t.Fatal(err)
	}
	want, err := compile.ReadCSV("d.csv", buf.Bytes(), decls)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"y", "x"} {
		if !slices.Equal(got[f].Shape, want[f].Shape) || !slices.Equal(got[f].Values, want[f].Values) {
			t.Errorf("%s: shape %v from the parts, %v in one pass, or different values", f, got[f].Shape, want[f].Shape)
		}
	}
	if got["x"].Shape[0] != rows {
		t.Errorf("%d rows, want %d", got["x"].Shape[0], rows)
	}
	// A bad cell three quarters of the way in.
	lines := bytes.Split(buf.Bytes(), []byte("\n"))
	bad := len(lines) * 3 / 4
	for len(bytes.TrimSpace(lines[bad])) == 0 {
		bad++
	}
	lines[bad] = []byte("1,oops,2")
	if err := os.WriteFile(path, bytes.Join(lines, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = compile.ReadDataFile(path, decls)
	if want := fmt.Sprintf("d.csv:%d: column \"x.1\": \"oops\" is not a number", bad+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestReadCSVEdges: a byte-order mark, a last line without its end, quoted
// cells, CRLF, and what is refused, from a file and from bytes alike.
func TestReadCSVEdges(t *testing.T) {
	decls := []compile.FieldDecl{{Name: "y", Rank: 1}, {Name: "x", Rank: 1}}
	dir := t.TempDir()
	for _, c := range []struct {
		text string
		y    []float64
		err  string
	}{
		{"\ufeffy,x\n1,2\n3,4", []float64{1, 3}, ""},
		{"y,x\r\n1,2\r\n\r\n3,4\r\n", []float64{1, 3}, ""},
		{"\"y\",\"x\"\n\"1\",2\n3,\"4\"\n", []float64{1, 3}, ""},
		{"y,x\n1,NA\n,4\n", []float64{1, math.NaN()}, ""},
		{"y,x\n", nil, "needs a header row and at least one data row"},
		{"", nil, "needs a header row and at least one data row"},
		{"y,x\n1,2,3\n", nil, "e.csv:2: 3 fields, and the header has 2"},
		{"y,x\n1,2\n1,two\n", nil, `e.csv:3: column "x": "two" is not a number`},
	} {
		path := filepath.Join(dir, "e.csv")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for how, read := range map[string]func() (compile.Data, error){
			"file":  func() (compile.Data, error) { return compile.ReadDataFile(path, decls) },
			"bytes": func() (compile.Data, error) { return compile.ReadCSV(path, []byte(c.text), decls) },
		} {
			d, err := read()
			switch {
			case c.err != "":
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("%q from %s: error %v, want %q", c.text, how, err, c.err)
				}
			case err != nil:
				t.Errorf("%q from %s: %v", c.text, how, err)
			case !slices.EqualFunc(d["y"].Values, c.y, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }):
				t.Errorf("%q from %s: y = %v, want %v", c.text, how, d["y"].Values, c.y)
			}
		}
	}
}
