package autodiff

import (
	"math"
)

// Ordinary differential equations y' = f(t, y, θ), solved from y(t0) = y0
// to each of the output times ts, with the gradient of the solution by
// forward sensitivities: the state is augmented with S = ∂y/∂(y0, θ), an
// N × (N + P) matrix that obeys
//
//	S' = J_y S + [0 | J_θ],  S(t0) = [I | 0],
//
// (Hairer, Nørsett & Wanner, "Solving Ordinary Differential Equations I",
// 2nd ed., section I.14), integrated together with y under one error
// control, so the gradient is that of the solution to the solver's
// tolerance, not of the solver's discretisation, and no finite difference
// is taken. The Jacobians J_y = ∂f/∂y and J_θ = ∂f/∂θ come from the
// right-hand side (ODERightSide), which the compiler builds from the
// user's function as a graph of its own and differentiates in reverse
// mode, one state component at a time.
//
// The forward pass keeps each output time's sensitivities (Saved); the
// backward pass is then a product with them: ȳ0 = Σ_k S_k,yᵀ ḡ_k, θ̄ = Σ_k
// S_k,θᵀ ḡ_k, t̄s_k = f(ts_k, y_k)·ḡ_k and t̄0 = -Σ_k (S_k,y f(t0, y0))·ḡ_k.
//
// A solution that leaves the finite numbers, or needs more than the
// allowed steps, or whose step size underflows, is NaN with NaN gradients:
// the log density is then NaN, which the samplers treat as a rejected,
// divergent point (Stan throws a domain error there).

// ODERightSide is the right-hand side f(t, y, θ) of an ODE system, with N
// states and P parameters (θ, every real argument after the state, in
// order). One value is used by one goroutine at a time.
type ODERightSide interface {
	// Jacobian sets dy (N) to f(t, y, θ) and, when jy is not nil, jy (N ×
	// N, row-major, jy[i*N+j] = ∂f_i/∂y_j) and jtheta (N × P, ∂f_i/∂θ_j).
	Jacobian(dy, jy, jtheta []float64, t float64, y, theta []float64)
}

// ODEMethod names a solver.
type ODEMethod int

const (
	// RK45 is the explicit Runge-Kutta pair of Dormand and Prince, order 5
	// with an embedded order-4 error estimate: Stan's ode_rk45.
	RK45 ODEMethod = iota
	// SDIRK3 is the L-stable, stiffly accurate, three-stage singly diagonally
	// implicit Runge-Kutta method of order 3 of Alexander (1977), with the
	// error estimated by step doubling: for stiff systems, under Stan's name
	// ode_bdf.
	SDIRK3
)

// ODEOptions are a solver's tolerances: the error of a step, estimated
// per component, must be below AbsTol + RelTol·|y| in root mean square.
type ODEOptions struct {
	Method         ODEMethod
	RelTol, AbsTol float64
	MaxSteps       int // steps in all, from t0 to the last output time
}

// DefaultODEOptions are Stan's defaults for ode_rk45: relative and
// absolute tolerances 1e-6 and at most 10⁶ steps.
var DefaultODEOptions = ODEOptions{Method: RK45, RelTol: 1e-6, AbsTol: 1e-6, MaxSteps: 1_000_000}

// odeOp solves the system for one replica: operands y0 [N], t0 [], ts [T]
// and the parameters θ (any shapes, P elements in all); the result is [T,
// N], the state at each output time.
type odeOp struct {
	rhs     freeList[ODERightSide] // made by newRHS
	opts    ODEOptions
	n, p, t int
}

