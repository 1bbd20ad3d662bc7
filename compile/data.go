package compile

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Value is one data field: a row-major array and the file it came from.
type Value struct {
	Shape  []int
	Values []float64
	Source string // the file that supplied it, for error messages
}

// Data maps declared names to values.
type Data map[string]*Value

// ReadDataFile reads a data file by its extension: .json (Stan-style JSON),
// .csv (see ReadCSV), or NumPy's .npy (the field named after the file) and
// .npz (a field per member; see ReadNPY). decls are the declared data
// fields, which CSV needs to bind its columns.
func ReadDataFile(path string, decls []FieldDecl) (Data, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return ReadNPY(path)
	case ".npz":
		return ReadNPZ(path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return ReadJSON(path, raw)
	case ".csv":
		return ReadCSV(path, raw, decls)
	}
	return nil, fmt.Errorf("%s: unknown data format %q (use .json, .csv, .npy or .npz)", path, filepath.Ext(path))
}

// ReadJSON reads Stan-style JSON: an object whose members are numbers or
// (nested) arrays of numbers, rectangular.
func ReadJSON(name string, raw []byte) (Data, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object of data fields: %v", name, err)
	}
	data := Data{}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := &Value{Source: name}
		if err := flattenJSON(obj[k], 0, v); err != nil {
			return nil, fmt.Errorf("%s: field %q: %v", name, k, err)
		}
		data[k] = v
	}
	return data, nil
}

// flattenJSON appends the numbers of x to v, fixing v.Shape from the first
// element at each depth and rejecting ragged arrays.
func flattenJSON(x any, depth int, v *Value) error {
	switch x := x.(type) {
	case json.Number:
		if depth != len(v.Shape) {
			return fmt.Errorf("ragged array: a number where an array of %d was expected", v.Shape[depth])
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", x)
		}
		v.Values = append(v.Values, f)
		return nil
	case string:
		// Stan's JSON writes non-finite values as strings.
		switch x {
		case "NaN":
			v.Values = append(v.Values, math.NaN())
		case "Inf", "Infinity", "+Inf", "+Infinity":
			v.Values = append(v.Values, math.Inf(1))
		case "-Inf", "-Infinity":
			v.Values = append(v.Values, math.Inf(-1))
		default:
			return fmt.Errorf("%q is not a number", x)
		}
		return nil
	case []any:
		if len(v.Values) == 0 && depth == len(v.Shape) {
			v.Shape = append(v.Shape, len(x))
		} else if depth >= len(v.Shape) || v.Shape[depth] != len(x) {
			return fmt.Errorf("ragged array: an array of %d where %s was expected", len(x), describeExpected(v, depth))
		}
		if len(x) == 0 {
			return fmt.Errorf("empty array")
		}
		for _, e := range x {
			if err := flattenJSON(e, depth+1, v); err != nil {
				return err
			}
		}
		return nil
	case nil:
		return fmt.Errorf("null is not a number")
	}
	return fmt.Errorf("%v is not a number or an array", x)
}

func describeExpected(v *Value, depth int) string {
	if depth >= len(v.Shape) {
		return "a number"
	}
	return fmt.Sprintf("an array of %d", v.Shape[depth])
}

// FieldDecl is what CSV binding needs to know of a declared data field.
type FieldDecl struct {
	Name string
	Rank int
	Int  bool
}

