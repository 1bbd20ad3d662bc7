package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
)

// predictCommand evaluates the predict block of a model over the draws of a
// run, on data given by --data (default: the infer block's data).
func predictCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var data repeated
	fs.Var(&data, "data", "the data to predict (.json, .csv, .parquet, .npy or .npz); repeatable; default the infer block's")
	drawsPath := fs.String("draws", "", "a draws.csv written by temper run")
	out := fs.String("out", "", "write the definitions' posterior means to this CSV file")
	weightCycles := fs.Bool("weight-cycles", false, "weight the cycles of a cyclical run by their harmonic-mean mass (seed 002, appendix F)")
	flags, pos := reorderFlags(args, "weight-cycles")
	if err := fs.Parse(flags); err != nil {
		return badf("temper predict: %v", err)
	}
	if len(pos) != 1 || *drawsPath == "" {
		return badf("usage: temper predict MODEL.ppl --draws DRAWS.csv [--data FILE]... [--out PREDICTIONS.csv] [--weight-cycles]")
	}
	f, src, err := loadModel(pos[0])
	if err != nil {
		return err
	}
	cfg := defaultConfig()
	if err := cfg.fromInferBlock(f, pos[0]); err != nil {
		return badInput{lang.Format(err, src)}
	}
	if len(data) > 0 {
		cfg.data = data
	}
	m, err := compileModel(f, src, cfg.data)
	if err != nil {
		return err
	}
	p, err := m.Predictor()
	if err != nil {
		return badf("temper predict: %v", err)
	}
	table, err := draws.ReadFileLenient(*drawsPath)
	if err != nil {
		return badf("temper predict: %v", err)
	}
	cols := make([]int, len(m.ParamNames()))
	for i, name := range m.ParamNames() {
		if cols[i] = table.Index(name); cols[i] < 0 {
			return badf("temper predict: %s has no column %q: was it written by this model?", *drawsPath, name)
		}
	}
	rows := make([][]float64, len(table.Chain))
	for r := range rows {
		rows[r] = make([]float64, len(cols))
		for i, c := range cols {
			rows[r][i] = table.Values[c][r]
		}
	}
	var weights []float64 // per row of the table, for --weight-cycles
	if *weightCycles {
		byChain, err := cycleWeights(table, *drawsPath)
		if err != nil {
			return badf("temper predict: %v", err)
		}
		weights = rowWeights(table, byChain)
	}
	pred, err := p.PredictWeighted(rows, weights)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "posterior predictive over %d draws\n", pred.Draws)
	if weights != nil {
		fmt.Fprintln(stdout, describeWeights([][]float64{weights}))
	}
	for _, s := range pred.Samples {
		fmt.Fprintf(stdout, "%s: %d rows, NLL %.4f per row", s.Name, s.Rows, s.NLL)
		if !math.IsNaN(s.Accuracy) {
			fmt.Fprintf(stdout, ", accuracy %.4f", s.Accuracy)
		}
		fmt.Fprintln(stdout)
	}
	for _, d := range pred.Defines {
		if len(d.Mean) == 1 {
			fmt.Fprintf(stdout, "%s: posterior mean %.6g\n", d.Name, d.Mean[0])
		} else {
			fmt.Fprintf(stdout, "%s: %d posterior means%s\n", d.Name, len(d.Mean), map[bool]string{true: " (in " + *out + ")", false: " (--out FILE writes them)"}[*out != ""])
		}
	}
	if *out == "" {
		return nil
	}
	file, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := csv.NewWriter(file)
	w.Write([]string{"name", "mean"})
	for _, d := range pred.Defines {
		for i, c := range d.Columns() {
			w.Write([]string{c, strconv.FormatFloat(d.Mean[i], 'g', -1, 64)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// cycleWeights are the cycle weights of seed 002, appendix F
// (infer.CycleWeights) of a draws file written by a cyclical run, per chain
// in the order of t.ChainIDs: each cycle's draws weigh the harmonic mean of
// their densities exp(lp__).
func cycleWeights(t *draws.Table, path string) ([][]float64, error) {
	if t.Index("cycle__") < 0 || t.Index("lp__") < 0 {
		return nil, fmt.Errorf("--weight-cycles needs the lp__ and cycle__ columns that a cyclical sampler writes (cyclical_sgld, cyclical_sghmc, snapshot); %s has none", path)
	}
	lp, cyc := t.ByChain("lp__"), t.ByChain("cycle__")
	cycles := make([][]int, len(cyc))
	for c, chain := range cyc {
		for _, v := range chain {
			cycles[c] = append(cycles[c], int(v))
		}
	}
	return infer.CycleWeights(lp, cycles), nil
}

// rowWeights lays weights per chain (as cycleWeights returns them) out in
// the table's row order.
func rowWeights(t *draws.Table, byChain [][]float64) []float64 {
	ids := t.ChainIDs()
	next := make([]int, len(ids))
	out := make([]float64, len(t.Chain))
	for r, chain := range t.Chain {
		m, _ := slices.BinarySearch(ids, chain)
		out[r] = byChain[m][next[m]]
		next[m]++
	}
	return out
}

// describeWeights says how much the cycle weights concentrate the draws:
// Kish's effective size (Σw)²/Σw² of the weighted sample.
func describeWeights(weights [][]float64) string {
	var s1, s2 float64
	n := 0
	for _, chain := range weights {
		for _, w := range chain {
			s1, s2, n = s1+w, s2+w*w, n+1
		}
	}
	return fmt.Sprintf("cycle-weighted (harmonic-mean weights, seed 002 appendix F): effective size %.0f of %d draws", s1*s1/s2, n)
}
