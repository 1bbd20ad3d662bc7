// Package infer holds temper's samplers and the driver that runs them.
//
// A sampler is a composition of parts (DESIGN.md section 4): the dynamics
// that move one replica (SGD, momentum SGD, SGLD, SGHMC), a step-size
// schedule and a temperature. The driver runs C chains as the replicas of one
// batched evaluation of the Target, each chain with its own random stream, so
// that the same seed gives the same draws.
//
// infer knows models only through Target; it imports neither lang nor
// compile.
package infer

// Target is a model as the samplers see it: an energy U(θ) = -log p(θ | data)
// on an unconstrained space of dimension Dim, estimated on minibatches.
type Target interface {
	// Dim is D, the length of an unconstrained parameter vector.
	Dim() int
	// NumData is N, the number of rows the minibatch estimator scales to;
	// 0 when the energy has no observation axis (it is then exact).
	NumData() int
	// Evaluator prepares evaluation of P replicas on minibatches of batch
	// rows (batch ≤ 0 or ≥ NumData: every row, the exact energy).
	Evaluator(replicas, batch int) (Evaluator, error)
	// OutputNames are the columns of a draw: the parameters on their
	// constrained scale, flattened (w.1, w.2, ...).
	OutputNames() []string
	// Constrain writes the output columns of the unconstrained point theta
	// (one replica, length Dim) into dst (length len(OutputNames())).
	Constrain(dst, theta []float64)
}

// SeededTarget is a Target whose outputs include random draws (a generated
// block's _rng calls). A run calls ConstrainSeeded in place of Constrain,
// with a seed it derives from its own seed, the chain, the level and the
// iteration (DrawSeed), so that every draw's outputs are reproducible, a
// resumed run's included.
type SeededTarget interface {
	ConstrainSeeded(dst, theta []float64, seed uint64)
}

// DrawSeed is the seed of the outputs of the draw of a run with the given
// seed at (chain, level, iteration): the splitmix64 finaliser over the four,
// so that nearby draws get unrelated streams.
func DrawSeed(seed uint64, chain, level, iter int) uint64 {
	h := seed
	for _, x := range []int{chain, level, iter} {
		h = mix64(h ^ uint64(x) + 0x9e3779b97f4a7c15)
	}
	return h
}

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Evaluator computes energies and gradients for P replicas in one pass. It
// is not safe for concurrent use.
type Evaluator interface {
	// Evaluate sets, for each replica p, energy[p] = Ũ(θ_p) on the rows
	// rows[p*B:(p+1)*B] (rows is nil for the exact energy), grad[p*D:(p+1)*D]
	// = ∇Ũ(θ_p), and variance[p] to an estimate of Var[Ũ(θ_p)] over
	// minibatches (0 for the exact energy). theta is P × D.
	Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error
	// BatchSize is B, the rows per replica Evaluate expects (0: exact).
	BatchSize() int
}

// DeviceStepper is an Evaluator on an accelerator that can also make the
// samplers' moves itself (Langevin's and SGHMC's updates, fused with noise
// from a counter-based generator on the device), so that a run keeps the
// positions, gradients and momenta on the device: only the energies and
// their variances cross to the host each step, and the positions when a
// draw is kept.
type DeviceStepper interface {
	Evaluator
	// DeviceStep moves each replica p from the point of the last
	// evaluation by one step of m, then evaluates there on rows, setting
	// energy and variance as Evaluate does.
	DeviceStep(m *DeviceMove, rows []int, energy, variance []float64) error
	// Positions copies the replicas' current points and gradients (P × D)
	// to the host, and SGHMC's momenta unless momentum is nil.
	Positions(theta, grad, momentum []float64) error
	// SetPositions sets the replicas' points and gradients (P × D), and
	// SetMomentum SGHMC's momenta, where the next DeviceStep starts: a
	// resumed run's, which the device has not evaluated.
	SetPositions(theta, grad []float64) error
	SetMomentum(momentum []float64) error
	// SwapRows exchanges replicas a and b's points and gradients (a
	// ladder's swap; the momenta stay with their levels, as State.swapRows
	// leaves them); CopyRow copies replica src's onto dst and clears dst's
	// momentum (the hottest level restarting from its neighbour).
	SwapRows(a, b int) error
	CopyRow(dst, src int) error
}

// DeviceMove is one step of the dynamics for every replica p: Langevin's
// θ ← θ − η_p·∇Ũ(θ) + √(2·η_p·T_p)·ξ, or with Friction α > 0 SGHMC's
// (Hamiltonian): v ← (1 − α)·v − η_p·∇Ũ + √(2·α·η_p·T_p)·ξ, θ ← θ + v;
// ξ standard normal from the stream (Seed, p, Step). A replica whose η_p
// is 0 stays put.
type DeviceMove struct {
	LR, Temperature []float64
	Friction        float64
	// Scale is a diagonal metric's A: the dynamics run in the coordinates
	// φ = (θ − c)/A, where ∇_φ = A⊙∇_θ and θ moves by A⊙Δφ; nil for none.
	// It is the same slice, unchanged, for every step of a run.
	Scale []float64
	Seed  uint64
	Step  int
}

// PowerTarget is a Target whose energy splits into a prior part and a
// likelihood part, U(θ) = U₀(θ) + U₁(θ) with U₀ = -log p(θ) (the priors
// and the transforms' log-Jacobians, normalised: e^{-U₀} integrates to 1
// over the unconstrained space) and U₁ = -log p(y | θ). The power-posterior
// path p_β(θ) ∝ p(θ) p(y | θ)^β (Friel & Pettitt 2008) runs between them,
// and log Z = log ∫ p(θ) p(y | θ) dθ is read off it.
type PowerTarget interface {
	Target
	// PowerParts returns the prior's and the likelihood's energies as
	// Targets on the same θ (the likelihood's NumData is the model's; the
	// prior's is 0), or an error that says, in the user's terms, why this
	// model's prior cannot be told apart from its likelihood or is not a
	// normalised density (a parameter without a prior, a target += term,
	// a bounded parameter whose prior's mass inside the bounds is unknown).
	PowerParts() (prior, likelihood Target, err error)
}
