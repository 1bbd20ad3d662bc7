package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// LKJCorrCholeskyLPDF is Stan's lkj_corr_cholesky_lpdf(L | eta) (Stan
// Functions Reference, "Correlation matrix distributions: Cholesky LKJ
// correlation distribution"): the LKJ density det(R)^(η-1)/c_K of the
// correlation matrix R = L Lᵀ, carried to its Cholesky factor L,
//
//	lp = Σ_{k=2}^{K} (K - k + 2η - 2) log L_kk - log c_K.
//
// The density is with respect to the strictly lower entries of L (row k's
// L_k1 … L_k,k-1 free, L_kk = √(1 - Σ_j L_kj²)): det(R)^(η-1) = Π L_kk^(2η-2)
// and the Jacobian of L ↦ R is Π_{k≥2} L_kk^(K-k). The normalising constant
// of the LKJ density, from the vine construction of Lewandowski, Kurowicka
// and Joe, "Generating random correlation matrices based on vines and
// extended onion method", J. Multivariate Analysis 100 (2009) 1989-2001, is
//
//	c_K = Π_{i=1}^{K-1} [2^(2η-2+i) B(b_i, b_i)]^i,  b_i = η + (i-1)/2,
//
// (i = K - k in the paper's product over k), the volume ∫ det(R)^(η-1) dR
// over K × K correlation matrices; for K = 2 it is ∫(1-r²)^(η-1) dr over
// (-1, 1) = 2^(2η-1) B(η, η).
//
// L is [..., K, K] (its upper triangle and L_11 are ignored and get
// gradient 0, as are its off-diagonal entries, which the density does not
// read) and eta broadcasts against L's leading shape, which the result has.
// It is -Inf, with zero partials, for η ≤ 0, a diagonal entry that is not
// positive, or an entry of the lower triangle that is not finite. That the
// rows of L have unit length is not checked, as in Stan: it is the
// constraining transform's job.
func LKJCorrCholeskyLPDF(l, eta *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(l, eta)
	if g == nil || stop != nil {
		return stop
	}
	k, batch, lAt, etaAt, bad := lkjLayoutOf(g, "lkj_corr_cholesky", "the Cholesky factor", "L", l, eta)
	if bad != nil {
		return bad
	}
	return g.Apply(&lkjOp{k: k, lAt: lAt, etaAt: etaAt}, batch, l, eta)
}

// lkjLayoutOf checks that m (called what and sym in messages) is
// [..., K, K] with leading axes that broadcast against eta's shape, and
// returns K, the broadcast shape, and per result element its matrix and
// its eta (bcastIndex); bad is the failed node when not.
func lkjLayoutOf(g *autodiff.Graph, name, what, sym string, m, eta *autodiff.Node) (k int, batch autodiff.Shape, mAt, etaAt []int, bad *autodiff.Node) {
	ms := m.Shape()
	if len(ms) < 2 || ms[len(ms)-1] != ms[len(ms)-2] {
		return 0, nil, nil, nil, g.Fail(nil, "%s: %s must be a square matrix, got shape %v", name, what, ms)
	}
	lead := ms[:len(ms)-2]
	batch, err := autodiff.BroadcastShapes(lead, eta.Shape())
	if err != nil {
		return 0, nil, nil, nil, g.Fail(nil, "%s: %s %v and eta %v: %v", name, sym, ms, eta.Shape(), err)
	}
	return ms[len(ms)-1], batch, bcastIndex(batch, lead), bcastIndex(batch, eta.Shape()), nil
}

// lkjOp is lkj_corr_cholesky_lpdf per matrix of L.
type lkjOp struct {
	k          int
	lAt, etaAt []int // per result element, its matrix of L and its eta (bcastIndex)
}

func (op *lkjOp) Name() string { return "lkj_corr_cholesky" }

// DeviceKernel implements autodiff.DeviceOp.
func (op *lkjOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.k}, Tables: [][]int{op.lAt, op.etaAt}}
}

// lkjLogConstant returns log c_K and its derivative in η (see
// LKJCorrCholeskyLPDF), with log B(b, b) = 2 log Γ(b) - log Γ(2b).
func lkjLogConstant(eta float64, k int) (logC, dEta float64) {
	for i := 1; i < k; i++ {
		fi, b := float64(i), eta+float64(i-1)/2
		logC += fi * ((2*eta-2+fi)*math.Ln2 + 2*autodiff.Lgamma64(b) - autodiff.Lgamma64(2*b))
		dEta += fi * (2*math.Ln2 + 2*autodiff.Digamma64(b) - 2*autodiff.Digamma64(2*b))
	}
	return logC, dEta
}

// lkjLogDiag returns Σ_{k≥2} w_k log L_kk with w_k = K - k + 2η - 2, and
// Σ_{k≥2} log L_kk, or false when L or η is outside the domain.
func lkjLogDiag[T autodiff.Float](l []T, eta float64, k int) (weighted, plain float64, ok bool) {
	if !(eta > 0) || math.IsInf(eta, 1) {
		return 0, 0, false
	}
	for i := range k {
		for j := 0; j <= i; j++ {
			if v := float64(l[i*k+j]); math.IsInf(v, 0) || math.IsNaN(v) {
				return 0, 0, false
			}
		}
		d := float64(l[i*k+i])
		if !(d > 0) {
			return 0, 0, false
		}
		if i > 0 { // k = i+1 ≥ 2
			ld := math.Log(d)
			weighted += (float64(k-i-3) + 2*eta) * ld
			plain += ld
		}
	}
	return weighted, plain, true
}

func (op *lkjOp) Forward(a *autodiff.Args)     { lkjForward(op, a) }
func (op *lkjOp) Forward32(a *autodiff.Args32) { lkjForward(op, a) }

func lkjForward[T autodiff.Float](op *lkjOp, a *autodiff.ArgsOf[T]) {
	kk := op.k * op.k
	for b := range a.Out {
		eta := float64(a.In[1][bcastAt(op.etaAt, b)])
		s, _, ok := lkjLogDiag(a.In[0][bcastAt(op.lAt, b)*kk:][:kk], eta, op.k)
		if !ok {
			a.Out[b] = T(math.Inf(-1))
			continue
		}
		logC, _ := lkjLogConstant(eta, op.k)
		a.Out[b] = T(s - logC)
	}
}

func (op *lkjOp) Backward(a *autodiff.Args)     { lkjBackward(op, a) }
func (op *lkjOp) Backward32(a *autodiff.Args32) { lkjBackward(op, a) }

// lkjBackward: ∂/∂L_kk = (K - k + 2η - 2)/L_kk for k ≥ 2 and ∂/∂η =
// 2 Σ_{k≥2} log L_kk - ∂ log c_K/∂η.
func lkjBackward[T autodiff.Float](op *lkjOp, a *autodiff.ArgsOf[T]) {
	k, kk := op.k, op.k*op.k
	gl, ge := a.GradIn[0], a.GradIn[1]
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[b]), -1) {
			continue
		}
		eta := float64(a.In[1][bcastAt(op.etaAt, b)])
		off := bcastAt(op.lAt, b) * kk
		if gl != nil {
			l := a.In[0][off:][:kk]
			for i := 1; i < k; i++ {
				gl[off+i*k+i] += T(float64(g) * (float64(k-i-3) + 2*eta) / float64(l[i*k+i]))
			}
		}
		if ge != nil {
			_, plain, _ := lkjLogDiag(a.In[0][off:][:kk], eta, k)
			_, dC := lkjLogConstant(eta, k)
			ge[bcastAt(op.etaAt, b)] += T(float64(g) * (2*plain - dC))
		}
	}
}
