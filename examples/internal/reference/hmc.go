package reference

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/summary"
)

// HMC draws a reference posterior for models whose mode is no guide (a
// hierarchy's joint density grows without bound as a scale goes to 0):
// Hamiltonian Monte Carlo with a Metropolis correction (Neal 2011), on the
// exact full-data density, so that its draws are exact in the limit
// whatever the step. Each chain starts uniformly in (-2, 2) on the
// unconstrained scale; the first half of the warm-up adapts the step size
// by Nesterov dual averaging toward acceptance 0.8 (Hoffman & Gelman 2014,
// section 3.2, with γ = 0.05, t0 = 10, κ = 0.75), the second half also
// estimates a diagonal metric from the draws, after which the step is
// adapted again. Trajectories are of about 2 units of the
// metric-scaled time, the step jittered by ±10%.
type HMC struct {
	Chains, Warmup, Draws int
	Seed                  uint64
}

// Run returns the moments of every parameter column over the chains'
// draws, with the split R-hat (infer/summary's, rank-normalised) as a check
// of the reference itself: it fails unless every column's is below 1.01.
func (h HMC) Run(m *temper.Model) (map[string]Moments, error) {
	d := m.Dim()
	cols := m.ParamColumns()
	var all [][][]float64 // [chain][draw][column]
	for c := range h.Chains {
		draws, err := h.chain(m, d, rand.New(rand.NewPCG(h.Seed, uint64(c))))
		if err != nil {
			return nil, fmt.Errorf("reference HMC chain %d: %v", c+1, err)
		}
		all = append(all, draws)
	}
	out := map[string]Moments{}
	for k, name := range cols {
		column := make([][]float64, len(all))
		for c, ch := range all {
			for _, x := range ch {
				column[c] = append(column[c], x[k])
			}
		}
		st := summary.Summarize(name, column)
		out[name] = Moments{Mean: st.Mean, SD: st.SD}
		if st.Rhat > 1.01 { // NaN, for a constant column (L[1, 1] = 1), passes
			return out, fmt.Errorf("reference HMC: split R-hat of %s is %.3f", name, st.Rhat)
		}
	}
	return out, nil
}

func (h HMC) chain(m *temper.Model, d int, rng *rand.Rand) ([][]float64, error) {
	theta, grad := make([]float64, d), make([]float64, d)
	for i := range theta {
		theta[i] = 4*rng.Float64() - 2
	}
	lp, err := m.LogDensity(theta, grad)
	if err != nil {
		return nil, err
	}
	inv := make([]float64, d) // the metric: the inverse mass, a variance per coordinate
	for i := range inv {
		inv[i] = 1
	}
	eps := 0.1
	da := newDualAveraging(eps)
	var sum, sumSq []float64
	var count float64
	q, p, g := make([]float64, d), make([]float64, d), make([]float64, d)
	var draws [][]float64
	for it := range h.Warmup + h.Draws {
		step := eps * (0.9 + 0.2*rng.Float64())
		steps := max(1, min(512, int(math.Ceil(2/step))))
		copy(q, theta)
		copy(g, grad)
		kinetic := 0.0
		for i := range p {
			p[i] = rng.NormFloat64() / math.Sqrt(inv[i])
			kinetic += 0.5 * p[i] * p[i] * inv[i]
		}
		h0 := -lp + kinetic
		newLP := lp
		ok := true
		for range steps {
			for i := range p {
				p[i] += 0.5 * step * g[i]
				q[i] += step * inv[i] * p[i]
			}
			if newLP, err = m.LogDensity(q, g); err != nil {
				return nil, err
			}
			if math.IsNaN(newLP) || math.IsInf(newLP, 0) {
				ok = false
				break
			}
			for i := range p {
				p[i] += 0.5 * step * g[i]
			}
		}
		accept := 0.0
		if ok {
			kinetic = 0
			for i := range p {
				kinetic += 0.5 * p[i] * p[i] * inv[i]
			}
			if dh := -newLP + kinetic - h0; !math.IsNaN(dh) {
				accept = math.Min(1, math.Exp(-dh))
			}
		}
		if rng.Float64() < accept {
			copy(theta, q)
			copy(grad, g)
			lp = newLP
		}
		if it < h.Warmup {
			eps = da.update(accept)
			if it >= h.Warmup/2 {
				if sum == nil {
					sum, sumSq = make([]float64, d), make([]float64, d)
				}
				for i, x := range theta {
					sum[i] += x
					sumSq[i] += x * x
				}
				count++
			}
			if it == h.Warmup*3/4 || it == h.Warmup-1 { // a metric from the draws so far, then the step again
				for i := range inv {
					mean := sum[i] / count
					// Stan's regularisation toward 1e-3, weighted by the count.
					v := max(sumSq[i]/count-mean*mean, 0)
					inv[i] = (count/(count+5))*v + 1e-3*(5/(count+5))
				}
				if it == h.Warmup-1 {
					eps = da.final()
				} else {
					da = newDualAveraging(eps)
				}
			}
			continue
		}
		x, err := m.ConstrainParams(theta)
		if err != nil {
			return nil, err
		}
		draws = append(draws, x)
	}
	return draws, nil
}

// dualAveraging is Nesterov's dual averaging of log step size toward an
// acceptance of 0.8 (Hoffman & Gelman 2014, eq. 6 and the constants of
// their section 3.2).
type dualAveraging struct {
	mu, hBar, logBar float64
	t                int
}

func newDualAveraging(eps float64) *dualAveraging {
	return &dualAveraging{mu: math.Log(10 * eps)}
}

func (a *dualAveraging) update(accept float64) float64 {
	const delta, gamma, t0, kappa = 0.8, 0.05, 10, 0.75
	a.t++
	t := float64(a.t)
	a.hBar = (1-1/(t+t0))*a.hBar + (delta-accept)/(t+t0)
	logEps := a.mu - math.Sqrt(t)/gamma*a.hBar
	w := math.Pow(t, -kappa)
	a.logBar = w*logEps + (1-w)*a.logBar
	return math.Exp(logEps)
}

func (a *dualAveraging) final() float64 { return math.Exp(a.logBar) }
