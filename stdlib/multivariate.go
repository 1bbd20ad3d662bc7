package stdlib

import (
	"math"

	"github.com/temper-ppl/temper/autodiff"
)

// The densities of vectors along the last axis: categorical over a vector of
// probabilities or logits, and the multivariate normal with a diagonal or a
// Cholesky-factored covariance. Each is one op over rows; the leading axes
// broadcast by NumPy's rules, through index maps built once with the op.

// simplexTol is how far a vector of probabilities may sum from one: Stan's
// CONSTRAINT_TOLERANCE.
const simplexTol = 1e-8

// CategoricalLPMF is Stan's categorical_lpmf(y | theta) = log θ_y: theta
// [..., K] holds probability vectors along its last axis and y the labels,
// 1..K as in Stan, with a shape that broadcasts against theta's leading
// axes; the result has the broadcast shape. It is -Inf for a label outside
// 1..K and for a theta row that is not a simplex (an entry outside [0, 1], or
// a sum off one by more than 1e-8).
func CategoricalLPMF(y, theta *autodiff.Node) *autodiff.Node {
	return categorical(false, y, theta)
}

// CategoricalLogitLPMF is Stan's categorical_logit_lpmf(y | beta) =
// β_y - log Σ_k e^β_k, log-softmax and pick fused into one op: shapes as for
// CategoricalLPMF, with unnormalized log-probabilities beta [..., K].
func CategoricalLogitLPMF(y, beta *autodiff.Node) *autodiff.Node {
	return categorical(true, y, beta)
}

func categorical(logit bool, y, theta *autodiff.Node) *autodiff.Node {
	op := &categoricalOp{logit: logit}
	g, stop := graphOf(y, theta)
	if g == nil || stop != nil {
		return stop
	}
	ts := theta.Shape()
	if len(ts) == 0 {
		return g.Fail(nil, "%s: the vector argument must have a last axis of categories, got a scalar", op.Name())
	}
	lead := ts[:len(ts)-1]
	batch, err := autodiff.BroadcastShapes(y.Shape(), lead)
	if err != nil {
		return g.Fail(nil, "%s: labels of shape %v against vectors of shape %v: %v", op.Name(), y.Shape(), ts, err)
	}
	op.k = ts[len(ts)-1]
	op.yAt, op.rowAt = bcastIndex(batch, y.Shape()), bcastIndex(batch, lead)
	return g.Apply(op, batch, y, theta)
}

// categoricalOp is categorical_lpmf or categorical_logit_lpmf: one label
// against one row of K per element of the result.
type categoricalOp struct {
	logit      bool
	k          int
	yAt, rowAt []int // per result element, its label and its row (bcastIndex)
}

func (op *categoricalOp) Name() string {
	if op.logit {
		return "categorical_logit"
	}
	return "categorical"
}

// DeviceKernel implements autodiff.DeviceOp.
func (op *categoricalOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.k}, Tables: [][]int{op.yAt, op.rowAt}}
}

func (op *categoricalOp) Forward(a *autodiff.Args)     { categoricalForward(op, a) }
func (op *categoricalOp) Forward32(a *autodiff.Args32) { categoricalForward(op, a) }

func categoricalForward[T autodiff.Float](op *categoricalOp, a *autodiff.ArgsOf[T]) {
	y, theta := a.In[0], a.In[1]
	for b := range a.Out {
		row := theta[bcastAt(op.rowAt, b)*op.k:][:op.k]
		i := label(float64(y[bcastAt(op.yAt, b)]), op.k)
		switch {
		case i >= 0 && op.logit && allFinite(row):
			m, ls := rowShiftedLogSum(row)
			a.Out[b] = T((float64(row[i]) - m) - ls)
		case i >= 0 && !op.logit && isSimplex(row):
			a.Out[b] = T(math.Log(float64(row[i])))
		default:
			a.Out[b] = T(math.Inf(-1))
		}
	}
}

func (op *categoricalOp) Backward(a *autodiff.Args)     { categoricalBackward(op, a) }
func (op *categoricalOp) Backward32(a *autodiff.Args32) { categoricalBackward(op, a) }

