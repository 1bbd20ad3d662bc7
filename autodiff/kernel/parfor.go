package kernel

import (
	"runtime"
	"sync/atomic"
)

// Parts is work cut into independent parts numbered from 0, such as the
// replicas of one pass of an autodiff program.
type Parts interface{ RunPart(i int) }

// ParallelFor calls body.RunPart(i) for every i in [0, n) on up to workers
// goroutines, the caller being one of them, and returns when all parts are
// done. workers ≤ 0 means GOMAXPROCS. The other goroutines are the
// package's GEMM helpers (see SgemmParallel), so that one pool of threads
// serves both, and parts are claimed one at a time: a helper that is slow
// to start leaves its parts to the caller. It allocates nothing in steady
// state (body should be a pointer).
//
// Parts must not themselves call ParallelFor or a parallel GEMM with more
// than one worker: the helpers they would wait for may be the ones running
// them.
func ParallelFor(workers, n int, body Parts) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			body.RunPart(i)
		}
		return
	}
	ensureHelpers(workers - 1)
	j, ok := forJobs.get()
	if !ok {
		j = &forJob{finished: make(chan struct{}, 1)}
	}
	j.body, j.n = body, int32(n)
	j.next.Store(0)
	j.completed.Store(0)
	j.refs.Store(int32(workers))
	offer(j, workers-1, &j.refs)
	if !j.work() {
		<-j.finished
	}
	j.body = nil
	j.release()
}

// forJob is one ParallelFor call, shared by the caller and its helpers.
type forJob struct {
	body      Parts
	n         int32
	next      atomic.Int32
	completed atomic.Int32
	finished  chan struct{}
	refs      atomic.Int32
}

var forJobs freeList[*forJob]

func (j *forJob) work() (last bool) {
	for {
		i := j.next.Add(1) - 1
		if i >= j.n {
			return last
		}
		j.body.RunPart(int(i))
		if j.completed.Add(1) == j.n {
			last = true
		}
	}
}

func (j *forJob) help() {
	if j.work() {
		j.finished <- struct{}{}
	}
	j.release()
}

func (j *forJob) release() {
	if j.refs.Add(-1) == 0 {
		forJobs.put(j)
	}
}
