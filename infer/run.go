package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Options configure a run. The zero value of each field means its default.
type Options struct {
	Chains int // independent chains, run as the replicas of one evaluation (default 4)
	Iters  int // iterations kept after burn-in, before thinning (default 2000)
	Burn   int // iterations discarded first (default 0)
	Thin   int // keep every Thin-th iteration (default 1)
	Batch  int // minibatch rows per chain; 0 or ≥ NumData: every row
	Seed   uint64

	// EnergyNoise and GradNoise add independent N(0, s²) noise to every
	// energy and every gradient coordinate: the papers' synthetic
	// experiments on targets without data.
	EnergyNoise, GradNoise float64

	// Init gives each chain's unconstrained starting point (Chains × Dim);
	// nil draws each coordinate uniformly from [-InitRadius, InitRadius]
	// (Stan's default, radius 2).
	Init       [][]float64
	InitRadius float64

	// OnDraw, if set, receives every kept draw as it is made: the chain, the
	// iteration (counted from the end of burn-in) and the columns lp__ then
	// OutputNames. values is reused; copy what you keep. An error stops
	// the run.
	OnDraw func(chain, iter int, values []float64) error
	// Progress, if set, is called every iteration with the number done and
	// the total.
	Progress func(done, total int)
}

func (o Options) withDefaults() Options {
	if o.Chains == 0 {
		o.Chains = 4
	}
	if o.Iters == 0 {
		o.Iters = 2000
	}
	if o.Thin == 0 {
		o.Thin = 1
	}
	if o.InitRadius == 0 {
		o.InitRadius = 2
	}
	return o
}

func (o Options) validate(dim int) error {
	switch {
	case o.Chains < 1:
		return fmt.Errorf("chains must be at least 1, got %d", o.Chains)
	case o.Iters < 1:
		return fmt.Errorf("iters must be at least 1, got %d", o.Iters)
	case o.Burn < 0:
		return fmt.Errorf("burn must be ≥ 0, got %d", o.Burn)
	case o.Thin < 1:
		return fmt.Errorf("thin must be at least 1, got %d", o.Thin)
	case o.Batch < 0:
		return fmt.Errorf("batch must be ≥ 0, got %d", o.Batch)
	case o.EnergyNoise < 0 || o.GradNoise < 0:
		return fmt.Errorf("noise scales must be ≥ 0")
	case o.InitRadius < 0:
		return fmt.Errorf("init radius must be ≥ 0, got %g", o.InitRadius)
	}
	if o.Init != nil {
		if len(o.Init) != o.Chains {
			return fmt.Errorf("init has %d points for %d chains", len(o.Init), o.Chains)
		}
		for c, x := range o.Init {
			if len(x) != dim {
				return fmt.Errorf("init point of chain %d has %d values, the model has %d unconstrained parameters", c+1, len(x), dim)
			}
		}
	}
	return nil
}

// Result holds the draws of a run, kept in memory.
type Result struct {
	// Columns are lp__ then the target's OutputNames.
	Columns []string
	// Draws[c][i] is chain c's i-th kept draw, one value per column.
	Draws [][][]float64
	// Iterations run, burn-in included (less than planned when stopped).
	Iterations int
	Sampler    string
}

// Chains returns column col's draws per chain, the layout summaries take.
func (r *Result) Chains(col int) [][]float64 {
	out := make([][]float64, len(r.Draws))
	for c, draws := range r.Draws {
		out[c] = make([]float64, len(draws))
		for i, d := range draws {
			out[c][i] = d[col]
		}
	}
	return out
}

// ErrDiverged reports a chain whose energy or position stopped being finite.
var ErrDiverged = errors.New("diverged")

