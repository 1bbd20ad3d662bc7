package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// More of Stan's multivariate distributions (Stan Functions Reference,
// "Multivariate discrete distributions", "Unbounded vector distributions",
// "Covariance matrix distributions", "Correlation matrix distributions"):
// the multivariate Student-t, the multinomial, the Wishart and inverse
// Wishart, and the LKJ density of a correlation matrix. None has a device kernel: their ops implement no
// autodiff.DeviceOp, or name a kernel no backend has, so a backend
// refuses them by name and a model using one runs on the CPU.

func init() {
	vectors := []struct {
		name string
		args []string
		ints []bool
		f    func(x []*autodiff.Node) *autodiff.Node
	}{
		{"multi_student_t", []string{"y", "nu", "mu", "Sigma"}, nil, func(x []*autodiff.Node) *autodiff.Node { return MultiStudentTLPDF(x[0], x[1], x[2], x[3]) }},
		{"multi_student_t_cholesky", []string{"y", "nu", "mu", "L"}, nil, func(x []*autodiff.Node) *autodiff.Node { return MultiStudentTCholeskyLPDF(x[0], x[1], x[2], x[3]) }},
		{"multinomial", []string{"y", "theta"}, []bool{true, false}, func(x []*autodiff.Node) *autodiff.Node { return MultinomialLPMF(x[0], x[1]) }},
		{"multinomial_logit", []string{"y", "gamma"}, []bool{true, false}, func(x []*autodiff.Node) *autodiff.Node { return MultinomialLogitLPMF(x[0], x[1]) }},
		{"wishart", []string{"W", "nu", "Sigma"}, nil, func(x []*autodiff.Node) *autodiff.Node { return WishartLPDF(x[0], x[1], x[2]) }},
		{"inv_wishart", []string{"W", "nu", "Sigma"}, nil, func(x []*autodiff.Node) *autodiff.Node { return InvWishartLPDF(x[0], x[1], x[2]) }},
		{"lkj_corr", []string{"Omega", "eta"}, nil, func(x []*autodiff.Node) *autodiff.Node { return LKJCorrLPDF(x[0], x[1]) }},
	}
	for _, v := range vectors {
		ints := make([]bool, len(v.args))
		copy(ints, v.ints)
		register(Distribution{Name: v.name, Args: v.args, Int: ints, Layout: Vector, LogDensity: fixedArity(v.name, len(v.args), v.f)})
	}
}

// VariateRank is the rank of one variate of a distribution: 2 for those
// of matrices (lkj_corr_cholesky, lkj_corr, wishart, inv_wishart), 1 for
// the other Vector layouts' (a vector, or its label for categorical), 0
// for the elementwise densities.
func VariateRank(name string) int {
	switch name {
	case "lkj_corr_cholesky", "lkj_corr", "wishart", "inv_wishart":
		return 2
	}
	if d, ok := distributions[name]; ok && d.Layout == Vector {
		return 1
	}
	return 0
}

// MultiStudentTLPDF is Stan's multi_student_t_lpdf(y | nu, mu, Sigma): y and
// mu [..., K] and nu broadcast over their leading axes, which the result
// keeps, and Sigma [K, K] is the scale matrix. With r = y - μ and
// q = rᵀΣ⁻¹r,
//
//	lp = log Γ((ν+K)/2) - log Γ(ν/2) - K/2 log νπ - ½ log det Σ - (ν+K)/2 log(1 + q/ν).
//
// It is multi_normal's op with that kernel (mvnLayout), through a Cholesky
// factor of Σ computed inside it, -Inf where Σ is not symmetric or not
// positive definite, ν is not positive and finite, or an argument is not
// finite; the partials in Σ are split between Σ_ij and Σ_ji as
// MultiNormalLPDF's are.
func MultiStudentTLPDF(y, nu, mu, sigma *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(y, nu, mu, sigma)
	if g == nil || stop != nil {
		return stop
	}
	rows, bad := mvnLayoutOf(g, "multi_student_t", "the scale matrix", "Sigma", y, mu, sigma, nu)
	if bad != nil {
		return bad
	}
	return g.Apply(&mvnCovOp{rows}, rows.batch, y, mu, sigma, nu)
}

