package infer_test

import (
	"testing"

	"github.com/temper-ppl/temper/infer"
)

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
	} {
		if got := c.p.Describe(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}
