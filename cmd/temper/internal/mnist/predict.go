package mnist

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Predictor accumulates the posterior predictive of a set of chains on a
// test set: for each draw, the softmax class probabilities of every test
// image are added to its chain's running sum. The predicted class is the
// argmax of the sum (the posterior-mean predictive), as the peer does it.
type Predictor struct {
	net     MLP
	at      Layout
	labels  []int
	sums    [][]float64 // per chain: test images × K
	samples []int
	forward func(params, probs []float64) // adds the draw's probabilities to probs
}

// NewPredictor prepares the predictive of chains chains on test, with the
// matrix products in precision ("float32" or "float64") split over up to
// threads goroutines.
func NewPredictor(net MLP, at Layout, test *Set, chains int, precision string, threads int) (*Predictor, error) {
	if test.Dim() != net.D {
		return nil, fmt.Errorf("test images have %d pixels, the network %d inputs", test.Dim(), net.D)
	}
	p := &Predictor{net: net, at: at, labels: test.Labels, sums: make([][]float64, chains), samples: make([]int, chains)}
	for c := range p.sums {
		p.sums[c] = make([]float64, test.N*net.K)
	}
	switch precision {
	case "float32":
		p.forward = newForward[float32](net, at, test, threads).add
	case "float64":
		p.forward = newForward[float64](net, at, test, threads).add
	default:
		return nil, fmt.Errorf("precision must be float32 or float64, got %q", precision)
	}
	return p, nil
}

// Add adds the draw params (W1, b1, W2, b2 laid out as the Predictor's
// Layout says) to chain's predictive.
func (p *Predictor) Add(chain int, params []float64) {
	p.forward(params, p.sums[chain])
	p.samples[chain]++
}

// Samples is the number of draws added to each chain.
func (p *Predictor) Samples() []int { return p.samples }

// Accuracy is the share of test images whose most probable class under the
// posterior-mean predictive is their label: of each chain's draws, and of
// all the chains' draws together (pooled).
func (p *Predictor) Accuracy() (pooled float64, perChain []float64) {
	k, n := p.net.K, len(p.labels)
	all := make([]float64, n*k)
	for _, s := range p.sums {
		perChain = append(perChain, accuracy(s, p.labels, k))
		for i, x := range s {
			all[i] += x
		}
	}
	return accuracy(all, p.labels, k), perChain
}

func accuracy(sums []float64, labels []int, k int) float64 {
	right := 0
	for i, y := range labels {
		row := sums[i*k : (i+1)*k]
		best := 0
		for j, x := range row {
			if x > row[best] {
				best = j
			}
		}
		if best == y {
			right++
		}
	}
	return float64(right) / float64(len(labels))
}

// forward is the network's forward pass on the whole test set in float
// type T, with its buffers.
type forward[T float32 | float64] struct {
	net     MLP
	at      Layout
	threads int
	x       []T // test images × D
	n       int
	w1, w2  []T // the draw's weights in T
	hidden  []T // n × H
	logits  []T // n × K
}

func newForward[T float32 | float64](net MLP, at Layout, test *Set, threads int) *forward[T] {
	f := &forward[T]{net: net, at: at, threads: threads, n: test.N,
		x: make([]T, len(test.Pixels)), w1: make([]T, net.D*net.H), w2: make([]T, net.H*net.K),
		hidden: make([]T, test.N*net.H), logits: make([]T, test.N*net.K)}
	for i, v := range test.Pixels {
		f.x[i] = T(v)
	}
	return f
}

func (f *forward[T]) add(params, probs []float64) {
	d, h, k := f.net.D, f.net.H, f.net.K
	convert(f.w1, params[f.at.W1:])
	convert(f.w2, params[f.at.W2:])
	b1, b2 := params[f.at.B1:f.at.B1+h], params[f.at.B2:f.at.B2+k]
	gemm(f.threads, f.n, h, d, f.x, f.w1, f.hidden)
	for i := range f.n {
		row := f.hidden[i*h : (i+1)*h]
		for j, b := range b1 {
			row[j] = max(row[j]+T(b), 0)
		}
	}
	gemm(f.threads, f.n, k, h, f.hidden, f.w2, f.logits)
	// Softmax in float64, shifted by the row's maximum.
	for i := range f.n {
		row, out := f.logits[i*k:(i+1)*k], probs[i*k:(i+1)*k]
		top := math.Inf(-1)
		for j, b := range b2 {
			top = max(top, float64(row[j])+b)
		}
		total := 0.0
		for j, b := range b2 {
			total += math.Exp(float64(row[j]) + b - top)
		}
		for j, b := range b2 {
			out[j] += math.Exp(float64(row[j])+b-top) / total
		}
	}
}

func convert[T float32 | float64](dst []T, src []float64) {
	for i := range dst {
		dst[i] = T(src[i])
	}
}

// gemm sets C (m × n) = A (m × k) · B (k × n), row-major, with the
// project's kernels.
func gemm[T float32 | float64](threads, m, n, k int, a, b, c []T) {
	switch a := any(a).(type) {
	case []float32:
		kernel.SgemmParallel(threads, false, false, m, n, k, 1, a, k, any(b).([]float32), n, 0, any(c).([]float32), n)
	case []float64:
		kernel.DgemmParallel(threads, false, false, m, n, k, 1, a, k, any(b).([]float64), n, 0, any(c).([]float64), n)
	}
}
