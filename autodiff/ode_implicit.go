package autodiff

import "math"

// The stiff solver: the three-stage SDIRK method of order 3 of Alexander
// (1977), "Diagonally implicit Runge-Kutta methods for stiff O.D.E.'s",
// SIAM J. Numer. Anal. 14(6), 1006-1021 (also Hairer & Wanner, "Solving
// ODEs II", table IV.6.5): L-stable and stiffly accurate (the solution is
// the last stage), with γ the root of x³ − 3x² + 3x/2 − 1/6 in (1/6, 1/2),
//
//	c = (γ, (1+γ)/2, 1),  a = [[γ], [(1−γ)/2, γ], [b1, b2, γ]],
//	b1 = −(6γ² − 16γ + 1)/4,  b2 = (6γ² − 20γ + 5)/4.
//
// Each stage's state is solved by Newton's method with the Jacobian of
// the right-hand side; its sensitivities then solve the linear stage
// equation of the sensitivity system exactly, with the Jacobians at the
// converged stage (the staggered direct method of Caracotsios & Stewart
// 1985): they are the derivatives of the discrete solution, so the
// gradient is that of what the solver computes. The error is estimated by
// step doubling (Hairer, Nørsett & Wanner I, section II.4): a step of h
// against two of h/2, whose difference is 2³ − 1 times the error of the
// latter, which is kept.
const sdirkGamma = 0.43586652150845899941601945

var (
	sdirkC = [3]float64{sdirkGamma, (1 + sdirkGamma) / 2, 1}
	sdirkA = [3][3]float64{
		{sdirkGamma},
		{(1 - sdirkGamma) / 2, sdirkGamma},
		{-(6*sdirkGamma*sdirkGamma - 16*sdirkGamma + 1) / 4, (6*sdirkGamma*sdirkGamma - 20*sdirkGamma + 5) / 4, sdirkGamma},
	}
)

// newtonIters bounds the Newton iterations of a stage; a stage that does
// not converge in them is retried with a quarter of the step.
const newtonIters = 10

