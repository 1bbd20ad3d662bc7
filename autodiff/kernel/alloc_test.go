// The race detector's instrumentation allocates on its own, so this file
// is built only without it (go test -race leaves the allocation counts
// untested; every other test runs in both builds).

//go:build !race

package kernel

import (
	"runtime"
	"testing"
	"time"
)

func TestAllocations(t *testing.T) {
	const m, n, k = 128, 100, 784
	a, b, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	da, db, dc := make([]float64, m*k), make([]float64, k*n), make([]float64, m*n)
	// The serial forms never allocate. A parallel call allocates a new job
	// or workspace only when more are in use at once than ever before (a
	// helper that has not yet picked up its share of an earlier call still
	// holds that call's job), and the runtime allocates the records of
	// goroutines blocked on a channel again after a GC has dropped its
	// cache of them: a few allocations in a hundred calls on an idle
	// machine, up to 16 measured while another test process kept the other
	// core busy. 30 in 100 allows for that; a form that allocated on every
	// call (a job or workspace not returned) gives at least 100.
	for _, tc := range []struct {
		name     string
		f        func()
		maxAlloc uint64
	}{
		{"Sgemm", func() { Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n) }, 0},
		{"Dgemm", func() { Dgemm(true, true, n, m, k, 1, db, n, da, k, 1, dc, m) }, 0},
		{"SgemmParallel", func() { SgemmParallel(2, false, false, m, n, k, 1, a, k, b, n, 0, c, n) }, 30},
		{"DgemmParallel", func() { DgemmParallel(2, false, true, m, n, k, 1, da, k, db, k, 0, dc, n) }, 30},
	} {
		// Not testing.AllocsPerRun: it sets GOMAXPROCS to 1, which turns
		// the parallel calls serial.
		for range 20 {
			tc.f() // fill the free lists and start the helpers
		}
		// Let helpers started by earlier tests finish polling and park:
		// a helper that parks while the serial calls are counted allocates
		// its channel-wait record then, which the count would blame on
		// them (seen under a loaded CI run: 6 in 100 calls).
		time.Sleep(20 * time.Millisecond)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 100
		for range runs {
			tc.f()
		}
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; n > tc.maxAlloc {
			t.Errorf("%s: %d allocations in %d calls, want at most %d", tc.name, n, runs, tc.maxAlloc)
		}
	}
}
