package infer

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// The automatic step size (lr = auto) is chosen by a warm-up before the
// run's first iteration, from the model and the data (../shared/WARMUP.md):
//
//  1. Every chain moves from its start (retried until the energy and
//     gradient are finite, as Stan does) toward the high-density region by
//     Adam (Kingma & Ba 2015) on the run's minibatches: at the step 0.1
//     for as long as some chain's mean energy over a window of
//     travelWindow steps still falls by more than d/2 and its noise (the
//     posterior's bulk lies about d/2 above a regular mode; Adam moves
//     each coordinate by about its step, so a mode 25 units from the start
//     takes some 250 steps: a fixed budget would strand the chains short of
//     it), at most maxTravelSteps; then optimiseSteps steps decaying from
//     0.1 to 0.001. A chain's step is stepped back and halved where the
//     energy or gradient is not finite.
//  2. The Hessian of the energy at the typical end point (the chain of
//     median energy; see centers for why not the lowest) is estimated by
//     central differences of gradients on one fixed subsample of up to
//     hessianRows rows (common rows on both sides, so the minibatch noise
//     cancels and the scaled subsample Hessian is unbiased for the full
//     one): every column for D ≤ denseLimit, giving a dense metric;
//     otherwise its diagonal, by Hutchinson's estimator with Rademacher
//     probes (Bekas, Kokiopoulou & Saad 2007). Its inverse, the Laplace
//     covariance, is the Metric: the run samples φ with θ = c + A·φ, A a
//     square root of that covariance, so the posterior is near N(0, I).
//  3. The step size bounds the discretisation error: for Langevin dynamics
//     on a Gaussian of curvature λ, θ' = (1 - ηλ)θ + √(2ηT)ξ has stationary
//     variance T/(λ(1 - ηλ/2)), so η·λ_max = discretisationTolerance (0.1)
//     keeps every variance within 5% (sd within 2.6%); SGHMC and the
//     thermostats, whose lr is the square of their time step, have the
//     smaller bias (2 - α)/(2 - α - ηλ/2) - 1 at the same η. λ_max is the
//     largest eigenvalue of the preconditioned Hessian AᵀHA, found by power
//     iteration at every chain's end point, so that curvature away from
//     the mode counts. Where those spread by more than curvatureSpread,
//     every chain's end point is tried as the metric's centre and the one
//     giving the smallest λ_max kept; a single-level chain whose λ is
//     still over outlierCurvature times the median starts from the centre
//     instead (Tuning.Moved), rather than forcing every chain's step down.
//  4. The minibatch gradient noise must not widen the posterior: with
//     gradient noise of variance σ² per coordinate, SGLD's stationary
//     variance is T/λ·(1 + ησ²/(2T)) (Welling & Teh 2011 bound the same
//     ratio, η·N²/(4B)·λ_max(V)), and SGHMC's 1/α times more (noiseGain),
//     so that ratio ≤ noiseTolerance (0.05: variances within 5%, sds
//     within 2.5%, beside the discretisation's 2.6%) caps η
//     further; σ² is measured in φ from pairs of minibatch gradients at
//     points a posterior sd from the mode. Where the plain gradient's cap
//     would cost more than a factor of ten, the control variate of
//     SGLD-CV replaces it (controlvariate.go; gradient = auto); where the
//     cap still costs that much, the run warns: a larger batch pays.
//
// Chains then start in φ at their end points plus N(0, I), the Laplace
// scale, so that they start apart and R-hat compares independent starts,
// and settle by the sampler's own dynamics at the tuned step for about ten
// relaxation times (sgKernel.settle) before the first iteration.
const (
	optimiseSteps           = 300
	travelWindow            = 50
	maxTravelSteps          = 5000
	hessianRows             = 2048
	minHessianRowsPerGroup  = 8
	maxHessianRows          = 1 << 16
	denseLimit              = 64
	hutchinsonProbes        = 32
	powerIterations         = 15
	endCurvatureTol         = 0.01 // stepWarnings' power iteration stops within 1%
	noiseSamples            = 16
	discretisationTolerance = 0.1
	noiseTolerance          = 0.05
)

