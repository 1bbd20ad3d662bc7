//go:build !linux

package sysmem

// Available is 0, unknown, on systems other than Linux.
func Available() int64 { return 0 }

// AddressSpace is unknown (0, 0) on systems other than Linux.
func AddressSpace() (limit, held int64) { return 0, 0 }
