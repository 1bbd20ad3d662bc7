//go:build unix

package compile

import (
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapped records the regions mapNPY has mapped, for tests.
var mapped struct {
	sync.Mutex
	regions [][]byte
}

// mapNPY maps the file read-only and returns its n float64 elements from
// offset on, or false where the mapping fails (the caller then reads the
// file). The mapping lives as long as the process: the values may be held
// by any model compiled from them, and they are never written.
func mapNPY(f *os.File, offset int64, n int) ([]float64, bool) {
	info, err := f.Stat()
	if err != nil || info.Size() < offset+int64(n)*8 {
		return nil, false
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(offset)+n*8, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	mapped.Lock()
	mapped.regions = append(mapped.regions, b)
	mapped.Unlock()
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[offset])), n), true
}

// isMapped reports whether x's elements lie in a mapped file.
func isMapped(x []float64) bool {
	if len(x) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(&x[0]))
	mapped.Lock()
	defer mapped.Unlock()
	for _, r := range mapped.regions {
		lo := uintptr(unsafe.Pointer(&r[0]))
		if p >= lo && p < lo+uintptr(len(r)) {
			return true
		}
	}
	return false
}
