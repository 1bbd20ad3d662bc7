package temper

import (
	"runtime"
	"sync"
)

// parallelFor calls f(0), …, f(n-1) on GOMAXPROCS goroutines, each taking
// the next index as it finishes one, and returns when all have returned:
// for work items of uneven cost, as columns' summaries and mode ascents are.
func parallelFor(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
