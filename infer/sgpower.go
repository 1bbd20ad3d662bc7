package infer

import (
	"fmt"

	"github.com/temper-ppl/temper/infer/exchange"
)

// The power path on a stochastic-gradient temperature ladder
// (Sampler.Path = PathPower): level l moves at temperature 1 on
// the energy U₀ + β_l Ũ₁, the prior's exact energy plus the likelihood's
// minibatch energy tempered by β_l, from β_0 = 1 (the posterior) to the
// prior at β_{P-1} = 0, placed at β_l = (1 - l/(P-1))^5 as the exact
// ladders start (exactpt.go). The swap of levels p and p+1 is the
// Metropolis test of the kernel's exchange with the likelihood's energies
// and β for 1/T: log S = Δβ (Ũ₁(x_p) - Ũ₁(x_{p+1}) - Δβ σ̂²), seed 000's
// Eq. 15 with the likelihood's minibatch variance, exact for Gaussian
// noise; and every level's Ũ₁ with its variance enters the stepping stones
// of log Z with the same correction (package exchange).

// sgPowerLevels is the ladder size the power path gives the stochastic-
// gradient presets when replicas is not set: enough on full data for the
// models of TestLogZStochasticGradient (errors within 0.09); minibatches
// of a few rows need more (half the rows of 20 a batch: the stepping
// stones' largest correction 0.40 on 16 levels, 0.10 on 32), which the
// noise warning past exchange.NoiseLimit says.
const sgPowerLevels = 16

// PowerRows are a stochastic-gradient power path's ladder: its levels β,
// and the parts of every row at its last evaluation, the prior's and the
// likelihood's energies, variances and gradients (in θ).
//
// The levels stay where they start, β_l = (1 - l/(P-1))^5 (Friel &
// Pettitt 2008's schedule for the evidence), rather than move to equal
// rejection as the exact ladders' do: tuned so, on the three models of
// TestLogZStochasticGradient, the levels crowded toward the posterior,
// where the minibatch noise rejects swaps, and left wider gaps near the
// prior, whose heavy-tailed ratios e^{-Δβ U₁} the stepping stones then
// underestimated (the regression's log Z on minibatches moved from -0.02
// to -0.14 off the exact value, the normal mean's on full data from -0.01
// to -0.06).
type PowerRows struct {
	Betas          []float64
	E0, E1, V0, V1 []float64 // per row
	G0, G1         []float64 // rows × D
}

// powerLadderTarget is the target a power-path ladder samples: its
// evaluator of every row (rows replicas) is the ladder's, row r at level
// r mod levels; any other evaluator (the warm-up's) is the posterior's.
type powerLadderTarget struct {
	Target
	parts        *powerParts
	rows, levels int
	st           *State          // whose Power holds the ladder
	eval         *powerEvaluator // the ladder's, once made
}

func (t *powerLadderTarget) Evaluator(replicas, batch int) (Evaluator, error) {
	if replicas != t.rows {
		return t.Target.Evaluator(replicas, batch)
	}
	prior, err := t.parts.prior.Evaluator(replicas, 0)
	if err != nil {
		return nil, err
	}
	lik, err := t.parts.likelihood.Evaluator(replicas, batch)
	if err != nil {
		return nil, err
	}
	pr := t.st.Power
	t.eval = &powerEvaluator{prior: prior, lik: lik, d: t.Dim(), levels: t.levels, betas: pr.Betas,
		e0: pr.E0, e1: pr.E1, v0: pr.V0, v1: pr.V1, g0: pr.G0, g1: pr.G1}
	return t.eval, nil
}

// ConstrainSeeded keeps the model's seeded outputs (SeededTarget).
func (t *powerLadderTarget) ConstrainSeeded(dst, theta []float64, seed uint64) {
	if s, ok := t.Target.(SeededTarget); ok {
		s.ConstrainSeeded(dst, theta, seed)
		return
	}
	t.Target.Constrain(dst, theta)
}

// powerEvaluator evaluates every row's prior and likelihood apart and
// keeps both, with their gradients in θ, for the swaps and log Z.
type powerEvaluator struct {
	prior, lik     Evaluator
	d, levels      int
	betas          []float64
	e0, e1, v0, v1 []float64 // per row
	g0, g1         []float64 // rows × D
	// posterior evaluates every row at β = 1 (the warm-up's).
	posterior bool
}

func (e *powerEvaluator) BatchSize() int { return e.lik.BatchSize() }

// Evaluate sets row r's energy to U₀ + βŨ₁ at its level's β, its gradient
// likewise, and its variance to β²Var[Ũ₁].
func (e *powerEvaluator) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	if err := e.prior.Evaluate(theta, nil, e.e0, e.g0, e.v0); err != nil {
		return err
	}
	if err := e.lik.Evaluate(theta, rows, e.e1, e.g1, e.v1); err != nil {
		return err
	}
	for r := range energy {
		e.level(r, energy, grad, variance)
	}
	return nil
}

