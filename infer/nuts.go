package infer

import (
	"errors"
	"math"
)

// metric is a chain's inverse mass matrix M⁻¹: diagonal (inv holds D
// values) or dense (inv is D×D row-major and chol its lower Cholesky
// factor L, M⁻¹ = LLᵀ).
type metric struct {
	inv, chol []float64
}

// sharp sets dst = M⁻¹p, the velocity dq/dt of momentum p.
func (m metric) sharp(dst, p []float64) {
	if m.chol == nil {
		for i, v := range m.inv {
			dst[i] = v * p[i]
		}
		return
	}
	d := len(p)
	for i := range d {
		a := m.inv[i*d : (i+1)*d]
		s := 0.0
		for j, pj := range p {
			s += a[j] * pj
		}
		dst[i] = s
	}
}

// momentum draws p ~ N(0, M): p_i = z_i/√M⁻¹_ii when diagonal; when dense
// p = L⁻ᵀz, whose covariance L⁻ᵀL⁻¹ = (LLᵀ)⁻¹ is M.
func (m metric) momentum(p []float64, rng *Rand) {
	rng.FillNormal(p)
	if m.chol == nil {
		for i, v := range m.inv {
			p[i] /= math.Sqrt(v)
		}
		return
	}
	d := len(p)
	for i := d - 1; i >= 0; i-- { // solve Lᵀp = z from the last row
		s := p[i]
		for j := i + 1; j < d; j++ {
			s -= m.chol[j*d+i] * p[j]
		}
		p[i] = s / m.chol[i*d+i]
	}
}

// chainPoint is a chain's current state in the State: its position, the
// gradient and the energy U there, and its metric.
type chainPoint struct {
	q, g   []float64
	u      *float64
	metric metric
}

// phase is a point of a trajectory: position q, momentum p, velocity
// M⁻¹p, and the gradient and potential energy U at q.
type phase struct {
	q, p, sharp, g []float64
	u              float64
}

func newPhase(d int) phase {
	return phase{q: make([]float64, d), p: make([]float64, d), sharp: make([]float64, d), g: make([]float64, d)}
}

func (a *phase) set(b *phase) {
	copy(a.q, b.q)
	copy(a.p, b.p)
	copy(a.sharp, b.sharp)
	copy(a.g, b.g)
	a.u = b.u
}

// hamiltonian is H = U + ½pᵀM⁻¹p, with NaN counted as +∞ (a divergence).
func (a *phase) hamiltonian() float64 {
	h := a.u + 0.5*dot(a.p, a.sharp)
	if math.IsNaN(h) {
		return math.Inf(1)
	}
	return h
}

// edge is a trajectory's end as the U-turn criterion sees it: its
// momentum and velocity.
type edge struct{ p, sharp []float64 }

func newEdge(d int) edge { return edge{make([]float64, d), make([]float64, d)} }

func (e edge) set(p, sharp []float64) {
	copy(e.p, p)
	copy(e.sharp, sharp)
}

// frame is the workspace of one depth of a NUTS tree: the second half's
// proposal and the edges and momentum sums of both halves.
type frame struct {
	final             phase
	rhoInit, rhoFinal []float64
	initEnd, finalBeg edge
	extended          []float64
}

// chainIntegrator makes one chain's transitions on its own evaluator, with
// every vector it needs allocated once.
type chainIntegrator struct {
	eval             Evaluator
	d                int
	rng              *Rand
	m                metric
	eps              float64 // the signed step of the tree being built
	h0               float64
	energy, variance []float64 // the evaluator's outputs, one replica

	cur, start, propose, sample, fwd, bck phase
	fwdEdge, bckEdge, subBeg, subEnd      edge
	rho, rhoSub, extended                 []float64
	frames                                []frame

	leapfrogs int
	sumAccept float64
	divergent bool
	err       error

	// beta is the inverse temperature of the level the integrator moves
	// on: it samples e^{-βU} (1 off a ladder), or on the power path, where
	// split is set and eval is not, e^{-U₀ - βU₁}.
	beta  float64
	split *splitEvaluator
}

func newChainIntegrator(eval Evaluator, d int, x *Exact, rng *Rand) *chainIntegrator {
	c := &chainIntegrator{eval: eval, d: d, rng: rng, energy: make([]float64, 1), variance: make([]float64, 1), beta: 1,
		cur: newPhase(d), start: newPhase(d), propose: newPhase(d), sample: newPhase(d), fwd: newPhase(d), bck: newPhase(d),
		fwdEdge: newEdge(d), bckEdge: newEdge(d), subBeg: newEdge(d), subEnd: newEdge(d),
		rho: make([]float64, d), rhoSub: make([]float64, d), extended: make([]float64, d)}
	if x.Kind == NUTS {
		c.frames = make([]frame, x.MaxDepth+1)
		for i := range c.frames {
			c.frames[i] = frame{final: newPhase(d), rhoInit: make([]float64, d), rhoFinal: make([]float64, d),
				initEnd: newEdge(d), finalBeg: newEdge(d), extended: make([]float64, d)}
		}
	}
	return c
}

