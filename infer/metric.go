package infer

import "fmt"

// Metric is the linear change of variables θ = Center + A·φ under which a
// tuned run's samplers move (A is D×D row-major when Dense, else its
// diagonal, D values). With A a square root of an estimate of the
// posterior covariance, the posterior is close to N(0, I) in φ: one step
// size then fits every direction, and every dynamics gets the
// preconditioner (Stan's metric, or the mass matrix of HMC) without
// knowing of it, since it sees a target in φ. Energies are unchanged (the
// Jacobian of a linear map is constant), so exchange tests and lp__ are
// those of the model; gradients are ∇_φ U = Aᵀ ∇_θ U.
type Metric struct {
	Center []float64
	A      []float64
	Dense  bool
	// Inverse is A⁻¹ (row-major when Dense), to map θ to φ.
	Inverse []float64
}

// dim is D.
func (m *Metric) dim() int { return len(m.Center) }

// theta sets dst = Center + A·phi.
func (m *Metric) theta(dst, phi []float64) {
	d := m.dim()
	for i := range d {
		x := m.Center[i]
		if m.Dense {
			a := m.A[i*d : (i+1)*d]
			for j, p := range phi {
				x += a[j] * p
			}
		} else {
			x += m.A[i] * phi[i]
		}
		dst[i] = x
	}
}

// phi sets dst = A⁻¹·(theta - Center).
func (m *Metric) phi(dst, theta []float64) {
	d := m.dim()
	for i := range d {
		if !m.Dense {
			dst[i] = m.Inverse[i] * (theta[i] - m.Center[i])
			continue
		}
		x := 0.0
		inv := m.Inverse[i*d : (i+1)*d]
		for j, t := range theta {
			x += inv[j] * (t - m.Center[j])
		}
		dst[i] = x
	}
}

// gradPhi sets dst = Aᵀ·g, the gradient in φ of a gradient g in θ.
func (m *Metric) gradPhi(dst, g []float64) {
	d := m.dim()
	if !m.Dense {
		for i := range d {
			dst[i] = m.A[i] * g[i]
		}
		return
	}
	clear(dst[:d])
	for i := range d {
		a := m.A[i*d : (i+1)*d]
		for j := range d {
			dst[j] += a[j] * g[i]
		}
	}
}

// metricTarget is a Target seen in the coordinates φ of a Metric. Its
// Constrain is for one goroutine at a time (the run's recorder).
type metricTarget struct {
	Target
	m     *Metric
	theta []float64
}

func (t *metricTarget) Constrain(dst, phi []float64) {
	t.Target.Constrain(dst, t.toTheta(phi))
}

func (t *metricTarget) toTheta(phi []float64) []float64 {
	if t.theta == nil {
		t.theta = make([]float64, t.m.dim())
	}
	t.m.theta(t.theta, phi)
	return t.theta
}

// seededMetricTarget is the metricTarget of a SeededTarget, which stays
// one.
type seededMetricTarget struct{ *metricTarget }

func (t seededMetricTarget) ConstrainSeeded(dst, phi []float64, seed uint64) {
	t.Target.(SeededTarget).ConstrainSeeded(dst, t.toTheta(phi), seed)
}

func (t *metricTarget) Evaluator(replicas, batch int) (Evaluator, error) {
	e, err := t.Target.Evaluator(replicas, batch)
	if err != nil {
		return nil, err
	}
	d := t.m.dim()
	return &metricEvaluator{Evaluator: e, m: t.m, theta: make([]float64, replicas*d), g: make([]float64, d)}, nil
}

// metricEvaluator evaluates the target at θ = Center + A·φ of every
// replica, and returns gradients in φ.
type metricEvaluator struct {
	Evaluator
	m     *Metric
	theta []float64 // P × D
	g     []float64 // one replica's gradient in θ
}

func (e *metricEvaluator) Evaluate(phi []float64, rows []int, energy, grad, variance []float64) error {
	d := e.m.dim()
	if len(phi) != len(e.theta) {
		return fmt.Errorf("internal error: %d coordinates for a metric evaluator of %d", len(phi), len(e.theta))
	}
	for r := range energy {
		e.m.theta(row(e.theta, r, d), row(phi, r, d))
	}
	if err := e.Evaluator.Evaluate(e.theta, rows, energy, grad, variance); err != nil {
		return err
	}
	for r := range energy {
		copy(e.g, row(grad, r, d))
		e.m.gradPhi(row(grad, r, d), e.g)
	}
	return nil
}

// asDeviceStepper is e as a DeviceStepper, where it is one or a diagonal
// metric's view of one; nil otherwise.
func asDeviceStepper(e Evaluator) DeviceStepper {
	if me, ok := e.(*metricEvaluator); ok {
		inner, ok := me.Evaluator.(DeviceStepper)
		if !ok || me.m.Dense {
			return nil
		}
		return &metricStepper{metricEvaluator: me, dev: inner}
	}
	ds, _ := e.(DeviceStepper)
	return ds
}

// metricStepper is a DeviceStepper seen in the coordinates φ of a diagonal
// Metric: the device keeps θ and moves it by the metric's scale, as the
// dynamics in φ would, and the positions and gradients come back in φ.
// Momenta are in φ on both sides.
type metricStepper struct {
	*metricEvaluator
	dev DeviceStepper
}

func (s *metricStepper) DeviceStep(m *DeviceMove, rows []int, energy, variance []float64) error {
	mv := *m
	mv.Scale = s.m.A
	return s.dev.DeviceStep(&mv, rows, energy, variance)
}

func (s *metricStepper) Positions(phi, grad, momentum []float64) error {
	if err := s.dev.Positions(s.theta, grad, momentum); err != nil {
		return err
	}
	d := s.m.dim()
	for r := range len(phi) / d {
		s.m.phi(row(phi, r, d), row(s.theta, r, d))
		copy(s.g, row(grad, r, d))
		s.m.gradPhi(row(grad, r, d), s.g)
	}
	return nil
}

func (s *metricStepper) SetPositions(phi, grad []float64) error {
	d := s.m.dim()
	g := make([]float64, len(grad))
	for r := range len(phi) / d {
		s.m.theta(row(s.theta, r, d), row(phi, r, d))
		for i, x := range row(grad, r, d) { // ∇_θ = A⁻¹⊙∇_φ for a diagonal A
			g[r*d+i] = s.m.Inverse[i] * x
		}
	}
	return s.dev.SetPositions(s.theta, g)
}

func (s *metricStepper) SetMomentum(momentum []float64) error { return s.dev.SetMomentum(momentum) }
func (s *metricStepper) SwapRows(a, b int) error              { return s.dev.SwapRows(a, b) }
func (s *metricStepper) CopyRow(dst, src int) error           { return s.dev.CopyRow(dst, src) }
