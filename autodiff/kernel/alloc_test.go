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

	// The serial forms never allocate. They are counted by
	// testing.AllocsPerRun, whose whole-number mean over 100 calls is 0
	// unless a call allocates every time: the process's count of
	// allocations also takes in the runtime's and the test framework's
	// own, and under a loaded CI run a plain count once blamed 6 of those
	// on 100 serial calls.
	for name, f := range map[string]func(){
		"Sgemm": func() { Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n) },
		"Dgemm": func() { Dgemm(true, true, n, m, k, 1, db, n, da, k, 1, dc, m) },
	} {
		if allocs := testing.AllocsPerRun(100, f); allocs != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, allocs)
		}
	}

	// A parallel call allocates a new job or workspace only when more are
	// in use at once than ever before (a helper that has not yet picked up
	// its share of an earlier call still holds that call's job), and the
	// runtime allocates the records of goroutines blocked on a channel
	// again after a GC has dropped its cache of them: a few allocations in
	// a hundred calls on an idle machine, up to 16 measured while another
	// test process kept the other core busy. 30 in 100 allows for that; a
	// form that allocated on every call (a job or workspace not returned)
	// gives at least 100. Not testing.AllocsPerRun: it sets GOMAXPROCS to
	// 1, which turns the parallel calls serial.
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"SgemmParallel", func() { SgemmParallel(2, false, false, m, n, k, 1, a, k, b, n, 0, c, n) }},
		{"DgemmParallel", func() { DgemmParallel(2, false, true, m, n, k, 1, da, k, db, k, 0, dc, n) }},
	} {
		for range 20 {
			tc.f() // fill the free lists and start the helpers
		}
		time.Sleep(20 * time.Millisecond) // let earlier helpers finish polling and park
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs, most = 100, 30
		for range runs {
			tc.f()
		}
		runtime.ReadMemStats(&after)
		if n := after.Mallocs - before.Mallocs; n > most {
			t.Errorf("%s: %d allocations in %d calls, want at most %d", tc.name, n, runs, most)
		}
	}
}
