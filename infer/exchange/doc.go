// Package exchange is the replica-exchange machinery that temper's two
// kernels share: the replica index process and its round trips
// (RoundTrips), the placement of a ladder's levels at equal rejection and
// its tuning in rounds of doubling length (EqualRejection, Tuning; Syed,
// Bouchard-Côté, Deligiannidis & Doucet 2021), the Metropolis swap's log
// ratio with seed 000's variance correction (LogRatio, Eq. 15), and the
// log marginal likelihood from a power-posterior ladder (Sums, Evidence).
//
// The exact kernels' ladders (infer/exactpt.go, powerpath.go) and the
// stochastic-gradient kernel's (infer/tempering.go, exchange.go,
// sgpower.go) call it; what depends on a kernel's state (which rows swap,
// when, the stochastic-gradient exchange tests that need minibatches of
// their own) stays in package infer. It imports nothing of temper.
package exchange
