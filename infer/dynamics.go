package infer

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Dynamics moves the replicas of a run, one at a time, given the gradient
// of the minibatch energy at the current position. Auxiliary variables
// (momenta) live in the Dynamics, one block per replica, so a Dynamics value
// belongs to one run.
type Dynamics interface {
	Name() string
	// Init allocates the auxiliary state of P replicas of dimension D.
	Init(p, d int)
	// Step advances replica p: theta and grad are its D-vectors, lr the step
	// size η and temperature T ≥ 0 (0: an optimiser). rng is replica p's own
	// stream (the driver keeps one per replica, so a replica's noise does
	// not depend on the others or on scheduling); bulk noise should come
	// from rng.Normals, a chunk at a time, fused with the update.
	Step(p int, theta, grad []float64, lr, temperature float64, rng *Rand)
}

// Langevin is stochastic gradient Langevin dynamics (Welling & Teh 2011):
//
//	θ ← θ - η ∇Ũ(θ) + √(2ηT) ξ,  ξ ~ N(0, I),
//
// whose stationary density, as η → 0, is ∝ exp(-U/T). At T = 0 it is plain
// SGD. (Seed 002 writes the noise as √(η/2) ξ for its energy convention;
// this is the same chain for U scaled by 1/2.)
type Langevin struct{}

func (Langevin) Name() string  { return "langevin" }
func (Langevin) Init(int, int) {}

func (Langevin) Step(_ int, theta, grad []float64, lr, temperature float64, rng *Rand) {
	langevinUpdate(theta, grad, lr, math.Sqrt(2*lr*temperature), rng)
}

// langevinUpdate does θ ← θ - η g + scale·ξ, ξ ~ N(0, I), with no noise
// (and no draws) unless scale > 0. The noise comes a chunk at a time and is
// used by the same loop that applies the gradient, while the chunk is in
// L1: one pass over θ and g per step instead of a call per coordinate. The
// loop is kernel.LangevinUpdate, vector code that rounds each product and
// sum as the formula written out in Go does (no fused multiply-add).
func langevinUpdate(theta, grad []float64, lr, scale float64, rng *Rand) {
	theta = theta[:len(grad)]
	if !(scale > 0) {
		kernel.LangevinUpdate(theta, grad, nil, lr, 0)
		return
	}
	for len(grad) > 0 {
		z := rng.Normals(len(grad))
		kernel.LangevinUpdate(theta[:len(z)], grad[:len(z)], z, lr, scale)
		theta, grad = theta[len(z):], grad[len(z):]
	}
}

// Hamiltonian is stochastic gradient Hamiltonian Monte Carlo in the
// parameterisation of Chen, Fox & Guestrin (2014), Eq. 15, with β̂ = 0:
//
//	v ← (1 - α) v - η ∇Ũ(θ) + √(2αηT) ξ,   θ ← θ + v,
//
// where α ∈ (0, 1] is the friction (momentum decay per step) and η the
// learning rate; the momentum is stationary at N(0, ηT). At T = 0 it is SGD
// with momentum 1 - α (seed 002, the exploration stage of cSGHMC).
type Hamiltonian struct {
	Friction float64
	momenta  []float64
	d        int
}

func (h *Hamiltonian) Name() string { return "hamiltonian" }

func (h *Hamiltonian) Init(p, d int) {
	h.momenta, h.d = make([]float64, p*d), d
}

func (h *Hamiltonian) Step(p int, theta, grad []float64, lr, temperature float64, rng *Rand) {
	v := h.momenta[p*h.d : (p+1)*h.d]
	v, theta = v[:len(grad)], theta[:len(grad)]
	decay := 1 - h.Friction
	scale := math.Sqrt(2 * h.Friction * lr * temperature)
	if !(scale > 0) {
		for i, g := range grad {
			v[i] = decay*v[i] - lr*g
			theta[i] += v[i]
		}
		return
	}
	// As langevinUpdate: a chunk of noise, then one loop over the chunk.
	for len(grad) > 0 {
		z := rng.Normals(len(grad))
		th, gr, vv := theta[:len(z)], grad[:len(z)], v[:len(z)]
		for i, zi := range z {
			vi := decay*vv[i] - lr*gr[i] + scale*zi
			vv[i] = vi
			th[i] += vi
		}
		theta, grad, v = theta[len(z):], grad[len(z):], v[len(z):]
	}
}

// Momentum returns replica p's momentum (for tests and diagnostics).
func (h *Hamiltonian) Momentum(p int) []float64 { return h.momenta[p*h.d : (p+1)*h.d] }

// Preconditioned is preconditioned SGLD (Li et al. 2016) with the RMSprop
// preconditioner, dropping the Γ term as that paper's experiments do:
//
//	V ← ρV + (1-ρ) ∇Ũ⊙∇Ũ,  G = 1/(λ + √V),
//	θ ← θ - η G⊙∇Ũ + √(2ηT G)⊙ξ.
//
// At T = 0 it is RMSprop, the pSGD exploration kernel of DEO*-pSGD (seed
// 000, Algorithm 1).
type Preconditioned struct {
	Rho, Eps float64
	v        []float64
	d        int
}

func (pc *Preconditioned) Name() string { return "preconditioned" }

