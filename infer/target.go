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
