package draws

import (
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
// read: a group posterior with each parameter as one array of dimensions
// (chain, draw, NAME_dim_0, ...), its flattened columns (w.1.2) put back
// in place, and a group sample_stats with the diagnostic columns, lp__ as
// lp and the others without their __. chains[c][i] is chain c's draw i,
// one value per column; chains are cut to the shortest. Zarr is JSON
// metadata beside raw little-endian chunks, one chunk per array here, so
// no library is needed; the store is consolidated (.zmetadata), as xarray
// prefers.
func WriteInferenceData(dir string, columns []string, chains [][][]float64) error {
	if len(chains) == 0 {
		return fmt.Errorf("draws: no chains to write")
	}
	draws := len(chains[0])
	for _, c := range chains {
		draws = min(draws, len(c))
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	z := &zarrStore{dir: dir, meta: map[string]any{}}
	z.group("")
	groups := map[string][]zarrVar{}
	for _, v := range zarrVars(columns) {
		groups[v.group] = append(groups[v.group], v)
	}
	for _, g := range []string{"posterior", "sample_stats"} {
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
			z.array(g+"/"+v.name, shape, dims, "<f8", func(i int) float64 {
				c, rest := i/(draws*per), i%(draws*per)
				return chains[c][rest/per][v.cols[rest%per]]
			})
		}
	}
	if z.err != nil {
		return z.err
	}
	return z.writeJSON(".zmetadata", map[string]any{"metadata": z.meta, "zarr_consolidated_format": 1})
}

// zarrVar is one variable: its columns in row-major order of its shape.
type zarrVar struct {
	group, name string
	shape       []int
	cols        []int
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
		group := "posterior"
		if IsDiagnostic(name) {
			group, name = "sample_stats", strings.TrimSuffix(name, "__") // lp__ is ArviZ's lp
		}
		if _, ok := index[group+"/"+name]; !ok {
			index[group+"/"+name] = len(vars)
			vars = append(vars, zarrVar{group: group, name: name})
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
				vars = append(vars, zarrVar{group: v.group, name: columns[e.col], cols: []int{e.col}})
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
	if dtype == "<i8" {
		fill = nil // a fill value would read back as missing: xarray masks it
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
	buf := make([]byte, 8*size)
	for i := range size {
		v := value(i)
		if dtype == "<i8" {
			binary.LittleEndian.PutUint64(buf[8*i:], uint64(int64(v)))
		} else {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(v))
		}
	}
	z.err = os.WriteFile(filepath.Join(z.dir, filepath.FromSlash(path), strings.Join(key, ".")), buf, 0o644)
}
