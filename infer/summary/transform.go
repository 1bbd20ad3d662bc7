package summary

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
)

// equalize cuts every chain to the shortest chain's length, as the
// diagnostics need a rectangular array of draws. It returns nil when there
// is no chain or a chain is empty.
func equalize(chains [][]float64) [][]float64 {
	if len(chains) == 0 {
		return nil
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	if n == 0 {
		return nil
	}
	out := make([][]float64, len(chains))
	for m, c := range chains {
		out[m] = c[:n]
	}
	return out
}

// degenerate reports whether the diagnostics are undefined for these draws:
// none at all, a draw that is NaN or ±Inf, or all draws equal.
func degenerate(chains [][]float64) bool {
	if len(chains) == 0 || len(chains[0]) == 0 {
		return true
	}
	first := chains[0][0]
	constant := true
	for _, c := range chains {
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return true
			}
			constant = constant && v == first
		}
	}
	return constant
}

// splitChains splits each of M chains of n draws into its first and second
// half, giving 2M chains of ⌊n/2⌋ draws; the middle draw of an odd-length
// chain is dropped (Vehtari et al. 2021, Section 4.1). The halves share
// memory with the input.
func splitChains(chains [][]float64) [][]float64 {
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		n := len(c)
		half := n / 2
		out = append(out, c[:half], c[n-half:])
	}
	return out
}

// rankNormalize replaces every draw by the normal score of its rank among
// all draws of all chains (Vehtari et al. 2021, Eq. 14):
//
//	z = Φ⁻¹((r − 3/8) / (S + 1/4)),
//
// Blom's offsets (r − a)/(S − 2a + 1) with a = 3/8, where S is the total
// number of draws and tied draws get the average of their ranks. Eq. 14 is
// often quoted with the denominator S − 1/4; Blom's S + 1/4 is what
// posterior and ArviZ compute, and the one that maps ranks r and S + 1 − r
// to ±z, so that the scores of a symmetric sample are symmetric. We follow
// them.
func rankNormalize(chains [][]float64) [][]float64 {
	return normalScores(chains, float64(countDraws(chains)))
}

// normalScores is rankNormalize with the number of draws, s, given.
func normalScores(chains [][]float64, s float64) [][]float64 {
	out := Ranks(chains)
	for _, c := range out {
		for i, r := range c {
			c[i] = normalQuantile((r - 3.0/8) / (s + 1.0/4))
		}
	}
	return out
}

// Ranks ranks every draw among the draws of all chains, from 1, tied draws
// sharing the mean of their ranks (the ranks of rank-normalisation and of
// the rank plots of Vehtari et al. 2021), and returns them by chain.
func Ranks(chains [][]float64) [][]float64 {
	type draw struct {
		v    float64
		m, i int32 // 16 bytes a draw: the sort moves less than with ints
	}
	var all []draw
	for m, c := range chains {
		for i, v := range c {
			all = append(all, draw{v, int32(m), int32(i)})
		}
	}
	slices.SortFunc(all, func(a, b draw) int { return cmp.Compare(a.v, b.v) })
	out := make([][]float64, len(chains))
	for m, c := range chains {
		out[m] = make([]float64, len(c))
	}
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && all[hi].v == all[lo].v {
			hi++
		}
		// Draws lo..hi-1 (0-based) share the ranks lo+1..hi.
		r := float64(lo+1+hi) / 2
		for _, d := range all[lo:hi] {
			out[d.m][d.i] = r
		}
		lo = hi
	}
	return out
}

// normalQuantile is Φ⁻¹(p), the standard normal quantile. gonum's (Cephes'
// ndtri) is accurate to the last digit or two, as R's qnorm is; the
// standard library's Erfcinv loses about 1e-9 relative at p = 1e-10.
func normalQuantile(p float64) float64 {
	return mathext.NormalQuantile(p)
}

// fold maps every draw to its distance from med, the median of all draws,
// |x − median| (Vehtari et al. 2021, Section 4.2): chains that agree in
// location but differ in scale then differ in location.
func fold(chains [][]float64, med float64) [][]float64 {
	out := make([][]float64, len(chains))
	for m, c := range chains {
		out[m] = make([]float64, len(c))
		for i, v := range c {
			out[m][i] = math.Abs(v - med)
		}
	}
	return out
}

// indicator maps every draw to 1 if it is at most q and 0 otherwise; the
// effective sample size of the indicator is that of the q-quantile's
// estimate (Vehtari et al. 2021, Section 4.3).
func indicator(chains [][]float64, q float64) [][]float64 {
	out := make([][]float64, len(chains))
	for m, c := range chains {
		out[m] = make([]float64, len(c))
		for i, v := range c {
			if v <= q {
				out[m][i] = 1
			}
		}
	}
	return out
}

// sortedPool returns all draws of all chains in one sorted slice.
func sortedPool(chains [][]float64) []float64 {
	var all []float64
	for _, c := range chains {
		all = append(all, c...)
	}
	slices.Sort(all)
	return all
}
