package infer

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/autodiff/kernel"
)

// Dynamics moves the replicas of a run, one at a time, given the gradient
// of the minibatch energy at the current position. A Dynamics value holds
// settings only: each replica's auxiliary variables (momenta, thermostat,
// preconditioner) live in the run's State, so that a checkpoint holds them
// and one Dynamics value may serve any number of runs.
type Dynamics interface {
	Name() string
	// AuxLen is the length of one replica's auxiliary state at dimension
	// d; it starts as zeros.
	AuxLen(d int) int
	// Step advances one replica: aux is its auxiliary state, theta and grad
	// its D-vectors, lr the step size η and temperature T ≥ 0 (0: an
	// optimiser). rng is the replica's own stream (the driver keeps one per
	// replica, so a replica's noise does not depend on the others or on
	// scheduling); bulk noise should come from rng.Normals, a chunk at a
	// time, fused with the update.
	Step(aux, theta, grad []float64, lr, temperature float64, rng *Rand)
}

// Langevin is stochastic gradient Langevin dynamics (Welling & Teh 2011):
//
//	θ ← θ - η ∇Ũ(θ) + √(2ηT) ξ,  ξ ~ N(0, I),
//
// whose stationary density, as η → 0, is ∝ exp(-U/T). At T = 0 it is plain
// SGD. (Seed 002 writes the noise as √(η/2) ξ for its energy convention;
// this is the same chain for U scaled by 1/2.)
type Langevin struct{}

func (Langevin) Name() string   { return "langevin" }
func (Langevin) AuxLen(int) int { return 0 }

func (Langevin) Step(_, theta, grad []float64, lr, temperature float64, rng *Rand) {
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
// Its auxiliary state is the momentum v.
type Hamiltonian struct {
	Friction float64
}

func (h *Hamiltonian) Name() string { return "hamiltonian" }

func (h *Hamiltonian) AuxLen(d int) int { return d }

func (h *Hamiltonian) Step(v, theta, grad []float64, lr, temperature float64, rng *Rand) {
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

// Preconditioned is preconditioned SGLD (Li et al. 2016) with the RMSprop
// preconditioner, dropping the Γ term as that paper's experiments do:
//
//	V ← ρV + (1-ρ) ∇Ũ⊙∇Ũ,  G = 1/(λ + √V),
//	θ ← θ - η G⊙∇Ũ + √(2ηT G)⊙ξ.
//
// At T = 0 it is RMSprop, the pSGD exploration kernel of DEO*-pSGD (seed
// 000, Algorithm 1). Its auxiliary state is the average V.
type Preconditioned struct {
	Rho, Eps float64
}

func (pc *Preconditioned) Name() string { return "preconditioned" }

func (pc *Preconditioned) AuxLen(d int) int { return d }

func (pc *Preconditioned) Step(v, theta, grad []float64, lr, temperature float64, rng *Rand) {
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
// injected noise when the step size is large). Its auxiliary state is the
// previous gradient, then the running s² and the number of steps taken.
type FastLangevin struct {
	GradVar float64
}

func (f *FastLangevin) Name() string { return "fast_langevin" }

func (f *FastLangevin) AuxLen(d int) int { return d + 2 }

// GradNoise is the estimate of s² of the replica whose auxiliary state is
// aux.
func (f *FastLangevin) GradNoise(aux []float64) float64 {
	if f.GradVar >= 0 {
		return f.GradVar
	}
	return aux[len(aux)-2]
}

func (f *FastLangevin) Step(aux, theta, grad []float64, lr, temperature float64, rng *Rand) {
	if f.GradVar < 0 {
		d := len(aux) - 2
		prev, s2, steps := aux[:d], &aux[d], &aux[d+1]
		if *steps > 0 {
			sum := 0.0
			for i, g := range grad {
				sum += (g - prev[i]) * (g - prev[i])
			}
			w := max(1 / *steps, 0.01)
			*s2 += w * (sum/(2*float64(len(grad))) - *s2)
		}
		copy(prev, grad)
		*steps++
	}
	c2 := max(0, lr*temperature-lr*lr*f.GradNoise(aux)/2)
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
	// Path, PathPower, puts a temperature ladder on the power-posterior
	// path (sgpower.go): level l samples p(θ) p(y | θ)^β_l (at
	// temperature 1), from the posterior to the prior at β = 0,
	// and the swaps and log Z read the likelihood's minibatch energy.
	Path LadderPath
	// Restart starts every trajectory between exchange rounds afresh: the
	// dynamics' momenta and thermostats are redrawn after each round
	// (RENHD, Algorithm 2 of seed 001, line 3). It needs dynamics with a
	// Restart method (NoseHoover).
	Restart bool
	// Adapt says when the adaptive ladder and correction buffer learn.
	Adapt AdaptMode
	// AutoStep has the warm-up choose the step size and the metric
	// (warmup.go); Schedule is then built for a unit step, which the tuned
	// step scales. One replica per chain only.
	AutoStep bool
	// Gradient chooses the minibatch gradient of a tuned run; CVRefresh,
	// if positive, moves the control variate's centres to the chains every
	// CVRefresh iterations (SVRG-style; controlvariate.go).
	Gradient  GradientKind
	CVRefresh int
	// Exact, when set, makes the sampler an exact full-batch kernel (nuts,
	// hmc, mala: exact.go) instead of stochastic-gradient dynamics; the
	// fields above do not apply to it.
	Exact *Exact
}
