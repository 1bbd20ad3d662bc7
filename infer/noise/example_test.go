package noise_test

import (
	"fmt"

	"github.com/temper-ppl/temper/infer/noise"
)

// Each replica owns a stream, so its noise is the same whichever
// goroutine runs it and however many there are.
func Example() {
	const replicas, params = 4, 5
	streams := make([]*noise.Stream, replicas)
	for r := range streams {
		streams[r] = noise.New(42, uint64(r))
	}
	z := make([]float64, params)
	for range 3 { // steps
		for _, s := range streams {
			s.FillNormal(z) // this replica's noise for this step
		}
	}
	fmt.Printf("%.4f\n", z)
	// Output: [0.9956 -0.1525 -0.0459 -0.3025 -0.6759]
}

// A fill split into blocks gives the same draws for any number of
// workers.
func ExampleFillNormalParallel() {
	a := make([]float64, 3*noise.BlockSize+1)
	b := make([]float64, len(a))
	noise.FillNormalParallel(a, 42, 0, 1)
	noise.FillNormalParallel(b, 42, 0, 3)
	fmt.Println(a[len(a)-1] == b[len(b)-1])
	// Output: true
}