// MultiStudentTCholeskyLPDF is Stan's multi_student_t_cholesky_lpdf(y | nu,
// mu, L): MultiStudentTLPDF with Σ = L Lᵀ given by its lower-triangular
// Cholesky factor L (its upper triangle is ignored and gets gradient 0), as
// MultiNormalCholeskyLPDF is multi_normal's; -Inf where L_ii ≤ 0.
func MultiStudentTCholeskyLPDF(y, nu, mu, l *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(y, nu, mu, l)
	if g == nil || stop != nil {
		return stop
	}
	rows, bad := mvnLayoutOf(g, "multi_student_t_cholesky", "the Cholesky factor", "L", y, mu, l, nu)
	if bad != nil {
		return bad
	}
	return g.Apply(&mvnCholeskyOp{rows}, rows.batch, y, mu, l, nu)
}

// MultinomialLPMF is Stan's multinomial_lpmf(y | theta): y [..., K] holds
// counts and theta [..., K] probability vectors along their last axes, the
// leading axes broadcast and the result has their broadcast shape. With
// N = Σ_k y_k,
//
//	lp = log N! - Σ_k log y_k! + Σ_k y_k log θ_k,
//
// a term with y_k = 0 left out (θ_k = 0 is fine there). It is -Inf where a
// count is negative or not whole, or theta is not a simplex (categorical's
// test).
func MultinomialLPMF(y, theta *autodiff.Node) *autodiff.Node {
	return multinomial(false, y, theta)
}

// MultinomialLogitLPMF is Stan's multinomial_logit_lpmf(y | gamma), the
// multinomial with θ = softmax(γ): lp = log N! - Σ_k log y_k! + Σ_k y_k γ_k
// - N log Σ_k e^γ_k, shapes as for MultinomialLPMF; -Inf where a γ_k is
// not finite.
func MultinomialLogitLPMF(y, gamma *autodiff.Node) *autodiff.Node {
	return multinomial(true, y, gamma)
}

func multinomial(logit bool, y, theta *autodiff.Node) *autodiff.Node {
	op := &multinomialOp{logit: logit}
	g, stop := graphOf(y, theta)
	if g == nil || stop != nil {
		return stop
	}
	ys, ts := y.Shape(), theta.Shape()
	if len(ys) == 0 || len(ts) == 0 || ys[len(ys)-1] != ts[len(ts)-1] {
		return g.Fail(nil, "%s: the counts %v and the vector %v must be vectors along their last axes, of one length", op.Name(), ys, ts)
	}
	yl, tl := ys[:len(ys)-1], ts[:len(ts)-1]
	batch, err := autodiff.BroadcastShapes(yl, tl)
	if err != nil {
		return g.Fail(nil, "%s: the counts %v and the vector %v: %v", op.Name(), ys, ts, err)
	}
	op.k, op.yAt, op.thetaAt = ts[len(ts)-1], bcastIndex(batch, yl), bcastIndex(batch, tl)
	return g.Apply(op, batch, y, theta)
}

// multinomialOp is multinomial_lpmf or multinomial_logit_lpmf per pair of
// rows of y and theta.
type multinomialOp struct {
	logit        bool
	k            int
	yAt, thetaAt []int // per result element, its row of y and of theta (bcastIndex)
}

func (op *multinomialOp) Name() string {
	if op.logit {
		return "multinomial_logit"
	}
	return "multinomial"
}

func (op *multinomialOp) rows(a *autodiff.Args, b int) (y, theta []float64) {
	return a.In[0][bcastAt(op.yAt, b)*op.k:][:op.k], a.In[1][bcastAt(op.thetaAt, b)*op.k:][:op.k]
}

func (op *multinomialOp) Forward(a *autodiff.Args) {
	for b := range a.Out {
		y, theta := op.rows(a, b)
		lp := op.logProb(y, theta)
		if math.IsNaN(lp) {
			lp = math.Inf(-1)
		}
		a.Out[b] = lp
	}
}

