// Package summary computes posterior summaries and convergence diagnostics
// from MCMC draws: mean, standard deviation, quantiles, Monte Carlo standard
// error, bulk and tail effective sample size and rank-normalized split-R̂.
//
// The diagnostics follow Vehtari, Gelman, Simpson, Carpenter and Bürkner
// (2021), "Rank-normalization, folding, and localization: An improved R̂ for
// assessing convergence of MCMC", Bayesian Analysis 16(2), the definitions
// used by Stan, the R package posterior and ArviZ, so that the numbers can be
// compared with theirs:
//
//   - chains are split in half (the middle draw of an odd-length chain is
//     dropped), so that a trend within a chain shows up as disagreement
//     between its halves;
//   - rank normalization replaces every draw by the normal score of its rank
//     among all draws (Eq. 14), which makes R̂ and ESS well defined for
//     heavy-tailed posteriors and invariant to monotone transformations;
//   - folding, |x − median|, turns a difference in scale between chains into
//     a difference in location that R̂ can see (Section 4.2);
//   - the effective sample size uses the multi-chain autocorrelation
//     estimate and Geyer's initial monotone sequence (Section 3.2).
//
// # Input
//
// Every function takes the draws of one scalar quantity as chains[m][i],
// chain m, iteration i. The diagnostics need chains of equal length; longer
// chains are cut to the shortest one's length (their first draws kept),
// which is what a run interrupted part-way through a round of chains needs.
// Mean, standard deviation and quantiles use every draw.
//
// # Undefined values
//
// R̂ and the effective sample sizes are NaN when they are not defined: no
// draws, a draw that is NaN or infinite, or every draw equal (a constant
// quantity has no variance to compare). They are also NaN when the chains
// are too short: R̂ needs 4 draws per chain (a variance in each half), ESS
// needs 12 (6 per half, so that Geyer's sequence has two pairs of lags to
// work on). posterior returns NA in the same cases, except that it gives
// an ESS from 6 draws per chain on, one that for fewer than 12 is Mn/2
// whatever the draws. A caller printing a table shows NaN rather than a
// misleading number. Chains that are each
// constant at different values give R̂ = +Inf: they have certainly not
// mixed.
package summary
