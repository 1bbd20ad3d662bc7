package draws

import (
	"slices"
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

// ColumnMajor returns the permutation that puts columns in CmdStan's
// order: out[i] = columns[perm[i]]. temper names a matrix's or an array's
// elements row-major (FlatNames); CmdStan writes every multi-index
// variable column-major, the first index fastest (ab.1.1, ab.2.1, …,
// ab.1.2, …), and readers that go by position, as rstan::extract does when
// it builds arrays, rely on that order. Each contiguous run of columns of
// one name with two or more indices is reordered; every other column keeps
// its place.
func ColumnMajor(columns []string) []int {
	perm := make([]int, len(columns))
	for i := range perm {
		perm[i] = i
	}
	for start := 0; start < len(columns); {
		base, index := splitIndex(columns[start])
		end := start + 1
		for end < len(columns) {
			b, ix := splitIndex(columns[end])
			if b != base || len(ix) != len(index) {
				break
			}
			end++
		}
		if len(index) >= 2 {
			run := perm[start:end]
			slices.SortStableFunc(run, func(a, b int) int {
				_, ia := splitIndex(columns[a])
				_, ib := splitIndex(columns[b])
				for k := len(ia) - 1; k >= 0; k-- {
					if ia[k] != ib[k] {
						return ia[k] - ib[k]
					}
				}
				return 0
			})
		}
		start = end
	}
	return perm
}

// splitIndex splits name.i.j… into its name and indices; a column without
// numeric indices is its own name with none.
func splitIndex(column string) (string, []int) {
	parts := strings.Split(column, ".")
	index := make([]int, 0, len(parts)-1)
	for _, p := range parts[1:] {
		i, err := strconv.Atoi(p)
		if err != nil {
			return column, nil
		}
		index = append(index, i)
	}
	return parts[0], index
}

// IsDiagnostic reports whether a column holds a sampler diagnostic rather
// than a parameter: Stan's convention is a name ending in "__".
func IsDiagnostic(column string) bool {
	return strings.HasSuffix(column, "__")
}
