package infer

import (
	"fmt"
	"math"

	"github.com/temper-ppl/temper/infer/exchange"
)

// The power path of an exact ladder (Exact.Path = PathPower): level β
// samples p_β(θ) ∝ e^{-U₀(θ) - βU₁(θ)}, the prior's energy U₀ and the
// likelihood's U₁ evaluated apart (PowerTarget), so that the hottest
// level, β = 0, is the prior, which is normalised, and the ladder's draws
// of U₁ give log Z (package exchange).

// powerParts are the two energies of a PowerTarget.
type powerParts struct{ prior, likelihood Target }

// newPowerParts splits target for a power-path ladder of the given levels,
// or says why it cannot.
func newPowerParts(target Target, levels int) (*powerParts, error) {
	if levels < 2 {
		return nil, fmt.Errorf("path = power is a ladder's path: it needs replicas > 1 (or auto)")
	}
	pt, ok := target.(PowerTarget)
	if !ok {
		return nil, fmt.Errorf("path = power needs a model whose prior and likelihood can be evaluated apart; this target's cannot")
	}
	prior, lik, err := pt.PowerParts()
	if err != nil {
		return nil, err
	}
	if prior.Dim() != target.Dim() || lik.Dim() != target.Dim() {
		return nil, fmt.Errorf("internal error: the prior's and the likelihood's energies have %d and %d parameters, the model %d", prior.Dim(), lik.Dim(), target.Dim())
	}
	return &powerParts{prior: prior, likelihood: lik}, nil
}

// splitEvaluator evaluates the prior's and the likelihood's energies of
// one row apart.
type splitEvaluator struct {
	prior, lik     Evaluator
	g1             []float64
	e0, e1, v0, v1 []float64
}

func newSplitEvaluator(prior, lik Evaluator, d int) *splitEvaluator {
	return &splitEvaluator{prior: prior, lik: lik, g1: make([]float64, d),
		e0: make([]float64, 1), e1: make([]float64, 1), v0: make([]float64, 1), v1: make([]float64, 1)}
}

// parts sets g0 = ∇U₀(q), g1 = ∇U₁(q) and returns U₀(q), U₁(q) and U₁'s
// minibatch variance (0: exact).
func (s *splitEvaluator) parts(q, g0, g1 []float64) (u0, u1, v1 float64, err error) {
	if err := s.prior.Evaluate(q, nil, s.e0, g0, s.v0); err != nil {
		return 0, 0, 0, err
	}
	if err := s.lik.Evaluate(q, nil, s.e1, g1, s.v1); err != nil {
		return 0, 0, 0, err
	}
	return s.e0[0], s.e1[0], s.v1[0], nil
}

// evaluate sets g = ∇(U₀ + βU₁)(q) and returns U₀(q) + βU₁(q), the
// energy of the level β.
func (s *splitEvaluator) evaluate(q, g []float64, beta float64) (float64, error) {
	u0, u1, _, err := s.parts(q, g, s.g1)
	if err != nil {
		return 0, err
	}
	for i, v := range s.g1 {
		g[i] += beta * v
	}
	if beta == 0 { // the prior: U₁ may be infinite where the prior is not
		return u0, nil
	}
	return u0 + beta*u1, nil
}

// powerScratch holds every row's parts at its current point for a swap
// round: rebuilt each round from the points, so a checkpoint needs none.
type powerScratch struct {
	u0, u1, v1 []float64 // per row
	g0, g1     []float64 // rows × D
}

// evaluateParts evaluates every row's parts at its point.
func (k *exactKernel) evaluateParts() error {
	rows, d := len(k.chains), k.st.Dim
	pw := &k.pw
	if len(pw.u0) != rows {
		*pw = powerScratch{u0: make([]float64, rows), u1: make([]float64, rows), v1: make([]float64, rows),
			g0: make([]float64, rows*d), g1: make([]float64, rows*d)}
	}
	k.parallel(func(r int) error {
		var err error
		pw.u0[r], pw.u1[r], pw.v1[r], err = k.chains[r].split.parts(row(k.st.Theta, r, d), row(pw.g0, r, d), row(pw.g1, r, d))
		return err
	})
	return k.firstError()
}

// swap exchanges rows a and b's parts, as their points are.
func (pw *powerScratch) swap(a, b, d int) {
	pw.u0[a], pw.u0[b] = pw.u0[b], pw.u0[a]
	pw.u1[a], pw.u1[b] = pw.u1[b], pw.u1[a]
	pw.v1[a], pw.v1[b] = pw.v1[b], pw.v1[a]
	ga, gb := row(pw.g0, a, d), row(pw.g0, b, d)
	ha, hb := row(pw.g1, a, d), row(pw.g1, b, d)
	for i := range ga {
		ga[i], gb[i] = gb[i], ga[i]
		ha[i], hb[i] = hb[i], ha[i]
	}
}

// setLevels sets every row's energy and gradient to its level's,
// U₀ + βU₁, from the parts.
func (pw *powerScratch) setLevels(st *State, betas []float64, levels int) {
	d := st.Dim
	for r := range st.Energy {
		beta := betas[r%levels]
		st.Energy[r] = pw.u0[r]
		if beta != 0 {
			st.Energy[r] += beta * pw.u1[r]
		}
		g, g0, g1 := row(st.Grad, r, d), row(pw.g0, r, d), row(pw.g1, r, d)
		for i := range g {
			g[i] = g0[i] + beta*g1[i]
		}
	}
}

// addEvidence records every chain's levels' likelihood energies at
// sampling iteration i for log Z.
func (k *exactKernel) addEvidence(i int) {
	lad, levels := k.es.Ladder, k.levels
	if lad.Evidence == nil {
		lad.Evidence = exchange.NewSums(lad.Betas, k.st.Chains, k.total-k.st.Burn)
	}
	for c := range k.st.Chains {
		lad.Evidence.Add(c, i, k.pw.u1[c*levels:(c+1)*levels], k.pw.v1[c*levels:(c+1)*levels])
	}
}

// evidence is the run's log Z, when its ladder is on the power path and
// has draws.
func (k *exactKernel) evidence() *exchange.Evidence {
	lad := k.es.Ladder
	if lad == nil || lad.Evidence == nil {
		return nil
	}
	e, ok := lad.Evidence.Estimate()
	if !ok || math.IsNaN(e.LogZ) {
		return nil
	}
	return &e
}