// ODE solves y' = f(t, y, θ) from y(t0) = y0 and returns the states at the
// times ts ([T, N]), which must increase from above t0. newRHS makes the
// right-hand side; it is called once for each goroutine that runs the op
// at the same time.
func ODE(newRHS func() ODERightSide, opts ODEOptions, y0, t0, ts *Node, theta ...*Node) *Node {
	ins := append([]*Node{y0, t0, ts}, theta...)
	g := graphOf(ins...)
	if g == nil {
		return nil
	}
	if anyFailed(ins...) {
		return g.placeholder(nil)
	}
	if len(y0.shape) != 1 || y0.shape[0] < 1 {
		return g.fail(nil, "the initial state of an ODE must be a vector with at least one element, and this has shape %v", y0.shape)
	}
	if t0.shape.Size() != 1 {
		return g.fail(nil, "the initial time of an ODE must be a scalar, and this has shape %v", t0.shape)
	}
	if len(ts.shape) != 1 || ts.shape[0] < 1 {
		return g.fail(nil, "the output times of an ODE must be a vector with at least one element, and this has shape %v", ts.shape)
	}
	if opts.Method != RK45 && opts.Method != SDIRK3 {
		return g.fail(nil, "unknown ODE method %d", opts.Method)
	}
	if !(opts.RelTol > 0) || !(opts.AbsTol > 0) || opts.MaxSteps < 1 {
		return g.fail(nil, "an ODE's tolerances must be positive and its steps at least 1 (relative %g, absolute %g, steps %d)", opts.RelTol, opts.AbsTol, opts.MaxSteps)
	}
	op := &odeOp{rhs: freeList[ODERightSide]{make: newRHS}, opts: opts, n: y0.shape[0], t: ts.shape[0]}
	for _, th := range theta {
		op.p += th.shape.Size()
	}
	return g.Apply(op, Shape{op.t, op.n}, ins...)
}

func (op *odeOp) Name() string { return "ode" }

// width is the number of sensitivity columns, N + P.
func (op *odeOp) width() int { return op.n + op.p }

// aug is the length of the augmented state: y and S.
func (op *odeOp) aug() int { return op.n * (1 + op.width()) }

// SavedLen: S at each output time, f at each output time, f(t0, y0).
func (op *odeOp) SavedLen() int { return op.t*op.n*op.width() + op.t*op.n + op.n }

// ScratchLen: θ, the Jacobians, and the solver's vectors of the augmented
// state (odeStages of them).
func (op *odeOp) ScratchLen() int {
	return op.p + op.n*op.width() + odeStages*op.aug()
}

// odeStages is the number of augmented-state vectors the solver keeps: the
// state, the trial state, seven stages (k1 … k7 of Dormand-Prince) and the
// stage argument.
const odeStages = 10

