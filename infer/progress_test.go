package infer_test

import (
	"math"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// TestProgressDescribe: the line beside a progress bar, the aggregates
// first, each chain's figures after them.
func TestProgressDescribe(t *testing.T) {
	for _, c := range []struct {
		p    infer.Progress
		want string
	}{
		{infer.Progress{Done: 10, Total: 100, Replicas: 1, Chains: 4}, ""},
		{infer.Progress{Replicas: 8, SwapRate: 0.376, RoundTrips: 12, Chains: 4}, "swap 0.38, 12 round trips"},
		{infer.Progress{Replicas: 8, SwapRate: 0.376, RoundTrips: 12, Barrier: 4.27, Chains: 4}, "swap 0.38, Λ 4.3, 12 round trips"},
		{infer.Progress{Cycles: 4, Cycle: 2, Exploring: true}, "cycle 3/4 exploring"},
		{infer.Progress{Cycles: 4, Cycle: 2}, "cycle 3/4 sampling"},
		{infer.Progress{Replicas: 2, SwapRate: 0.5, RoundTrips: 1, Chains: 4, Failed: 1}, "swap 0.50, 1 round trip; 1 of 4 chains stopped"},
		// With each chain's figures: the swap rates and divergences in
		// brackets, the stopped chains by number, at most eight shown.
		{infer.Progress{Replicas: 8, SwapRate: 0.3, RoundTrips: 5, Barrier: 2, Chains: 3, PerChain: []infer.ChainProgress{{SwapRate: 0.25}, {SwapRate: 0.351}, {SwapRate: math.NaN()}}}, "swap 0.30 (0.25 0.35 –), Λ 2.0, 5 round trips"},
		{infer.Progress{Divergent: 3, Chains: 2, PerChain: []infer.ChainProgress{{Divergent: 1}, {Divergent: 2}}}, "3 divergent (1 2)"},
		{infer.Progress{Divergent: 10, Chains: 10, PerChain: slices.Repeat([]infer.ChainProgress{{Divergent: 1}}, 10)}, "10 divergent (1 1 1 1 1 1 1 1 …)"},
		{infer.Progress{Chains: 3, Failed: 1, PerChain: []infer.ChainProgress{{}, {Stopped: true}, {}}}, "1 of 3 chains stopped (2)"},
		{infer.Progress{Chains: 1, NoiseRatio: 0.01234, PerChain: []infer.ChainProgress{{}}}, "noise ratio 0.012"},
	} {
		if got := c.p.Describe(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}
