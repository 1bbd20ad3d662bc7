package kernel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// minWorkPerPart is the fewest multiply-adds worth handing to another
// goroutine: about 5 µs at 50-100 GFLOP/s, several times the cost of handing
// it over to a running helper. Smaller products run on the caller alone.
const minWorkPerPart = 1 << 18

// partsPerWorker is how many parts a parallel GEMM is cut into per worker.
const partsPerWorker = 4

// helperSpin is how long a helper goroutine keeps polling for work after its
// last task before it parks. Waking a parked thread costs tens of
// microseconds, up to about 100 µs measured on the project's 2-core KVM
// guest: as long as a whole GEMM of the MLP. A helper still polling picks a
// task up in under a microsecond, so the GEMMs of one training step, which
// follow each other within tens of microseconds, find their helpers awake.
// While it polls a helper yields its processor to any other runnable
// goroutine, but it does keep an OS thread busy: the window is kept short
// because, on a machine whose cores are all taken by other processes, that
// thread competes with the caller's. (OpenMP runtimes and OpenBLAS threads
// spin-wait in the same way.)
const helperSpin = 50 * time.Microsecond

// parallelJob is one GEMM split into parts: contiguous runs of whole tile
// rows (mr rows of C) or whole tile columns (nr columns). Parts are claimed
// one at a time by the caller and by the helpers it has signalled, so a
// helper that is slow to start delays nothing: the caller then runs its
// parts itself.
type parallelJob[T float] struct {
	ks    *kernelSet[T]
	g     gemmArgs[T]
	rows  bool // split over rows of C, else over columns
	units int  // tile rows or tile columns in all
	parts int

	next      atomic.Int32  // the next part to claim
	completed atomic.Int32  // parts done
	finished  chan struct{} // signalled once when a helper completes the last part
	refs      atomic.Int32  // the caller and the helper tasks still holding the job
}

// run computes part p on the calling goroutine.
func (j *parallelJob[T]) run(p int) {
	lo, hi := p*j.units/j.parts, (p+1)*j.units/j.parts
	ws := j.ks.getWorkspace()
	if j.rows {
		mr := j.ks.mr
		j.ks.gemmRange(ws, &j.g, lo*mr, min(j.g.m, hi*mr), 0, j.g.n)
	} else {
		nr := j.ks.nr()
		j.ks.gemmRange(ws, &j.g, 0, j.g.m, lo*nr, min(j.g.n, hi*nr))
	}
	j.ks.putWorkspace(ws)
}

// work claims and runs parts until none is left. It reports whether it
// completed the last part.
func (j *parallelJob[T]) work() (last bool) {
	parts := int32(j.parts)
	for {
		p := j.next.Add(1) - 1
		if p >= parts {
			return last
		}
		j.run(int(p))
		if j.completed.Add(1) == parts {
			last = true
		}
	}
}

// help is a helper's share of the job.
func (j *parallelJob[T]) help() {
	if j.work() {
		j.finished <- struct{}{}
	}
	j.release()
}

// release drops a reference; the last one returns the job to the free list.
func (j *parallelJob[T]) release() {
	if j.refs.Add(-1) == 0 {
		j.ks.jobs.put(j)
	}
}

// helping is a job that helper goroutines work on.
type helping interface{ help() }

// helpers is the package's pool of helper goroutines. They start on first
// use, as many as the largest parallel call has asked for, and then live for
// the life of the process, polling for tasks for helperSpin after each one
// and parked otherwise: a parallel call starts no goroutine and allocates
// nothing in steady state.
var helpers struct {
	mu    sync.Mutex
	count int
	tasks chan helping
}

// offer hands task t to n helpers, dropping one of refs for each share it
// could not hand over. Tasks still queued mean the helpers are behind
// (their cores are taken): the caller then does that share rather than
// leave a task that holds the job until a helper gets to it.
func offer(t helping, n int, refs *atomic.Int32) {
	for range n {
		if len(helpers.tasks) >= n {
			refs.Add(-1)
			continue
		}
		select {
		case helpers.tasks <- t:
		default:
			refs.Add(-1)
		}
	}
}

func ensureHelpers(n int) {
	helpers.mu.Lock()
	if helpers.tasks == nil {
		helpers.tasks = make(chan helping, 256)
	}
	for helpers.count < n {
		helpers.count++
		go helperLoop(helpers.tasks)
	}
	helpers.mu.Unlock()
}

func helperLoop(tasks <-chan helping) {
	for {
		t, ok := poll(tasks)
		if !ok {
			t = <-tasks
		}
		t.help()
	}
}

// poll waits up to helperSpin for a task without parking.
func poll(tasks <-chan helping) (helping, bool) {
	start := time.Now()
	for i := 1; ; i++ {
		select {
		case t := <-tasks:
			return t, true
		default:
		}
		if i%64 == 0 && time.Since(start) > helperSpin {
			return nil, false
		}
		runtime.Gosched()
	}
}

// gemmParallel runs g over up to workers goroutines, the caller being one.
func (ks *kernelSet[T]) gemmParallel(workers int, g *gemmArgs[T]) {
	mr, nr := ks.mr, ks.nr()
	um, un := (g.m+mr-1)/mr, (g.n+nr-1)/nr
	rows, units := um >= un, max(um, un)
	// More workers than processors would only take turns.
	workers = min(workers, runtime.GOMAXPROCS(0))
	// Parts are claimed one at a time, partsPerWorker per worker, so that
	// a worker slowed down (by another process on its core, or by waking
	// late) leaves its share to the others.
	parts := min(workers*partsPerWorker, units, g.m*g.n*g.k/minWorkPerPart)
	workers = min(workers, parts)
	if workers <= 1 {
		ws := ks.getWorkspace()
		ks.gemmRange(ws, g, 0, g.m, 0, g.n)
		ks.putWorkspace(ws)
		return
	}
	ensureHelpers(workers - 1)
	j, ok := ks.jobs.get()
	if !ok {
		j = &parallelJob[T]{finished: make(chan struct{}, 1)}
	}
	j.ks, j.g, j.rows, j.units, j.parts = ks, *g, rows, units, parts
	j.next.Store(0)
	j.completed.Store(0)
	j.refs.Store(int32(workers)) // the caller and workers-1 tasks
	offer(j, workers-1, &j.refs)
	if !j.work() {
		<-j.finished // a helper is completing the last part
	}
	j.g = gemmArgs[T]{} // drop the caller's slices; late helpers only read the counters
	j.release()
}
