package compile

import (
	"fmt"
	"math"
	"strings"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// DataDecls lists the data fields of f as CSV binding needs them.
func DataDecls(f *lang.File) []FieldDecl {
	if f.Data == nil {
		return nil
	}
	out := make([]FieldDecl, len(f.Data.Decls))
	for i, d := range f.Data.Decls {
		out[i] = FieldDecl{Name: d.Name, Rank: d.Type.Rank(), Int: d.Type.Int}
	}
	return out
}

// bindData checks every declared data field against the values given, in
// declaration order (so that sizes are known before the fields they size),
// and keeps the valid ones in m.data. An int scalar that is not given but
// sizes a field that is (N for X[N, D]) is inferred from that field's shape.
func (m *Model) bindData(data Data, errs *lang.ErrorList) error {
	if m.file.Data == nil {
		return nil
	}
	decls := m.file.Data.Decls
	for i, d := range decls {
		v, ok := data[d.Name]
		if !ok && d.Type.Int && len(d.Type.Dims) == 0 {
			v, ok = inferSize(d.Name, decls[i+1:], data)
		}
		if !ok {
			errs.Add(d.Pos, "missing data for %s (declared %s)", d.Name, typeString(d.Type))
			continue
		}
		if err := m.checkValue(d, v); err != nil {
			errs.Add(d.Pos, "%s", err)
			continue
		}
		if d.Type.Int && !isMapped(v.Values) {
			v = m.narrowInts(d, v)
		}
		m.data[d.Name] = v
		if isMapped(v.Values) {
			adviseRandom(v.Values)
		}
	}
	return nil
}

// inferSize finds a given field whose declared dimension is exactly name,
// and returns that extent as name's value.
func inferSize(name string, later []*lang.Decl, data Data) (*Value, bool) {
	for _, d := range later {
		v, ok := data[d.Name]
		exprs := shapeExprs(d.Type)
		if !ok || len(v.Shape) != len(exprs) {
			continue
		}
		for k, e := range exprs {
			if id, ok := e.(*lang.Ident); ok && id.Name == name {
				return &Value{Values: []float64{float64(v.Shape[k])}, Source: v.Source + " (its shape)"}, true
			}
		}
	}
	return nil, false
}

// checkValue validates one field: shape, finiteness, integrality, bounds.
func (m *Model) checkValue(d *lang.Decl, v *Value) error {
	want, err := m.dims(d.Type)
	if err != nil {
		return fmt.Errorf("%s: %v", d.Name, err)
	}
	if !ad.Shape(v.Shape).Equal(want) {
		return fmt.Errorf("%s: data from %s has shape %s, declared %s = %s", d.Name, v.Source, shapeString(v.Shape), typeString(d.Type), shapeString(want))
	}
	var lo, hi = math.Inf(-1), math.Inf(1)
	if d.Type.Lower != nil {
		if lo, err = m.constReal(d.Type.Lower); err != nil {
			return fmt.Errorf("%s: lower bound: %v", d.Name, err)
		}
	}
	if d.Type.Upper != nil {
		if hi, err = m.constReal(d.Type.Upper); err != nil {
			return fmt.Errorf("%s: upper bound: %v", d.Name, err)
		}
	}
	for i := range v.Len() {
		x := v.At(i)
		at := func() string { return elementString(d.Name, v.Shape, i) }
		switch {
		case math.IsNaN(x):
			return fmt.Errorf("%s is NaN (missing) in %s", at(), v.Source)
		case math.IsInf(x, 0):
			return fmt.Errorf("%s is %v in %s", at(), x, v.Source)
		case d.Type.Int && x != math.Trunc(x):
			return fmt.Errorf("%s is %v in %s, but %s is declared int", at(), x, v.Source, d.Name)
		case x < lo:
			return fmt.Errorf("%s is %v in %s, below its lower bound %v", at(), x, v.Source, lo)
		case x > hi:
			return fmt.Errorf("%s is %v in %s, above its upper bound %v", at(), x, v.Source, hi)
		}
	}
	if d.Type.Kind == "" {
		return nil
	}
	return forItems(d, want, v.Float64s(), func(_ int, item string, k int, kind *stdlib.ConstrainedType, x []float64) error {
		if _, err := kind.Inverse(k, x); err != nil {
			return fmt.Errorf("%s: %v (in %s)", item, err, v.Source)
		}
		return nil
	})
}

// forItems calls f on each item of a value of a constrained type (the
// single one, or each of an array's: p[2] of simplex[K][J]), with its
// index and its name as messages write it; it does nothing for real and
// int.
func forItems(d *lang.Decl, shape []int, values []float64, f func(i int, item string, k int, kind *stdlib.ConstrainedType, x []float64) error) error {
	if d.Type.Kind == "" {
		return nil
	}
	kind, ok := stdlib.Constrained(string(d.Type.Kind))
	if !ok {
		return fmt.Errorf("%s: no transform for the type %s", d.Name, d.Type.Kind)
	}
	lead := shape[:len(d.Type.Dims)]
	k := shape[len(lead)]
	n := sizeOf(shape) / max(1, sizeOf(lead))
	for i := range sizeOf(lead) {
		if err := f(i, elementString(d.Name, lead, i), k, kind, values[i*n:(i+1)*n]); err != nil {
			return err
		}
	}
	return nil
}

func shapeString(s []int) string {
	if len(s) == 0 {
		return "a scalar"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// elementString names element i of a field: y[12] or X[3, 7] (1-based).
func elementString(name string, shape []int, i int) string {
	if len(shape) == 0 {
		return name
	}
	idx := make([]string, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprint(i%shape[d] + 1)
		i /= shape[d]
	}
	return name + "[" + strings.Join(idx, ", ") + "]"
}

// typeString renders a declared type as written: real<lower=0>[N, D].
func typeString(t *lang.Type) string {
	var b strings.Builder
	switch {
	case t.Int:
		b.WriteString("int")
	case t.Kind != "":
		b.WriteString(string(t.Kind))
	default:
		b.WriteString("real")
	}
	var cons []string
	for _, c := range []struct {
		key string
		e   lang.Expr
	}{{"lower", t.Lower}, {"upper", t.Upper}, {"offset", t.Offset}, {"multiplier", t.Multiplier}} {
		if c.e != nil {
			cons = append(cons, c.key+"="+exprString(c.e))
		}
	}
	if len(cons) > 0 {
		b.WriteString("<" + strings.Join(cons, ", ") + ">")
	}
	for _, list := range [][]lang.Expr{t.Size, t.Dims} {
		if len(list) > 0 {
			dims := make([]string, len(list))
			for i, e := range list {
				dims[i] = exprString(e)
			}
			b.WriteString("[" + strings.Join(dims, ", ") + "]")
		}
	}
	return b.String()
}

// exprString prints an expression compactly, for messages.
func exprString(e lang.Expr) string {
	switch e := e.(type) {
	case *lang.Number:
		if e.Text != "" {
			return e.Text
		}
		return fmt.Sprint(e.Value)
	case *lang.Ident:
		return e.Name
	case *lang.Unary:
		return e.Op + exprString(e.X)
	case *lang.Binary:
		return exprString(e.L) + " " + e.Op + " " + exprString(e.R)
	case *lang.Call:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = exprString(a)
		}
		return e.Func + "(" + strings.Join(args, ", ") + ")"
	case *lang.Index:
		return exprString(e.X) + "[...]"
	case *lang.Vector:
		return "[...]"
	}
	return "?"
}

// narrowInts keeps an int field's values, checked, in the narrowest type
// the declaration allows: its bounds where both are given (int<lower=1,
// upper=10> in int8, <lower=0, upper=255> in uint8, then int16, uint16,
// int32), else int32 where the values fit it and int64 where they do not
// (so an unbounded int column takes 4 bytes a value, not a float64's 8).
// A value already in that type is kept as it is; the input is not
// changed.
func (m *Model) narrowInts(d *lang.Decl, v *Value) *Value {
	lo, hi := math.Inf(-1), math.Inf(1)
	if d.Type.Lower != nil {
		lo, _ = m.constReal(d.Type.Lower)
	}
	if d.Type.Upper != nil {
		hi, _ = m.constReal(d.Type.Upper)
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) { // the values' own range, for int32 or int64
		lo, hi = math.Inf(1), math.Inf(-1)
		for i := range v.Len() {
			x := v.At(i)
			lo, hi = min(lo, x), max(hi, x)
		}
		if lo >= math.MinInt32 && hi <= math.MaxInt32 {
			lo, hi = math.MinInt32, math.MaxInt32
		} else {
			lo, hi = math.MinInt64, math.MaxInt64
		}
	}
	out := &Value{Shape: v.Shape, Source: v.Source}
	switch {
	case lo >= math.MinInt8 && hi <= math.MaxInt8:
		out.Stored = narrowed[int8](v)
	case lo >= 0 && hi <= math.MaxUint8:
		out.Stored = narrowed[uint8](v)
	case lo >= math.MinInt16 && hi <= math.MaxInt16:
		out.Stored = narrowed[int16](v)
	case lo >= 0 && hi <= math.MaxUint16:
		out.Stored = narrowed[uint16](v)
	case lo >= math.MinInt32 && hi <= math.MaxInt32:
		out.Stored = narrowed[int32](v)
	default:
		out.Stored = narrowed[int64](v)
	}
	return out
}

// narrowed is v's values as E, v's own Stored where it is of E already.
func narrowed[E ad.Element](v *Value) ad.StoredSlice[E] {
	if s, ok := v.Stored.(ad.StoredSlice[E]); ok {
		return s
	}
	out := make(ad.StoredSlice[E], v.Len())
	if v.Stored == nil {
		for i, x := range v.Values {
			out[i] = E(x)
		}
		return out
	}
	for i := range out {
		out[i] = E(v.At(i))
	}
	return out
}
