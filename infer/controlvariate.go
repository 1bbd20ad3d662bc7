package infer

import "fmt"

// ControlVariate holds the centres of the control-variate gradient of
// SGLD-CV and SGHMC-CV (Baker, Fearnhead, Fox & Nemeth 2019, "Control
// variates for stochastic gradient MCMC", Statistics and Computing 29,
// Eq. 4), one per row:
//
//	∇Ũ_cv(θ) = ∇U(θ̂) + ∇Ũ_B(θ) - ∇Ũ_B(θ̂),
//
// where θ̂ is a point near the mode, ∇U(θ̂) the full-data gradient there
// (one pass over the data), and ∇Ũ_B the scaled minibatch gradient, taken
// at θ and at θ̂ on the same rows. It is unbiased, and its variance is that
// of the minibatch gradient of ∇U(θ) - ∇U(θ̂), of order ‖θ - θ̂‖² N²/B
// instead of N²/B: near the posterior, where ‖θ - θ̂‖ ~ 1/√N, the noise no
// longer grows with N (their Section 3). Every row starts at the warm-up's
// mode; with Sampler.CVRefresh = K each row's centre moves to where the
// row is every K iterations, at the cost of a full pass each, as SVRG-LD
// refreshes its anchor every epoch (Dubey et al. 2016, "Variance reduction
// in stochastic gradient Langevin dynamics"). The energy is estimated the
// same way. Centres are in the target's own coordinates (θ).
type ControlVariate struct {
	Centers  []float64 // rows × D
	Energies []float64 // the full-data energy at each centre
	Grads    []float64 // rows × D: the full-data gradient there
}

// newControlVariate centres every one of rows rows at center.
func newControlVariate(target Target, center []float64, rows int) (*ControlVariate, error) {
	d := len(center)
	cv := &ControlVariate{Centers: make([]float64, rows*d), Energies: make([]float64, rows), Grads: make([]float64, rows*d)}
	if err := cv.centreAll(target, center); err != nil {
		return nil, err
	}
	return cv, nil
}

// centreAll moves every row's centre to center, with one pass over the
// data there.
func (cv *ControlVariate) centreAll(target Target, center []float64) error {
	d := len(center)
	full, err := target.Evaluator(1, 0)
	if err != nil {
		return err
	}
	var energy, variance [1]float64
	g := make([]float64, d)
	if err := full.Evaluate(center, nil, energy[:], g, variance[:]); err != nil {
		return fmt.Errorf("the full-data gradient of the control variate: %w", err)
	}
	for r := range cv.Energies {
		copy(row(cv.Centers, r, d), center)
		copy(row(cv.Grads, r, d), g)
		cv.Energies[r] = energy[0]
	}
	return nil
}

// recentre moves row r's centre to theta, with a full pass there.
func (cv *ControlVariate) recentre(full Evaluator, r int, theta []float64) error {
	d := len(theta)
	var energy, variance [1]float64
	if err := full.Evaluate(theta, nil, energy[:], row(cv.Grads, r, d), variance[:]); err != nil {
		return fmt.Errorf("refreshing the control variate: %w", err)
	}
	copy(row(cv.Centers, r, d), theta)
	cv.Energies[r] = energy[0]
	return nil
}

// cvEvaluator evaluates P replicas with the control-variate estimator: an
// evaluator of 2P replicas takes the P positions and their P centres on
// the same rows.
type cvEvaluator struct {
	inner      Evaluator
	cv         *ControlVariate
	p, d       int
	theta2     []float64 // 2P × D: the positions, then the centres
	rows2      []int
	e2, g2, v2 []float64
}

func newCVEvaluator(target Target, cv *ControlVariate, replicas, batch int) (*cvEvaluator, error) {
	inner, err := target.Evaluator(2*replicas, batch)
	if err != nil {
		return nil, err
	}
	d := len(cv.Centers) / replicas
	return &cvEvaluator{inner: inner, cv: cv, p: replicas, d: d, theta2: make([]float64, 2*replicas*d),
		rows2: make([]int, 2*replicas*inner.BatchSize()), e2: make([]float64, 2*replicas), g2: make([]float64, 2*replicas*d), v2: make([]float64, 2*replicas)}, nil
}

func (e *cvEvaluator) BatchSize() int { return e.inner.BatchSize() }

// Evaluate sets the control-variate energies and gradients; the variance
// is the plain minibatch estimator's, an upper bound for the
// control-variate one.
func (e *cvEvaluator) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	copy(e.theta2, theta)
	copy(e.theta2[len(theta):], e.cv.Centers)
	var rows2 []int
	if rows != nil {
		copy(e.rows2, rows)
		copy(e.rows2[len(rows):], rows)
		rows2 = e.rows2
	}
	if err := e.inner.Evaluate(e.theta2, rows2, e.e2, e.g2, e.v2); err != nil {
		return err
	}
	for r := range e.p {
		energy[r] = e.cv.Energies[r] + e.e2[r] - e.e2[e.p+r]
		variance[r] = e.v2[r]
		g, at, centre, full := row(grad, r, e.d), row(e.g2, r, e.d), row(e.g2, e.p+r, e.d), row(e.cv.Grads, r, e.d)
		for i := range g {
			g[i] = full[i] + at[i] - centre[i]
		}
	}
	return nil
}