// ReadCSV binds the columns of a CSV file with a header to data fields, one
// row per observation:
//
//   - a column named like a field of rank 1 binds that field (length = rows);
//   - columns named F.1, F.2, ... bind the rank-2 field F, in that order;
//   - if exactly one rank-2 field is still unbound, every remaining column
//     binds it, in file order (so `y` then 48 feature columns fill y[N] and
//     X[N, D]);
//   - int scalars that size the data (N, D) are not read from CSV: the
//     binder infers them from the shapes (see Bind).
//
// Empty cells and NaN are kept as NaN and rejected by Bind with their
// position.
func ReadCSV(name string, raw []byte, decls []FieldDecl) (Data, error) {
	records, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(records) < 2 {
		return nil, fmt.Errorf("%s: needs a header row and at least one data row", name)
	}
	header, rows := records[0], records[1:]
	cols := make([][]float64, len(header))
	for c := range header {
		cols[c] = make([]float64, len(rows))
		for r, rec := range rows {
			cell := strings.TrimSpace(rec[c])
			if cell == "" || cell == "NA" {
				cols[c][r] = math.NaN()
				continue
			}
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: column %q: %q is not a number", name, r+2, header[c], cell)
			}
			cols[c][r] = v
		}
	}
	byName := map[string]FieldDecl{}
	for _, d := range decls {
		byName[d.Name] = d
	}
	data := Data{}
	used := make([]bool, len(header))
	matrices := map[string][]int{} // F -> columns of F.1, F.2, ...
	for c, h := range header {
		h = strings.TrimSpace(h)
		if d, ok := byName[h]; ok && d.Rank == 1 {
			data[h] = &Value{Shape: []int{len(rows)}, Values: cols[c], Source: name}
			used[c] = true
			continue
		}
		if base, idx, ok := strings.Cut(h, "."); ok {
			if d, ok := byName[base]; ok && d.Rank == 2 {
				if j, err := strconv.Atoi(idx); err == nil && j == len(matrices[base])+1 {
					matrices[base] = append(matrices[base], c)
					used[c] = true
				}
			}
		}
	}
	for base, cs := range matrices {
		data[base] = matrixFrom(cols, cs, len(rows), name)
	}
	var unbound []string
	for _, d := range decls {
		if _, ok := data[d.Name]; !ok && d.Rank == 2 {
			unbound = append(unbound, d.Name)
		}
	}
	var rest []int
	for c := range header {
		if !used[c] {
			rest = append(rest, c)
		}
	}
	if len(rest) > 0 {
		if len(unbound) != 1 {
			return nil, fmt.Errorf("%s: columns %s bind no data field (name a column after a vector field, F.1, F.2, ... after a matrix field F, or declare exactly one matrix to take the remaining columns)",
				name, quoteColumns(header, rest))
		}
		data[unbound[0]] = matrixFrom(cols, rest, len(rows), name)
	}
	return data, nil
}

func matrixFrom(cols [][]float64, cs []int, rows int, source string) *Value {
	v := &Value{Shape: []int{rows, len(cs)}, Values: make([]float64, rows*len(cs)), Source: source}
	for j, c := range cs {
		for r := range rows {
			v.Values[r*len(cs)+j] = cols[c][r]
		}
	}
	return v
}

func quoteColumns(header []string, cs []int) string {
	var q []string
	for i, c := range cs {
		if i == 3 {
			q = append(q, fmt.Sprintf("and %d more", len(cs)-3))
			break
		}
		q = append(q, strconv.Quote(header[c]))
	}
	return strings.Join(q, ", ")
}

// Merge combines data from several files; a field given twice is an error.
func Merge(parts ...Data) (Data, error) {
	out := Data{}
	for _, p := range parts {
		for k, v := range p {
			if prev, ok := out[k]; ok {
				return nil, fmt.Errorf("data field %q is given twice, by %s and %s", k, prev.Source, v.Source)
			}
			out[k] = v
		}
	}
	return out, nil
}

// ReadAll reads and merges data files.
func ReadAll(paths []string, decls []FieldDecl) (Data, error) {
	var parts []Data
	for _, p := range paths {
		d, err := ReadDataFile(p, decls)
		if err != nil {
			return nil, err
		}
		parts = append(parts, d)
	}
	return Merge(parts...)
}

// FromGo converts Go values to Data: float64 or int scalars, and slices or
// nested slices of them.
func FromGo(values map[string]any) (Data, error) {
	data := Data{}
	for k, x := range values {
		v := &Value{Source: "Go value"}
		if err := flattenGo(x, 0, v); err != nil {
			return nil, fmt.Errorf("data field %q: %v", k, err)
		}
		data[k] = v
	}
	return data, nil
}

func flattenGo(x any, depth int, v *Value) error {
	switch x := x.(type) {
	case float64:
		v.Values = append(v.Values, x)
		return nil
	case int:
		v.Values = append(v.Values, float64(x))
		return nil
	case []float64:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case []int:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case [][]float64:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case [][]int:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	case []any:
		return flattenGoSlice(len(x), depth, v, func(i int) any { return x[i] })
	}
	return fmt.Errorf("unsupported type %T", x)
}

func flattenGoSlice(n, depth int, v *Value, at func(int) any) error {
	if len(v.Values) == 0 && depth == len(v.Shape) {
		v.Shape = append(v.Shape, n)
	} else if depth >= len(v.Shape) || v.Shape[depth] != n {
		return fmt.Errorf("ragged array of length %d at depth %d", n, depth)
	}
	if n == 0 {
		return fmt.Errorf("empty array")
	}
	for i := range n {
		if err := flattenGo(at(i), depth+1, v); err != nil {
			return err
		}
	}
	return nil
}
