package compile

import (
	"fmt"
	"math"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/kernel"
	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/lang"
)

// Evaluator compiles the energy in float64 for P replicas and minibatches
// of batch rows, on one goroutine.
func (m *Model) Evaluator(replicas, batch int) (infer.Evaluator, error) {
	return m.EvaluatorWith(replicas, batch, EvalOptions{Threads: 1})
}

// EvalOptions choose how an evaluator computes.
type EvalOptions struct {
	// Float32 computes the model in float32 (autodiff.Program32): the
	// matrix products of neural networks run at twice the vector width.
	// The sampler's state, the energy's sums and the returned gradients
	// stay float64.
	Float32 bool
	// Threads is the number of goroutines (autodiff's SetThreads); 0 means
	// GOMAXPROCS.
	Threads int
	// Device is where the model is computed: "" or "cpu", or an
	// accelerator of autodiff.Devices ("cuda").
	Device string
}

// EvaluatorWith is Evaluator with the precision and goroutines of o.
func (m *Model) EvaluatorWith(replicas, batch int, o EvalOptions) (infer.Evaluator, error) {
	if m.part == priorPart {
		// PowerParts' prior is exact (NumData 0), and built in one part:
		// its terms of plate-indexed parameters are not minibatched.
		batch = 0
	} else if (batch == 0 || batch >= m.n) && m.n > 4*chunkRows && (o.Device == "" || o.Device == "cpu") {
		return m.chunkedEvaluator(replicas, o)
	}
	b, err := m.buildFor(replicas, batch, o.Device == "" || o.Device == "cpu")
	if err != nil {
		return nil, err
	}
	outputs := []*ad.Node{b.energy}
	if b.rowLL != nil {
		outputs = append(outputs, b.rowLL)
	}
	if o.Device != "" && o.Device != "cpu" {
		prog, err := b.g.CompileOn(o.Device, o.Float32, outputs...)
		if err != nil {
			return nil, fmt.Errorf("compiling the energy for %s: %v", o.Device, err)
		}
		return newDeviceEvaluator(m, b, prog, replicas)
	}
	if o.Float32 {
		prog, err := b.g.Compile32(outputs...)
		if err != nil {
			return nil, fmt.Errorf("compiling the energy in float32: %v", err)
		}
		return newEvaluator(m, b, prog, replicas, o.Threads)
	}
	prog, err := b.g.Compile(outputs...)
	if err != nil {
		return nil, fmt.Errorf("compiling the energy: %v", err)
	}
	return newEvaluator(m, b, prog, replicas, o.Threads)
}

func newEvaluator[T ad.Float](m *Model, b *built, prog *ad.ProgramOf[T], replicas, threads int) (*evaluator[T], error) {
	prog.SetThreads(threads)
	e := &evaluator[T]{built: b, prog: prog, p: replicas, d: m.dim, n: m.n}
	var err error
	e.exact, err = b.useAllRows(prog, replicas, m.n)
	if e.exact {
		for _, v := range m.data {
			if isMapped(v.Values) {
				e.mapped = append(e.mapped, v.Values)
			}
		}
	}
	return e, err
}

// indexSetter is a program's SetIndices, on the CPU or a device.
type indexSetter interface {
	SetIndices(ix *ad.Indices, rows []int) error
}

// useAllRows gives every replica every row, once and for all, when the
// model's minibatch is the whole data set (the exact energy), and reports
// whether it did.
func (b *built) useAllRows(prog indexSetter, replicas, n int) (bool, error) {
	if b.rows == nil || b.batch != n {
		return false, nil
	}
	all := make([]int, replicas*n)
	for i := range all {
		all[i] = i % n
	}
	return true, prog.SetIndices(b.rows, all)
}

// setRows gives the program the minibatch's rows, where the model takes a
// minibatch.
func (b *built) setRows(prog indexSetter, rows []int, exact bool) error {
	if b.rows == nil || exact {
		return nil
	}
	if rows == nil {
		return fmt.Errorf("the model minibatches %d rows; no rows were given", b.batch)
	}
	return prog.SetIndices(b.rows, rows)
}

// batchSize is the rows per replica an evaluator takes; 0 when every row
// is used.
func (b *built) batchSize(exact bool) int {
	if exact || b.rows == nil {
		return 0
	}
	return b.batch
}

type evaluator[T ad.Float] struct {
	*built
	prog    *ad.ProgramOf[T]
	p, d, n int
	exact   bool
	mapped  [][]float64 // the memory-mapped data an exact evaluator reads whole
}

// BatchSize is the rows per replica Evaluate takes; 0 when every row is used.
func (e *evaluator[T]) BatchSize() int { return e.batchSize(e.exact) }

// Evaluate implements infer.Evaluator. The variance of the minibatch energy
// is estimated from the per-row log-likelihoods of the batch (batchVariance).
func (e *evaluator[T]) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	e.setTheta(theta)
	if err := e.setRows(e.prog, rows, e.exact); err != nil {
		return err
	}
	for _, x := range e.mapped { // a pass over every row: read ahead (adviseRandom)
		adviseSequential(x)
		defer adviseRandom(x)
	}
	if err := e.prog.ForwardBackward(e.energy); err != nil {
		return err
	}
	kernel.Convert(energy, e.prog.Value(e.energy))
	for _, bl := range e.blocks {
		g := e.prog.Grad(bl.node)
		for r := range e.p {
			kernel.Convert(grad[r*e.d+bl.offset:][:bl.size], g[r*bl.size:(r+1)*bl.size])
		}
	}
	clear(variance)
	if e.rowLL == nil || e.exact {
		return nil
	}
	batchVariance(variance, e.prog.Value(e.rowLL), e.batch, e.n)
	return nil
}

