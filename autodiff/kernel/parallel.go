package kernel

import (
	"sync"
)

// minWorkPerPart is the fewest multiply-adds worth handing to another
// goroutine: about 5 µs at 50-100 GFLOP/s, several times the cost of waking
// a parked goroutine. Smaller products run on the caller alone.
const minWorkPerPart = 1 << 18

// parallelJob is one GEMM split into parts: contiguous runs of whole tile
// rows (mr rows of C) or whole tile columns (nr columns).
type parallelJob[T float] struct {
	ks    *kernelSet[T]
	g     gemmArgs[T]
	rows  bool // split over rows of C, else over columns
	units int  // tile rows or tile columns in all
	parts int
	wg    sync.WaitGroup
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

func (j *parallelJob[T]) runPart(p int) {
	j.run(p)
	j.wg.Done()
}

// partRunner is a job whose part p a helper goroutine runs.
type partRunner interface{ runPart(p int) }

type task struct {
	job  partRunner
	part int
}

// helpers is the package's pool of helper goroutines. They start on first
// use, as many as the largest parallel call has needed, and then wait on
// tasks for the life of the process: a parallel call starts no goroutine and
// allocates nothing in steady state.
var helpers struct {
	mu    sync.Mutex
	count int
	tasks chan task
}

func ensureHelpers(n int) {
	helpers.mu.Lock()
	if helpers.tasks == nil {
		helpers.tasks = make(chan task, 256)
	}
	for helpers.count < n {
		helpers.count++
		go helperLoop(helpers.tasks)
	}
	helpers.mu.Unlock()
}

func helperLoop(tasks <-chan task) {
	for t := range tasks {
		t.job.runPart(t.part)
	}
}

// gemmParallel runs g over up to workers goroutines, the caller being one.
func (ks *kernelSet[T]) gemmParallel(workers int, g *gemmArgs[T]) {
	mr, nr := ks.mr, ks.nr()
	um, un := (g.m+mr-1)/mr, (g.n+nr-1)/nr
	rows, units := um >= un, max(um, un)
	parts := min(workers, units)
	if work := g.m * g.n * g.k; work/minWorkPerPart < parts {
		parts = max(1, work/minWorkPerPart)
	}
	if parts <= 1 {
		ws := ks.getWorkspace()
		ks.gemmRange(ws, g, 0, g.m, 0, g.n)
		ks.putWorkspace(ws)
		return
	}
	ensureHelpers(parts - 1)
	j, ok := ks.jobs.Get().(*parallelJob[T])
	if !ok {
		j = new(parallelJob[T])
	}
	j.ks, j.g, j.rows, j.units, j.parts = ks, *g, rows, units, parts
	j.wg.Add(parts - 1)
	for p := 1; p < parts; p++ {
		select {
		case helpers.tasks <- task{job: j, part: p}:
		default: // every helper is busy and the queue is full: run it here
			j.runPart(p)
		}
	}
	j.run(0)
	j.wg.Wait()
	j.g = gemmArgs[T]{} // drop the caller's slices
	ks.jobs.Put(j)
}
