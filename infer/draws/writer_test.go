package draws_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper/infer/draws"
)

func TestWriterOutput(t *testing.T) {
	var b bytes.Buffer
	w, err := draws.NewWriter(&b, draws.Header{
		Comments: []string{"temper 0.1", "model = logistic\ndata = german.csv", ""},
		Columns:  []string{"lp__", "w.1", "w.2", "temperature__"},
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]float64{
		{-12.5, 0.1, 1.0 / 3, 1},
		{math.NaN(), math.Inf(1), math.Inf(-1), 1e-300},
		{math.Copysign(0, -1), 5e-324, math.MaxFloat64, 2},
	}
	for i, r := range rows {
		if err := w.Write(2, i+1, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `# temper 0.1
# model = logistic
# data = german.csv
#
chain,iter,lp__,w.1,w.2,temperature__
2,1,-12.5,0.1,0.3333333333333333,1
2,2,NaN,+Inf,-Inf,1e-300
2,3,-0,5e-324,1.7976931348623157e+308,2
`
	if b.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", b.String(), want)
	}
}

func lines(s string) int { return strings.Count(s, "\n") }

// Write flushes after FlushRows rows or FlushInterval of wall time, and
// not before: the header reaches the file at once, rows only in batches.
func TestWriterFlushPolicy(t *testing.T) {
	var out bytes.Buffer
	w, err := draws.NewWriter(&out, draws.Header{Columns: []string{"lp__"}})
	if err != nil {
		t.Fatal(err)
	}
	if lines(out.String()) != 1 {
		t.Fatalf("header not written at once: %q", out.String())
	}
	clock := time.Unix(0, 0)
	draws.SetClock(w, func() time.Time { return clock })

	for i := 1; i < draws.FlushRows; i++ {
		w.Write(1, i, []float64{0})
	}
	if got := lines(out.String()); got != 1 {
		t.Fatalf("after %d rows in no time, %d lines reached the writer, want only the header", draws.FlushRows-1, got)
	}
	w.Write(1, draws.FlushRows, []float64{0})
	if got := lines(out.String()); got != 1+draws.FlushRows {
		t.Fatalf("after %d rows, %d lines reached the writer, want %d", draws.FlushRows, got, 1+draws.FlushRows)
	}

	w.Write(1, 101, []float64{0})
	clock = clock.Add(draws.FlushInterval - time.Millisecond)
	w.Write(1, 102, []float64{0})
	if got := lines(out.String()); got != 1+draws.FlushRows {
		t.Fatalf("rows flushed before %v had passed", draws.FlushInterval)
	}
	clock = clock.Add(time.Millisecond)
	w.Write(1, 103, []float64{0})
	if got := lines(out.String()); got != 4+draws.FlushRows {
		t.Fatalf("after %v, %d lines reached the writer, want %d", draws.FlushInterval, got, 4+draws.FlushRows)
	}
}

func TestWriterErrors(t *testing.T) {
	for name, cols := range map[string][]string{
		"empty name": {"lp__", ""},
		"duplicate":  {"mu", "lp__", "mu"},
		"chain":      {"chain", "mu"},
		"iter":       {"iter"},
		"comma":      {"a,b"},
		"quote":      {`a"`},
		"line break": {"a\nb"},
	} {
		if _, err := draws.NewWriter(&bytes.Buffer{}, draws.Header{Columns: cols}); err == nil {
			t.Errorf("%s: NewWriter accepted columns %q", name, cols)
		}
	}

	var b bytes.Buffer
	w, _ := draws.NewWriter(&b, draws.Header{Columns: []string{"lp__", "mu"}})
	if err := w.Write(1, 1, []float64{1}); err == nil || !strings.Contains(err.Error(), "1 values for 2 columns") {
		t.Errorf("short row: error %v", err)
	}
	w.Flush()
	if strings.Count(b.String(), "\n") != 1 {
		t.Errorf("a rejected row was written: %q", b.String())
	}

	broken := errors.New("disk full")
	fw, err := draws.NewWriter(&failAfter{ok: 1, err: broken}, draws.Header{Columns: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(1, 1, []float64{1}); err != nil {
		t.Fatal(err) // buffered, not yet written
	}
	if err := fw.Flush(); !errors.Is(err, broken) {
		t.Errorf("Flush on a failing writer: %v, want %v", err, broken)
	}
	if err := fw.Write(1, 2, []float64{1}); !errors.Is(err, broken) {
		t.Errorf("Write after a failed flush: %v, want the same error", err)
	}
}

// failAfter accepts its first ok writes and fails the rest with err.
type failAfter struct {
	ok  int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.ok == 0 {
		return 0, f.err
	}
	f.ok--
	return len(p), nil
}

// TestOneChainFiles writes two chains in CmdStan's layout, a file each
// with comments after the header and at the end, and reads them back as
// one run.
func TestOneChainFiles(t *testing.T) {
	var files []*draws.Table
	for c := range 2 {
		var b strings.Builder
		w, err := draws.NewWriter(&b, draws.Header{Comments: []string{"model = m", "  sample"}, Columns: []string{"lp__", "mu"}, OneChain: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Comment("Adaptation terminated", "Step size = 0.5"); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := w.Write(c+1, i+1, []float64{-float64(i + 1), float64(10*c + i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Comment("", " Elapsed Time: 1 seconds (Total)"); err != nil {
			t.Fatal(err)
		}
		want := "# model = m\n#   sample\nlp__,mu\n# Adaptation terminated\n# Step size = 0.5\n-1,0\n-2,1\n-3,2\n#\n#  Elapsed Time: 1 seconds (Total)\n"
		if c == 0 && b.String() != want {
			t.Fatalf("chain 1's file:\n%s\nwant:\n%s", b.String(), want)
		}
		tab, err := draws.Read(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, tab)
	}
	run, err := draws.Concat(files...)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.ByChain("mu"); !reflect.DeepEqual(got, [][]float64{{0, 1, 2}, {10, 11, 12}}) {
		t.Errorf("the joined chains of mu are %v", got)
	}
	if _, err := draws.Concat(files[0], &draws.Table{Columns: []string{"lp__", "sigma"}}); err == nil {
		t.Error("tables of different columns were joined")
	}
}
