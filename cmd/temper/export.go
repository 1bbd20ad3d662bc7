package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/temper-ppl/temper/infer/draws"
)

const exportUsage = "usage: temper export RUN_DIR|DRAWS.csv|CHAIN.csv... [--out DIR.zarr]"

// exportCommand is temper export: a run's draws as ArviZ's InferenceData,
// a Zarr store (az.from_zarr, xarray.open_zarr).
func exportCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, exportUsage); fs.PrintDefaults() }
	out := fs.String("out", "", "the Zarr store to write (default RUN_DIR/inference_data.zarr, or inference_data.zarr here)")
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil || len(pos) == 0 {
		return badf("%s", exportUsage)
	}
	t, err := readDraws(pos)
	if err != nil {
		return badf("temper export: %v", err)
	}
	if t.Index("replica__") >= 0 {
		if t, err = selectReplica(t, pos[0], 1); err != nil {
			return badf("temper export: %v", err)
		}
	}
	path := *out
	if path == "" {
		path = "inference_data.zarr"
		if info, err := os.Stat(pos[0]); err == nil && info.IsDir() {
			path = filepath.Join(pos[0], path)
		}
	}
	byCol := make([][][]float64, len(t.Columns)) // [column][chain][draw]
	for k, c := range t.Columns {
		byCol[k] = t.ByChain(c)
	}
	chains := make([][][]float64, len(byCol[0]))
	for c := range chains {
		chains[c] = make([][]float64, len(byCol[0][c]))
		for i := range chains[c] {
			row := make([]float64, len(t.Columns))
			for k := range row {
				row[k] = byCol[k][c][i]
			}
			chains[c][i] = row
		}
	}
	if err := draws.WriteInferenceData(path, t.Columns, chains); err != nil {
		return badf("temper export: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "InferenceData (posterior, sample_stats) of %d chains in %s: az.from_zarr reads it\n", len(chains), path)
	return err
}