func (pc *Preconditioned) Init(p, d int) { pc.v, pc.d = make([]float64, p*d), d }

func (pc *Preconditioned) Step(p int, theta, grad []float64, lr, temperature float64, rng *Rand) {
	v := pc.v[p*pc.d : (p+1)*pc.d]
	v, theta = v[:len(grad)], theta[:len(grad)]
	if !(temperature > 0) {
		for i, g := range grad {
			v[i] = pc.Rho*v[i] + (1-pc.Rho)*g*g
			pre := 1 / (pc.Eps + math.Sqrt(v[i]))
			theta[i] -= lr * pre * g
		}
		return
	}
	// As langevinUpdate, with the noise scaled per coordinate by √G.
	s2 := 2 * lr * temperature
	for len(grad) > 0 {
		z := rng.Normals(len(grad))
		th, gr, vv := theta[:len(z)], grad[:len(z)], v[:len(z)]
		for i, zi := range z {
			g := gr[i]
			vi := pc.Rho*vv[i] + (1-pc.Rho)*g*g
			vv[i] = vi
			pre := 1 / (pc.Eps + math.Sqrt(vi))
			th[i] = th[i] - lr*pre*g + math.Sqrt(s2*pre)*zi
		}
		theta, grad, v = theta[len(z):], grad[len(z):], v[len(z):]
	}
}

// FastLangevin is the fast-tempering Langevin step of f-reSGLD (seed 004):
// a stochastic gradient with per-coordinate noise variance s² already moves
// θ by η²s² of variance, so the injected noise only makes up the rest,
//
//	θ ← θ - η ∇Ũ + √(2c²) ξ,  c² = max(0, ηT - ½η²s²).
//
// GradVar is s²; negative means a running estimate, the mean over
// coordinates of ½(∇Ũ_k - ∇Ũ_{k-1})², averaged over the last hundred or so
// steps (it counts the gradient's drift as noise, so it errs toward less
// injected noise when the step size is large).
type FastLangevin struct {
	GradVar float64
	prev    []float64
	s2      []float64
	steps   []int
	d       int
}

func (f *FastLangevin) Name() string { return "fast_langevin" }

func (f *FastLangevin) Init(p, d int) {
	f.prev, f.s2, f.steps, f.d = make([]float64, p*d), make([]float64, p), make([]int, p), d
}

// GradNoise is replica p's estimate of s².
func (f *FastLangevin) GradNoise(p int) float64 {
	if f.GradVar >= 0 {
		return f.GradVar
	}
	return f.s2[p]
}

func (f *FastLangevin) Step(p int, theta, grad []float64, lr, temperature float64, rng *Rand) {
	if f.GradVar < 0 {
		prev := f.prev[p*f.d : (p+1)*f.d]
		if f.steps[p] > 0 {
			sum := 0.0
			for i, g := range grad {
				sum += (g - prev[i]) * (g - prev[i])
			}
			w := max(1/float64(f.steps[p]), 0.01)
			f.s2[p] += w * (sum/(2*float64(len(grad))) - f.s2[p])
		}
		copy(prev, grad)
		f.steps[p]++
	}
	c2 := max(0, lr*temperature-lr*lr*f.GradNoise(p)/2)
	langevinUpdate(theta, grad, lr, math.Sqrt(2*c2), rng)
}

// Schedule gives the step size at iteration k = 0, 1, ....
type Schedule interface {
	StepSize(k int) float64
	String() string
}

// Constant is a fixed step size.
type Constant float64

func (c Constant) StepSize(int) float64 { return float64(c) }
func (c Constant) String() string       { return fmt.Sprintf("constant(%g)", float64(c)) }

// Polynomial is the decaying step size a(b + k)^-γ of Welling & Teh (2011);
// γ ∈ (0.5, 1] satisfies the Robbins-Monro conditions, and γ = 1/2, b = 1
// gives the ε/√k baseline of seed 002.
type Polynomial struct{ A, B, Gamma float64 }

func (p Polynomial) StepSize(k int) float64 { return p.A * math.Pow(p.B+float64(k), -p.Gamma) }
func (p Polynomial) String() string {
	return fmt.Sprintf("polynomial(a=%g, b=%g, gamma=%g)", p.A, p.B, p.Gamma)
}

// Sampler is a composition of the parts of DESIGN.md section 4: the
// dynamics that move each replica, and, for replica exchange, a ladder of
// levels, an exchange test between adjacent levels and a swap scheme.
type Sampler struct {
	Name     string
	Dynamics Dynamics
	// Schedule is the step size of a single replica and of every level of
	// a temperature ladder.
	Schedule Schedule
	// Temperature is a single replica's temperature.
	Temperature float64

	// Replicas is the ladder size P (0 or 1: no exchange). The rest apply
	// when P ≥ 2.
	Replicas int
	Ladder   *Ladder
	Exchange Exchange
	Scheme   Scheme
	Every    int // iterations between exchange rounds (default 1)
	// Restart starts every trajectory between exchange rounds afresh: the
	// dynamics' momenta and thermostats are redrawn after each round
	// (RENHD, Algorithm 2 of seed 001, line 3). It needs dynamics with a
	// Restart method (NoseHoover).
	Restart bool
}
