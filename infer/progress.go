package infer

import (
	"fmt"
	"strings"
)

// Describe is what a progress display shows beside its count: for
// replica exchange the swap rate and round trips, for a cyclical schedule
// the cycle and its stage, for an exact sampler its warm-up and the
// divergent transitions after it, and the chains that stopped; "" when there is
// nothing to add (a plain run, or before the driver reports these).
func (p Progress) Describe() string {
	var parts []string
	if p.Replicas > 1 {
		trips := "round trips"
		if p.RoundTrips == 1 {
			trips = "round trip"
		}
		swaps := fmt.Sprintf("swap %.2f, %d %s", p.SwapRate, p.RoundTrips, trips)
		if p.Barrier > 0 {
			swaps = fmt.Sprintf("swap %.2f, Λ %.1f, %d %s", p.SwapRate, p.Barrier, p.RoundTrips, trips)
		}
		parts = append(parts, swaps)
	}
	if p.Cycles > 0 {
		stage := "sampling"
		if p.Exploring {
			stage = "exploring"
		}
		parts = append(parts, fmt.Sprintf("cycle %d/%d %s", p.Cycle+1, p.Cycles, stage))
	}
	if p.Warmup {
		parts = append(parts, "warm-up")
	}
	if p.Divergent > 0 {
		parts = append(parts, fmt.Sprintf("%d divergent", p.Divergent))
	}
	if p.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d chains stopped", p.Failed, p.Chains))
	}
	return strings.Join(parts, "; ")
}
