package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// More of Stan's multivariate distributions (Stan Functions Reference,
// "Multivariate discrete distributions", "Unbounded vector distributions",
// "Covariance matrix distributions", "Correlation matrix distributions"):
// the multivariate Student-t, the multinomial, the Wishart and inverse
// Wishart (of a matrix or of its Cholesky factor), and the LKJ density of
// a correlation matrix. None has a device kernel: their ops implement no
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
		{"wishart_cholesky", []string{"L_W", "nu", "L_S"}, nil, func(x []*autodiff.Node) *autodiff.Node { return WishartCholeskyLPDF(x[0], x[1], x[2]) }},
		{"inv_wishart_cholesky", []string{"L_W", "nu", "L_S"}, nil, func(x []*autodiff.Node) *autodiff.Node { return InvWishartCholeskyLPDF(x[0], x[1], x[2]) }},
		{"lkj_corr", []string{"Omega", "eta"}, nil, func(x []*autodiff.Node) *autodiff.Node { return LKJCorrLPDF(x[0], x[1]) }},
	}
	for _, v := range vectors {
		ints := make([]bool, len(v.args))
		copy(ints, v.ints)
		register(Distribution{Name: v.name, Args: v.args, Int: ints, Layout: Vector, LogDensity: fixedArity(v.name, len(v.args), v.f)})
	}
}

