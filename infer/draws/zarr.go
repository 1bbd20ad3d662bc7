package draws

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// WriteInferenceData writes a run's draws as ArviZ's InferenceData in a
// Zarr store (format 2) at dir, which az.from_zarr and xarray.open_zarr
// read, with the groups, names and types ArviZ's from_cmdstan gives a
// CmdStan run: posterior, each parameter one array of dimensions (chain,
// draw, NAME_dim_0, ...), its flattened columns (w.1.2) put back in
// place; sample_stats, the sampler's columns under ArviZ's names
// (arvizStats: lp, acceptance_rate, step_size, tree_depth and n_steps as
// integers, diverging as booleans, energy); log_likelihood, the log_lik
// columns (--log-lik); posterior_predictive, the variables g names; and,
// from g.Prior, a run of the prior, prior and prior_predictive.
// chains[c][i] is chain c's draw i, one value per column; chains are cut
// to the shortest. Zarr is JSON metadata beside raw little-endian chunks,
// one chunk per array here, so no library is needed; the store is
// consolidated (.zmetadata), as xarray prefers.
func WriteInferenceData(dir string, columns []string, chains [][][]float64, g Groups) error {
	if len(chains) == 0 {
		return fmt.Errorf("draws: no chains to write")
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	z := &zarrStore{dir: dir, meta: map[string]any{}}
	z.group("")
	z.groups(columns, chains, g.Predictive, "posterior", "posterior_predictive")
	if p := g.Prior; p != nil {
		if len(p.Chains) == 0 {
			return fmt.Errorf("draws: the prior run has no chains")
		}
		z.groups(p.Columns, p.Chains, g.Predictive, "prior", "prior_predictive")
	}
	if len(g.Observed) > 0 {
		z.group("observed_data")
		names := make([]string, 0, len(g.Observed))
		for name := range g.Observed {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			o := g.Observed[name]
			if len(o.Shape) == 0 { // a scalar: one element along its own axis
				o.Shape = []int{1}
			}
			dims := make([]string, len(o.Shape))
			for d := range dims {
				dims[d] = fmt.Sprintf("%s_dim_%d", name, d)
			}
			dtype := "<f8"
			if o.Int {
				dtype = "<i8"
			}
			z.array("observed_data/"+name, o.Shape, dims, dtype, func(i int) float64 { return o.Values[i] })
		}
	}
	if z.err != nil {
		return z.err
	}
	return z.writeJSON(".zmetadata", map[string]any{"metadata": z.meta, "zarr_consolidated_format": 1})
}

// Groups say how a run's variables split among InferenceData's groups.
type Groups struct {
	// Predictive names the variables (generated quantities, y_rep) that
	// go to posterior_predictive, and to prior_predictive in the prior.
	Predictive []string
	// Prior is a run of the prior (temper run --prior), or nil.
	Prior *Run
	// Observed are data fields for the group observed_data, by name.
	Observed map[string]Observed
}

// Observed is a data field's values (row-major) and shape.
type Observed struct {
	Values []float64
	Shape  []int
	Int    bool
}

// Run is a run's columns and draws, as WriteInferenceData takes them.
type Run struct {
	Columns []string
	Chains  [][][]float64
}

// groups writes one run's groups: its parameters to main (posterior or
// prior), the predictive variables to predictive, and, for the posterior,
// sample_stats and log_likelihood.
func (z *zarrStore) groups(columns []string, chains [][][]float64, predictive []string, main, predictiveGroup string) {
	draws := len(chains[0])
	for _, c := range chains {
		draws = min(draws, len(c))
	}
	groups := map[string][]zarrVar{}
	for _, v := range zarrVars(columns) {
		switch {
		case v.group == "posterior" && slices.Contains(predictive, v.name):
			v.group = predictiveGroup
		case v.group == "posterior":
			v.group = main
		case main == "prior":
			continue // the prior run's sampler diagnostics and log_lik are not ArviZ's prior groups
		}
		groups[v.group] = append(groups[v.group], v)
	}
	for _, g := range []string{main, predictiveGroup, "sample_stats", "log_likelihood"} {
		vars := groups[g]
		if len(vars) == 0 {
			continue
		}
		z.group(g)
		z.array(g+"/chain", []int{len(chains)}, []string{"chain"}, "<i8", func(i int) float64 { return float64(i) })
		z.array(g+"/draw", []int{draws}, []string{"draw"}, "<i8", func(i int) float64 { return float64(i) })
		for _, v := range vars {
			shape := append([]int{len(chains), draws}, v.shape...)
			dims := []string{"chain", "draw"}
			for d := range v.shape {
				dims = append(dims, fmt.Sprintf("%s_dim_%d", v.name, d))
			}
			per := max(1, len(v.cols))
			z.array(g+"/"+v.name, shape, dims, cmp.Or(v.dtype, "<f8"), func(i int) float64 {
				c, rest := i/(draws*per), i%(draws*per)
				return chains[c][rest/per][v.cols[rest%per]]
			})
		}
	}
}

// arvizStats are ArviZ's names and types of Stan's sampler columns
// (az.from_cmdstan's); the others lose their __.
var arvizStats = map[string]struct{ name, dtype string }{
	"lp__":          {"lp", "<f8"},
	"accept_stat__": {"acceptance_rate", "<f8"},
	"stepsize__":    {"step_size", "<f8"},
	"treedepth__":   {"tree_depth", "<i8"},
	"n_leapfrog__":  {"n_steps", "<i8"},
	"divergent__":   {"diverging", "|b1"},
	"energy__":      {"energy", "<f8"},
}

// ArvizName is the name InferenceData gives a draws file's column's
// variable: a sampler column's ArviZ name, or the column's own.
func ArvizName(column string) string {
	if s, ok := arvizStats[column]; ok {
		return s.name
	}
	if IsDiagnostic(column) {
		return strings.TrimSuffix(column, "__")
	}
	return column
}

// zarrVar is one variable: its columns in row-major order of its shape.
type zarrVar struct {
	group, name, dtype string
	shape              []int
	cols               []int
}

// zarrVars groups the columns into variables by the name before the first
// dot, the shape the largest index along each axis (FlatNames' scheme).
func zarrVars(columns []string) []zarrVar {
	var vars []zarrVar
	index := map[string]int{}
	type element struct {
		col int
		at  []int
	}
	elements := map[string][]element{}
	for k, c := range columns {
		name, rest, _ := strings.Cut(c, ".")
		var at []int
		if rest != "" {
			for _, s := range strings.Split(rest, ".") {
				i, err := strconv.Atoi(s)
				if err != nil || i < 1 {
					name, at = c, nil // not an index: the whole name is the variable
					break
				}
				at = append(at, i-1)
			}
		}
		group, dtype := "posterior", ""
		switch {
		case IsDiagnostic(name):
			group, dtype, name = "sample_stats", arvizStats[name].dtype, ArvizName(name)
		case name == "log_lik":
			group = "log_likelihood"
		}
		if _, ok := index[group+"/"+name]; !ok {
			index[group+"/"+name] = len(vars)
			vars = append(vars, zarrVar{group: group, name: name, dtype: dtype})
		}
		elements[group+"/"+name] = append(elements[group+"/"+name], element{k, at})
	}
	for i, v := range vars {
		els := elements[v.group+"/"+v.name]
		rank := len(els[0].at)
		shape := make([]int, rank)
		for _, e := range els {
			for d := 0; d < rank && d < len(e.at); d++ {
				shape[d] = max(shape[d], e.at[d]+1)
			}
		}
		size := 1
		for _, n := range shape {
			size *= n
		}
		cols := make([]int, size)
		for j := range cols {
			cols[j] = -1
		}
		for _, e := range els {
			off := 0
			for d, n := range shape {
				off = off*n + e.at[d]
			}
			cols[off] = e.col
		}
		if slices.Contains(cols, -1) || len(els) != size { // not a full array: one variable per column
			vars[i].shape, vars[i].cols = nil, []int{els[0].col}
			for _, e := range els[1:] {
				vars = append(vars, zarrVar{group: v.group, name: columns[e.col], dtype: v.dtype, cols: []int{e.col}})
			}
			continue
		}
		vars[i].shape, vars[i].cols = shape, cols
	}
	return vars
}

// zarrStore writes a Zarr v2 store, keeping the first error.
type zarrStore struct {
	dir  string
	meta map[string]any // consolidated metadata, by key
	err  error
}

func (z *zarrStore) writeJSON(key string, v any) error {
	if z.err != nil {
		return z.err
	}
	raw, err := json.Marshal(v)
	if err == nil {
		path := filepath.Join(z.dir, filepath.FromSlash(key))
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, raw, 0o644)
		}
	}
	z.err = err
	return err
}

