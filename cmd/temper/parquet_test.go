package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestParquetData writes a logistic regression's data (200 rows: an int
// outcome and three features) as Parquet with parquet-go and as CSV, and
// samples the model with --data on each: the draws are the same, bit for
// bit, since both files bind the same values to y[N] and X[N, 3].
func TestParquetData(t *testing.T) {
	type row struct {
		Y  int32   `parquet:"y"`
		X1 float64 `parquet:"x1"`
		X2 float64 `parquet:"x2"`
		X3 float32 `parquet:"x3"`
	}
	dir := t.TempDir()
	table := make([]row, 200)
	var csv strings.Builder
	csv.WriteString("y,x1,x2,x3\n")
	for i := range table {
		x1, x2, x3 := math.Sin(float64(i)), math.Cos(float64(3*i)), float32(i%9-4)/4
		table[i] = row{int32(i % 2), x1, x2, x3}
		if x1+x2 > 0.5 {
			table[i].Y = 1
		}
		fmt.Fprintf(&csv, "%d,%v,%v,%v\n", table[i].Y, x1, x2, x3)
	}
	pq := filepath.Join(dir, "d.parquet")
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[row](f, parquet.MaxRowsPerRowGroup(64))
	if _, err := w.Write(table); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	csvPath := write(t, dir, "d.csv", csv.String())
	model := filepath.Join("..", "..", "examples", "logistic", "model.ppl") // --data replaces its infer block's
	var draws [][]string
	for _, data := range []string{pq, csvPath} {
		out := filepath.Join(dir, filepath.Ext(data)[1:])
		if code, _, errs := runCLI(t, context.Background(), "run", model, "--data", data, "--chains", "2", "--iters", "100", "--batch", "50", "--quiet", "--out", out); code != 0 {
			t.Fatalf("--data %s: exit %d: %s", data, code, errs)
		}
		draws = append(draws, rows(t, filepath.Join(out, runfiles.DrawsFile)))
	}
	if len(draws[1]) != 201 || !slices.Equal(draws[0], draws[1]) {
		t.Errorf("the draws with the Parquet file (%d rows) are not those with the CSV (%d rows)", len(draws[0]), len(draws[1]))
	}
	if code, out, errs := runCLI(t, context.Background(), "check", model, "--data", pq); code != 0 || !strings.Contains(out, "200 observations") {
		t.Errorf("temper check --data d.parquet: exit %d, %q %q", code, out, errs)
	}
}
