//go:build !unix

package mnist

import "time"

// PeakRSS reports nothing on systems without getrusage.
func PeakRSS() (bytes int64, ok bool) { return 0, false }

// CPUTime is the processor time used; not known on this system.
func CPUTime() (d time.Duration, ok bool) { return 0, false }