// Run samples target with s for every chain at once. It stops early, keeping
// the draws made so far, when ctx is cancelled (returning ctx's error), when a
// chain diverges (an error wrapping ErrDiverged) or when OnDraw fails; the
// Result is valid in every case.
func Run(ctx context.Context, target Target, s Sampler, o Options) (*Result, error) {
	o = o.withDefaults()
	d := target.Dim()
	if err := o.validate(d); err != nil {
		return nil, err
	}
	if s.Dynamics == nil || s.Schedule == nil {
		return nil, fmt.Errorf("sampler %q has no dynamics or schedule", s.Name)
	}
	n := target.NumData()
	batch := o.Batch
	if n == 0 || batch >= n {
		batch = 0
	}
	eval, err := target.Evaluator(o.Chains, batch)
	if err != nil {
		return nil, err
	}
	p := o.Chains
	res := &Result{Columns: append([]string{"lp__"}, target.OutputNames()...), Draws: make([][][]float64, p), Sampler: s.Name}

	// One random stream per chain: initial point, minibatches and noise.
	rngs := make([]*rand.Rand, p)
	for c := range rngs {
		rngs[c] = rand.New(rand.NewPCG(o.Seed, uint64(c)+1))
	}
	theta := make([]float64, p*d)
	for c := range p {
		x := theta[c*d : (c+1)*d]
		if o.Init != nil {
			copy(x, o.Init[c])
			continue
		}
		for i := range x {
			x[i] = o.InitRadius * (2*rngs[c].Float64() - 1)
		}
	}
	var batches *minibatcher
	if batch > 0 {
		batches = newMinibatcher(n, batch, rngs)
	}
	energy, variance, grad := make([]float64, p), make([]float64, p), make([]float64, p*d)
	row := make([]float64, len(res.Columns))
	s.Dynamics.Init(p, d)

	total := o.Burn + o.Iters
	for k := 0; k < total; k++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var rows []int
		if batches != nil {
			rows = batches.next()
		}
		if err := eval.Evaluate(theta, rows, energy, grad, variance); err != nil {
			return res, fmt.Errorf("iteration %d: %w", k+1, err)
		}
		addNoise(energy, grad, o.EnergyNoise, o.GradNoise, rngs, d)
		if err := checkFinite(theta, energy, d, k); err != nil {
			return res, err
		}
		// Record the state the gradient was taken at, then move.
		if k >= o.Burn && (k-o.Burn)%o.Thin == 0 {
			for c := range p {
				row[0] = -energy[c]
				target.Constrain(row[1:], theta[c*d:(c+1)*d])
				res.Draws[c] = append(res.Draws[c], append([]float64(nil), row...))
				if o.OnDraw != nil {
					if err := o.OnDraw(c, k-o.Burn, row); err != nil {
						return res, err
					}
				}
			}
		}
		lr := s.Schedule.StepSize(k)
		for c := range p {
			s.Dynamics.Step(c, theta[c*d:(c+1)*d], grad[c*d:(c+1)*d], lr, s.Temperature, rngs[c])
		}
		res.Iterations = k + 1
		if o.Progress != nil {
			o.Progress(k+1, total)
		}
	}
	return res, nil
}

func addNoise(energy, grad []float64, es, gs float64, rngs []*rand.Rand, d int) {
	if es == 0 && gs == 0 {
		return
	}
	for c, rng := range rngs {
		if es > 0 {
			energy[c] += es * rng.NormFloat64()
		}
		if gs > 0 {
			for i := c * d; i < (c+1)*d; i++ {
				grad[i] += gs * rng.NormFloat64()
			}
		}
	}
}

func checkFinite(theta, energy []float64, d, k int) error {
	for c, e := range energy {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("chain %d %w at iteration %d: energy is %v; a smaller step size (lr) may help", c+1, ErrDiverged, k+1, e)
		}
		for _, x := range theta[c*d : (c+1)*d] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("chain %d %w at iteration %d: a parameter is %v; a smaller step size (lr) may help", c+1, ErrDiverged, k+1, x)
			}
		}
	}
	return nil
}

// minibatcher deals each chain its minibatches: the rows of a random
// permutation, B at a time, reshuffled each epoch. Every batch is a uniform
// draw of B distinct rows, which makes the scaled minibatch energy an
// unbiased estimate of the full one.
type minibatcher struct {
	perms [][]int
	pos   []int
	batch int
	rows  []int
	rngs  []*rand.Rand
}

func newMinibatcher(n, batch int, rngs []*rand.Rand) *minibatcher {
	m := &minibatcher{batch: batch, rows: make([]int, len(rngs)*batch), rngs: rngs, pos: make([]int, len(rngs))}
	for c := range rngs {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		m.perms = append(m.perms, perm)
		m.pos[c] = n // shuffle before first use
	}
	return m
}

func (m *minibatcher) next() []int {
	for c, perm := range m.perms {
		if m.pos[c]+m.batch > len(perm) {
			m.rngs[c].Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			m.pos[c] = 0
		}
		copy(m.rows[c*m.batch:(c+1)*m.batch], perm[m.pos[c]:m.pos[c]+m.batch])
		m.pos[c] += m.batch
	}
	return m.rows
}