// VariateRank is the rank of one variate of a distribution: 2 for those
// of matrices (lkj_corr_cholesky, lkj_corr, the Wisharts), 1 for
// the other Vector layouts' (a vector, or its label for categorical), 0
// for the elementwise densities.
func VariateRank(name string) int {
	switch name {
	case "lkj_corr_cholesky", "lkj_corr", "wishart", "inv_wishart", "wishart_cholesky", "inv_wishart_cholesky":
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
	return multiStudentT(false, y, nu, mu, sigma)
}

// MultiStudentTCholeskyLPDF is Stan's multi_student_t_cholesky_lpdf(y | nu,
// mu, L): MultiStudentTLPDF with Σ = L Lᵀ given by its lower-triangular
// Cholesky factor L (its upper triangle is ignored and gets gradient 0), as
// MultiNormalCholeskyLPDF is multi_normal's; -Inf where L_ii ≤ 0.
func MultiStudentTCholeskyLPDF(y, nu, mu, l *autodiff.Node) *autodiff.Node {
	return multiStudentT(true, y, nu, mu, l)
}

// multiStudentT builds multi_normal's op, or multi_normal_cholesky's, on
// the Student-t's layout.
func multiStudentT(cholesky bool, y, nu, mu, m *autodiff.Node) *autodiff.Node {
	name, what, sym := "multi_student_t", "the scale matrix", "Sigma"
	if cholesky {
		name, what, sym = "multi_student_t_cholesky", "the Cholesky factor", "L"
	}
	g, stop := graphOf(y, nu, mu, m)
	if g == nil || stop != nil {
		return stop
	}
	rows, bad := mvnLayoutOf(g, name, what, sym, y, mu, m, nu)
	if bad != nil {
		return bad
	}
	var op autodiff.Op = &mvnCovOp{rows}
	if cholesky {
		op = &mvnCholeskyOp{rows}
	}
	return g.Apply(op, rows.batch, y, mu, m, nu)
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
	return wishart(wishartOp{}, w, nu, sigma)
}

// InvWishartLPDF is Stan's inv_wishart_lpdf(W | nu, Sigma), the inverse
// Wishart density (W⁻¹ is Wishart with ν degrees of freedom and scale Σ⁻¹):
//
//	lp = -νK/2 log 2 - log Γ_K(ν/2) + ν/2 log det Σ - (ν+K+1)/2 log det W - ½ tr(Σ W⁻¹),
//
// with shapes, support and partials as for WishartLPDF.
func InvWishartLPDF(w, nu, sigma *autodiff.Node) *autodiff.Node {
	return wishart(wishartOp{inverse: true}, w, nu, sigma)
}

// WishartCholeskyLPDF is Stan's wishart_cholesky_lpdf(L_W | nu, L_S): the
// density of the lower-triangular Cholesky factor L_W of W = L_W L_Wᵀ ~
// Wishart(ν, L_S L_Sᵀ), the Wishart's of W plus the log-Jacobian of
// L ↦ L Lᵀ, K log 2 + Σ_i (K - i + 1) log L_ii (i from 1). The factors'
// upper triangles are ignored and get gradient 0; it is -Inf where a
// diagonal entry is not positive or an entry of the lower triangles is
// not finite, or ν ≤ K - 1.
func WishartCholeskyLPDF(lw, nu, ls *autodiff.Node) *autodiff.Node {
	return wishart(wishartOp{cholesky: true}, lw, nu, ls)
}

// InvWishartCholeskyLPDF is Stan's inv_wishart_cholesky_lpdf(L_W | nu,
// L_S): the inverse Wishart's density of W = L_W L_Wᵀ with scale L_S L_Sᵀ
// carried to L_W, as WishartCholeskyLPDF carries the Wishart's.
func InvWishartCholeskyLPDF(lw, nu, ls *autodiff.Node) *autodiff.Node {
	return wishart(wishartOp{inverse: true, cholesky: true}, lw, nu, ls)
}

func wishart(op wishartOp, w, nu, sigma *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(w, nu, sigma)
	if g == nil || stop != nil {
		return stop
	}
	ws, ss := w.Shape(), sigma.Shape()
	if len(ws) < 2 || len(ss) < 2 || ws[len(ws)-1] != ws[len(ws)-2] || !ss[len(ss)-2:].Equal(ws[len(ws)-2:]) {
		return g.Fail(nil, "%s: %s %v and %s %v must be square matrices of one size", op.Name(), op.args()[0], ws, op.args()[2], ss)
	}
	wl, sl := ws[:len(ws)-2], ss[:len(ss)-2]
	batch, err := autodiff.BroadcastShapes(wl, nu.Shape(), sl)
	if err != nil {
		return g.Fail(nil, "%s: %s %v, nu %v and %s %v: %v", op.Name(), op.args()[0], ws, nu.Shape(), op.args()[2], ss, err)
	}
	op.k = ws[len(ws)-1]
	op.at = [3][]int{bcastIndex(batch, wl), bcastIndex(batch, nu.Shape()), bcastIndex(batch, sl)}
	return g.Apply(&op, batch, w, nu, sigma)
}

// wishartOp is wishart_lpdf or inv_wishart_lpdf per pair of matrices, or
// their Cholesky forms. Both are c(ν) + c_W log det W + c_Σ log det Σ -
// ½ tr(Q⁻¹P), with P = W and Q = Σ for the Wishart, P = Σ and Q = W for
// the inverse Wishart.
type wishartOp struct {
	inverse, cholesky bool
	k                 int
	at                [3][]int // per result element, its W, ν and Σ (bcastIndex)
}

func (op *wishartOp) Name() string {
	name := "wishart"
	if op.inverse {
		name = "inv_wishart"
	}
	if op.cholesky {
		name += "_cholesky"
	}
	return name
}

// args are the operands' names, Stan's.
func (op *wishartOp) args() []string {
	if op.cholesky {
		return []string{"L_W", "nu", "L_S"}
	}
	return []string{"W", "nu", "Sigma"}
}

// wishartScratch holds one evaluation's factors: lw and ls the Cholesky
// factors of W and Σ, m a scratch matrix, z and v scratch vectors.
type wishartScratch struct{ lw, ls, m, z, v []float64 }

func newWishartScratch(k int) *wishartScratch {
	kk := k * k
	f := make([]float64, 3*kk+2*k)
	return &wishartScratch{lw: f[:kk], ls: f[kk : 2*kk], m: f[2*kk : 3*kk], z: f[3*kk : 3*kk+k], v: f[3*kk+k:]}
}

// factor sets l to the Cholesky factor of operand i's matrix for result
// element b (for the Cholesky forms, the operand's lower triangle), or
// reports false outside the support.
func (op *wishartOp) factor(l []float64, a *autodiff.Args, i, b int) bool {
	k, kk := op.k, op.k*op.k
	m := a.In[i][bcastAt(op.at[i], b)*kk:][:kk]
	if !op.cholesky {
		return choleskyOf(l, m, k)
	}
	if !isCholeskyFactor(m, k) {
		return false
	}
	for r := range k {
		copy(l[r*k:r*k+r+1], m[r*k:r*k+r+1])
		clear(l[r*k+r+1 : (r+1)*k])
	}
	return true
}

// eval factors result element b's W and Σ into sc and returns ν, log det W,
// log det Σ and the coefficients c_W, c_Σ, or false outside the support.
func (op *wishartOp) eval(a *autodiff.Args, b int, sc *wishartScratch) (nu, ldW, ldS, cW, cS float64, ok bool) {
	k := op.k
	nu = a.In[1][bcastAt(op.at[1], b)]
	if !(nu > float64(k-1)) || math.IsInf(nu, 1) || !op.factor(sc.lw, a, 0, b) || !op.factor(sc.ls, a, 2, b) {
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
		if op.cholesky { // the log-Jacobian of L ↦ L Lᵀ
			v += float64(k) * math.Ln2
			for i := range k {
				v += float64(k-i) * math.Log(sc.lw[i*k+i])
			}
		}
		if math.IsNaN(v) {
			v = math.Inf(-1)
		}
		a.Out[b] = v
	}
}

// Backward: with T = Q⁻¹ P Q⁻¹ (P the symmetric part), the partials in W
// and Σ taken as symmetric matrices are
//
//	D_W = c_W W⁻¹ + (-½Σ⁻¹ for the Wishart, ½T for the inverse),
//	D_Σ = c_Σ Σ⁻¹ + (½T for the Wishart, -½W⁻¹ for the inverse),
//
// each added to the (i, j) and (j, i) entries alike (addSymmetric), and
//
//	∂/∂ν = -K/2 log 2 - ½ Σ_{j=1}^{K} ψ(ν/2 + (1-j)/2) ± ½(log det W - log det Σ),
//
// + for the Wishart, - for the inverse. The Cholesky forms carry D to the
// factor, ∂/∂L = tril(2 D L), and add the Jacobian's (K - i + 1)/L_ii.
func (op *wishartOp) Backward(a *autodiff.Args) {
	k, kk := op.k, op.k*op.k
	sc := newWishartScratch(k)
	invW, invS, p, d := make([]float64, kk), make([]float64, kk), make([]float64, kk), make([]float64, kk)
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(a.Out[b], -1) {
			continue
		}
		nu, ldW, ldS, cW, cS, _ := op.eval(a, b, sc)
		if gn := a.GradIn[1]; gn != nil {
			_, dC := mvlgamma(k, nu/2)
			diff := ldW - ldS
			if op.inverse {
				diff = -diff
			}
			gn[bcastAt(op.at[1], b)] += g * (-float64(k)/2*math.Ln2 - dC/2 + diff/2)
		}
		if a.GradIn[0] == nil && a.GradIn[2] == nil {
			continue
		}
		choleskyInverse(invW, sc.lw, k, sc.z, sc.v)
		choleskyInverse(invS, sc.ls, k, sc.z, sc.v)
		// T = Q⁻¹ P Q⁻¹, into sc.m.
		invQ, lp := invS, sc.lw
		if op.inverse {
			invQ, lp = invW, sc.ls
		}
		op.product(p, a, b, lp)
		matmul(d, invQ, p, k)
		matmul(sc.m, d, invQ, k)
		for i, c := range []struct {
			operand int
			coef    float64
			inv, l  []float64
			inP     bool // the operand is P (else Q)
		}{{0, cW, invW, sc.lw, !op.inverse}, {2, cS, invS, sc.ls, op.inverse}} {
			gi := a.GradIn[c.operand]
			if gi == nil {
				continue
			}
			for e := range d {
				d[e] = c.coef * c.inv[e]
				if c.inP {
					d[e] -= 0.5 * invQ[e]
				} else {
					d[e] += 0.5 * sc.m[e]
				}
			}
			off := bcastAt(op.at[c.operand], b) * kk
			if !op.cholesky {
				addSymmetric(gi[off:off+kk], k, func(r, s int) float64 { return g * d[r*k+s] })
				continue
			}
			for r := range k {
				for s := 0; s <= r; s++ {
					v := 0.0
					for m := s; m < k; m++ {
						v += d[r*k+m] * c.l[m*k+s]
					}
					gi[off+r*k+s] += 2 * g * v
				}
				if i == 0 { // the Jacobian, in L_W
					gi[off+r*k+r] += g * float64(k-r) / c.l[r*k+r]
				}
			}
		}
	}
}

