//go:build unix

package mnist

import (
	"runtime"
	"syscall"
	"time"
)

// PeakRSS is the largest resident set size of this process so far, in
// bytes, from getrusage; ok is false where the system does not say. It
// lives here, beside the data, because the bench that loads them is its
// only user.
func PeakRSS() (bytes int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	switch runtime.GOOS {
	case "darwin", "ios": // ru_maxrss is in bytes there, in KiB elsewhere
		return int64(ru.Maxrss), true
	}
	return int64(ru.Maxrss) * 1024, true
}

// CPUTime is the processor time this process has used, user and system;
// ok is false where the system does not say. temper bench data reports
// it beside the wall time, which other processes on a shared machine
// stretch.
func CPUTime() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
