// Package godata binds Go values to a model's data block: numbers,
// nested slices and arrays, and gonum vectors and matrices become the
// compile.Data that package compile reads. Package temper's Compile and
// package sbc's generators both bind their data through it.
package godata

import (
	"fmt"
	"reflect"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper/compile"
)

// Convert converts the Go values of data fields to compile.Data: numbers,
// slices and arrays of them nested to any depth, gonum vectors and
// matrices (also as elements of slices), and compile values as they are.
func Convert(values map[string]any) (compile.Data, error) {
	data := compile.Data{}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first bad field reported is always the same one
	for _, k := range keys {
		switch x := values[k].(type) {
		case *compile.Value:
			data[k] = x
			continue
		case compile.Value:
			data[k] = &x
			continue
		}
		v := &compile.Value{Source: "Go value " + k}
		if err := flatten(values[k], 0, v); err != nil {
			return nil, fmt.Errorf("temper: data field %q: %v", k, err)
		}
		data[k] = v
	}
	return data, nil
}

// Value is the numbers of x, a number or nested slices of them (as JSON
// decodes them, say), with its shape; ragged arrays are refused.
func Value(x any) (*compile.Value, error) {
	v := &compile.Value{}
	if err := flatten(x, 0, v); err != nil {
		return nil, err
	}
	return v, nil
}

// flatten appends the numbers of x, met at nesting depth, to v: the first
// element at each depth fixes v.Shape there, and every later one must
// match it (no ragged arrays).
func flatten(x any, depth int, v *compile.Value) error {
	switch x := x.(type) {
	case nil:
		return fmt.Errorf("nil value")
	case mat.Vector:
		n := x.Len()
		if err := extent(n, depth, v); err != nil {
			return err
		}
		for i := range n {
			if err := number(x.AtVec(i), depth+1, v); err != nil {
				return err
			}
		}
		return nil
	case mat.Matrix:
		r, c := x.Dims()
		if err := extent(r, depth, v); err != nil {
			return err
		}
		for i := range r {
			if err := extent(c, depth+1, v); err != nil {
				return err
			}
			for j := range c {
				if err := number(x.At(i, j), depth+2, v); err != nil {
					return err
				}
			}
		}
		return nil
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Float32, reflect.Float64:
		return number(rv.Float(), depth, v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return number(float64(rv.Int()), depth, v)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return number(float64(rv.Uint()), depth, v)
	case reflect.Bool:
		b := 0.0
		if rv.Bool() {
			b = 1
		}
		return number(b, depth, v)
	case reflect.Slice, reflect.Array:
		n := rv.Len()
		if err := extent(n, depth, v); err != nil {
			return err
		}
		for i := range n {
			if err := flatten(rv.Index(i).Interface(), depth+1, v); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return fmt.Errorf("nil value")
		}
		return flatten(rv.Elem().Interface(), depth, v)
	}
	return fmt.Errorf("unsupported type %T (want numbers, slices or arrays of them, or a gonum mat.Matrix or mat.Vector)", x)
}

// extent records or checks an array of n elements at depth.
func extent(n, depth int, v *compile.Value) error {
	switch {
	case len(v.Values) == 0 && depth == len(v.Shape):
		if n == 0 {
			return fmt.Errorf("empty array")
		}
		v.Shape = append(v.Shape, n)
	case depth >= len(v.Shape):
		return fmt.Errorf("ragged array: an array of %d where a number was expected", n)
	case v.Shape[depth] != n:
		return fmt.Errorf("ragged array: %d elements at depth %d where the first array had %d", n, depth+1, v.Shape[depth])
	}
	return nil
}

// number appends one number met at depth.
func number(x float64, depth int, v *compile.Value) error {
	if depth != len(v.Shape) {
		return fmt.Errorf("ragged array: a number where an array of %d was expected", v.Shape[depth])
	}
	v.Values = append(v.Values, x)
	return nil
}
