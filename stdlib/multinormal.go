package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// MultiNormalLPDF is Stan's multi_normal_lpdf(y | mu, Sigma) (Stan Functions
// Reference, "Multivariate normal distribution"): y and mu [..., K]
// broadcast over their leading axes, which the result keeps, and Sigma
// [K, K] is the covariance. With r = y - μ,
//
//	lp = -K/2 log 2π - ½ log det Σ - ½ rᵀ Σ⁻¹ r,
//
// through a Cholesky factor of Σ computed inside the op. It is -Inf, with
// zero partials, where Σ is not symmetric (to within 1e-8 relative, Stan's
// tolerance) or not positive definite, or an argument is not finite.
//
// The value is that of the symmetric part (Σ + Σᵀ)/2, so the gradient is
// split evenly: with G = -½(Σ⁻¹ - Σ⁻¹ r rᵀ Σ⁻¹), ∂/∂Σ_ij = ∂/∂Σ_ji = G_ij,
// which is the exact partial of the function computed (Σ_ij enters the
// symmetric part as ½Σ_ij in two places). A symmetric perturbation of both
// entries by h therefore changes lp by 2h·G_ij, and a parameter built
// symmetrically (A Aᵀ, S + Sᵀ) gets the right chain rule either way.
func MultiNormalLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(y, mu, sigma)
	if g == nil || stop != nil {
		return stop
	}
	rows, bad := mvnLayoutOf(g, "multi_normal", "the covariance", "Sigma", y, mu, sigma, nil)
	if bad != nil {
		return bad
	}
	return g.Apply(&mvnCovOp{rows}, rows.batch, y, mu, sigma)
}

// mvnCovOp is multi_normal_lpdf per row of y and mu, or multi_student_t_lpdf
// (studentT). It keeps no factor between Forward and Backward (replicas run
// the op concurrently), so each factors Σ once per call: O(K³) against
// O(K²) per row.
type mvnCovOp struct{ mvnLayout }

func (op *mvnCovOp) Name() string {
	if op.studentT {
		return "multi_student_t"
	}
	return "multi_normal"
}

func (op *mvnCovOp) Forward(a *autodiff.Args) {
	k := op.k
	var buf [2*16*16 + 4*16]float64
	scratch := floats(buf[:], k*k+k)
	l, z := scratch[:k*k], scratch[k*k:]
	ok := choleskyOf(l, a.In[2], k)
	logDet := 0.0
	for i := 0; ok && i < k; i++ {
		logDet += math.Log(l[i*k+i])
	}
	op.forward(a, l, logDet, ok, z)
}

// Backward: with w = Σ⁻¹ r, ∂/∂y = -w, ∂/∂μ = w and ∂/∂Σ = -½(Σ⁻¹ - w wᵀ)
// (see MultiNormalLPDF for the split between Σ_ij and Σ_ji); the
// Student-t's w terms are these times rowScale's s. The Σ⁻¹ term is the
// same for every row, so it is added once, weighted by the rows' summed
// output gradients.
func (op *mvnCovOp) Backward(a *autodiff.Args) {
	k := op.k
	gs := a.GradIn[2]
	var buf [2*16*16 + 4*16]float64
	scratch := floats(buf[:], 2*k*k+2*k)
	l, inv, z, w := scratch[:k*k], scratch[k*k:2*k*k], scratch[2*k*k:2*k*k+k], scratch[2*k*k+k:]
	if !choleskyOf(l, a.In[2], k) {
		return
	}
	weight := 0.0 // Σ g over the finite rows
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(a.Out[b], -1) {
			continue
		}
		op.solve(z, a, b, l)
		upperSolveT(w, z, l, k)
		q := sumSquares(z)
		gw := g * op.rowScale(a, b, g, q)
		op.addRowPartials(a, b, gw, w)
		if gs != nil {
			addSymmetric(gs, k, func(i, j int) float64 { return 0.5 * gw * w[i] * w[j] })
		}
		weight += g
	}
	if gs == nil || weight == 0 {
		return
	}
	choleskyInverse(inv, l, k, z, w)
	addSymmetric(gs, k, func(i, j int) float64 { return -0.25 * weight * (inv[i*k+j] + inv[j*k+i]) })
}

// addSymmetric adds v(i, j), for j ≤ i, to both g_ij and g_ji, so that the
// gradient of Σ is symmetric to the last bit (v computed once per pair).
func addSymmetric(g []float64, k int, v func(i, j int) float64) {
	for i := range k {
		for j := 0; j < i; j++ {
			x := v(i, j)
			g[i*k+j] += x
			g[j*k+i] += x
		}
		g[i*k+i] += v(i, i)
	}
}