// evaluate sets g = ∇(βU)(q) and returns βU(q), the energy of the
// integrator's level.
func (c *chainIntegrator) evaluate(q, g []float64) (float64, error) {
	if c.split != nil {
		return c.split.evaluate(q, g, c.beta)
	}
	if err := c.eval.Evaluate(q, nil, c.energy, g, c.variance); err != nil {
		return 0, err
	}
	if c.beta != 1 {
		for i := range g {
			g[i] *= c.beta
		}
		return c.beta * c.energy[0], nil
	}
	return c.energy[0], nil
}

// begin loads the chain's state into c.start with a fresh momentum, and
// returns its Hamiltonian.
func (c *chainIntegrator) begin(pt chainPoint) float64 {
	c.m = pt.metric
	s := &c.start
	copy(s.q, pt.q)
	copy(s.g, pt.g)
	s.u = *pt.u
	c.m.momentum(s.p, c.rng)
	c.m.sharp(s.sharp, s.p)
	c.leapfrogs, c.sumAccept, c.divergent, c.err = 0, 0, false, nil
	return s.hamiltonian()
}

// leapfrog moves c.cur one step of c.eps (negative: backward in time):
// half a kick, a drift, the gradient at the new position, half a kick
// (Neal 2011, Eq. 2.28-2.30).
func (c *chainIntegrator) leapfrog() {
	z, e := &c.cur, c.eps
	for i, g := range z.g {
		z.p[i] -= 0.5 * e * g
	}
	c.m.sharp(z.sharp, z.p)
	for i, v := range z.sharp {
		z.q[i] += e * v
	}
	u, err := c.evaluate(z.q, z.g)
	if err != nil && c.err == nil {
		c.err = err
	}
	z.u = u
	for i, g := range z.g {
		z.p[i] -= 0.5 * e * g
	}
	c.m.sharp(z.sharp, z.p)
	c.leapfrogs++
}

// accept adds a new point's Metropolis acceptance to Stan's acceptance
// statistic and reports the point's log weight log exp(H0 − H).
func (c *chainIntegrator) accept(h float64) float64 {
	w := c.h0 - h
	c.sumAccept += math.Min(1, math.Exp(w))
	if h-c.h0 > maxEnergyError {
		c.divergent = true
	}
	return w
}

// finish writes the chosen point into the chain's state.
func (c *chainIntegrator) finish(pt chainPoint, z *phase) {
	copy(pt.q, z.q)
	copy(pt.g, z.g)
	*pt.u = z.u
}

// hmc is one transition of HMC with L leapfrog steps of ε and a Metropolis
// correction (Neal 2011, Figure 2); MALA is L = 1.
func (c *chainIntegrator) hmc(pt chainPoint, eps float64, steps int) (Transition, error) {
	c.h0 = c.begin(pt)
	c.cur.set(&c.start)
	c.eps = eps
	for range steps {
		c.leapfrog()
	}
	h := c.cur.hamiltonian()
	c.accept(h)
	t := Transition{Accept: c.sumAccept, Leapfrogs: c.leapfrogs, Divergent: c.divergent, Energy: c.h0}
	if c.rng.Float64() < t.Accept {
		c.finish(pt, &c.cur)
		t.Energy = h
	}
	return t, c.err
}

// nuts is one transition of the No-U-Turn sampler as Stan runs it:
// the trajectory doubles forward or backward at random until the
// generalised U-turn criterion (Betancourt 2017, Appendix A.4.2) holds
// across the whole tree, or across a subtree (which is then discarded),
// or a leapfrog step diverges, or the depth reaches maxDepth; the new
// state is drawn from the trajectory with weights exp(−H), multinomially
// within each new subtree and, between the old tree and the new subtree,
// biased toward the new one (Betancourt 2017, Appendix A.3.2).
func (c *chainIntegrator) nuts(pt chainPoint, eps float64, maxDepth int) (Transition, error) {
	c.h0 = c.begin(pt)
	s := &c.start
	c.fwd.set(s)
	c.bck.set(s)
	c.sample.set(s)
	c.fwdEdge.set(s.p, s.sharp)
	c.bckEdge.set(s.p, s.sharp)
	copy(c.rho, s.p)
	logW := 0.0 // the start's weight exp(H0 − H0)
	depth := 0
	for depth < maxDepth {
		clear(c.rhoSub)
		forward := c.rng.Float64() > 0.5
		end := &c.bck
		c.eps = -eps
		if forward {
			end, c.eps = &c.fwd, eps
		}
		c.cur.set(end)
		logWSub, ok := c.build(depth, &c.propose, c.rhoSub, c.subBeg, c.subEnd)
		end.set(&c.cur)
		if !ok || c.err != nil {
			break
		}
		depth++
		// Biased progressive sampling: the new subtree's proposal replaces
		// the sample with probability min(1, W_new / W_old).
		if logWSub > logW || c.rng.Float64() < math.Exp(logWSub-logW) {
			c.sample.set(&c.propose)
		}
		logW = logAddExp(logW, logWSub)
		// The U-turn criterion over the merged tree, and over the old tree
		// and the new subtree each extended by the other's nearest point.
		oldNear, oldFar := c.fwdEdge, c.bckEdge
		if !forward {
			oldNear, oldFar = c.bckEdge, c.fwdEdge
		}
		addTo(c.extended, c.rho, c.subBeg.p)
		persist := noUTurn(oldFar.sharp, c.subBeg.sharp, c.extended)
		addTo(c.extended, c.rhoSub, oldNear.p)
		persist = persist && noUTurn(oldNear.sharp, c.subEnd.sharp, c.extended)
		for i, r := range c.rhoSub {
			c.rho[i] += r
		}
		persist = persist && noUTurn(oldFar.sharp, c.subEnd.sharp, c.rho)
		oldNear.set(c.subEnd.p, c.subEnd.sharp)
		if !persist {
			break
		}
	}
	c.finish(pt, &c.sample)
	t := Transition{Accept: c.sumAccept / float64(max(1, c.leapfrogs)), Depth: depth, Leapfrogs: c.leapfrogs, Divergent: c.divergent,
		Energy: c.sample.hamiltonian()}
	return t, c.err
}

