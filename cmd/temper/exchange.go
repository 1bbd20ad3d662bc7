package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/temper-ppl/temper/infer"
)

// exchangeDiagnostics adds what the ladders did to diagnostics.json: swap
// attempts, acceptances and rates per adjacent pair (summed over chains),
// round trips, the window, and per chain the final ladder, the correction
// buffer and the replica index process.
func exchangeDiagnostics(diag map[string]any, res *infer.Result) {
	pairs := res.Replicas - 1
	attempts, accepts := make([]int, pairs), make([]int, pairs)
	trips := 0
	var chains []map[string]any
	for _, r := range res.Exchange {
		for p := range pairs {
			attempts[p] += r.Attempts[p]
			accepts[p] += r.Accepts[p]
		}
		trips += r.RoundTrips
		ladder := make([]map[string]float64, len(r.Ladder))
		for l, lv := range r.Ladder {
			ladder[l] = map[string]float64{"lr": lv.LR, "temperature": lv.Temperature}
		}
		c := map[string]any{
			"round_trips":          r.RoundTrips,
			"mean_round_trip_time": finiteOrNil(r.MeanRoundTripTime * float64(max(1, res.Iterations/max(1, r.Rounds)))),
			"ladder":               ladder,
			"index_process":        map[string]any{"every_rounds": r.IndexEvery, "levels": r.Index},
		}
		if r.HasBuffer {
			c["correction_buffer"] = r.Buffer
		}
		if r.Acceptance != nil {
			c["acceptance"] = r.Acceptance
		}
		chains = append(chains, c)
	}
	rates := make([]any, pairs)
	for p := range pairs {
		rates[p] = nil
		if attempts[p] > 0 {
			rates[p] = float64(accepts[p]) / float64(attempts[p])
		}
	}
	first := res.Exchange[0]
	diag["scheme"] = first.Scheme
	diag["window"] = first.Window
	diag["swap_attempts"] = attempts
	diag["swap_accepts"] = accepts
	diag["swap_rate"] = rates
	diag["round_trips"] = trips
	diag["round_trips_per_1000"] = roundTripsPer1000(res)
	diag["ladder"] = chains[0]["ladder"]
	if first.HasBuffer {
		diag["correction_buffer"] = first.Buffer
	}
	diag["exchange_by_chain"] = chains
}

// roundTripsPer1000 is the round trips of one ladder per 1,000 iterations,
// averaged over the chains (the figure seed 000 reports).
func roundTripsPer1000(res *infer.Result) float64 {
	if res.Iterations == 0 {
		return 0
	}
	trips := 0
	for _, r := range res.Exchange {
		trips += r.RoundTrips
	}
	return 1000 * float64(trips) / float64(len(res.Exchange)) / float64(res.Iterations)
}

func finiteOrNil(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// printExchange writes a short account of the ladders under the summary.
func printExchange(w io.Writer, res *infer.Result) {
	if res.Exchange == nil {
		return
	}
	pairs := res.Replicas - 1
	var rates []string
	for p := range pairs {
		a, n := 0, 0
		for _, r := range res.Exchange {
			a, n = a+r.Accepts[p], n+r.Attempts[p]
		}
		if n == 0 {
			rates = append(rates, "-")
		} else {
			rates = append(rates, fmt.Sprintf("%.2f", float64(a)/float64(n)))
		}
	}
	r := res.Exchange[0]
	fmt.Fprintf(w, "\nreplica exchange: %d replicas, scheme %s, %.1f round trips per 1,000 iterations per chain\n", res.Replicas, r.Scheme, roundTripsPer1000(res))
	fmt.Fprintf(w, "swap rates by pair: %s\n", strings.Join(rates, " "))
	var ladder []string
	for _, lv := range r.Ladder {
		ladder = append(ladder, fmt.Sprintf("(%.3g, %.3g)", lv.LR, lv.Temperature))
	}
	fmt.Fprintf(w, "final ladder of chain 1 (lr, temperature): %s\n", strings.Join(ladder, " "))
	if r.HasBuffer {
		fmt.Fprintf(w, "correction buffer of chain 1: %.4g\n", r.Buffer)
	}
}
