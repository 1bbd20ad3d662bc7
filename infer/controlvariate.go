package infer

import "fmt"

// ControlVariate is the centre of the control-variate gradient of SGLD-CV
// and SGHMC-CV (Baker, Fearnhead, Fox & Nemeth 2019, "Control variates for
// stochastic gradient MCMC", Statistics and Computing 29, Eq. 4):
//
//	∇Ũ_cv(θ) = ∇U(θ̂) + ∇Ũ_B(θ) - ∇Ũ_B(θ̂),
//
// where θ̂ is a point near the mode, ∇U(θ̂) the full-data gradient there
// (one pass over the data, once), and ∇Ũ_B the scaled minibatch gradient,
// taken at θ and at θ̂ on the same rows. It is unbiased, and its variance
// is that of the minibatch gradient of ∇U(θ) - ∇U(θ̂), of order ‖θ - θ̂‖²
// N²/B instead of N²/B: near the posterior, where ‖θ - θ̂‖ ~ 1/√N, the
// noise no longer grows with N (their Section 3), which makes the step
// size a large-N posterior needs possible. The energy is estimated the
// same way. The centre is in the target's own coordinates (θ).
type ControlVariate struct {
	Center []float64
	// Energy and Grad are the full-data energy and gradient at Center.
	Energy float64
	Grad   []float64
}

// newControlVariate computes the full-data energy and gradient at center.
func newControlVariate(target Target, center []float64) (*ControlVariate, error) {
	full, err := target.Evaluator(1, 0)
	if err != nil {
		return nil, err
	}
	cv := &ControlVariate{Center: append([]float64(nil), center...), Grad: make([]float64, len(center))}
	var energy, variance [1]float64
	if err := full.Evaluate(cv.Center, nil, energy[:], cv.Grad, variance[:]); err != nil {
		return nil, fmt.Errorf("the full-data gradient of the control variate: %w", err)
	}
	cv.Energy = energy[0]
	return cv, nil
}

// cvEvaluator evaluates P replicas with the control-variate estimator: an
// evaluator of 2P replicas takes the P positions and P copies of the
// centre on the same rows.
type cvEvaluator struct {
	inner      Evaluator
	cv         *ControlVariate
	p, d       int
	theta2     []float64 // 2P × D: the positions, then the centre P times
	rows2      []int
	e2, g2, v2 []float64
}

func newCVEvaluator(target Target, cv *ControlVariate, replicas, batch int) (*cvEvaluator, error) {
	inner, err := target.Evaluator(2*replicas, batch)
	if err != nil {
		return nil, err
	}
	d := len(cv.Center)
	e := &cvEvaluator{inner: inner, cv: cv, p: replicas, d: d, theta2: make([]float64, 2*replicas*d),
		rows2: make([]int, 2*replicas*inner.BatchSize()), e2: make([]float64, 2*replicas), g2: make([]float64, 2*replicas*d), v2: make([]float64, 2*replicas)}
	for r := range replicas {
		copy(row(e.theta2, replicas+r, d), cv.Center)
	}
	return e, nil
}

func (e *cvEvaluator) BatchSize() int { return e.inner.BatchSize() }

// Evaluate sets the control-variate energies and gradients; the variance
// is the plain minibatch estimator's, an upper bound for the
// control-variate one.
func (e *cvEvaluator) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	copy(e.theta2, theta)
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
		energy[r] = e.cv.Energy + e.e2[r] - e.e2[e.p+r]
		variance[r] = e.v2[r]
		g, at, centre := row(grad, r, e.d), row(e.g2, r, e.d), row(e.g2, e.p+r, e.d)
		for i := range g {
			g[i] = e.cv.Grad[i] + at[i] - centre[i]
		}
	}
	return nil
}
