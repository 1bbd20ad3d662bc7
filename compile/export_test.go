package compile

// SetMapMin sets the smallest array ReadNPY maps, and returns a function
// that restores it.
func SetMapMin(n int) (restore func()) {
	old := mapMin
	mapMin = n
	return func() { mapMin = old }
}

// IsMapped reports whether a value's elements lie in a mapped file.
func IsMapped(v *Value) bool { return isMapped(v.Values) }