// logProb is one row's log probability, -Inf outside the support.
func (op *multinomialOp) logProb(y, theta []float64) float64 {
	n, lp := 0.0, 0.0
	for _, c := range y {
		if !(c >= 0) || math.IsInf(c, 1) || c != math.Trunc(c) {
			return math.Inf(-1)
		}
		n += c
		lp -= autodiff.Lgamma64(c + 1)
	}
	lp += autodiff.Lgamma64(n + 1)
	switch {
	case op.logit && allFinite(theta):
		m, ls := rowShiftedLogSum(theta)
		for i, c := range y {
			if c > 0 {
				lp += c * (theta[i] - m)
			}
		}
		return lp - n*ls
	case !op.logit && isSimplex(theta):
		for i, c := range y {
			if c > 0 {
				lp += c * math.Log(theta[i])
			}
		}
		return lp
	}
	return math.Inf(-1)
}

// Backward: ∂/∂θ_k = y_k/θ_k; ∂/∂γ_k = y_k - N softmax(γ)_k.
func (op *multinomialOp) Backward(a *autodiff.Args) {
	gt := a.GradIn[1]
	if gt == nil {
		return
	}
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(a.Out[b], -1) {
			continue
		}
		y, theta := op.rows(a, b)
		grow := gt[bcastAt(op.thetaAt, b)*op.k:][:op.k]
		if !op.logit {
			for i, c := range y {
				if c > 0 {
					grow[i] += g * c / theta[i]
				}
			}
			continue
		}
		n := 0.0
		for _, c := range y {
			n += c
		}
		m, ls := rowShiftedLogSum(theta)
		for i, c := range y {
			grow[i] += g * (c - n*math.Exp((theta[i]-m)-ls))
		}
	}
}

// WishartLPDF is Stan's wishart_lpdf(W | nu, Sigma), the Wishart density of
// the K × K covariance matrix W with ν degrees of freedom and scale matrix Σ:
//
//	lp = -νK/2 log 2 - log Γ_K(ν/2) - ν/2 log det Σ + (ν-K-1)/2 log det W - ½ tr(Σ⁻¹W),
//
// with Γ_K the multivariate gamma function (mvlgamma). W and Sigma are
// [..., K, K] and nu broadcasts against their leading axes, which the
// result keeps. It is -Inf where W or Σ is not symmetric (to within 1e-8
// relative) or not positive definite, ν ≤ K - 1, or an argument is not
// finite. The partials are split between the (i, j) and (j, i) entries of
// W and Σ as MultiNormalLPDF's are: each gets the partial of the
// function of the symmetric parts.
func WishartLPDF(w, nu, sigma *autodiff.Node) *autodiff.Node {
	return wishart(false, w, nu, sigma)
}

// InvWishartLPDF is Stan's inv_wishart_lpdf(W | nu, Sigma), the inverse
// Wishart density (W⁻¹ is Wishart with ν degrees of freedom and scale Σ⁻¹):
//
//	lp = -νK/2 log 2 - log Γ_K(ν/2) + ν/2 log det Σ - (ν+K+1)/2 log det W - ½ tr(Σ W⁻¹),
//
// with shapes, support and partials as for WishartLPDF.
func InvWishartLPDF(w, nu, sigma *autodiff.Node) *autodiff.Node {
	return wishart(true, w, nu, sigma)
}