// build integrates a subtree of 2^depth leapfrog steps from c.cur in the
// direction of c.eps. It draws the subtree's proposal into propose
// (multinomially, with weights exp(H0 − H)), adds its momenta to rho, sets
// its first and last points' edges, and returns the log of its summed
// weights and whether it is valid: no divergence, and no U-turn within it
// or within either half extended by the other's nearest point.
func (c *chainIntegrator) build(depth int, propose *phase, rho []float64, beg, end edge) (float64, bool) {
	if depth == 0 {
		c.leapfrog()
		z := &c.cur
		w := c.accept(z.hamiltonian())
		propose.set(z)
		beg.set(z.p, z.sharp)
		end.set(z.p, z.sharp)
		for i, p := range z.p {
			rho[i] += p
		}
		return w, !c.divergent && c.err == nil
	}
	f := &c.frames[depth]
	clear(f.rhoInit)
	wInit, ok := c.build(depth-1, propose, f.rhoInit, beg, f.initEnd)
	if !ok {
		return 0, false
	}
	clear(f.rhoFinal)
	wFinal, ok := c.build(depth-1, &f.final, f.rhoFinal, f.finalBeg, end)
	if !ok {
		return 0, false
	}
	w := logAddExp(wInit, wFinal)
	if c.rng.Float64() < math.Exp(wFinal-w) {
		propose.set(&f.final)
	}
	for i := range rho {
		rho[i] += f.rhoInit[i] + f.rhoFinal[i]
	}
	addTo(f.extended, f.rhoInit, f.finalBeg.p)
	persist := noUTurn(beg.sharp, f.finalBeg.sharp, f.extended)
	addTo(f.extended, f.rhoFinal, f.initEnd.p)
	persist = persist && noUTurn(f.initEnd.sharp, end.sharp, f.extended)
	addTo(f.extended, f.rhoInit, f.rhoFinal)
	return w, persist && noUTurn(beg.sharp, end.sharp, f.extended)
}

// noUTurn is the generalised criterion between a trajectory's ends of
// velocities a and b and momentum sum rho: both ends still move along rho
// (Betancourt 2017, Eq. 34, with M⁻¹ in the dot products).
func noUTurn(a, b, rho []float64) bool { return dot(a, rho) > 0 && dot(b, rho) > 0 }

func addTo(dst, a, b []float64) {
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// errImproper and errNoStep are initialStepSize's failures.
var (
	errImproper = errors.New("the step size grew past 1e7 without the acceptance falling: the posterior looks improper (a parameter without a proper prior and no data to pin it); check the model")
	errNoStep   = errors.New("no step size is small enough for one leapfrog step to keep the energy finite from the chain's point: check the model's gradient at the starting point")
)

// initialStepSize is Stan's heuristic for a first step size (Hoffman &
// Gelman 2014, Algorithm 4): from eps, double (or halve) it until one
// leapfrog step's acceptance exp(H0 − H) crosses 0.8, each try from the
// chain's point with a fresh momentum.
func (c *chainIntegrator) initialStepSize(pt chainPoint, eps float64) (float64, error) {
	if !(eps > 0) || eps > 1e7 {
		return eps, nil
	}
	direction := 0
	for {
		h0 := c.begin(pt)
		c.cur.set(&c.start)
		c.eps = eps
		c.leapfrog()
		if c.err != nil {
			return eps, c.err
		}
		up := h0-c.cur.hamiltonian() > math.Log(0.8)
		switch {
		case direction == 0 && up:
			direction = 1
		case direction == 0:
			direction = -1
		case direction == 1 && !up, direction == -1 && up:
			return eps, nil
		}
		if direction == 1 {
			eps *= 2
		} else {
			eps /= 2
		}
		switch {
		case eps > 1e7:
			return eps, errImproper
		case eps == 0:
			return eps, errNoStep
		}
	}
}