// level sets row r's energy, gradient (in θ) and variance from its parts.
func (e *powerEvaluator) level(r int, energy, grad, variance []float64) {
	beta := e.betas[r%e.levels]
	if e.posterior {
		beta = 1
	}
	energy[r], variance[r] = e.e0[r], beta*beta*e.v1[r]
	if beta != 0 { // the prior: Ũ₁ may be infinite where the prior is not
		energy[r] += beta * e.e1[r]
	}
	g, g0, g1 := row(grad, r, e.d), row(e.g0, r, e.d), row(e.g1, r, e.d)
	for i := range g {
		g[i] = g0[i] + beta*g1[i]
	}
}

// swapRows exchanges rows a and b's parts, as State.swapRows exchanges
// their points.
func (e *powerEvaluator) swapRows(a, b int) {
	for _, v := range [][]float64{e.e0, e.e1, e.v0, e.v1} {
		v[a], v[b] = v[b], v[a]
	}
	for _, g := range [][]float64{e.g0, e.g1} {
		ga, gb := row(g, a, e.d), row(g, b, e.d)
		for i := range ga {
			ga[i], gb[i] = gb[i], ga[i]
		}
	}
}

// copyRow copies row src's parts onto row dst (a restarted level taking
// its neighbour's state).
func (e *powerEvaluator) copyRow(dst, src int) {
	for _, v := range [][]float64{e.e0, e.e1, e.v0, e.v1} {
		v[dst] = v[src]
	}
	copy(row(e.g0, dst, e.d), row(e.g0, src, e.d))
	copy(row(e.g1, dst, e.d), row(e.g1, src, e.d))
}

// relevel sets rows a and b of st, whose points have just swapped levels,
// to their new levels' energies, variances and gradients, the gradients
// in the metric's coordinates where the run has one.
func (e *powerEvaluator) relevel(st *State, a, b int) {
	for _, r := range []int{a, b} {
		e.level(r, st.Energy, st.Grad, st.Variance)
		if st.Metric != nil {
			g := row(st.Grad, r, e.d)
			theta := append([]float64(nil), g...)
			st.Metric.gradPhi(g, theta)
		}
	}
}

// newPowerLadder prepares a stochastic-gradient ladder on the power path:
// the target whose ladder evaluator tempers the likelihood alone, or why
// the run cannot have one.
func newPowerLadder(target Target, s Sampler, o Options, st *State, rows, levels int) (*powerLadderTarget, error) {
	switch {
	case s.Ladder == nil || s.Ladder.Kind != TemperatureLadder || s.Ladder.Adaptive:
		return nil, fmt.Errorf("path = power needs a fixed temperature ladder (resgld, reld, f_resgld); %s's cannot carry it", s.Name)
	case o.Transport != nil && o.Transport.Size() > 1:
		return nil, fmt.Errorf("path = power is not yet split across processes: run it in one (its chains as an array job, --chain-id, work)")
	case o.EnergyNoise != 0 || o.GradNoise != 0:
		return nil, fmt.Errorf("path = power takes the model's own minibatch noise: leave energy_noise and grad_noise out")
	}
	if _, ok := s.Exchange.(*Metropolis); !ok {
		return nil, fmt.Errorf("path = power swaps with the Metropolis test on the likelihood's energy; %s's exchange = %s cannot", s.Name, s.Exchange.Name())
	}
	parts, err := newPowerParts(target, levels)
	if err != nil {
		return nil, err
	}
	d := target.Dim()
	switch {
	case st.Power == nil: // a fresh run's; a resumed run has its checkpoint's
		st.Power = &PowerRows{Betas: exchange.PowerBetas(levels),
			E0: make([]float64, rows), E1: make([]float64, rows), V0: make([]float64, rows), V1: make([]float64, rows),
			G0: make([]float64, rows*d), G1: make([]float64, rows*d)}
	case len(st.Power.E0) != rows || len(st.Power.Betas) != levels:
		return nil, fmt.Errorf("%w: its power-path ladder has %d rows, this run %d", ErrBadCheckpoint, len(st.Power.E0), rows)
	}
	return &powerLadderTarget{Target: target, parts: parts, rows: rows, levels: levels, st: st}, nil
}

// addEvidence records iteration it's likelihood energies of every running
// chain's levels for log Z (sampling iterations only).
func (k *sgKernel) addEvidence(it int) {
	st, e := k.st, k.power
	if e == nil || it < st.Burn {
		return
	}
	if st.Evidence == nil {
		st.Evidence = exchange.NewSums(e.betas, st.Chains, k.total-st.Burn)
	}
	for c := range st.Chains {
		if st.failed(c) {
			continue
		}
		lo, hi := c*st.Levels, (c+1)*st.Levels
		st.Evidence.Add(c, it-st.Burn, e.e1[lo:hi], e.v1[lo:hi])
	}
}