func wishart(inverse bool, w, nu, sigma *autodiff.Node) *autodiff.Node {
	op := &wishartOp{inverse: inverse}
	g, stop := graphOf(w, nu, sigma)
	if g == nil || stop != nil {
		return stop
	}
	ws, ss := w.Shape(), sigma.Shape()
	if len(ws) < 2 || len(ss) < 2 || ws[len(ws)-1] != ws[len(ws)-2] || !ss[len(ss)-2:].Equal(ws[len(ws)-2:]) {
		return g.Fail(nil, "%s: W %v and Sigma %v must be square matrices of one size", op.Name(), ws, ss)
	}
	wl, sl := ws[:len(ws)-2], ss[:len(ss)-2]
	batch, err := autodiff.BroadcastShapes(wl, nu.Shape(), sl)
	if err != nil {
		return g.Fail(nil, "%s: W %v, nu %v and Sigma %v: %v", op.Name(), ws, nu.Shape(), ss, err)
	}
	op.k = ws[len(ws)-1]
	op.at = [3][]int{bcastIndex(batch, wl), bcastIndex(batch, nu.Shape()), bcastIndex(batch, sl)}
	return g.Apply(op, batch, w, nu, sigma)
}

// wishartOp is wishart_lpdf or inv_wishart_lpdf per pair of matrices. Both
// are c(ν) + c_W log det W + c_Σ log det Σ - ½ tr(Q⁻¹P), with P = W and
// Q = Σ for the Wishart, P = Σ and Q = W for the inverse Wishart.
type wishartOp struct {
	inverse bool
	k       int
	at      [3][]int // per result element, its W, ν and Σ (bcastIndex)
}

func (op *wishartOp) Name() string {
	if op.inverse {
		return "inv_wishart"
	}
	return "wishart"
}

// wishartScratch holds one evaluation's factors: lw and ls the Cholesky
// factors of W and Σ, m and n scratch matrices.
type wishartScratch struct{ lw, ls, m, n, z, v []float64 }

func newWishartScratch(k int) *wishartScratch {
	f := make([]float64, 4*k*k+2*k)
	kk := k * k
	return &wishartScratch{lw: f[:kk], ls: f[kk : 2*kk], m: f[2*kk : 3*kk], n: f[3*kk : 4*kk], z: f[4*kk : 4*kk+k], v: f[4*kk+k:]}
}

// eval factors result element b's W and Σ into sc and returns ν, log det W,
// log det Σ and the coefficients c_W, c_Σ, or false outside the support.
func (op *wishartOp) eval(a *autodiff.Args, b int, sc *wishartScratch) (nu, ldW, ldS, cW, cS float64, ok bool) {
	k, kk := op.k, op.k*op.k
	nu = a.In[1][bcastAt(op.at[1], b)]
	if !(nu > float64(k-1)) || math.IsInf(nu, 1) ||
		!choleskyOf(sc.lw, a.In[0][bcastAt(op.at[0], b)*kk:][:kk], k) ||
		!choleskyOf(sc.ls, a.In[2][bcastAt(op.at[2], b)*kk:][:kk], k) {
		return 0, 0, 0, 0, 0, false
	}
	for i := range k {
		ldW += 2 * math.Log(sc.lw[i*k+i])
		ldS += 2 * math.Log(sc.ls[i*k+i])
	}
	fk := float64(k)
	if op.inverse {
		return nu, ldW, ldS, -(nu + fk + 1) / 2, nu / 2, true
	}
	return nu, ldW, ldS, (nu - fk - 1) / 2, -nu / 2, true
}

// factors returns the Cholesky factors of P and Q (see wishartOp).
func (op *wishartOp) factors(sc *wishartScratch) (lp, lq []float64) {
	if op.inverse {
		return sc.ls, sc.lw
	}
	return sc.lw, sc.ls
}

func (op *wishartOp) Forward(a *autodiff.Args) {
	k := op.k
	sc := newWishartScratch(k)
	for b := range a.Out {
		nu, ldW, ldS, cW, cS, ok := op.eval(a, b, sc)
		if !ok {
			a.Out[b] = math.Inf(-1)
			continue
		}
		// tr(Q⁻¹P) = |L_Q⁻¹ L_P|², column by column of L_P.
		lp, lq := op.factors(sc)
		tr := 0.0
		for c := range k {
			for r := range k {
				sc.z[r] = lp[r*k+c]
			}
			lowerSolve(sc.z, lq, k)
			tr += sumSquares(sc.z)
		}
		logC, _ := mvlgamma(k, nu/2)
		v := -nu*float64(k)/2*math.Ln2 - logC + cW*ldW + cS*ldS - tr/2
		if math.IsNaN(v) {
			v = math.Inf(-1)
		}
		a.Out[b] = v
	}
}

