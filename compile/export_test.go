package compile

import "fmt"

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
