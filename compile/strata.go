package compile

import (
	"maps"
	"slices"
)

// pickGrouping chooses, of the int data fields that index an array by the
// plate's rows (g in a[g[n]]), the one of the most groups (ties: the
// first by name): with one row's parameters per group, a finer grouping
// is where a uniform minibatch's group counts are noisiest. "" for none.
func pickGrouping(groupings map[string]int) (field string, groups int) {
	for _, f := range slices.Sorted(maps.Keys(groupings)) {
		if g := groupings[f]; g >= 2 && g > groups {
			field, groups = f, g
		}
	}
	return field, groups
}

// Strata implements infer.StratifiedTarget: each row's group (its value of
// the grouping index, less one) and the number of groups, so that the
// stochastic-gradient samplers can deal minibatches that hold each
// group's rows in proportion; nil when no int data indexes an array by
// row. The values were checked at compile time to lie in 1..groups.
func (m *Model) Strata() ([]int32, int) {
	if m.grouping == "" {
		return nil, 0
	}
	v := m.data[m.grouping]
	out := make([]int32, v.Len())
	for i := range out {
		out[i] = int32(v.At(i)) - 1
	}
	return out, m.groups
}