// Backward: with T = Q⁻¹ P Q⁻¹ (P the symmetric part),
//
//	∂/∂W = c_W W⁻¹ + (-½Σ⁻¹ for the Wishart, ½T for the inverse),
//	∂/∂Σ = c_Σ Σ⁻¹ + (½T for the Wishart, -½W⁻¹ for the inverse),
//	∂/∂ν = -K/2 log 2 - ½ Σ_{j=1}^{K} ψ(ν/2 + (1-j)/2) ± ½(log det W - log det Σ),
//
// + for the Wishart, - for the inverse; each matrix's partials are added
// to its (i, j) and (j, i) entries alike (addSymmetric).
func (op *wishartOp) Backward(a *autodiff.Args) {
	k, kk := op.k, op.k*op.k
	sc := newWishartScratch(k)
	invW, invS, t := make([]float64, kk), make([]float64, kk), make([]float64, kk)
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(a.Out[b], -1) {
			continue
		}
		nu, ldW, ldS, cW, cS, _ := op.eval(a, b, sc)
		if gn := a.GradIn[1]; gn != nil {
			_, dC := mvlgamma(k, nu/2)
			d := ldW - ldS
			if op.inverse {
				d = -d
			}
			gn[bcastAt(op.at[1], b)] += g * (-float64(k)/2*math.Ln2 - dC/2 + d/2)
		}
		gw, gs := a.GradIn[0], a.GradIn[2]
		if gw == nil && gs == nil {
			continue
		}
		choleskyInverse(invW, sc.lw, k, sc.z, sc.v)
		choleskyInverse(invS, sc.ls, k, sc.z, sc.v)
		// T = Q⁻¹ P Q⁻¹ from P's symmetric part.
		invQ, p := invS, a.In[0][bcastAt(op.at[0], b)*kk:][:kk]
		if op.inverse {
			invQ, p = invW, a.In[2][bcastAt(op.at[2], b)*kk:][:kk]
		}
		for i := range k {
			for j := range k {
				s := 0.0
				for m := range k {
					s += invQ[i*k+m] * 0.5 * (p[m*k+j] + p[j*k+m])
				}
				sc.m[i*k+j] = s
			}
		}
		for i := range k {
			for j := range k {
				s := 0.0
				for m := range k {
					s += sc.m[i*k+m] * invQ[m*k+j]
				}
				t[i*k+j] = s
			}
		}
		dP, dQ := func(i, j int) float64 { return -0.5 * invQ[i*k+j] }, func(i, j int) float64 { return 0.5 * t[i*k+j] }
		dW, dS := dP, dQ
		if op.inverse {
			dW, dS = dQ, dP
		}
		if gw != nil {
			off := bcastAt(op.at[0], b) * kk
			addSymmetric(gw[off:off+kk], k, func(i, j int) float64 { return g * (cW*invW[i*k+j] + dW(i, j)) })
		}
		if gs != nil {
			off := bcastAt(op.at[2], b) * kk
			addSymmetric(gs[off:off+kk], k, func(i, j int) float64 { return g * (cS*invS[i*k+j] + dS(i, j)) })
		}
	}
}

// mvlgamma is log Γ_K(x) = K(K-1)/4 log π + Σ_{j=1}^{K} log Γ(x + (1-j)/2),
// the log of the multivariate gamma function, and its derivative in x,
// Σ_j ψ(x + (1-j)/2).
func mvlgamma(k int, x float64) (v, dx float64) {
	v = float64(k*(k-1)) / 4 * lnPi
	for j := range k {
		v += autodiff.Lgamma64(x - float64(j)/2)
		dx += autodiff.Digamma64(x - float64(j)/2)
	}
	return v, dx
}

