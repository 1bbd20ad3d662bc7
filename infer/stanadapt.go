package infer

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Stan's warm-up of the exact samplers (Stan Reference Manual, "HMC
// algorithm parameters": step-size adaptation and windowed metric
// adaptation), written from its description.

// The dual-averaging constants of Hoffman & Gelman 2014, Section 3.2.1,
// as Stan sets them.
const (
	dualGamma = 0.05
	dualT0    = 10
	dualKappa = 0.75
)

// DualAverage is Nesterov's dual averaging of log ε toward a target
// acceptance statistic δ (Hoffman & Gelman 2014, Algorithm 5, Eq. 6):
//
//	H̄_m = (1 − 1/(m + t0)) H̄_{m−1} + (δ − α_m)/(m + t0)
//	log ε_m = μ − √m/γ · H̄_m
//	log ε̄_m = m^−κ log ε_m + (1 − m^−κ) log ε̄_{m−1}
//
// with μ = log 10ε_0, restarted after every metric update.
type DualAverage struct {
	Mu, HBar, LogEpsBar float64
	M                   int
}

// restart begins the averaging from step size eps.
func (d *DualAverage) restart(eps float64) {
	*d = DualAverage{Mu: math.Log(10 * eps)}
}

// learn takes a transition's acceptance statistic and returns the next
// step size.
func (d *DualAverage) learn(accept, delta float64) float64 {
	if math.IsNaN(accept) {
		accept = 0
	}
	accept = min(accept, 1)
	d.M++
	m := float64(d.M)
	eta := 1 / (m + dualT0)
	d.HBar = (1-eta)*d.HBar + eta*(delta-accept)
	logEps := d.Mu - math.Sqrt(m)/dualGamma*d.HBar
	w := math.Pow(m, -dualKappa)
	d.LogEpsBar = w*logEps + (1-w)*d.LogEpsBar
	return math.Exp(logEps)
}

// final is the step size the warm-up ends with, ε̄.
func (d *DualAverage) final() float64 { return math.Exp(d.LogEpsBar) }

// windowSchedule places Stan's metric windows in a warm-up of W
// iterations: an initial buffer (step size only), windows of base length
// doubling each time, the last stretched to the terminal buffer, and a
// terminal buffer (step size only, with the final metric). A warm-up too
// short for the three shrinks them to 15%, 75% and 10% of it, as Stan does.
type windowSchedule struct {
	warmup, initBuffer, termBuffer int
	// ends are the iterations (from 0) at which a window closes.
	ends map[int]bool
}

func newWindowSchedule(x *Exact) windowSchedule {
	w := windowSchedule{warmup: x.Warmup, initBuffer: x.InitBuffer, termBuffer: x.TermBuffer, ends: map[int]bool{}}
	base := x.Window
	if w.warmup < 20 {
		return w // too short to learn a metric: the step size only
	}
	if w.initBuffer+base+w.termBuffer > w.warmup {
		w.initBuffer = int(0.15 * float64(w.warmup))
		w.termBuffer = int(0.1 * float64(w.warmup))
		base = w.warmup - w.initBuffer - w.termBuffer
	}
	last := w.warmup - w.termBuffer - 1 // the slow phase's last iteration
	size, end := base, w.initBuffer+base-1
	for first := true; ; first = false {
		// A window (after the first) whose successor would not fit before
		// the terminal buffer absorbs it.
		if !first && end+2*size > last {
			end = last
		}
		w.ends[end] = true
		if end >= last {
			break
		}
		size *= 2
		end += size
	}
	return w
}

// inWindow reports whether iteration it belongs to a metric window.
func (w windowSchedule) inWindow(it int) bool {
	return len(w.ends) > 0 && it >= w.initBuffer && it < w.warmup-w.termBuffer
}

// endsWindow reports whether a window closes at iteration it.
func (w windowSchedule) endsWindow(it int) bool { return w.ends[it] }

// WindowEstimate is Welford's running mean and (co)variance of a chain's
// positions over one metric window.
type WindowEstimate struct {
	N     int
	Dense bool
	Mean  []float64
	M2    []float64 // D (diagonal) or D×D
	delta []float64
}

// clone is a copy of w that shares no memory with it.
func (w WindowEstimate) clone() WindowEstimate {
	w.Mean, w.M2, w.delta = slices.Clone(w.Mean), slices.Clone(w.M2), slices.Clone(w.delta)
	return w
}

func newWindowEstimate(d int, dense bool) WindowEstimate {
	m2 := make([]float64, d)
	if dense {
		m2 = make([]float64, d*d)
	}
	return WindowEstimate{Dense: dense, Mean: make([]float64, d), M2: m2}
}