// batchVariance estimates each replica's minibatch-energy variance from its
// rows' log-likelihoods ll (P × bsz): for B rows drawn without replacement
// from N, Var[(N/B)Σℓ_b] = N²(1 - B/N)S²/B, with the population variance S²
// estimated by the batch's sample variance.
func batchVariance[T ad.Float](variance []float64, ll []T, bsz, rows int) {
	n := float64(rows)
	for c := range variance {
		row := ll[c*bsz : (c+1)*bsz]
		mean := 0.0
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(bsz)
		ss := 0.0
		for _, v := range row {
			ss += (float64(v) - mean) * (float64(v) - mean)
		}
		// One row has no sample variance: NaN says so (the samplers whose
		// swaps need it refuse batch 1).
		variance[c] = math.NaN()
		if bsz > 1 {
			variance[c] = n * n * (1 - float64(bsz)/n) * ss / float64(bsz-1) / float64(bsz)
		}
	}
}

// setTheta writes each replica's θ into the parameter blocks.
func (e *evaluator[T]) setTheta(theta []float64) {
	for _, bl := range e.blocks {
		v := e.prog.Value(bl.node)
		for r := range e.p {
			kernel.Convert(v[r*bl.size:(r+1)*bl.size], theta[r*e.d+bl.offset:][:bl.size])
		}
	}
}

// newConstrainer builds the program of the parameter transforms alone,
// which maps one unconstrained point to the constrained parameters.
func (m *Model) newConstrainer() (*outputs, error) {
	// The parameters alone: not the model block, which an unrolled loop
	// can make large.
	b := m.newBuilder(1)
	var nodes []*ad.Node
	for _, p := range m.params {
		v := b.param(p)
		if b.err != nil {
			return nil, lang.ErrorList{b.err}
		}
		b.params[p.decl.Name] = v
		nodes = append(nodes, v.node)
	}
	prog, err := b.g.Compile(nodes...)
	if err != nil {
		return nil, fmt.Errorf("compiling the constraint transforms: %v", err)
	}
	return &outputs{prog: prog, blocks: b.blocks, nodes: nodes}, nil
}

// chunkRows is the rows of one part of a pass over every row of a data set
// of more than 4·chunkRows rows (chunkedEvaluator): a logistic regression
// on 20 features holds about 250 bytes a row of a part (the gathered rows
// and the per-row values), 65 MB.
var chunkRows = 1 << 18

// chunked evaluates the exact energy of a large data set a part of
// consecutive rows at a time, so that a pass over every row (the control
// variate's full gradient, an exact sampler's step) holds a part's
// per-row values, not the whole data set's (a logistic regression's
// full-data program held about 60 bytes a row: 600 MB for 10,000,000
// rows), and reads a memory-mapped file in order. Part c of B_c rows gives
// the minibatch energy U_c = U_0 + (N/B_c)·S_c (U_0 the prior terms, S_c
// the part's likelihood terms), and the parts' B_c add up to N, so
// Σ_c (B_c/N)·U_c = U_0 + Σ_c S_c, the exact energy; likewise its gradient.
// The sums differ from one pass's by rounding only.
type chunked struct {
	parts   []infer.Evaluator // chunkRows rows, and the remainder's if any
	p, d, n int
	mapped  [][]float64
	rows    []int
	e, v    []float64
	g       []float64
}

func (m *Model) chunkedEvaluator(replicas int, o EvalOptions) (infer.Evaluator, error) {
	c := &chunked{p: replicas, d: m.dim, n: m.n, e: make([]float64, replicas), v: make([]float64, replicas), g: make([]float64, replicas*m.dim)}
	for _, size := range []int{chunkRows, m.n % chunkRows} {
		if size == 0 {
			continue
		}
		e, err := m.EvaluatorWith(replicas, size, o)
		if err != nil {
			return nil, err
		}
		c.parts = append(c.parts, e)
	}
	for _, v := range m.data {
		if isMapped(v.Values) {
			c.mapped = append(c.mapped, v.Values)
		}
	}
	return c, nil
}

// BatchSize is 0: every row.
func (c *chunked) BatchSize() int { return 0 }

// Evaluate implements infer.Evaluator for the exact energy (rows nil).
func (c *chunked) Evaluate(theta []float64, rows []int, energy, grad, variance []float64) error {
	for _, x := range c.mapped { // a pass over every row: read ahead
		adviseSequential(x)
		defer adviseRandom(x)
	}
	clear(energy)
	clear(grad)
	clear(variance)
	for start := 0; start < c.n; {
		size := min(chunkRows, c.n-start)
		part := c.parts[0]
		if size < chunkRows {
			part = c.parts[1]
		}
		c.rows = c.rows[:0]
		for range c.p {
			for i := range size {
				c.rows = append(c.rows, start+i)
			}
		}
		if err := part.Evaluate(theta, c.rows, c.e, c.g, c.v); err != nil {
			return err
		}
		w := float64(size) / float64(c.n)
		for r := range c.p {
			energy[r] += w * c.e[r]
		}
		for i, x := range c.g {
			grad[i] += w * x
		}
		start += size
	}
	return nil
}