// categoricalBackward: ∂/∂θ_y = 1/θ_y; ∂/∂β_k = [k = y] - softmax(β)_k.
func categoricalBackward[T autodiff.Float](op *categoricalOp, a *autodiff.ArgsOf[T]) {
	gt := a.GradIn[1]
	if gt == nil {
		return
	}
	y, theta := a.In[0], a.In[1]
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[b]), -1) {
			continue
		}
		r := bcastAt(op.rowAt, b) * op.k
		row, grow := theta[r:r+op.k], gt[r:r+op.k]
		i := label(float64(y[bcastAt(op.yAt, b)]), op.k)
		if !op.logit {
			grow[i] += g / row[i]
			continue
		}
		m, ls := rowShiftedLogSum(row)
		for j, v := range row {
			grow[j] -= T(float64(g) * math.Exp((float64(v)-m)-ls))
		}
		grow[i] += g
	}
}

// label maps a 1-based label held as float64 to an index in [0, k), or -1.
func label(y float64, k int) int {
	if y >= 1 && y <= float64(k) && y == math.Trunc(y) {
		return int(y) - 1
	}
	return -1
}

// isSimplex reports whether p is a vector of probabilities summing to one.
// In a float32 program the tolerance is float32's: a row rounded to
// float32 can be off one by a few units of 2^-24 per entry.
func isSimplex[T autodiff.Float](p []T) bool {
	s := 0.0
	for _, v := range p {
		if !(v >= 0 && v <= 1) {
			return false
		}
		s += float64(v)
	}
	tol := simplexTol
	if _, is32 := any(T(0)).(float32); is32 {
		tol = float64(len(p)+1) * 0x1p-24
	}
	return math.Abs(s-1) <= tol
}

// rowShiftedLogSum returns m = max x and log Σ e^(x-m) for a finite row: the
// log-sum-exp kept in two parts, so that x_y - m - log Σ loses no digits where
// x_y is the maximum.
func rowShiftedLogSum[T autodiff.Float](x []T) (m, logSum float64) {
	m = math.Inf(-1)
	for _, v := range x {
		m = max(m, float64(v))
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(float64(v) - m)
	}
	return m, math.Log(s)
}

func allFinite[T autodiff.Float](x []T) bool {
	for _, v := range x {
		if math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}

// MultiNormalDiagLPDF is the multivariate normal with diagonal covariance, the sum
// over the last axis of NormalLPDF(y, mu, sigma): the three broadcast to
// [..., K] and the result has the leading shape. A row with σ_k ≤ 0 or a
// non-finite entry is -Inf, with zero partials for the whole row.
func MultiNormalDiagLPDF(y, mu, sigma *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(y, mu, sigma)
	if g == nil || stop != nil {
		return stop
	}
	full, err := autodiff.BroadcastShapes(y.Shape(), mu.Shape(), sigma.Shape())
	if err != nil {
		return g.Fail(nil, "multi_normal_diag: %v", err)
	}
	if len(full) == 0 {
		return g.Fail(nil, "multi_normal_diag: the arguments must have a last axis, got scalars")
	}
	op := &mvnDiagOp{k: full[len(full)-1]}
	for i, n := range []*autodiff.Node{y, mu, sigma} {
		op.at[i] = bcastIndex(full, n.Shape())
	}
	return g.Apply(op, full[:len(full)-1], y, mu, sigma)
}

// mvnDiagOp sums normal log densities over rows of K.
type mvnDiagOp struct {
	k  int
	at [3][]int // per operand, its element for each element of the broadcast (bcastIndex)
}

func (op *mvnDiagOp) Name() string { return "multi_normal_diag" }

// DeviceKernel implements autodiff.DeviceOp: its tables map each element
// of the broadcast, not each row.
func (op *mvnDiagOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.k}, Tables: op.at[:]}
}

func (op *mvnDiagOp) Forward(a *autodiff.Args) {
	y, mu, sigma := a.In[0], a.In[1], a.In[2]
	for b := range a.Out {
		lp := 0.0
		for e := b * op.k; e < (b+1)*op.k; e++ {
			yv, m, s := y[bcastAt(op.at[0], e)], mu[bcastAt(op.at[1], e)], sigma[bcastAt(op.at[2], e)]
			if !(s > 0) || math.IsInf(s, 0) || math.IsInf(yv, 0) || math.IsInf(m, 0) {
				lp = math.Inf(-1)
				break
			}
			lp += normalLP(yv, m, s)
		}
		a.Out[b] = lp
	}
}

