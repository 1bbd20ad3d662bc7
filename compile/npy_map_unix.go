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
func isMapped(x []float64) bool { return regionOf(x) != nil }

// regionOf is the mapped region that holds x's elements, or nil.
func regionOf(x []float64) []byte {
	if len(x) == 0 {
		return nil
	}
	p := uintptr(unsafe.Pointer(&x[0]))
	mapped.Lock()
	defer mapped.Unlock()
	for _, r := range mapped.regions {
		lo := uintptr(unsafe.Pointer(&r[0]))
		if p >= lo && p < lo+uintptr(len(r)) {
			return r
		}
	}
	return nil
}

// adviseRandom tells the kernel that the mapped file under x will be read
// at random (madvise MADV_RANDOM): a page fault then reads that page, not
// the read-around window (read_ahead_kb, 128 KB by default, 8 MB on some
// virtual machines) around it. Called once the data are validated, a
// sequential pass that read-around serves well: afterwards a file that
// fits in memory is in the page cache, and one that does not is read a
// minibatch's pages at a time. Without it a run on a 1.6 GB file under a
// 1 GB memory limit read 27 GB from disk in its first minute (each
// minibatch block's fault reading 8 MB that was evicted before it was
// used) and wrote no draw. A pass over every row (the control variate's
// full gradient) asks for read-ahead for its duration (adviseSequential).
func adviseRandom(x []float64) { advise(x, unix.MADV_RANDOM) }

// adviseSequential asks for aggressive read-ahead on x's mapped file, for
// a pass over every row; adviseRandom undoes it.
func adviseSequential(x []float64) { advise(x, unix.MADV_SEQUENTIAL) }

func advise(x []float64, advice int) {
	if r := regionOf(x); r != nil {
		_ = unix.Madvise(r, advice) // advice: a failure leaves the kernel's default
	}
}