// Tuning is what the warm-up of a run with an automatic step size found.
type Tuning struct {
	StepSize float64
	// Dense says whether the metric is a dense matrix (or a diagonal).
	Dense bool
	// LambdaMax is the largest curvature of the preconditioned energy
	// found, NoiseRatio the minibatch noise ratio η·max σ²/(2T) at the
	// discretisation bound (before it capped the step).
	LambdaMax, NoiseRatio float64
	// Warning, if set, says what made the step small and what to change.
	Warning string
	// ControlVariate says whether the gradient is the control-variate one;
	// Recentred, if not 0, is how far (in posterior sds, in φ) the settled
	// chains' mean lay from the warm-up's centre, where the control
	// variate's centre then moved (sgKernel.recentre).
	ControlVariate bool
	Recentred      float64
	// Settled is the number of steps of the sampler's own dynamics that
	// ended the warm-up, Halved how often a divergence there halved the
	// step.
	Settled, Halved int
	// Moved lists the chains (from 0) whose optimiser ended where the
	// curvature was over outlierCurvature times the chains' median, and
	// which start from the centre's point instead.
	Moved []int
}

// tuner runs the warm-up on the unconstrained target.
type tuner struct {
	target  Target
	o       Options
	st      *State
	eval    Evaluator // the run's: every row, on its minibatches
	batches *minibatcher
	strata  *strata // the rows' groups, or nil
	rngs    []*Rand
	temp    float64

	pair     Evaluator // two replicas on the fixed subsample
	pairRows []int
}

// tune runs the warm-up of a run whose step size is automatic: it moves
// st.Theta to the chains' starting points in φ and returns the metric and
// the tuning.
func (k *sgKernel) tune(target Target) (*Metric, Tuning, error) {
	t := &tuner{target: target, o: k.o, st: k.st, eval: k.eval, batches: k.batches, strata: k.strata, rngs: k.rngs, temp: k.s.startTemperatures(k.st.Levels)[0]}
	if err := k.start(); err != nil { // finite starts, retried as Stan does
		return nil, Tuning{}, err
	}
	if err := t.optimise(); err != nil {
		return nil, Tuning{}, err
	}
	if err := t.prepareSubsample(); err != nil {
		return nil, Tuning{}, err
	}
	m, lambdas, center, err := t.selectMetric()
	if err != nil {
		return nil, Tuning{}, err
	}
	var tun Tuning
	tun.Dense = m.Dense
	tun.Moved = t.moveOutliers(lambdas, center)
	tun.LambdaMax = t.limiting(lambdas)
	tun.StepSize = discretisationTolerance / tun.LambdaMax
	if t.temp > 0 {
		sigma2, err := t.gradientNoise(m)
		if err != nil {
			return nil, Tuning{}, err
		}
		gain := noiseGain(k.s.Dynamics)
		tun.NoiseRatio = gain * tun.StepSize * sigma2 / (2 * t.temp)
		if k.useControlVariate(tun.NoiseRatio) {
			if err := k.startControlVariate(target, center); err != nil {
				return nil, Tuning{}, err
			}
			t.eval = k.eval
			tun.ControlVariate = true
			if sigma2, err = t.gradientNoise(m); err != nil {
				return nil, Tuning{}, err
			}
			tun.NoiseRatio = gain * tun.StepSize * sigma2 / (2 * t.temp)
		}
		tun.capStep(tun.NoiseRatio)
	}
	if err := t.startChains(m); err != nil {
		return nil, Tuning{}, err
	}
	return m, tun, nil
}

// capStep records the noise ratio at the curvature's bound on the step,
// discretisationTolerance / λ_max (Tuning.NoiseRatio), and cuts the step
// to where the ratio is noiseTolerance if it is not already smaller, with a
// warning where that costs more than a factor of ten.
func (tun *Tuning) capStep(ratio float64) {
	tun.NoiseRatio = ratio
	if ratio > noiseTolerance {
		tun.StepSize = min(tun.StepSize, discretisationTolerance/tun.LambdaMax*noiseTolerance/ratio)
	}
	tun.Warning = ""
	if ratio > 10*noiseTolerance {
		tun.Warning = fmt.Sprintf("the minibatch gradient noise caps the step size at %.3g, %.0f times below what the curvature allows, so the chains mix slowly: a batch about %.0f times larger (or every row) would let it grow", tun.StepSize, ratio/noiseTolerance, ratio/noiseTolerance)
	}
}

// noiseGain is how many times SGLD's the variance that gradient noise adds
// is under dyn, at the same step: SGHMC's friction α lets the momentum
// keep the noise, so its stationary temperature is T(1 + ησ²/(2αT))
// (Chen, Fox & Guestrin 2014, Section 3.2: B̂ = ηV/2 against the friction
// α); a thermostat absorbs the noise into its friction instead (1).
func noiseGain(dyn Dynamics) float64 {
	if h, ok := dyn.(*Hamiltonian); ok && h.Friction > 0 {
		return 1 / h.Friction
	}
	return 1
}

