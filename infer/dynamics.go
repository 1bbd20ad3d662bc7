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

// Sampler is a dynamics with its step-size schedule and temperature.
type Sampler struct {
	Name        string
	Dynamics    Dynamics
	Schedule    Schedule
	Temperature float64
}
