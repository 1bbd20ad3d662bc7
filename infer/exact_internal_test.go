package infer

import "testing"

// isotropic is U(θ) = |θ|²/2 for one replica, evaluated without
// allocating.
type isotropic struct{}

func (isotropic) BatchSize() int { return 0 }
func (isotropic) Evaluate(theta []float64, _ []int, energy, grad, _ []float64) error {
	energy[0] = 0
	for i, x := range theta {
		energy[0] += x * x / 2
		grad[i] = x
	}
	return nil
}

// TestTransitionsDoNotAllocate: a transition of NUTS, HMC or MALA makes
// no allocation of its own (the "no per-leapfrog allocation"):
// every trajectory vector is the integrator's, allocated once.
func TestTransitionsDoNotAllocate(t *testing.T) {
	const d = 20
	for _, x := range []*Exact{{Kind: NUTS, MaxDepth: 10}, {Kind: HMC, Steps: 10}, {Kind: MALA, Steps: 1}} {
		for _, dense := range []bool{false, true} {
			ch := newChainIntegrator(isotropic{}, d, x, NewRand(1, 1))
			q, g, u := make([]float64, d), make([]float64, d), 0.0
			for i := range q {
				q[i] = 0.5
			}
			u, _ = ch.evaluate(q, g)
			pt := chainPoint{q: q, g: g, u: &u, metric: metric{inv: identityMetric(d, dense)}}
			if dense {
				pt.metric.chol = identityMetric(d, true)
			}
			allocs := testing.AllocsPerRun(50, func() {
				if x.Kind == NUTS {
					ch.nuts(pt, 0.3, x.MaxDepth)
				} else {
					ch.hmc(pt, 0.3, x.Steps)
				}
			})
			if allocs != 0 {
				t.Errorf("%v (dense %t): %.1f allocations a transition, want none", x.Kind, dense, allocs)
			}
		}
	}
}
