//go:build !unix

package compile_test

import "time"

// cpuTime is not measured here: the timings log 0.
func cpuTime() time.Duration { return 0 }
