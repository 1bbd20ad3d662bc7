//go:build !linux

package compile

// AvailableMemory is 0, unknown, on systems other than Linux.
func AvailableMemory() int64 { return 0 }
