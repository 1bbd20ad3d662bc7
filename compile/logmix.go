package compile

import (
	ad "github.com/temper-ppl/temper/autodiff"
)

// logMixK is Stan's K-component log_mix(theta, lps) = log Σ_k θ_k e^lps_k
// = log_sum_exp(log θ + lps) over the last axis: θ a K-vector of
// mixing proportions (a simplex), lps the K components' log densities, a
// vector (one row's in a plate). A component with θ_k = 0 adds nothing
// (log 0 = −∞ drops out of the log-sum-exp).
func (b *builder) logMixK(theta, lps value) value {
	ts, ls := rowShape(theta.node.Shape(), theta.batched), rowShape(lps.node.Shape(), lps.batched)
	if len(ts) != 1 || len(ls) != 1 || ts[0] != ls[0] {
		return value{node: b.g.Fail(nil, "log_mix(theta, lps) takes two vectors of the K components' proportions and log densities, and these have shapes %s and %s", shapeString(ts), shapeString(ls))}
	}
	pair := []value{{node: ad.Log(theta.node), batched: theta.batched}, lps}
	n := b.align(pair)
	sum := ad.Add(n[0], n[1])
	if !anyBatched(pair) {
		return value{node: ad.LogSumExpAll(sum)}
	}
	return value{node: ad.LogSumExp(sum, 1), batched: true}
}