func (op *odeOp) Forward(a *Args) {
	n, w, m := op.n, op.width(), op.aug()
	sc := a.Scratch
	theta := sc[:op.p]
	jac := sc[op.p : op.p+n*w] // [J_y | J_θ], N × (N + P)
	vecs := sc[op.p+n*w:]
	off := 0
	for _, in := range a.In[3:] {
		off += copy(theta[off:], in)
	}
	t0, ts := a.In[1][0], a.In[2]
	rhs := op.rhs.get()
	defer op.rhs.put(rhs)
	s := &odeSolver{op: op, rhs: rhs, theta: theta, jac: jac, vec: func(i int) []float64 { return vecs[i*m : (i+1)*m] }}
	if op.opts.Method == SDIRK3 {
		s.pivots = make([]int, n)
	}
	z := s.vec(0)
	copy(z, a.In[0])
	clear(z[n:])
	for i := range n {
		z[n+i*w+i] = 1
	}
	saved := a.Saved
	sens, fOut, f0 := saved[:op.t*n*w], saved[op.t*n*w:op.t*n*w+op.t*n], saved[op.t*n*w+op.t*n:]
	rhs.Jacobian(f0, nil, nil, t0, z[:n], theta)
	ok := finite(z[:n]) && finite(theta) && !math.IsNaN(t0) && !math.IsInf(t0, 0)
	prev := t0
	for k := 0; ok && k < op.t; k++ {
		if !(ts[k] > prev) || math.IsInf(ts[k], 0) {
			ok = false
			break
		}
		if op.opts.Method == SDIRK3 {
			ok = s.advanceImplicit(z, prev, ts[k])
		} else {
			ok = s.advance(z, prev, ts[k])
		}
		prev = ts[k]
		copy(a.Out[k*n:(k+1)*n], z[:n])
		copy(sens[k*n*w:(k+1)*n*w], z[n:])
		rhs.Jacobian(fOut[k*n:(k+1)*n], nil, nil, ts[k], z[:n], theta)
	}
	if !ok {
		fillNaN(a.Out)
		fillNaN(saved)
	}
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

func (op *odeOp) Backward(a *Args) {
	n, w := op.n, op.width()
	saved := a.Saved
	sens, fOut, f0 := saved[:op.t*n*w], saved[op.t*n*w:op.t*n*w+op.t*n], saved[op.t*n*w+op.t*n:]
	gout := a.GradOut
	for k := range op.t {
		g := gout[k*n : (k+1)*n]
		sk := sens[k*n*w : (k+1)*n*w]
		if gy0 := a.GradIn[0]; gy0 != nil {
			for i, gi := range g {
				for j := range n {
					gy0[j] += gi * sk[i*w+j]
				}
			}
		}
		if gt0 := a.GradIn[1]; gt0 != nil {
			for i, gi := range g {
				sf := 0.0
				for j := range n {
					sf += sk[i*w+j] * f0[j]
				}
				gt0[0] -= gi * sf
			}
		}
		if gts := a.GradIn[2]; gts != nil {
			for i, gi := range g {
				gts[k] += gi * fOut[k*n+i]
			}
		}
		col := n
		for m, gth := range a.GradIn[3:] {
			size := len(a.In[3+m])
			if gth != nil {
				for i, gi := range g {
					row := sk[i*w+col : i*w+col+size]
					for j, s := range row {
						gth[j] += gi * s
					}
				}
			}
			col += size
		}
	}
}

// odeSolver integrates the augmented system of one op for one replica.
type odeSolver struct {
	op    *odeOp
	rhs   ODERightSide
	theta []float64
	jac   []float64
	vec   func(i int) []float64
	steps int
	h     float64 // the step size to try next; 0 before the first step
	fsal  bool    // vec(8) holds the derivative at the current state (k7 of the last step)

	pivots []int // the implicit solver's LU pivots
}

// derivative sets dz to the augmented system's derivative at (t, z): f and
// J_y S + [0 | J_θ].
func (s *odeSolver) derivative(dz []float64, t float64, z []float64) {
	n, w := s.op.n, s.op.width()
	// J_y and J_θ are written into one N × (N + P) buffer row by row: the
	// right-hand side fills them apart, so copy through the tail of dz.
	jyBuf := dz[n : n+n*n]
	jthBuf := dz[n+n*n : n+n*w]
	s.rhs.Jacobian(dz[:n], jyBuf, jthBuf, t, z[:n], s.theta)
	for i := range n {
		copy(s.jac[i*w:i*w+n], jyBuf[i*n:(i+1)*n])
	}
	for i := range n {
		copy(s.jac[i*w+n:(i+1)*w], jthBuf[i*s.op.p:(i+1)*s.op.p])
	}
	sens := z[n:]
	out := dz[n:]
	for i := range n {
		ji := s.jac[i*w : i*w+n]
		oi := out[i*w : (i+1)*w]
		for c := range w {
			v := 0.0
			if c >= n {
				v = s.jac[i*w+c]
			}
			for j, jij := range ji {
				v += jij * sens[j*w+c]
			}
			oi[c] = v
		}
	}
}

// Dormand & Prince (1980), "A family of embedded Runge-Kutta formulae",
// J. Comput. Appl. Math. 6(1), 19-26, table 2 (RK5(4)7M), as tabulated in
// Hairer, Nørsett & Wanner, "Solving ODEs I", table II.5.2: the nodes c,
// the coefficients a, the fifth-order weights b (the last row of a: the
// method is first-same-as-last) and e = b - b̂, the difference from the
// embedded fourth-order weights, which estimates the error.
var (
	dpC = [7]float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}
	dpA = [7][6]float64{
		{},
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	dpE = [7]float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
)

// advance integrates z from t to tEnd, landing on tEnd exactly, and
// reports false when the state leaves the finite numbers, the steps run
// out or the step size underflows.
func (s *odeSolver) advance(z []float64, t, tEnd float64) bool {
	m := s.op.aug()
	trial, arg := s.vec(1), s.vec(9)
	k := [7][]float64{s.vec(2), s.vec(3), s.vec(4), s.vec(5), s.vec(6), s.vec(7), s.vec(8)}
	if !s.fsal {
		s.derivative(k[6], t, z)
		s.fsal = true
	}
	if s.h == 0 {
		s.h = s.initialStep(z, k[6], tEnd-t)
	}
	for t < tEnd {
		if s.steps >= s.op.opts.MaxSteps {
			return false
		}
		h := s.h
		last := false
		if t+h >= tEnd || t+1.01*h >= tEnd {
			h, last = tEnd-t, true
		}
		copy(k[0], k[6])
		for st := 1; st < 7; st++ {
			for i := range m {
				v := z[i]
				for j := range st {
					if a := dpA[st][j]; a != 0 {
						v += h * a * k[j][i]
					}
				}
				arg[i] = v
			}
			s.derivative(k[st], t+dpC[st]*h, arg)
		}
		copy(trial, arg) // the sixth stage's argument is the fifth-order solution
		errNorm := 0.0
		for i := range m {
			e := 0.0
			for j := range 7 {
				e += dpE[j] * k[j][i]
			}
			sc := s.op.opts.AbsTol + s.op.opts.RelTol*max(math.Abs(z[i]), math.Abs(trial[i]))
			r := h * e / sc
			errNorm += r * r
		}
		errNorm = math.Sqrt(errNorm / float64(m))
		s.steps++
		if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) {
			// The trial left the finite numbers: a smaller step may not.
			copy(k[6], k[0])
			s.h = h / 10
			if s.h <= 1e-14*max(1, math.Abs(t)) {
				return false
			}
			continue
		}
		factor := stepFactor(errNorm, 5) // the local error of the order-4 solution is O(h⁵)
		if errNorm <= 1 {
			copy(z, trial)
			if last {
				t = tEnd
			} else {
				t += h
			}
			if !last || factor < 1 {
				s.h = h * factor
			}
			continue
		}
		copy(k[6], k[0]) // rejected: the derivative at z is still k1
		s.h = h * min(1, factor)
		if s.h <= 1e-14*max(1, math.Abs(t)) {
			return false
		}
	}
	return finite(z)
}