// finiteRow reports whether row r's energy, gradient and position are
// finite.
func finiteRow(energy, grad, theta []float64, r, d int) bool {
	e := energy[r]
	return !math.IsNaN(e) && !math.IsInf(e, 0) && kernel.AllFinite(row(grad, r, d)) && kernel.AllFinite(row(theta, r, d))
}

// optimise is step 1: Adam from every row's start.
func (t *tuner) optimise() error {
	st, d := t.st, t.st.Dim
	rows := len(t.rngs)
	m, v := make([]float64, rows*d), make([]float64, rows*d)
	prev := slices.Clone(st.Theta)
	scale := make([]float64, rows) // each row's share of the step, halved on failure
	for r := range scale {
		scale[r] = 1
	}
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	travel := newTravel(rows, d)
	// Each chain's Adam moments count from its own origin: where a
	// chain's mean squared gradient over a travel window falls below a
	// hundredth of its second moment, the first steps' gradients (a scale
	// that starts far too small makes them orders of magnitude above the
	// later ones) would hold its step down for a thousand steps more, and
	// strand it before the travel ends, so its moments start afresh.
	origin := make([]int, rows)
	windowSq := make([]float64, rows)
	decayFrom := -1 // the step the decay began at
	for step := 0; decayFrom < 0 || step < decayFrom+optimiseSteps; step++ {
		var batch []int
		if t.batches != nil {
			batch = t.batches.next()
		}
		if err := t.eval.Evaluate(st.Theta, batch, st.Energy, st.Grad, st.Variance); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		lr := 0.1
		if decayFrom < 0 && (step >= maxTravelSteps || !travel.add(st.Energy)) {
			decayFrom = step
		}
		if decayFrom >= 0 {
			lr = 0.1 * math.Pow(0.01, float64(step-decayFrom)/optimiseSteps)
		}
		for r := range rows {
			theta := row(st.Theta, r, d)
			if !finiteRow(st.Energy, st.Grad, st.Theta, r, d) { // step back, and shorter
				copy(theta, row(prev, r, d))
				scale[r] /= 2
				continue
			}
			copy(row(prev, r, d), theta)
			mr, vr, g := row(m, r, d), row(v, r, d), row(st.Grad, r, d)
			c1 := 1 - math.Pow(beta1, float64(step-origin[r]+1))
			c2 := 1 - math.Pow(beta2, float64(step-origin[r]+1))
			for i, gi := range g {
				mr[i] = beta1*mr[i] + (1-beta1)*gi
				vr[i] = beta2*vr[i] + (1-beta2)*gi*gi
				theta[i] -= lr * scale[r] * (mr[i] / c1) / (math.Sqrt(vr[i]/c2) + eps)
			}
			if decayFrom < 0 {
				windowSq[r] += dot(g, g) / travelWindow
				if (step+1)%travelWindow == 0 {
					vsum := 0.0
					for _, vi := range vr {
						vsum += vi
					}
					if windowSq[r] < 0.01*vsum/c2 {
						clear(mr)
						clear(vr)
						origin[r] = step + 1
					}
					windowSq[r] = 0
				}
			}
		}
	}
	for r := range rows {
		if scale[r] < 1e-6 {
			return fmt.Errorf("warm-up: chain %d found no region where the log density and its gradient are finite: check the model, or give inits", r+1)
		}
	}
	return nil
}

// travel tells when the chains have stopped descending: it keeps each
// chain's energies over the current window of travelWindow steps and
// compares the window's mean with the previous window's.
type travel struct {
	sum, sumSq, prev []float64
	n                int
	windows          int
	floor            float64 // the least fall that counts: d/2, and at least 1
}

func newTravel(rows, d int) *travel {
	return &travel{sum: make([]float64, rows), sumSq: make([]float64, rows), prev: make([]float64, rows), floor: max(1, float64(d)/2)}
}

// add records one step's energies and reports whether to go on: false
// once a window ends in which no chain's mean energy fell below the
// previous window's by more than three standard errors of the mean (and
// at least one unit: the energies of a minibatch are noisy). Steps whose
// energy is not finite are left out of the means.
func (t *travel) add(energy []float64) bool {
	for r, e := range energy {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			e = t.prev[r]
		}
		t.sum[r] += e
		t.sumSq[r] += e * e
	}
	if t.n++; t.n < travelWindow {
		return true
	}
	moving := false
	for r := range t.sum {
		mean := t.sum[r] / travelWindow
		se := math.Sqrt(max(t.sumSq[r]/travelWindow-mean*mean, 0) / travelWindow)
		if t.windows == 0 || t.prev[r]-mean > max(t.floor, 3*se) {
			moving = true
		}
		t.prev[r], t.sum[r], t.sumSq[r] = mean, 0, 0
	}
	t.n = 0
	t.windows++
	return moving
}

