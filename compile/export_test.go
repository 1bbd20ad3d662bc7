package compile

import (
	"fmt"

	ad "github.com/temper-ppl/temper/autodiff"
)

// SetMapMin sets the smallest array ReadNPY maps, and returns a function
// that restores it.
func SetMapMin(n int) (restore func()) {
	old := mapMin
	mapMin = n
	return func() { mapMin = old }
}

// IsMapped reports whether a value's elements lie in a mapped file.
func IsMapped(v *Value) bool { return isMapped(v.Values) }

// SetChunkRows sets the rows of a part of a chunked pass over every row,
// and returns a function that restores it.
func SetChunkRows(n int) (restore func()) {
	old := chunkRows
	chunkRows = n
	return func() { chunkRows = old }
}

// StoredType names the type a bound data field is kept in: float64, or
// the element type of its Stored array.
func StoredType(m *Model, name string) string {
	v := m.data[name]
	if v.Stored == nil {
		return "float64"
	}
	return fmt.Sprintf("%T", v.Stored)
}

// SetScanMinSteps sets the fewest iterations a loop is scanned at, and
// returns a function that restores it.
func SetScanMinSteps(n int) (restore func()) {
	old := scanMinSteps
	scanMinSteps = n
	return func() { scanMinSteps = old }
}

// EnergyGraph counts the nodes the energy of m is computed from, and the
// scan ops among them.
func EnergyGraph(m *Model) (nodes, scans int, err error) {
	b, err := m.build(1, 0)
	if err != nil {
		return 0, 0, err
	}
	seen := map[*ad.Node]bool{}
	var walk func(n *ad.Node)
	walk = func(n *ad.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if op := n.Op(); op != nil && op.Name() == "scan" {
			scans++
		}
		for _, in := range n.Inputs() {
			walk(in)
		}
	}
	walk(b.energy)
	return len(seen), scans, nil
}

// ScansBuilt is the number of loops lowered as scans so far.
func ScansBuilt() int64 { return scansBuilt.Load() }