func (w *WindowEstimate) add(q []float64) {
	if w.delta == nil {
		w.delta = make([]float64, len(q))
	}
	w.N++
	n := float64(w.N)
	for i, x := range q {
		w.delta[i] = x - w.Mean[i]
		w.Mean[i] += w.delta[i] / n
	}
	if !w.Dense {
		for i, x := range q {
			w.M2[i] += w.delta[i] * (x - w.Mean[i])
		}
		return
	}
	d := len(q)
	for i := range d {
		for j := range d {
			w.M2[i*d+j] += w.delta[i] * (q[j] - w.Mean[j])
		}
	}
}

func (w *WindowEstimate) reset() {
	w.N = 0
	clear(w.Mean)
	clear(w.M2)
}

// regularised is the window's sample (co)variance Σ shrunk as Stan shrinks
// it, (n/(n + 5))·Σ + 10⁻³·(5/(n + 5))·S, written into dst (the chain's
// metric), which it returns; a window of fewer than three draws keeps dst.
//
// Stan shrinks toward S = I, which assumes the parameters' scales are
// about 1: a coefficient of a predictor on a raw scale of 500 has a
// posterior variance near 10⁻⁶, ten times below Stan's 10⁻⁵ added to it,
// and the metric is then ten times too wide in that direction. Here S is
// the diagonal of Σ (I where a coordinate did not move), the same
// shrinkage relative to each coordinate's own scale: on a regression of
// 500 rows on 12 collinear raw-scale predictors (TestCalibrationAuto's),
// NUTS's transitions took 81 leapfrog steps with Stan's S and 7 with this
// one.
func (w *WindowEstimate) regularised(dst []float64) []float64 {
	if w.N < 3 {
		return dst
	}
	n := float64(w.N)
	scale, shrink := n/(n+5)/(n-1), 1e-3*5/(n+5)
	d := len(w.Mean)
	for i, m2 := range w.M2 {
		dst[i] = scale * m2
		if !w.Dense || i/d == i%d {
			v := m2 / (n - 1)
			if !(v > 0) {
				v = 1
			}
			dst[i] += shrink * v
		}
	}
	return dst
}

// errNotPositiveDefinite is choleskyLower's failure.
var errNotPositiveDefinite = errors.New("the metric is not positive definite")

// choleskyLower sets l (D×D row-major) to the lower Cholesky factor of the
// symmetric a, or fails when a is not positive definite.
func choleskyLower(l, a []float64, d int) error {
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(d, slices.Clone(a))) {
		return errNotPositiveDefinite
	}
	chol.LTo(mat.NewTriDense(d, mat.Lower, l))
	return nil
}

// autoDenseMax is the most parameters for which metric = auto considers a
// dense metric: Stan's default warm-up ends with a window of 500 draws,
// and chooseDense asks for at least twice as many draws as parameters.
const autoDenseMax = 250

// chooseDense decides, from each chain's regularised window covariance
// (D×D row-major) over n draws, whether a dense metric is worth having:
// with a diagonal metric the posterior in the sampler's coordinates has
// the condition number κ of its correlation matrix R, and with a dense
// one that of the estimate's own error, which for n draws of D
// coordinates the Marchenko-Pastur law puts at κ_MP = ((1 + √γ)/(1 −
// √γ))², γ = D/n (the spread of a sample covariance's eigenvalues when the
// true one is the identity). NUTS's trajectories grow about as √κ, so a
// dense metric pays where κ(R̂) exceeds max(2κ_MP, 4): where correlations,
// not estimation noise, make the diagonal's coordinates ill-conditioned.
// The chains vote, so that every chain has the same form of metric; a
// window of fewer than 2D draws keeps the diagonal. Diagonal window
// estimates (D values) never choose dense.
func chooseDense(covs [][]float64, n, d int) bool {
	if n < 2*d || d < 2 || len(covs[0]) != d*d {
		return false
	}
	g := math.Sqrt(float64(d) / float64(n))
	threshold := max(2*((1+g)/(1-g))*((1+g)/(1-g)), 4)
	votes := 0
	for _, cov := range covs {
		if correlationCondition(cov, d) > threshold {
			votes++
		}
	}
	return 2*votes > len(covs)
}

// correlationCondition is the condition number of the correlation matrix
// of the covariance cov (D×D row-major); +Inf when it is singular.
func correlationCondition(cov []float64, d int) float64 {
	r := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			r.SetSym(i, j, cov[i*d+j]/math.Sqrt(cov[i*d+i]*cov[j*d+j]))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(r, false) {
		return math.Inf(1)
	}
	values := eig.Values(nil)
	lo, hi := slices.Min(values), slices.Max(values)
	if !(lo > 0) {
		return math.Inf(1)
	}
	return hi / lo
}

// diagonalOf is the diagonal of a D×D covariance, or the covariance
// itself when it is already a diagonal's D values.
func diagonalOf(cov []float64, d int) []float64 {
	if len(cov) == d {
		return cov
	}
	out := make([]float64, d)
	for i := range d {
		out[i] = cov[i*d+i]
	}
	return out
}