func (op *mvnDiagOp) Backward(a *autodiff.Args) {
	y, mu, sigma := a.In[0], a.In[1], a.In[2]
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[b]), -1) {
			continue
		}
		for e := b * op.k; e < (b+1)*op.k; e++ {
			at := [3]int{bcastAt(op.at[0], e), bcastAt(op.at[1], e), bcastAt(op.at[2], e)}
			dy, dmu, dsigma := normalPartials(y[at[0]], mu[at[1]], sigma[at[2]])
			d := [3]float64{dy, dmu, dsigma}
			for i, gi := range a.GradIn {
				if gi != nil {
					gi[at[i]] += g * d[i]
				}
			}
		}
	}
}

// MultiNormalCholeskyLPDF is Stan's multi_normal_cholesky_lpdf(y | mu, L):
// y and mu [..., K] broadcast over their leading axes, which the result
// keeps, and L [K, K] is the lower-triangular Cholesky factor of the
// covariance (its upper triangle is ignored and gets gradient 0). With
// z = L⁻¹(y - μ),
//
//	lp = -K/2 log 2π - Σ_i log L_ii - ½ zᵀz.
//
// It is -Inf where L_ii ≤ 0 or an argument is not finite.
func MultiNormalCholeskyLPDF(y, mu, l *autodiff.Node) *autodiff.Node {
	g, stop := graphOf(y, mu, l)
	if g == nil || stop != nil {
		return stop
	}
	rows, bad := mvnLayoutOf(g, "multi_normal_cholesky", "the Cholesky factor", "L", y, mu, l, nil)
	if bad != nil {
		return bad
	}
	return g.Apply(&mvnCholeskyOp{rows}, rows.batch, y, mu, l)
}

// mvnLayout is where the rows of y and mu [..., K] of a multivariate normal
// with a K × K matrix lie in the broadcast of their leading axes. The same
// layout, with studentT set, makes the ops multi_student_t's: the Student-t
// differs from the normal only in the function of q = rᵀΣ⁻¹r that the log
// density is (kernel) and in a per-row factor of its partials (rowScale),
// so the two share one piece of code, the operands in the order y, μ, the
// matrix and, for the Student-t, ν.
type mvnLayout struct {
	k         int
	batch     autodiff.Shape
	yAt, muAt []int // per result element, its row of y and of mu (bcastIndex)
	studentT  bool  // multi_student_t: operand 3 is ν, at nuAt per result element
	nuAt      []int
}

// mvnLayoutOf checks that m (the covariance or its factor, called what and
// sym in messages) is square and that y and mu end in its size with leading
// axes that broadcast, with nu's shape too when nu is not nil (the
// Student-t's degrees of freedom); bad is the failed node when not.
func mvnLayoutOf(g *autodiff.Graph, name, what, sym string, y, mu, m, nu *autodiff.Node) (rows mvnLayout, bad *autodiff.Node) {
	ms, ys, mus := m.Shape(), y.Shape(), mu.Shape()
	if len(ms) != 2 || ms[0] != ms[1] {
		return rows, g.Fail(nil, "%s: %s must be a square matrix, got shape %v", name, what, ms)
	}
	k := ms[0]
	if len(ys) == 0 || ys[len(ys)-1] != k || len(mus) == 0 || mus[len(mus)-1] != k {
		return rows, g.Fail(nil, "%s: y %v and mu %v must end in an axis of %d, the size of %s", name, ys, mus, k, sym)
	}
	yl, ml := ys[:len(ys)-1], mus[:len(mus)-1]
	batch, err := autodiff.BroadcastShapes(yl, ml)
	if err != nil {
		return rows, g.Fail(nil, "%s: y %v and mu %v: %v", name, ys, mus, err)
	}
	if nu == nil {
		return mvnLayout{k: k, batch: batch, yAt: bcastIndex(batch, yl), muAt: bcastIndex(batch, ml)}, nil
	}
	if batch, err = autodiff.BroadcastShapes(batch, nu.Shape()); err != nil {
		return rows, g.Fail(nil, "%s: y %v, mu %v and nu %v: %v", name, ys, mus, nu.Shape(), err)
	}
	return mvnLayout{k: k, batch: batch, yAt: bcastIndex(batch, yl), muAt: bcastIndex(batch, ml),
		studentT: true, nuAt: bcastIndex(batch, nu.Shape())}, nil
}

// mvnCholeskyOp is multi_normal_cholesky_lpdf per row of y and mu.
type mvnCholeskyOp struct{ mvnLayout }

func (op *mvnCholeskyOp) Name() string {
	if op.studentT {
		return "multi_student_t_cholesky"
	}
	return "multi_normal_cholesky"
}

// DeviceKernel implements autodiff.DeviceOp. The Student-t's name has no
// kernel, so a backend refuses it.
func (op *mvnCholeskyOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.k}, Tables: [][]int{op.yAt, op.muAt}}
}