func (z *zarrStore) put(key string, v any) {
	z.meta[key] = v
	z.writeJSON(key, v)
}

func (z *zarrStore) group(path string) {
	prefix := ""
	if path != "" {
		prefix = path + "/"
	}
	z.put(prefix+".zgroup", map[string]any{"zarr_format": 2})
	attrs := map[string]any{}
	if path != "" {
		attrs["inference_library"] = "temper"
	}
	z.put(prefix+".zattrs", attrs)
}

// array writes an array of the given shape in one chunk, value(i) its
// i-th element in C order.
func (z *zarrStore) array(path string, shape []int, dims []string, dtype string, value func(int) float64) {
	fill := any("NaN")
	width := 8
	switch dtype {
	case "<i8":
		fill = nil // a fill value would read back as missing: xarray masks it
	case "|b1":
		fill, width = nil, 1
	}
	z.put(path+"/.zarray", map[string]any{"zarr_format": 2, "shape": shape, "chunks": shape, "dtype": dtype,
		"compressor": nil, "fill_value": fill, "filters": nil, "order": "C"})
	z.put(path+"/.zattrs", map[string]any{"_ARRAY_DIMENSIONS": dims})
	if z.err != nil {
		return
	}
	size := 1
	key := make([]string, len(shape))
	for d, n := range shape {
		size *= n
		key[d] = "0"
	}
	buf := make([]byte, width*size)
	for i := range size {
		v := value(i)
		switch dtype {
		case "<i8":
			binary.LittleEndian.PutUint64(buf[8*i:], uint64(int64(v)))
		case "|b1":
			if v != 0 {
				buf[i] = 1
			}
		default:
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
		}
	}
	z.err = os.WriteFile(filepath.Join(z.dir, filepath.FromSlash(path), strings.Join(key, ".")), buf, 0o644)
}