// prepareSubsample draws the fixed rows of steps 2 and 3.
func (t *tuner) prepareSubsample() error {
	n := t.target.NumData()
	batch := 0
	if s := t.strata; s != nil && n > hessianRows {
		// A uniform subsample of 2,048 rows holds a Poisson count of each
		// group's rows (none for 13% of the groups at two a group): the
		// curvature of those groups' parameters would come out as their
		// prior's alone. The first rows of a stratified permutation hold
		// each group's in proportion, minHessianRowsPerGroup a group on
		// average where that many rows fit in maxHessianRows.
		batch = min(n, max(hessianRows, min(minHessianRowsPerGroup*len(s.sizes), maxHessianRows)))
		perm := identity(n)
		s.shuffle(perm, t.rngs[0], &strataScratch{})
		rows := perm[:batch:batch]
		t.pairRows = append(rows, rows...)
	} else if n > hessianRows {
		// The first hessianRows of a random permutation, by a partial
		// Fisher-Yates shuffle that keeps only the entries it moves (a
		// permutation of every row would take 8 bytes a row). The rows
		// are drawn at random even with batch_blocks: a few blocks of a
		// sorted file would give the metric a slice of the data's
		// curvature, and the fixed subsample's pages, once read, stay in
		// memory.
		batch = hessianRows
		moved := map[int]int{}
		at := func(i int) int {
			if v, ok := moved[i]; ok {
				return v
			}
			return i
		}
		rng := t.rngs[0]
		rows := make([]int, batch)
		for i := range batch {
			j := i + rng.IntN(n-i)
			rows[i], moved[j] = at(j), at(i)
		}
		t.pairRows = append(rows, rows...)
	}
	var err error
	t.pair, err = t.target.Evaluator(2, batch)
	return err
}

// gradients evaluates the gradient at a and b on the fixed subsample.
func (t *tuner) gradients(a, b, ga, gb []float64) ([2]float64, error) {
	d := t.st.Dim
	theta, grad := make([]float64, 2*d), make([]float64, 2*d)
	copy(theta, a)
	copy(theta[d:], b)
	var energy, variance [2]float64
	if err := t.pair.Evaluate(theta, t.pairRows, energy[:], grad, variance[:]); err != nil {
		return energy, fmt.Errorf("warm-up: %w", err)
	}
	copy(ga, grad[:d])
	copy(gb, grad[d:])
	return energy, nil
}

// selectMetric fits the metric at the typical chain's end point; where
// the chains' curvatures in it spread by more than curvatureSpread (a
// posterior far from Gaussian, such as a hierarchy's), each other chain's
// end point is tried as the centre too, and the one whose metric gives the
// smallest step-limiting curvature kept.
func (t *tuner) selectMetric() (m *Metric, lambdas, center []float64, err error) {
	centers, err := t.centers()
	if err != nil {
		return nil, nil, nil, err
	}
	for i, c := range centers {
		mc, lc, err := t.fit(c)
		if err != nil {
			return nil, nil, nil, err
		}
		if m == nil || t.limiting(lc) < t.limiting(lambdas) {
			m, lambdas, center = mc, lc, c
		}
		if i == 0 && (t.st.Levels > 1 || slices.Max(lc) <= curvatureSpread*slices.Min(lc)) {
			break
		}
	}
	return m, lambdas, center, nil
}

// fit computes the metric centred at c and the largest curvature in it at
// every chain's end point (at its target level).
func (t *tuner) fit(c []float64) (*Metric, []float64, error) {
	var m *Metric
	var err error
	if t.st.Dim <= denseLimit {
		m, err = t.denseMetric(c)
	} else {
		m, err = t.diagonalMetric(c)
	}
	if err != nil {
		return nil, nil, err
	}
	lambdas := make([]float64, t.st.Chains)
	for ch := range t.st.Chains {
		if lambdas[ch], err = t.largestCurvature(m, row(t.st.Theta, ch*t.st.Levels, t.st.Dim)); err != nil {
			return nil, nil, err
		}
	}
	return m, lambdas, nil
}

// movesOutliers: single-level runs of several chains.
func (t *tuner) movesOutliers() bool { return t.st.Levels == 1 && t.st.Chains > 1 }

// curvatureSpread is the ratio of the chains' largest curvatures beyond
// which the warm-up tries every chain's end point as the metric's centre.
const curvatureSpread = 3

// limiting is the curvature that limits the step: the largest of the
// chains', leaving out the outliers that moveOutliers moves.
func (t *tuner) limiting(lambdas []float64) float64 {
	if lambdas == nil {
		return math.Inf(1)
	}
	limit := math.Inf(1)
	if t.movesOutliers() {
		limit = outlierCurvature * median(lambdas)
	}
	worst := 0.0
	for _, l := range lambdas {
		if l <= limit {
			worst = max(worst, l)
		}
	}
	return worst
}

