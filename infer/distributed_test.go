package infer_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/temper-ppl/temper/infer"
)

// loopback is a Transport between goroutines of one process, a stand-in
// for MPI that exercises everything a split run sends: hub holds one
// block per rank for Allgather and a channel per ordered pair of ranks.
type loopback struct {
	rank int
	hub  *hub
}

type hub struct {
	size   int
	mu     sync.Mutex
	cond   *sync.Cond
	blocks [][]float64
	// arrived counts the ranks at the current Allgather, gen numbers it,
	// and joined is the last one's result.
	arrived, gen int
	joined       []float64
	timedOut     bool
	pipes        [][]chan []float64 // pipes[from][to]
}

func newHub(size int) []*loopback {
	h := &hub{size: size, blocks: make([][]float64, size), pipes: make([][]chan []float64, size)}
	h.cond = sync.NewCond(&h.mu)
	for i := range h.pipes {
		h.pipes[i] = make([]chan []float64, size)
		for j := range h.pipes[i] {
			h.pipes[i][j] = make(chan []float64, 1)
		}
	}
	ends := make([]*loopback, size)
	for r := range ends {
		ends[r] = &loopback{rank: r, hub: h}
	}
	return ends
}

func (l *loopback) Rank() int { return l.rank }
func (l *loopback) Size() int { return l.hub.size }

func (l *loopback) Allgather(local, all []float64) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(all) != len(local)*h.size {
		return errors.New("loopback: blocks of unequal length")
	}
	gen := h.gen
	h.blocks[l.rank] = slices.Clone(local)
	if h.arrived++; h.arrived == h.size {
		// The last to arrive joins the blocks; the next gathering cannot
		// start before every rank has copied them, as each must arrive.
		h.joined = slices.Concat(h.blocks...)
		h.arrived, h.gen = 0, gen+1
		h.cond.Broadcast()
	}
	if h.gen == gen {
		// A rank that never comes (a refused run's partner, or a bug that
		// makes the ranks disagree) fails the call rather than hanging.
		timer := time.AfterFunc(10*time.Second, func() {
			h.mu.Lock()
			h.timedOut = true
			h.cond.Broadcast()
			h.mu.Unlock()
		})
		defer timer.Stop()
	}
	for h.gen == gen && !h.timedOut {
		h.cond.Wait()
	}
	if h.gen == gen {
		return errors.New("loopback: the other ranks did not come to the allgather")
	}
	copy(all, h.joined)
	return nil
}

func (l *loopback) Exchange(peer int, send, recv []float64) error {
	h := l.hub
	h.pipes[l.rank][peer] <- slices.Clone(send)
	select {
	case b := <-h.pipes[peer][l.rank]:
		copy(recv, b)
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("loopback: the peer did not come to the exchange")
	}
}

// runSplit runs target with s on n goroutine "processes" and returns rank
// 0's result, checking that every rank made the same draws.
func runSplit(t *testing.T, target infer.Target, s infer.Sampler, o infer.Options, n int) *infer.Result {
	t.Helper()
	ends := newHub(n)
	results := make([]*infer.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ro := o
			ro.Transport = ends[r]
			results[r], errs[r] = infer.Run(context.Background(), target, s, ro)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d of %d: %v", r, n, err)
		}
	}
	for r := 1; r < n; r++ {
		if !sameDraws(results[0], results[r]) {
			t.Fatalf("rank %d of %d made other draws than rank 0", r, n)
		}
	}
	return results[0]
}

func sameDraws(a, b *infer.Result) bool {
	if len(a.Draws) != len(b.Draws) {
		return false
	}
	for c := range a.Draws {
		if !slices.EqualFunc(a.Draws[c], b.Draws[c], slices.Equal) {
			return false
		}
	}
	return true
}

// TestSplitRunsMatch splits runs over 2 and 4 "processes" (goroutines on a
// loopback Transport) and requires the one-process run's draws bit for bit:
// replica exchange with a temperature ladder (every pair on one process, or
// across two), a step-size ladder of 8 levels with DEO and its adaptive
// ladder and buffer, kept levels included, and plain chains on minibatches
// with synthetic noise.
func TestSplitRunsMatch(t *testing.T) {
	well := doubleWell{h: 4, c: 0.3}
	for _, tc := range []struct {
		name     string
		target   infer.Target
		sampler  string
		settings map[string]string
		o        infer.Options
	}{
		{"resgld", well, "resgld", map[string]string{"lr": "0.01", "t_max": "5"}, infer.Options{Chains: 2, Iters: 300, Seed: 3, EnergyNoise: 0.5}},
		{"deo_sgd", well, "deo_sgd", map[string]string{"lr_min": "0.003", "lr_max": "0.1"}, infer.Options{Chains: 1, Iters: 300, Burn: 100, Seed: 5, KeepAll: true}},
		{"sghmc", newRegression(), "sghmc", map[string]string{"lr": "0.002"}, infer.Options{Chains: 4, Iters: 200, Batch: 20, Seed: 7, GradNoise: 0.1}},
		// The warm-up of lr = auto runs whole in every process.
		{"resgld auto", well, "resgld", map[string]string{"t_max": "5"}, infer.Options{Chains: 2, Iters: 200, Seed: 11}},
		{"deo_sgd auto", well, "deo_sgd", nil, infer.Options{Chains: 1, Iters: 200, Seed: 13}},
	} {
		s, err := infer.NewSampler(tc.sampler, tc.settings)
		if err != nil {
			t.Fatal(err)
		}
		one, err := infer.Run(context.Background(), tc.target, s, tc.o)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{2, 4} {
			if rows := max(1, s.Replicas) * tc.o.Chains; rows%n != 0 {
				continue
			}
			split := runSplit(t, tc.target, s, tc.o, n)
			if !sameDraws(one, split) {
				t.Errorf("%s on %d processes: the draws differ from the one-process run's", tc.name, n)
			}
			if one.Exchange != nil && !slices.Equal(one.Exchange[0].Accepts, split.Exchange[0].Accepts) {
				t.Errorf("%s on %d processes: swaps %v, one process %v", tc.name, n, split.Exchange[0].Accepts, one.Exchange[0].Accepts)
			}
		}
	}
}

// TestSplitRunsRefused: what a split run cannot do is said, not done.
func TestSplitRunsRefused(t *testing.T) {
	well := doubleWell{h: 4, c: 0.3}
	for _, tc := range []struct {
		sampler  string
		settings map[string]string
		o        infer.Options
		n        int
		want     string
	}{
		{"sghmc", map[string]string{"gradient": "control_variate"}, infer.Options{Chains: 2, Batch: 20, Iters: 10}, 2, "control-variate"},
		{"resgld", map[string]string{"lr": "0.01"}, infer.Options{Chains: 3}, 4, "cannot share"},
		{"renhd", map[string]string{"lr": "0.01"}, infer.Options{Chains: 1}, 7, "Barker"},
		{"nuts", nil, infer.Options{Chains: 2}, 2, "array job"},
	} {
		s, err := infer.NewSampler(tc.sampler, tc.settings)
		if err != nil {
			t.Fatal(err)
		}
		o := tc.o
		o.Transport = newHub(tc.n)[0]
		var target infer.Target = well
		if tc.o.Batch > 0 {
			target = newRegression()
		}
		if _, err := infer.Run(context.Background(), target, s, o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %d processes: %v, want an error saying %q", tc.sampler, tc.n, err, tc.want)
		}
	}
}
