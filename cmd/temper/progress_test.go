package main

import (
	"testing"

	"github.com/temper-ppl/temper"
)

// TestProgressLabel: the bar's description carries the run's notes.
func TestProgressLabel(t *testing.T) {
	for _, c := range []struct {
		p    temper.Progress
		want string
	}{
		{temper.Progress{Done: 5, Total: 10, Replicas: 1, Chains: 4}, "sampling"},
		{temper.Progress{Replicas: 8, SwapRate: 0.38, RoundTrips: 12, Chains: 4}, "sampling (swap 0.38, 12 round trips)"},
		{temper.Progress{Cycles: 4, Cycle: 3, Chains: 4, Failed: 1}, "sampling (cycle 4/4 sampling; 1 of 4 chains stopped)"},
	} {
		if got := progressLabel(c.p); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}