// logDet is Σ log L_ii, or false when L is outside the domain: a diagonal
// entry not positive, or an entry of the lower triangle not finite.
func (op *mvnCholeskyOp) logDet(l []float64) (float64, bool) {
	ld := 0.0
	for i := range op.k {
		for j := 0; j <= i; j++ {
			if math.IsInf(l[i*op.k+j], 0) {
				return 0, false
			}
		}
		d := l[i*op.k+i]
		if !(d > 0) {
			return 0, false
		}
		ld += math.Log(d)
	}
	return ld, true
}

// solve sets z = L⁻¹(y - μ) for result element b by forward substitution,
// with L the lower triangle of l.
func (r mvnLayout) solve(z []float64, a *autodiff.Args, b int, l []float64) {
	y := a.In[0][bcastAt(r.yAt, b)*r.k:][:r.k]
	mu := a.In[1][bcastAt(r.muAt, b)*r.k:][:r.k]
	for i := range r.k {
		z[i] = y[i] - mu[i]
	}
	lowerSolve(z, l, r.k)
}

// forward sets every result to kernel(q) - logDet, with q = |L⁻¹(y - μ)|²
// and logDet = Σ log L_ii, or to -Inf where the factor is not valid (ok
// false) or y or μ is infinite (q infinite or NaN).
func (r mvnLayout) forward(a *autodiff.Args, l []float64, logDet float64, ok bool, z []float64) {
	for b := range a.Out {
		if !ok {
			a.Out[b] = math.Inf(-1)
			continue
		}
		r.solve(z, a, b, l)
		if lp := r.kernel(a, b, sumSquares(z)) - logDet; !math.IsNaN(lp) {
			a.Out[b] = lp
		} else {
			a.Out[b] = math.Inf(-1)
		}
	}
}

// sumSquares is zᵀz.
func sumSquares(z []float64) float64 {
	q := 0.0
	for _, v := range z {
		q += v * v
	}
	return q
}

// kernel is result element b's log density but for its -½ log det Σ term,
// as a function of q = rᵀΣ⁻¹r: the normal's -K log √(2π) - q/2, or the
// Student-t's (MultiStudentTLPDF), -Inf for ν not positive and finite.
func (r mvnLayout) kernel(a *autodiff.Args, b int, q float64) float64 {
	if !r.studentT {
		return -float64(r.k)*lnSqrt2Pi - 0.5*q
	}
	nu, fk := a.In[3][bcastAt(r.nuAt, b)], float64(r.k)
	if !(nu > 0) || math.IsInf(nu, 1) {
		return math.Inf(-1)
	}
	return lgammaRatio(nu/2, fk/2) - fk/2*(math.Log(nu)+lnPi) - (nu+fk)/2*math.Log1p(q/nu)
}

// lgammaRatio is log Γ(x + h) - log Γ(x) for x > 0 and h ≥ 0, keeping its
// digits where both terms are large (the Student-t's at large ν, where
// their difference is about h log x): from x = 30 on by Stirling's series
// log Γ(x) = (x - ½) log x - x + ½ log 2π + s(x), whose leading terms
// cancel in the difference exactly,
//
//	(x - ½) log(1 + h/x) + h log(x + h) - h + s(x + h) - s(x),
//
// with s(x) = 1/(12x) - 1/(360x³) + 1/(1260x⁵) - 1/(1680x⁷), the next term
// 1/(1188x⁹) below 5e-17 there.
func lgammaRatio(x, h float64) float64 {
	if x < 30 {
		return autodiff.Lgamma64(x+h) - autodiff.Lgamma64(x)
	}
	s := func(x float64) float64 {
		r := 1 / (x * x)
		return (1.0/12 - r*(1.0/360-r*(1.0/1260-r/1680))) / x
	}
	return (x-0.5)*math.Log1p(h/x) + h*math.Log(x+h) - h + (s(x+h) - s(x))
}

