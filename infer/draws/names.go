package draws

import (
	"strconv"
	"strings"
)

// FlatNames returns the column names of the elements of a parameter of the
// given shape, in row-major order (the last index varies fastest), with
// 1-based indices joined by dots: FlatNames("W", []int{2, 2}) is W.1.1,
// W.1.2, W.2.1, W.2.2. A scalar (empty shape) has the one column name; a
// shape with a zero dimension has none. It panics on a negative dimension.
func FlatNames(name string, shape []int) []string {
	total := 1
	for _, d := range shape {
		if d < 0 {
			panic("draws: negative dimension " + strconv.Itoa(d) + " in the shape of " + name)
		}
		total *= d
	}
	names := make([]string, 0, total)
	index := make([]int, len(shape))
	for range total {
		names = append(names, dotted(name, index))
		increment(index, shape)
	}
	return names
}

// dotted writes name.i.j… with the 0-based index shown 1-based.
func dotted(name string, index []int) string {
	var b strings.Builder
	b.WriteString(name)
	for _, i := range index {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(i + 1))
	}
	return b.String()
}

// increment advances a row-major multi-index by one, like an odometer.
func increment(index, shape []int) {
	for k := len(index) - 1; k >= 0; k-- {
		index[k]++
		if index[k] < shape[k] {
			return
		}
		index[k] = 0
	}
}

// IsDiagnostic reports whether a column holds a sampler diagnostic rather
// than a parameter: Stan's convention is a name ending in "__".
func IsDiagnostic(column string) bool {
	return strings.HasSuffix(column, "__")
}
