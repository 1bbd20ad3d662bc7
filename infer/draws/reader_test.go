package draws_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer/draws"
)

// Every value survives a write and a read bit for bit, NaN as NaN.
func TestRoundTrip(t *testing.T) {
	columns := []string{"lp__", "w.1", "w.2", "cycle__"}
	values := [][]float64{
		{-1.5, 0.1, 1.0 / 3, 1},
		{math.NaN(), math.Inf(1), math.Inf(-1), 1},
		{1e-300, -1e-300, 5e-324, 2},
		{math.MaxFloat64, -math.MaxFloat64, math.Copysign(0, -1), 2},
		{123456789.123456789, math.Pi, -math.E, 3},
	}
	chains := []int{2, 1, 2, 1, 3}
	var b bytes.Buffer
	w, err := draws.NewWriter(&b, draws.Header{Comments: []string{"a comment", "#two"}, Columns: columns})
	if err != nil {
		t.Fatal(err)
	}
	for r, v := range values {
		if err := w.Write(chains[r], 10*r, v); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()

	tab, err := draws.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Comments, []string{"a comment", "#two"}) {
		t.Errorf("comments %q", tab.Comments)
	}
	if !slices.Equal(tab.Columns, columns) {
		t.Errorf("columns %q, want %q", tab.Columns, columns)
	}
	if !slices.Equal(tab.Chain, chains) || !slices.Equal(tab.Iter, []int{0, 10, 20, 30, 40}) {
		t.Errorf("chain %v, iter %v", tab.Chain, tab.Iter)
	}
	for r := range values {
		for k := range columns {
			got, want := tab.Values[k][r], values[r][k]
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("row %d, %s: read %v, wrote %v", r, columns[k], got, want)
			}
		}
	}
	if got := tab.Params(); !slices.Equal(got, []string{"w.1", "w.2"}) {
		t.Errorf("Params() = %q", got)
	}
	if got := tab.ChainIDs(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("ChainIDs() = %v", got)
	}
	byChain := tab.ByChain("w.2")
	want := [][]float64{{math.Inf(-1), math.Copysign(0, -1)}, {1.0 / 3, 5e-324}, {-math.E}}
	if len(byChain) != 3 || !slices.Equal(byChain[0], want[0]) || !slices.Equal(byChain[1], want[1]) || !slices.Equal(byChain[2], want[2]) {
		t.Errorf("ByChain(w.2) = %v, want %v", byChain, want)
	}
	if tab.ByChain("nope") != nil || tab.Index("nope") != -1 || tab.Index("w.1") != 1 {
		t.Errorf("lookup of columns is wrong")
	}
}

