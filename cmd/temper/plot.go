package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/plots"
)

const plotUsage = "usage: temper plot RUN_DIR|DRAWS.csv|CHAIN.csv... [--kind " + "trace|density|rank|acf|pair" + "] [--params a,b,...] [--out FILE] [--replica N]"

// plotCommand is temper plot: a plot of a run's draws, read as temper
// summary reads them, drawn by package plots.
func plotCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, plotUsage); fs.PrintDefaults() }
	kind := fs.String("kind", "trace", "trace, density, rank, acf or pair ("+strings.Join(plots.Kinds, ", ")+")")
	params := fs.String("params", "", "comma-separated parameters, each a column (beta.2) or all of a parameter's (beta); default the first four (three for pair)")
	out := fs.String("out", "", "the image to write, .svg, .png, .pdf, ... (default KIND.svg in RUN_DIR, or in the current folder)")
	replica := fs.Int("replica", 1, "the ladder level to plot in a file written with --keep all (1: the target)")
	flags, pos := reorderFlags(args)
	if err := fs.Parse(flags); err != nil {
		return badf("temper plot: %v", err)
	}
	if len(pos) == 0 {
		return badf("%s", plotUsage)
	}
	t, err := readDraws(pos)
	if err != nil {
		return badf("temper plot: %v", err)
	}
	if t, err = selectReplica(t, pos[0], *replica); err != nil {
		return badf("temper plot: %v", err)
	}
	cols, err := plotColumns(t, *params, *kind)
	if err != nil {
		return badf("temper plot: %v", err)
	}
	path := *out
	if path == "" {
		path = *kind + ".svg"
		if info, err := os.Stat(pos[0]); err == nil && info.IsDir() {
			path = filepath.Join(pos[0], path)
		}
	}
	if err := plots.Write(path, *kind, t, cols, nil); err != nil {
		return badf("temper plot: %v", err)
	}
	_, err = fmt.Fprintf(stdout, "%s plot of %s in %s\n", *kind, strings.Join(cols, ", "), path)
	return err
}

// plotColumns are the columns the --params list names, or by default the
// first parameters (four, or three for a pair plot).
func plotColumns(t *draws.Table, list, kind string) ([]string, error) {
	if list == "" {
		n := 4
		if kind == "pair" {
			n = 3
		}
		params := t.Params()
		return params[:min(n, len(params))], nil
	}
	var cols []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, c := range t.Columns {
			if c == name || strings.HasPrefix(c, name+".") {
				cols, found = append(cols, c), true
			}
		}
		if !found {
			return nil, fmt.Errorf("no column %q in the draws (they have %s)", name, strings.Join(t.Params()[:min(8, len(t.Params()))], ", "))
		}
	}
	if len(cols) > 6 {
		return nil, fmt.Errorf("--params %s names %d columns; a plot takes at most 6", list, len(cols))
	}
	return cols, nil
}