// initialStep is the starting step of Hairer, Nørsett & Wanner, section
// II.4 ("Starting step size", part a-c): 1% of the ratio of the state's
// scaled size to its derivative's, within the interval.
func (s *odeSolver) initialStep(z, dz []float64, span float64) float64 {
	d0, d1 := 0.0, 0.0
	for i := range z {
		sc := s.op.opts.AbsTol + s.op.opts.RelTol*math.Abs(z[i])
		d0 += (z[i] / sc) * (z[i] / sc)
		d1 += (dz[i] / sc) * (dz[i] / sc)
	}
	h := 1e-6
	if d0 > 1e-10 && d1 > 1e-10 {
		h = 0.01 * math.Sqrt(d0/d1)
	}
	return min(h, span)
}

// ConstValues returns the values of a constant node (Const, ConstData), or
// nil for any other node: what a compiler may check before a program runs,
// such as an ODE's output times.
func (n *Node) ConstValues() []float64 { return n.constant }

// stepFactor is the step-size rule of Hairer, Nørsett & Wanner, eq.
// II.4.13, for a method whose local error is O(h^q): the next step is the
// last one times 0.9·err^(-1/q), the growth clamped to [0.2, 5].
func stepFactor(errNorm, q float64) float64 {
	if errNorm == 0 {
		return 5
	}
	return min(5, max(0.2, 0.9*math.Pow(errNorm, -1/q)))
}