// median is the lower median.
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// centers lists the chains' end points (at their target levels) in the
// order the warm-up tries them as the metric's centre: the one of median
// energy on the subsample (the lower median) first, then the others by
// energy. Not the lowest first: where the joint density's mode is not the
// posterior's bulk (a hierarchy's scale going to 0, a correlation going to
// ±1), the chain that found the highest density is the most atypical, and
// a metric fitted there misjudges the others' curvature by orders of
// magnitude.
func (t *tuner) centers() ([][]float64, error) {
	d := t.st.Dim
	energies := make([]float64, t.st.Chains)
	g := make([]float64, d)
	for c := range t.st.Chains {
		x := row(t.st.Theta, c*t.st.Levels, d)
		e, err := t.gradients(x, x, g, g)
		if err != nil {
			return nil, err
		}
		energies[c] = e[0]
	}
	order := identity(t.st.Chains)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(energies[a], energies[b]) })
	mid := (len(order) - 1) / 2
	order = append([]int{order[mid]}, slices.Delete(order, mid, mid+1)...)
	out := make([][]float64, len(order))
	for i, c := range order {
		out[i] = slices.Clone(row(t.st.Theta, c*t.st.Levels, d))
	}
	return out, nil
}

// outlierCurvature: a chain whose end point's curvature exceeds the
// median chain's by this factor would force every chain's step down by as
// much (a funnel's neck, a correlation's boundary).
const outlierCurvature = 10

// moveOutliers moves the end point of every chain whose largest curvature
// exceeds outlierCurvature times the median to center, and returns those
// chains. Single-level runs only: on a ladder each level's chain must keep
// the mode it found.
func (t *tuner) moveOutliers(lambdas, center []float64) []int {
	if !t.movesOutliers() {
		return nil
	}
	var moved []int
	for c, l := range lambdas {
		if l > outlierCurvature*median(lambdas) {
			copy(row(t.st.Theta, c, t.st.Dim), center)
			moved = append(moved, c)
		}
	}
	return moved
}

// hessianTimes sets hv ≈ H(x)·u by a central difference along u.
func (t *tuner) hessianTimes(hv, x, u []float64, h float64) error {
	d := t.st.Dim
	plus, minus := make([]float64, d), make([]float64, d)
	for i := range d {
		plus[i], minus[i] = x[i]+h*u[i], x[i]-h*u[i]
	}
	gm := make([]float64, d)
	if _, err := t.gradients(plus, minus, hv, gm); err != nil {
		return err
	}
	for i := range hv {
		hv[i] = (hv[i] - gm[i]) / (2 * h)
	}
	return nil
}

