package infer

import (
	"fmt"
	"math"
	"math/rand/v2"
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
	// size η and temperature T ≥ 0 (0: an optimiser).
	Step(p int, theta, grad []float64, lr, temperature float64, rng *rand.Rand)
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

func (Langevin) Step(_ int, theta, grad []float64, lr, temperature float64, rng *rand.Rand) {
	scale := math.Sqrt(2 * lr * temperature)
	for i, g := range grad {
		theta[i] -= lr * g
		if scale > 0 {
			theta[i] += scale * rng.NormFloat64()
		}
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

func (h *Hamiltonian) Step(p int, theta, grad []float64, lr, temperature float64, rng *rand.Rand) {
	v := h.momenta[p*h.d : (p+1)*h.d]
	scale := math.Sqrt(2 * h.Friction * lr * temperature)
	for i, g := range grad {
		v[i] = (1-h.Friction)*v[i] - lr*g
		if scale > 0 {
			v[i] += scale * rng.NormFloat64()
		}
		theta[i] += v[i]
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

func (pc *Preconditioned) Step(p int, theta, grad []float64, lr, temperature float64, rng *rand.Rand) {
	v := pc.v[p*pc.d : (p+1)*pc.d]
	for i, g := range grad {
		v[i] = pc.Rho*v[i] + (1-pc.Rho)*g*g
		pre := 1 / (pc.Eps + math.Sqrt(v[i]))
		theta[i] -= lr * pre * g
		if temperature > 0 {
			theta[i] += math.Sqrt(2*lr*temperature*pre) * rng.NormFloat64()
		}
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

func (f *FastLangevin) Step(p int, theta, grad []float64, lr, temperature float64, rng *rand.Rand) {
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
	scale := math.Sqrt(2 * c2)
	for i, g := range grad {
		theta[i] -= lr * g
		if scale > 0 {
			theta[i] += scale * rng.NormFloat64()
		}
	}
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