// rowScale returns the factor s by which result element b's partials in
// y, μ and the q-term of the matrix's are the normal's, and adds g times
// its partial in ν for the Student-t. The normal's is 1; the Student-t's
// ∂lp/∂q is -s/2 with s = (ν+K)/(ν+q), against the normal's -1/2, and
//
//	∂lp/∂ν = ½[ψ((ν+K)/2) - ψ(ν/2) - K/ν - log(1 + q/ν) + (ν+K)q/(ν(ν+q))].
func (r mvnLayout) rowScale(a *autodiff.Args, b int, g, q float64) float64 {
	if !r.studentT {
		return 1
	}
	at := bcastAt(r.nuAt, b)
	nu, fk := a.In[3][at], float64(r.k)
	if gn := a.GradIn[3]; gn != nil {
		gn[at] += g * 0.5 * (autodiff.Digamma64((nu+fk)/2) - autodiff.Digamma64(nu/2) - fk/nu -
			math.Log1p(q/nu) + (nu+fk)*q/(nu*(nu+q)))
	}
	return (nu + fk) / (nu + q)
}

// addRowPartials adds result element b's partials -g·w to its row of y and
// g·w to its row of μ, where w = Σ⁻¹(y - μ).
func (r mvnLayout) addRowPartials(a *autodiff.Args, b int, g float64, w []float64) {
	if gy := a.GradIn[0]; gy != nil {
		row := gy[bcastAt(r.yAt, b)*r.k:][:r.k]
		for i, v := range w {
			row[i] -= g * v
		}
	}
	if gmu := a.GradIn[1]; gmu != nil {
		row := gmu[bcastAt(r.muAt, b)*r.k:][:r.k]
		for i, v := range w {
			row[i] += g * v
		}
	}
}

// scratch2 returns two buffers of k floats, in the caller's buf (on its
// stack) for k ≤ 64.
func scratch2(buf *[128]float64, k int) (u, v []float64) {
	if 2*k <= len(buf) {
		return buf[:k], buf[k : 2*k]
	}
	return make([]float64, k), make([]float64, k)
}

func (op *mvnCholeskyOp) Forward(a *autodiff.Args) {
	ld, ok := op.logDet(a.In[2])
	var buf [128]float64
	z, _ := scratch2(&buf, op.k)
	op.forward(a, a.In[2], ld, ok, z)
}

// Backward: with w = L⁻ᵀz, ∂/∂y = -w, ∂/∂μ = w and ∂/∂L = tril(w zᵀ) -
// diag(1/L_ii); the Student-t's w terms are these times rowScale's s.
func (op *mvnCholeskyOp) Backward(a *autodiff.Args) {
	k, l := op.k, a.In[2]
	gl := a.GradIn[2]
	var buf [128]float64
	z, w := scratch2(&buf, k)
	for b, g := range a.GradOut {
		if g == 0 || math.IsInf(float64(a.Out[b]), -1) {
			continue
		}
		op.solve(z, a, b, l)
		upperSolveT(w, z, l, k)
		gs := g * op.rowScale(a, b, g, sumSquares(z))
		op.addRowPartials(a, b, gs, w)
		if gl != nil {
			for i := range k {
				gw := gs * w[i]
				for j := range i {
					gl[i*k+j] += gw * z[j]
				}
				gl[i*k+i] += gw*z[i] - g/l[i*k+i]
			}
		}
	}
}

// graphOf returns the graph of ins and, when an operand is missing or
// failed, the placeholder a constructor returns instead (nil, nil when no
// operand has a graph).
func graphOf(ins ...*autodiff.Node) (g *autodiff.Graph, stop *autodiff.Node) {
	for _, n := range ins {
		if n != nil {
			g = n.Graph()
			break
		}
	}
	if g == nil {
		return nil, nil
	}
	for _, n := range ins {
		if n == nil || n.Failed() {
			return g, g.Placeholder(nil)
		}
	}
	return g, nil
}

// bcastIndex maps each element of shape out, row-major, to the element of in
// that broadcasting repeats there; nil when in is out, which bcastAt reads as
// the identity. in must broadcast to out.
func bcastIndex(out, in autodiff.Shape) []int {
	if in.Equal(out) {
		return nil
	}
	stride := make([]int, len(out)) // in's stride along each axis of out; 0 where it repeats
	acc := 1
	for d := len(in) - 1; d >= 0; d-- {
		if in[d] != 1 {
			stride[len(out)-len(in)+d] = acc
		}
		acc *= in[d]
	}
	idx := make([]int, out.Size())
	ctr := make([]int, len(out))
	off := 0
	for e := range idx {
		idx[e] = off
		for d := len(out) - 1; d >= 0; d-- {
			ctr[d]++
			off += stride[d]
			if ctr[d] < out[d] {
				break
			}
			off -= stride[d] * ctr[d]
			ctr[d] = 0
		}
	}
	return idx
}

func bcastAt(idx []int, i int) int {
	if idx == nil {
		return i
	}
	return idx[i]
}