// denseMetric is step 2 for small D: every column of the Hessian, and
// A = QΛ^{-1/2} from its eigendecomposition, the eigenvalues' magnitudes
// floored so that A exists where the Hessian is not positive definite.
func (t *tuner) denseMetric(c []float64) (*Metric, error) {
	d := t.st.Dim
	cols := make([]float64, d*d) // cols[j*d+i] = H_ij, column j
	e := make([]float64, d)
	for j := range d {
		clear(e)
		e[j] = 1
		if err := t.hessianTimes(cols[j*d:(j+1)*d], c, e, 1e-4*max(1, math.Abs(c[j]))); err != nil {
			return nil, err
		}
	}
	h := mat.NewSymDense(d, nil) // (H + Hᵀ)/2: the differences are not exactly symmetric
	for i := range d {
		for j := i; j < d; j++ {
			h.SetSym(i, j, (cols[j*d+i]+cols[i*d+j])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(h, true) {
		return nil, fmt.Errorf("warm-up: the Hessian's eigendecomposition failed")
	}
	values := eig.Values(nil)
	var q mat.Dense
	eig.VectorsTo(&q)
	top := 0.0
	for _, l := range values {
		top = max(top, math.Abs(l))
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return nil, fmt.Errorf("warm-up: the energy has no curvature at the mode (Hessian %v): check that every parameter appears in the model", values)
	}
	m := &Metric{Center: c, Dense: true, A: make([]float64, d*d), Inverse: make([]float64, d*d)}
	for k, l := range values {
		l = max(math.Abs(l), 1e-15*top)
		for i := range d {
			m.A[i*d+k] = q.At(i, k) / math.Sqrt(l)
			m.Inverse[k*d+i] = q.At(i, k) * math.Sqrt(l)
		}
	}
	return m, nil
}

// diagonalMetric is step 2 for large D: Hutchinson's estimate of the
// Hessian's diagonal, floored, and A = diag(1/√H_ii).
//
// Hutchinson's estimate of H_ii from a probe z is z_i·(Hz)_i = H_ii +
// Σ_{j≠i} H_ij z_i z_j: its error is the couplings of i, at their own
// scales. Where a coordinate of a large curvature couples to many of a
// small one (a hierarchy's noise scale σ, of curvature 2N in log σ, to
// each group's intercept, of n_g/σ², through the subsample's residuals of
// the group), the smaller coordinates' estimates carry the larger's scale:
// on a varying-intercept model of 1,000 groups of 1,000 rows, 32 probes
// left some intercepts' curvature at 2 against 250 (so λ_max = 128). A
// second pass with the probes scaled by the first pass's 1/√H_ii, z_i·s_i,
// estimates H_ii + Σ_{j≠i} H_ij z_i z_j s_j/s_i, whose couplings are the
// correlations of the Laplace approximation (|H_ij|s_i s_j ≤ 1 where H is
// positive definite), whatever the coordinates' units.
func (t *tuner) diagonalMetric(c []float64) (*Metric, error) {
	d := t.st.Dim
	step := make([]float64, d) // the first pass's probe scale: the finite difference's step
	for i := range d {
		step[i] = 1e-4 * max(1, math.Abs(c[i]))
	}
	diag, err := t.hutchinson(c, step)
	if err != nil {
		return nil, err
	}
	top := 0.0
	for _, x := range diag {
		top = max(top, math.Abs(x))
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return nil, fmt.Errorf("warm-up: the energy has no curvature at the mode: check that every parameter appears in the model")
	}
	for i, x := range diag { // a thousandth of a Laplace sd, no larger than the first pass's step
		step[i] = min(step[i], 1e-3/math.Sqrt(max(math.Abs(x), 1e-15*top)))
	}
	if diag, err = t.hutchinson(c, step); err != nil {
		return nil, err
	}
	top = 0
	for _, x := range diag {
		top = max(top, math.Abs(x))
	}
	if !(top > 0) || math.IsInf(top, 0) {
		return nil, fmt.Errorf("warm-up: the energy has no curvature at the mode: check that every parameter appears in the model")
	}
	m := &Metric{Center: c, A: make([]float64, d), Inverse: make([]float64, d)}
	for i, x := range diag {
		x = max(math.Abs(x), 1e-15*top)
		m.A[i], m.Inverse[i] = 1/math.Sqrt(x), math.Sqrt(x)
	}
	return m, nil
}

// hutchinson estimates the Hessian's diagonal at c from hutchinsonProbes
// Rademacher probes, each coordinate's scaled by step (also the finite
// difference's step).
func (t *tuner) hutchinson(c, step []float64) ([]float64, error) {
	d := t.st.Dim
	diag := make([]float64, d)
	z, u, hv := make([]float64, d), make([]float64, d), make([]float64, d)
	rng := t.rngs[0]
	for range hutchinsonProbes {
		for i := range d {
			z[i] = float64(2*int(rng.Uint64()&1) - 1)
			u[i] = z[i] * step[i]
		}
		if err := t.hessianTimes(hv, c, u, 1); err != nil {
			return nil, err
		}
		for i := range d {
			diag[i] += z[i] * hv[i] / step[i] / hutchinsonProbes
		}
	}
	return diag, nil
}

// largestCurvature is step 3: power iteration on AᵀH(x)A.
func (t *tuner) largestCurvature(m *Metric, x []float64) (float64, error) {
	return t.curvature(m, x, 0)
}

// curvature is largestCurvature, stopped once an iteration moves the
// estimate by at most tol of itself (tol 0: every iteration). The check
// at a run's end (stepWarnings) compares lr·λ with thresholds a factor
// apart, where 1% of λ decides nothing; each iteration is two gradients on
// hessianRows rows per chain, which on a network cost more than a short
// run's sampling.
func (t *tuner) curvature(m *Metric, x []float64, tol float64) (float64, error) {
	d := t.st.Dim
	v, u, hv, w := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	t.rngs[0].FillNormal(v)
	normalise(v)
	lambda := 0.0
	zero := make([]float64, d)
	for range powerIterations {
		copy(u, m.Center)
		m.theta(u, v) // u = c + A v
		for i := range u {
			u[i] -= m.Center[i] // A v
		}
		if err := t.hessianTimes(hv, x, u, 1e-3); err != nil {
			return 0, err
		}
		m.gradPhi(w, hv) // Aᵀ H A v
		last := lambda
		lambda = math.Abs(dot(v, w))
		if tol > 0 && math.Abs(lambda-last) <= tol*lambda {
			break
		}
		copy(v, w)
		if normalise(v) == 0 {
			copy(v, zero)
			v[0] = 1
		}
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) || math.IsNaN(lambda) {
		return 1, nil // the metric's own scale
	}
	return max(lambda, 1e-3), nil
}

// gradientNoise is step 4: the largest variance, over coordinates of φ, of
// the minibatch gradient (with any synthetic gradient noise) at points a
// posterior sd or so from the centre, c + A·z with z ~ N(0, I): where the
// chains will be, and where a control variate's noise is not zero. Each
// point is evaluated on two minibatches in turn, and half the mean square
// of the difference is the variance.
func (t *tuner) gradientNoise(m *Metric) (float64, error) {
	z := make([]float64, t.st.Dim)
	return t.noiseAt(m, func(r int, dst []float64) {
		t.rngs[r].FillNormal(z)
		m.theta(dst, z)
	})
}

// noiseAt is gradientNoise at the points that point sets for each row.
func (t *tuner) noiseAt(m *Metric, point func(r int, dst []float64)) (float64, error) {
	if t.batches == nil && t.o.GradNoise == 0 {
		return 0, nil
	}
	st, d := t.st, t.st.Dim
	rows := len(t.rngs)
	theta := make([]float64, rows*d)
	first := make([]float64, rows*d)
	g := make([]float64, d)
	sq := make([]float64, d)
	n := 0
	evaluate := func() error {
		var batch []int
		if t.batches != nil {
			batch = t.batches.next()
		}
		if err := t.eval.Evaluate(theta, batch, st.Energy, st.Grad, st.Variance); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		addNoise(st.Energy, st.Grad, st.Variance, 0, t.o.GradNoise, t.rngs, d)
		return nil
	}
	for n < noiseSamples {
		for r := range rows {
			point(r, row(theta, r, d))
		}
		if err := evaluate(); err != nil {
			return 0, err
		}
		copy(first, st.Grad)
		if err := evaluate(); err != nil {
			return 0, err
		}
		for r := range rows {
			a, b := row(first, r, d), row(st.Grad, r, d)
			for i := range a {
				a[i] -= b[i]
			}
			m.gradPhi(g, a)
			for i, gi := range g {
				sq[i] += gi * gi / 2
			}
			n++
		}
	}
	worst := 0.0
	for _, s := range sq {
		worst = max(worst, s/float64(n))
	}
	return worst, nil
}

// startChains moves every chain's point to φ: its end point plus N(0, I),
// the jitter halved (up to startHalvings times, then none) for a chain
// whose jittered point is implausible: its energy or gradient not finite,
// or its energy above the end point's by more than maxStartRise(d). Under
// the Laplace approximation the rise is χ²_d/2, whose mean is d/2 and sd
// √(d/2); a rise far beyond means the jitter left the posterior's bulk
// (the Laplace scale of a skewed posterior, a scale parameter's, can reach
// a funnel's neck, where the gradient is enormous).
func (t *tuner) startChains(m *Metric) error {
	st, d, rows := t.st, t.st.Dim, len(t.rngs)
	end := slices.Clone(st.Theta)
	var batch []int
	if t.batches != nil {
		batch = t.batches.next()
	}
	if err := t.eval.Evaluate(end, batch, st.Energy, st.Grad, st.Variance); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	endEnergy := slices.Clone(st.Energy)
	phi, z := make([][]float64, rows), make([][]float64, rows)
	scale := make([]float64, rows)
	for r := range rows {
		phi[r], z[r] = make([]float64, d), make([]float64, d)
		m.phi(phi[r], row(end, r, d))
		t.rngs[r].FillNormal(z[r])
		scale[r] = 1
	}
	x := make([]float64, d)
	for try := 0; ; try++ {
		for r := range rows {
			for i := range x {
				x[i] = phi[r][i] + scale[r]*z[r][i]
			}
			m.theta(row(st.Theta, r, d), x)
		}
		if err := t.eval.Evaluate(st.Theta, batch, st.Energy, st.Grad, st.Variance); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		done := true
		for r := range rows {
			if scale[r] > 0 && (!finiteRow(st.Energy, st.Grad, st.Theta, r, d) || st.Energy[r]-endEnergy[r] > maxStartRise(d)) {
				done = false
				if scale[r] /= 2; try+1 >= startHalvings {
					scale[r] = 0 // the end point, whose energy was finite
				}
			}
		}
		if done || try >= startHalvings {
			break
		}
	}
	for r := range rows {
		x := row(st.Theta, r, d)
		for i := range x {
			x[i] = phi[r][i] + scale[r]*z[r][i]
		}
	}
	return nil
}

// startHalvings bounds how often startChains halves a chain's jitter.
const startHalvings = 10

// maxStartRise is the largest energy rise a jittered start may have over
// its end point: the mean of χ²_d/2 plus 6 of its sds, so that under the
// Laplace approximation a start is refused about once in 10⁹.
func maxStartRise(d int) float64 {
	return float64(d)/2 + 6*math.Sqrt(float64(d)/2)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// normalise scales v to unit length and returns its former length.
func normalise(v []float64) float64 {
	n := math.Sqrt(dot(v, v))
	if n > 0 {
		for i := range v {
			v[i] /= n
		}
	}
	return n
}

// stepWarnings judges a step size given by hand, after the run, by the
// warm-up's own measures at every running chain's last point: η·λ_max of
// the Hessian (unstable above 2, biased beyond the tolerance well before)
// and the minibatch noise ratio. It evaluates on evaluators and streams of
// its own, so the run's draws and checkpoint are those of a run without
// it. Runs on a ladder, at temperature 0 or with synthetic noise only are
// not judged.
func (k *sgKernel) stepWarnings() ([]string, error) {
	st := k.st
	if k.s.AutoStep || st.Levels > 1 || !(k.s.Temperature > 0) || st.Running() == 0 {
		return nil, nil
	}
	rows := len(k.rngs)
	rngs := make([]*Rand, rows)
	for r := range rngs {
		rngs[r] = NewRand(st.Seed, 1<<45+uint64(st.FirstChain*st.Levels+r))
	}
	t := &tuner{target: k.target, o: k.o, strata: k.strata, st: &State{Dim: st.Dim, Energy: make([]float64, rows), Grad: make([]float64, rows*st.Dim),
		Variance: make([]float64, rows)}, rngs: rngs, temp: k.s.Temperature}
	batch := 0
	if k.batches != nil {
		batch = k.batches.batch
		t.batches = newMinibatcher(newBatchState(k.target.NumData(), rows, k.o.BatchBlocks), k.target.NumData(), batch, rngs, k.strata)
	}
	if t.batches != nil || k.o.GradNoise > 0 {
		eval, err := k.target.Evaluator(rows, batch)
		if err != nil {
			return nil, err
		}
		t.eval = eval
	}
	if err := t.prepareSubsample(); err != nil {
		return nil, err
	}
	d := st.Dim
	identity := &Metric{Center: make([]float64, d), A: make([]float64, d), Inverse: make([]float64, d)}
	for i := range d {
		identity.A[i], identity.Inverse[i] = 1, 1
	}
	lambda := 0.0
	for c := range st.Chains {
		if st.failed(c) {
			continue
		}
		l, err := t.curvature(identity, row(st.Theta, c*st.Levels, d), endCurvatureTol)
		if err != nil {
			return nil, err
		}
		lambda = max(lambda, l)
	}
	lr := k.level(0, 0, max(0, st.Done-1)).LR
	var w []string
	if r := lr * lambda; r > 2*discretisationTolerance {
		what := "biases the draws"
		if r >= 2 {
			what = "makes the dynamics unstable (the draws oscillate or diverge)"
		}
		w = append(w, fmt.Sprintf("the step size lr = %.3g is too large for the posterior's curvature: lr·λ_max = %.3g at the chains' last points (λ_max = %.3g), which %s; lr ≤ %.3g keeps the variance bias near 5%%, or leave lr out (auto) and the warm-up chooses it and preconditions the run",
			lr, r, lambda, what, discretisationTolerance/lambda))
	}
	sigma2, err := t.noiseAt(identity, func(r int, dst []float64) {
		copy(dst, row(st.Theta, r/st.Levels*st.Levels, d))
	})
	if err != nil {
		return nil, err
	}
	if r := noiseGain(k.s.Dynamics) * lr * sigma2 / (2 * t.temp); r > 2*noiseTolerance {
		batch := "a batch of every row"
		if t.batches != nil && float64(t.batches.batch)*r/noiseTolerance < float64(k.target.NumData()) {
			batch = fmt.Sprintf("a batch of about %.0f rows", float64(t.batches.batch)*r/noiseTolerance)
		}
		w = append(w, fmt.Sprintf("the minibatch gradient noise widens the posterior: at lr = %.3g it adds about %.0f%% to the variance of the noisiest coordinate (the noise ratio lr·σ²/2T is %.3g); lr ≤ %.3g, or %s, keeps it under %.0f%%, or leave lr out (auto) and the warm-up uses the control variate",
			lr, 100*r, r, lr*noiseTolerance/r, batch, 100*noiseTolerance))
	}
	return w, nil
}