// product sets p to result element b's P: the operand's symmetric part,
// or L Lᵀ from its factor l for the Cholesky forms.
func (op *wishartOp) product(p []float64, a *autodiff.Args, b int, l []float64) {
	k, kk := op.k, op.k*op.k
	if op.cholesky {
		selfOuter(k, l, p)
		return
	}
	i := 0
	if op.inverse {
		i = 2
	}
	m := a.In[i][bcastAt(op.at[i], b)*kk:][:kk]
	for r := range k {
		for s := range k {
			p[r*k+s] = 0.5 * (m[r*k+s] + m[s*k+r])
		}
	}
}

// matmul sets c = a b for k × k row-major matrices (c aliases neither).
func matmul(c, a, b []float64, k int) {
	for i := range k {
		for j := range k {
			s := 0.0
			for m := range k {
				s += a[i*k+m] * b[m*k+j]
			}
			c[i*k+j] = s
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
	g, stop := graphOf(omega, eta)
	if g == nil || stop != nil {
		return stop
	}
	k, batch, omegaAt, etaAt, bad := lkjLayoutOf(g, "lkj_corr", "the correlation matrix", "Omega", omega, eta)
	if bad != nil {
		return bad
	}
	return g.Apply(&lkjCorrOp{k: k, omegaAt: omegaAt, etaAt: etaAt}, batch, omega, eta)
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