// A CmdStan output file: one chain, no chain or iter column, comments
// before, inside and after the draws, C++'s inf and nan, CRLF line ends.
func TestReadCmdStan(t *testing.T) {
	file := strings.ReplaceAll(`# stan_version_major = 2
# model = bernoulli_model
lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__,theta,w.1
# Adaptation terminated
# Step size = 0.93
-7.0,0.9,0.93,1,3,0,7.2,0.25,inf
-6.8,1,0.93,2,3,0,7.0,0.31,nan

#  Elapsed Time: 0.005 seconds (Warm-up)
`, "\n", "\r\n")
	tab, err := draws.Read(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Params(); !slices.Equal(got, []string{"theta", "w.1"}) {
		t.Errorf("Params() = %q", got)
	}
	if len(tab.Columns) != 9 || tab.Columns[1] != "accept_stat__" {
		t.Errorf("columns %q", tab.Columns)
	}
	if !slices.Equal(tab.Chain, []int{1, 1}) || !slices.Equal(tab.Iter, []int{1, 2}) {
		t.Errorf("chain %v iter %v, want one chain numbered 1, 2", tab.Chain, tab.Iter)
	}
	if v := tab.Values[8]; !math.IsInf(v[0], 1) || !math.IsNaN(v[1]) {
		t.Errorf("w.1 = %v, want +Inf, NaN", v)
	}
	if len(tab.Comments) != 5 || tab.Comments[4] != " Elapsed Time: 0.005 seconds (Warm-up)" {
		t.Errorf("comments %q", tab.Comments)
	}
}

// With a chain column but no iter column, rows are numbered per chain.
func TestReadNumbersIterPerChain(t *testing.T) {
	tab, err := draws.Read(strings.NewReader("chain,x\n1,0\n2,0\n1,0\n2,0\n2,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.Iter, []int{1, 1, 2, 2, 3}) {
		t.Errorf("iter %v, want 1 1 2 2 3", tab.Iter)
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct{ name, file, want string }{
		{"empty", "", "draws.csv: no header row: the file is empty"},
		{"only comments", "# a\n# b\n", "draws.csv: no header row: the file has only comments"},
		{"too few fields", "# c\nchain,iter,lp__,mu\n1,1,-3,0.5\n1,2,-3\n", "draws.csv:4: row has 3 fields, header has 4"},
		{"too many fields", "chain,iter,mu\n1,1,2,3\n", "draws.csv:2: row has 4 fields, header has 3"},
		{"not a number", "chain,iter,mu\n1,1,0.5\n1,2,abc\n", `draws.csv:3: column "mu": "abc" is not a number`},
		{"empty value", "chain,iter,mu\n1,1,\n", `draws.csv:2: column "mu": "" is not a number`},
		{"chain not integer", "chain,iter,mu\n1.5,1,0\n", `draws.csv:2: column "chain": "1.5" is not an integer`},
		{"duplicate column", "mu,sigma,mu\n", `draws.csv:1: column "mu" appears twice in the header`},
		{"empty column name", "mu,,sigma\n", "draws.csv:1: column 2 of the header has an empty name"},
		{"truncated last line", "chain,iter,lp__,mu\n1,1,-3,0.5\n1,2,-3.1",
			"draws.csv:3: row has 3 fields, header has 4 (the last line is incomplete, as when a run is killed mid-write; ReadLenient drops it)"},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "draws.csv")
	for _, c := range cases {
		if err := os.WriteFile(path, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := draws.ReadFile(path)
		want := strings.Replace(c.want, "draws.csv", path, 1)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", c.name, err, want)
		}
		// Read has no file name and says "line N".
		_, err = draws.Read(strings.NewReader(c.file))
		want = strings.TrimPrefix(c.want, "draws.csv: ")
		want = strings.Replace(want, "draws.csv:", "line ", 1)
		if err == nil || err.Error() != want {
			t.Errorf("%s: Read error %v, want %s", c.name, err, want)
		}
	}
	if _, err := draws.ReadFile(filepath.Join(dir, "missing.csv")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// A run killed mid-write leaves a last line without a line break, cut
// anywhere. ReadLenient drops it (even when what is left parses, as a cut
// number does) and keeps the rest; Read fails on it if it does not parse.
func TestReadLenient(t *testing.T) {
	whole := "chain,iter,lp__,mu\n1,1,-3,0.5\n1,2,-3.25,0.75\n"
	for cut := len("chain,iter,lp__,mu\n1,1,-3,0.5\n") + 1; cut < len(whole); cut++ {
		file := whole[:cut]
		tab, err := draws.ReadLenient(strings.NewReader(file))
		if err != nil {
			t.Fatalf("cut at %d (%q): %v", cut, file, err)
		}
		if len(tab.Chain) != 1 || tab.Values[1][0] != 0.5 || tab.DroppedLine != 3 {
			t.Errorf("cut at %d: %d rows, dropped line %d; want row 1 kept and line 3 dropped", cut, len(tab.Chain), tab.DroppedLine)
		}
	}
	// Complete files lose nothing.
	tab, err := draws.ReadLenient(strings.NewReader(whole))
	if err != nil || len(tab.Chain) != 2 || tab.DroppedLine != 0 {
		t.Errorf("complete file: %v rows, dropped %d, error %v", len(tab.Chain), tab.DroppedLine, err)
	}
	// A cut number parses, so Read keeps it: only ReadLenient can tell.
	tab, err = draws.Read(strings.NewReader(whole[:len(whole)-2]))
	if err != nil || tab.Values[1][1] != 0.7 {
		t.Errorf("Read of a cut number: %v, error %v", tab, err)
	}
	// Errors before the last line are still errors.
	if _, err := draws.ReadLenient(strings.NewReader("mu\nx\n1")); err == nil || err.Error() != `line 2: column "mu": "x" is not a number` {
		t.Errorf("ReadLenient of a bad middle line: %v", err)
	}
}

// A writer that is never flushed by its caller has still passed on every
// complete batch: after 250 rows in no time at least 200 are in the file,
// and the file reads.
func TestInterruptedWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := draws.NewWriter(f, draws.Header{Columns: draws.FlatNames("w", []int{3})})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 250 {
		w.Write(1, i+1, []float64{float64(i), 1, 2})
	}
	// No Flush: the process "dies" here.
	tab, err := draws.ReadFileLenient(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tab.Chain); n < 200 || tab.DroppedLine != 0 {
		t.Errorf("%d rows survived (dropped line %d), want at least 200 whole rows", n, tab.DroppedLine)
	}
}

func TestWhere(t *testing.T) {
	tab, err := draws.Read(strings.NewReader("chain,iter,lp__,x,replica__\n1,1,-1,0.5,1\n1,1,-2,1.5,2\n2,1,-3,2.5,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	target := tab.Where("replica__", 1)
	if got := target.ByChain("x"); len(got) != 2 || got[0][0] != 0.5 || got[1][0] != 2.5 || len(target.Chain) != 2 {
		t.Errorf("Where(replica__ = 1) kept %v", got)
	}
	if tab.Where("absent", 1) != tab {
		t.Error("Where on a missing column should keep every row")
	}
}