// LKJCorrLPDF is Stan's lkj_corr_lpdf(Omega | eta), the LKJ density of a
// K × K correlation matrix Ω (Stan Functions Reference, "Correlation matrix
// distributions: LKJ correlation distribution"):
//
//	lp = (η - 1) log det Ω - log c_K,
//
// with LKJCorrCholeskyLPDF's normalising constant c_K. Omega is [..., K, K]
// and eta broadcasts against its leading axes, which the result keeps. It
// is -Inf where Ω is not symmetric (to within 1e-8 relative), its diagonal
// is off one by more than 1e-8, it is not positive definite, or η is not
// positive and finite. ∂/∂Ω = (η - 1) Ω⁻¹, split between Ω_ij and Ω_ji as
// MultiNormalLPDF's partials in Σ are; ∂/∂η = log det Ω - ∂ log c_K/∂η.
func LKJCorrLPDF(omega, eta *autodiff.Node) *autodiff.Node {
	const name = "lkj_corr"
	g, stop := graphOf(omega, eta)
	if g == nil || stop != nil {
		return stop
	}
	os := omega.Shape()
	if len(os) < 2 || os[len(os)-1] != os[len(os)-2] {
		return g.Fail(nil, "%s: the correlation matrix must be a square matrix, got shape %v", name, os)
	}
	lead := os[:len(os)-2]
	batch, err := autodiff.BroadcastShapes(lead, eta.Shape())
	if err != nil {
		return g.Fail(nil, "%s: Omega %v and eta %v: %v", name, os, eta.Shape(), err)
	}
	return g.Apply(&lkjCorrOp{k: os[len(os)-1], omegaAt: bcastIndex(batch, lead), etaAt: bcastIndex(batch, eta.Shape())}, batch, omega, eta)
}

// lkjCorrOp is lkj_corr_lpdf per matrix of Omega.
type lkjCorrOp struct {
	k              int
	omegaAt, etaAt []int // per result element, its matrix and its eta (bcastIndex)
}

func (op *lkjCorrOp) Name() string { return "lkj_corr" }

// logDet factors result element b's Ω into l and returns η and log det Ω,
// or false outside the support.
func (op *lkjCorrOp) logDet(a *autodiff.Args, b int, l []float64) (eta, ld float64, ok bool) {
	k, kk := op.k, op.k*op.k
	eta = a.In[1][bcastAt(op.etaAt, b)]
	omega := a.In[0][bcastAt(op.omegaAt, b)*kk:][:kk]
	if !(eta > 0) || math.IsInf(eta, 1) || !choleskyOf(l, omega, k) {
		return 0, 0, false
	}
	for i := range k {
		if math.Abs(omega[i*k+i]-1) > symTol {
			return 0, 0, false
		}
		ld += 2 * math.Log(l[i*k+i])
	}
	return eta, ld, true
}

func (op *lkjCorrOp) Forward(a *autodiff.Args) {
	l := make([]float64, op.k*op.k)
	for b := range a.Out {
		eta, ld, ok := op.logDet(a, b, l)
		if !ok {
			a.Out[b] = math.Inf(-1)
			continue
		}
		logC, _ := lkjLogConstant(eta, op.k)
		a.Out[b] = (eta-1)*ld - logC
	}
}

func (op *lkjCorrOp) Backward(a *autodiff.Args) {
	k, kk := op.k, op.k*op.k
	l, inv, z, w := make([]float64, kk), make([]float64, kk), make([]float64, k), make([]float64, k)
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(a.Out[b], -1) {
			continue
		}
		eta, ld, _ := op.logDet(a, b, l)
		if ge := a.GradIn[1]; ge != nil {
			_, dC := lkjLogConstant(eta, k)
			ge[bcastAt(op.etaAt, b)] += g * (ld - dC)
		}
		if gOmega := a.GradIn[0]; gOmega != nil {
			choleskyInverse(inv, l, k, z, w)
			off := bcastAt(op.omegaAt, b) * kk
			addSymmetric(gOmega[off:off+kk], k, func(i, j int) float64 { return g * (eta - 1) * inv[i*k+j] })
		}
	}
}