// advanceImplicit integrates z from t to tEnd with the SDIRK method, as
// advance does with Dormand-Prince.
func (s *odeSolver) advanceImplicit(z []float64, t, tEnd float64) bool {
	o := s.op.opts
	m := s.op.aug()
	full, half, two := s.vec(1), s.vec(7), s.vec(8)
	if s.h == 0 {
		dz := s.vec(9)
		s.rhs.Jacobian(dz[:s.op.n], nil, nil, t, z[:s.op.n], s.theta)
		s.h = s.initialStep(z[:s.op.n], dz[:s.op.n], tEnd-t)
	}
	for t < tEnd {
		if s.steps >= o.MaxSteps {
			return false
		}
		h := s.h
		last := false
		if t+1.01*h >= tEnd {
			h, last = tEnd-t, true
		}
		s.steps++
		ok := s.sdirkStep(full, z, t, h) && s.sdirkStep(half, z, t, h/2) && s.sdirkStep(two, half, t+h/2, h/2)
		errNorm := math.Inf(1)
		if ok {
			errNorm = 0
			for i := range m {
				sc := o.AbsTol + o.RelTol*max(math.Abs(z[i]), math.Abs(two[i]))
				r := (two[i] - full[i]) / 7 / sc
				errNorm += r * r
			}
			errNorm = math.Sqrt(errNorm / float64(m))
		}
		if math.IsNaN(errNorm) || math.IsInf(errNorm, 0) {
			s.h = h / 4
			if s.h <= 1e-14*max(1, math.Abs(t)) {
				return false
			}
			continue
		}
		factor := stepFactor(errNorm, 4) // the local error of the order-3 method is O(h⁴)
		if errNorm <= 1 {
			copy(z, two)
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
		s.h = h * min(1, factor)
		if s.h <= 1e-14*max(1, math.Abs(t)) {
			return false
		}
	}
	return finite(z)
}

// sdirkStep sets out to one step of size h from (t, z), state and
// sensitivities, and reports false when a stage's Newton iteration fails
// to converge or leaves the finite numbers.
func (s *odeSolver) sdirkStep(out, z []float64, t, h float64) bool {
	n, w, p := s.op.n, s.op.width(), s.op.p
	o := s.op.opts
	stages := [3][]float64{s.vec(2), s.vec(3), s.vec(4)} // F_j and SF_j of each stage
	base, eval := s.vec(5), s.vec(9)
	lu := s.jac[:n*n]
	hg := h * sdirkGamma
	for i := range 3 {
		ti := t + sdirkC[i]*h
		copy(base, z)
		for j := range i {
			a := h * sdirkA[i][j]
			for k, v := range stages[j] {
				base[k] += a * v
			}
		}
		// Newton on Y = base + hγ f(ti, Y), from the last stage's value.
		y := out[:n]
		if i == 0 {
			copy(y, z[:n])
		}
		jy, jth := eval[n:n+n*n], eval[n+n*n:n+n*n+n*p]
		converged := false
		for it := range newtonIters {
			// The Newton matrix: I − hγ J at the step's start for the first
			// stage; for the others, the previous stage's, already factored
			// for its sensitivities (a simplified Newton iteration converges
			// with any nearby Jacobian).
			if it == 0 && i == 0 {
				s.rhs.Jacobian(eval[:n], jy, jth, ti, y, s.theta)
				if !s.factor(lu, jy, hg) {
					return false
				}
			} else {
				s.rhs.Jacobian(eval[:n], nil, nil, ti, y, s.theta)
			}
			r := eval[:n]
			for k := range n {
				r[k] = base[k] + hg*r[k] - y[k]
			}
			s.solve(lu, r)
			norm := 0.0
			for k := range n {
				y[k] += r[k]
				sc := o.AbsTol + o.RelTol*math.Abs(y[k])
				norm += (r[k] / sc) * (r[k] / sc)
			}
			norm = math.Sqrt(norm / float64(n))
			if math.IsNaN(norm) || math.IsInf(norm, 0) {
				return false
			}
			if norm < 1e-3 {
				converged = true
				break
			}
		}
		if !converged {
			return false
		}
		// The sensitivities at the converged stage: (I − hγ J_y) SY = Sbase
		// + hγ [0 | J_θ], with the Jacobians at Y.
		s.rhs.Jacobian(eval[:n], jy, jth, ti, y, s.theta)
		if !s.factor(lu, jy, hg) {
			return false
		}
		sy := out[n:]
		copy(sy, base[n:])
		for k := range n {
			for c := range p {
				sy[k*w+n+c] += hg * jth[k*p+c]
			}
		}
		col := eval[:n]
		for c := range w {
			for k := range n {
				col[k] = sy[k*w+c]
			}
			s.solve(lu, col)
			for k := range n {
				sy[k*w+c] = col[k]
			}
		}
		// The stage's derivatives, (stage − base)/(hγ): exact for the
		// stage equations, and not amplified by a stiff Jacobian.
		for k := range out {
			stages[i][k] = (out[k] - base[k]) / hg
		}
	}
	return finite(out)
}

// factor sets lu to the LU factors of I − hγ J (J N × N, row-major), with
// partial pivoting into s.pivots, and reports false for a singular one.
func (s *odeSolver) factor(lu, j []float64, hg float64) bool {
	n := s.op.n
	for k := range lu {
		lu[k] = -hg * j[k]
	}
	for k := range n {
		lu[k*n+k]++
	}
	for c := range n {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(lu[r*n+c]) > math.Abs(lu[piv*n+c]) {
				piv = r
			}
		}
		s.pivots[c] = piv
		if lu[piv*n+c] == 0 || math.IsNaN(lu[piv*n+c]) {
			return false
		}
		if piv != c {
			for k := range n {
				lu[c*n+k], lu[piv*n+k] = lu[piv*n+k], lu[c*n+k]
			}
		}
		for r := c + 1; r < n; r++ {
			f := lu[r*n+c] / lu[c*n+c]
			lu[r*n+c] = f
			for k := c + 1; k < n; k++ {
				lu[r*n+k] -= f * lu[c*n+k]
			}
		}
	}
	return true
}

// solve overwrites b with (I − hγ J)⁻¹ b from factor's LU.
func (s *odeSolver) solve(lu, b []float64) {
	n := s.op.n
	for c := range n {
		if p := s.pivots[c]; p != c {
			b[c], b[p] = b[p], b[c]
		}
	}
	for r := range n {
		for k := range r {
			b[r] -= lu[r*n+k] * b[k]
		}
	}
	for r := n - 1; r >= 0; r-- {
		for k := r + 1; k < n; k++ {
			b[r] -= lu[r*n+k] * b[k]
		}
		b[r] /= lu[r*n+r]
	}
}
