package exchange

// LogRatio is the log of the Metropolis ratio S of swapping the states of
// two adjacent levels, with seed 000's variance correction (Eq. 15):
//
//	log S = Δβ (ΔU - Δβ σ²),
//
// Δβ = β_p - β_{p+1} the levels' gap in inverse temperature (1/τ_p -
// 1/τ_{p+1}; on the power path, of the likelihood's power), ΔU = U(x_p) -
// U(x_{p+1}) the states' energies (the likelihood's on the power path),
// and σ² the variance of one state's minibatch energy, Var[ΔU] = 2σ²
// (Eq. 14). With exact energies σ² = 0 and the swap is exact parallel
// tempering's, α = 1 ∧ S; with Gaussian minibatch noise of that variance
// the corrected test keeps the ladder's laws (the penalty method).
func LogRatio(deltaBeta, deltaU, variance float64) float64 {
	return deltaBeta * (deltaU - deltaBeta*variance)
}
