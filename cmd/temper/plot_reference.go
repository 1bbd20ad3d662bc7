package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/infer/plots"
)

// referenceFormat is the reference file's format, as the errors and
// temper plot's help state it (docs/outputs.md has it in full).
const referenceFormat = `{"parameters": {"NAME": {"mean": m, "sd": s}, ...}} (or "posterior" for "parameters") and/or {"draws": {"NAME": [x1, x2, ...], ...}}, NAME as temper's columns (beta.1) or Stan's (beta[1])`

// referenceFile is a reference posterior, as --reference reads it: a
// summary per parameter, its draws, or both (the draws win), and where it
// came from. Names are temper's columns (beta.1, Omega.2.1) or Stan's
// (beta[1], Omega[2,1]). Fields it does not know, such as the quantiles
// and ESS of examples/data/german_credit.reference.json, are allowed.
// The summaries may be under "posterior" instead of "parameters", as the
// examples' own long runs record them (examples/garch/reference.json).
type referenceFile struct {
	Source     string                      `json:"source"`
	Parameters map[string]referenceSummary `json:"parameters"`
	Posterior  map[string]referenceSummary `json:"posterior"`
	Draws      map[string][]float64        `json:"draws"`
}

// referenceSummary is a parameter's summary in a reference file.
type referenceSummary struct {
	Mean *float64 `json:"mean"`
	SD   *float64 `json:"sd"`
}

// readReferenceFile reads the reference posterior at path: each parameter's
// reference, by temper's column names. Every error names the file.
func readReferenceFile(path string) (map[string]plots.Reference, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--reference %s: %v", path, err)
	}
	var f referenceFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("--reference %s is not a reference posterior: %v; want %s", path, err, referenceFormat)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("--reference %s: text after the JSON object; want %s", path, referenceFormat)
	}
	out := map[string]plots.Reference{}
	summaries := maps.Clone(f.Parameters)
	if summaries == nil {
		summaries = map[string]referenceSummary{}
	}
	maps.Copy(summaries, f.Posterior)
	for name, p := range summaries {
		if p.Mean == nil || p.SD == nil || !(*p.SD > 0) || math.IsInf(*p.SD, 0) || math.IsNaN(*p.Mean) || math.IsInf(*p.Mean, 0) {
			return nil, fmt.Errorf("--reference %s: parameter %s needs a finite mean and a positive sd; want %s", path, name, referenceFormat)
		}
		out[stanColumn(name)] = plots.Reference{Mean: *p.Mean, SD: *p.SD}
	}
	for name, d := range f.Draws {
		if len(d) < 2 {
			return nil, fmt.Errorf("--reference %s: parameter %s has %d draws; want at least 2", path, name, len(d))
		}
		out[stanColumn(name)] = plots.Reference{Draws: d}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--reference %s names no parameter; want %s", path, referenceFormat)
	}
	return out, nil
}

// stanColumn is a parameter's name as temper's draws name its column:
// Stan's beta[1] is beta.1, Omega[2,1] is Omega.2.1.
func stanColumn(name string) string {
	return strings.NewReplacer("[", ".", "]", "", ",", ".", " ", "").Replace(name)
}

// plotReference draws the run's posterior of each column against the
// reference's (temper plot --kind reference).
func plotReference(t *draws.Table, cols []string, refPath, out string) error {
	if refPath == "" {
		return fmt.Errorf("--kind reference draws the run against a reference posterior: name its file with --reference REF.json (%s)", referenceFormat)
	}
	refs, err := readReferenceFile(refPath)
	if err != nil {
		return err
	}
	var missing []string
	shown := make([]plots.Reference, len(cols))
	for i, c := range cols {
		r, ok := refs[c]
		if !ok {
			missing = append(missing, c)
		}
		shown[i] = r
	}
	if len(missing) > 0 {
		names := slices.Sorted(maps.Keys(refs))
		return fmt.Errorf("--reference %s has no %s (it has %s); choose the columns with --params", refPath, strings.Join(missing, ", "), strings.Join(names[:min(8, len(names))], ", "))
	}
	return plots.WriteReference(out, t, cols, shown, "reference ("+filepath.Base(refPath)+")")
}
