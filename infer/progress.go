package infer

import (
	"fmt"
	"math"
	"strings"
)

// shownChains is how many chains' own figures a progress line lists; a
// run of more chains shows the first ones and "…".
const shownChains = 8

// chainProgress is buf resized to n chains and cleared, the chains that
// failures stopped marked (first: the State's first chain in the run).
func chainProgress(buf []ChainProgress, n, first int, failures []Failure) []ChainProgress {
	if cap(buf) < n {
		buf = make([]ChainProgress, n)
	}
	buf = buf[:n]
	for c := range buf {
		buf[c] = ChainProgress{SwapRate: math.NaN()}
	}
	for _, f := range failures {
		if c := f.Chain - first; c >= 0 && c < n {
			buf[c].Stopped = true
		}
	}
	return buf
}

// ratePerChain is the chains' swap rates as "0.31 0.29 …" (– before a
// chain's first swap).
func ratePerChain(chains []ChainProgress) string {
	return perChain(chains, func(c ChainProgress) string {
		if math.IsNaN(c.SwapRate) {
			return "–"
		}
		return fmt.Sprintf("%.2f", c.SwapRate)
	})
}

// perChain lists a figure of each of the first shownChains chains.
func perChain(chains []ChainProgress, f func(ChainProgress) string) string {
	var parts []string
	for i, c := range chains {
		if i == shownChains {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, f(c))
	}
	return strings.Join(parts, " ")
}

// Describe is what a progress display shows beside its count: for
// replica exchange the swap rate and round trips, for a cyclical schedule
// the cycle and its stage, for an exact sampler its warm-up and the
// divergent transitions after it, for minibatches the noise ratio, and
// the chains that stopped; with several chains, the swap rates and
// divergences of each in brackets and the stopped ones by number. ""
// when there is nothing to add (a plain run, or before the driver
// reports these).
func (p Progress) Describe() string {
	var parts []string
	if p.Replicas > 1 {
		trips := "round trips"
		if p.RoundTrips == 1 {
			trips = "round trip"
		}
		rate := fmt.Sprintf("%.2f", p.SwapRate)
		if len(p.PerChain) > 1 {
			rate += " (" + ratePerChain(p.PerChain) + ")"
		}
		swaps := fmt.Sprintf("swap %s, %d %s", rate, p.RoundTrips, trips)
		if p.Barrier > 0 {
			swaps = fmt.Sprintf("swap %s, Λ %.1f, %d %s", rate, p.Barrier, p.RoundTrips, trips)
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
	if p.NoiseRatio > 0 {
		parts = append(parts, fmt.Sprintf("noise ratio %.2g", p.NoiseRatio))
	}
	if p.Divergent > 0 {
		div := fmt.Sprintf("%d divergent", p.Divergent)
		if len(p.PerChain) > 1 {
			div += " (" + perChain(p.PerChain, func(c ChainProgress) string { return fmt.Sprint(c.Divergent) }) + ")"
		}
		parts = append(parts, div)
	}
	if p.Failed > 0 {
		stopped := fmt.Sprintf("%d of %d chains stopped", p.Failed, p.Chains)
		var which []string
		for i, c := range p.PerChain {
			if c.Stopped {
				which = append(which, fmt.Sprint(i+1))
			}
		}
		if len(which) > 0 && len(which) <= shownChains {
			stopped += " (" + strings.Join(which, ", ") + ")"
		}
		parts = append(parts, stopped)
	}
	return strings.Join(parts, "; ")
}
