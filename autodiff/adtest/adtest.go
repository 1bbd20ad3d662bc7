// Package adtest is the one harness that proves every op and log density of
// temper: values against an independent reference, gradients against central
// finite differences, and P replicas in one pass against P single-replica
// passes, bit for bit. autodiff's and stdlib's tests are tables of Cases run
// through it.
package adtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/temper-ppl/temper/autodiff"
)

// Tolerances of the harness, shared by every case.
const (
	// ValueRelTol bounds |value - reference| / |reference| (the bar
	// for values against an independent reference).
	ValueRelTol = 1e-10
	// GradRelTol bounds the relative gradient error. The finite difference is
	// Richardson-extrapolated central differences with h = 1e-3·max(1, |x|):
	// truncation error O(h⁴·f⁽⁵⁾) ≈ 1e-12·f⁽⁵⁾ and rounding ≈ ε·|f|/h ≈ 1e-12·|f|,
	// both far below 1e-6 for the smooth functions at the points drawn, while
	// a wrong derivative is off by O(1).
	GradRelTol = 1e-6
	// GradAbsTol is an absolute floor for gradients that are zero or nearly
	// so, where a relative error means nothing: it is the rounding error of
	// the difference quotient for losses of size up to about 100.
	GradAbsTol = 1e-9
	// replicas is how many replicas each case runs at once.
	replicas = 3
)

// Input describes one operand of a case.
type Input struct {
	Shape autodiff.Shape
	// Draw gives a random value in the operand's domain; ignored when Values
	// is set.
	Draw func(r *rand.Rand) float64
	// Values fixes the operand's values (one tensor, used for every replica).
	Values []float64
	// Data marks an operand that gets no gradient (labels, counts): it is a
	// shared Data input. Others are Param inputs, one draw per replica.
	Data bool
}

// Case is one op or density under test.
type Case struct {
	Name   string
	Inputs []Input
	// Build applies the op to the operands.
	Build func(ins []*autodiff.Node) *autodiff.Node
	// Rows, when set, are the values of an index vector (shared by the
	// replicas) handed to BuildRows instead of calling Build: for gathers.
	Rows      []int
	BuildRows func(ins []*autodiff.Node, rows *autodiff.Indices) *autodiff.Node
	// Reference computes the expected result of one replica from its
	// operands' values, independently of the op (a closed form, gonum's
	// distuv, a naive loop). Optional.
	Reference func(x [][]float64) []float64
	// ValueTol overrides ValueRelTol where the reference itself is less
	// accurate (say why at the case).
	ValueTol float64
	// Float64Only skips the comparison of a float32 program with the
	// float64 one, for points beyond float32's range or resolution (the
	// tails: exp(700), 1 - 1e-17).
	Float64Only bool
}

// Run checks c and reports each failure on t.
func Run(t *testing.T, c Case) {
	t.Helper()
	for _, err := range Check(c, 1) {
		t.Error(err)
	}
}

// Check runs every check of c with inputs drawn from seed and returns what
// failed. It is Run without a *testing.T, so that the harness itself can be
// tested against a broken op.
func Check(c Case, seed uint64) []error {
	rng := rand.New(rand.NewPCG(seed, 0x7e3b))
	values := drawInputs(c, rng)
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(c.Name+": "+format, args...))
	}

	// Two goroutines: each runs whole replicas, which the bit-for-bit
	// comparison with single-replica passes below checks too.
	many, err := newRun[float64](c, replicas, values, 2)
	if err != nil {
		return []error{fmt.Errorf("%s: %v", c.Name, err)}
	}
	weights := many.weights

	for r := range replicas {
		one, err := newRun[float64](c, 1, replicaValues(c, values, r), 1)
		if err != nil {
			return []error{fmt.Errorf("%s: %v", c.Name, err)}
		}
		// P replicas in one pass equal P single passes, bit for bit.
		got := many.prog.Tensor(many.out, r).Data // the shared value when no operand is a Param
		want := one.prog.Value(one.out)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				fail("replica %d value %d: %v in a %d-replica pass, %v alone", r, i, got[i], replicas, want[i])
				break
			}
		}
		for k, in := range c.Inputs {
			if in.Data {
				continue
			}
			n := in.Shape.Size()
			g1 := one.prog.Grad(one.ins[k])
			gm := many.prog.Grad(many.ins[k])[r*n : (r+1)*n]
			for i := range g1 {
				if math.Float64bits(g1[i]) != math.Float64bits(gm[i]) {
					fail("replica %d gradient of operand %d element %d: %v in a %d-replica pass, %v alone", r, k, i, gm[i], replicas, g1[i])
					break
				}
			}
		}

		if c.Reference != nil {
			tol := ValueRelTol
			if c.ValueTol > 0 {
				tol = c.ValueTol
			}
			ref := c.Reference(replicaValues(c, values, r))
			if len(ref) != len(want) {
				fail("reference has %d values, op %d", len(ref), len(want))
			} else {
				for i := range ref {
					if !closeRel(want[i], ref[i], tol) {
						fail("replica %d value %d = %.17g, reference %.17g (operands %v)", r, i, want[i], ref[i], replicaValues(c, values, r))
					}
				}
			}
		}
		if r > 0 {
			continue // finite differences on one replica suffice: the others are bit-identical
		}
		for k, in := range c.Inputs {
			if in.Data {
				continue
			}
			grad := one.prog.Grad(one.ins[k])
			x := one.prog.Value(one.ins[k])
			for i := range x {
				fd := finiteDifference(one, x, i)
				if math.IsNaN(fd) && !math.IsNaN(grad[i]) {
					continue // the steps leave the domain (a point at its edge): nothing to compare
				}
				// Written as !(d ≤ bound) so that a NaN gradient fails too.
				if d := math.Abs(grad[i] - fd); !(d <= GradRelTol*math.Max(math.Abs(grad[i]), math.Abs(fd))+GradAbsTol) {
					fail("∂/∂operand %d element %d = %.12g, finite difference %.12g (operands %v, output weights %v)",
						k, i, grad[i], fd, replicaValues(c, values, 0), weights)
				}
			}
		}
	}
	return append(errs, checkFloat32(c, values, many)...)
}

// Float32RelTol bounds the difference between a float32 program and the
// float64 one, relative to the largest magnitude of the output (or
// gradient) it belongs to: operands rounded to float32 (relative error
// 2^-24 ≈ 6e-8) move a well-conditioned result by a few times that per
// operation, far below 1e-4, while a wrong float32 kernel is off by O(1).
const Float32RelTol = 1e-4

// Float32AbsTol is the floor of that bound, for results that float32
// cannot resolve from zero next to values of order one: sigmoid's
// derivative y(1 - y) at x = 18, about 1e-8, is 0 in float32, where 1 - y
// rounds to zero (its resolution near one is 2^-24 ≈ 6e-8).
const Float32AbsTol = 1e-6

// checkFloat32 compiles c as a float32 program and compares its values and
// gradients with the float64 run's. A case whose ops lack float32 kernels
// is skipped: that is reported by Compile32 (autodiff.ErrNoFloat32Kernel).
func checkFloat32(c Case, values [][]float64, want *run[float64]) []error {
	if c.Float64Only {
		return nil
	}
	got, err := newRun[float32](c, replicas, values, 2)
	if errors.Is(err, autodiff.ErrNoFloat32Kernel) {
		return nil
	}
	if err != nil {
		return []error{fmt.Errorf("%s (float32): %v", c.Name, err)}
	}
	var errs []error
	compare := func(what string, g32 []float32, g64 []float64) {
		scale := 0.0
		for _, v := range g64 {
			if !math.IsInf(v, 0) {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		for i, v := range g64 {
			g := float64(g32[i])
			ok := math.Abs(g-v) <= Float32RelTol*(scale+math.Abs(v))+Float32AbsTol
			if math.IsInf(v, 0) || math.IsNaN(v) {
				ok = g == v || (math.IsNaN(g) && math.IsNaN(v))
			}
			if !ok {
				errs = append(errs, fmt.Errorf("%s (float32): %s element %d = %.8g, float64 gives %.17g", c.Name, what, i, g, v))
				return
			}
		}
	}
	compare("value", got.prog.Value(got.out), want.prog.Value(want.out))
	for k, in := range c.Inputs {
		if !in.Data {
			compare(fmt.Sprintf("gradient of operand %d", k), got.prog.Grad(got.ins[k]), want.prog.Grad(want.ins[k]))
		}
	}
	return errs
}

func closeRel(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= tol*math.Abs(want)+1e-300
}

// drawInputs gives each operand replicas × size values (Data operands: size).
func drawInputs(c Case, rng *rand.Rand) [][]float64 {
	values := make([][]float64, len(c.Inputs))
	for k, in := range c.Inputs {
		n := in.Shape.Size()
		reps := replicas
		if in.Data {
			reps = 1
		}
		v := make([]float64, reps*n)
		for i := range v {
			if in.Values != nil {
				v[i] = in.Values[i%n]
			} else {
				v[i] = in.Draw(rng)
			}
		}
		values[k] = v
	}
	return values
}

// replicaValues picks replica r's operands.
func replicaValues(c Case, values [][]float64, r int) [][]float64 {
	out := make([][]float64, len(values))
	for k, in := range c.Inputs {
		n := in.Shape.Size()
		if in.Data {
			out[k] = values[k]
		} else {
			out[k] = values[k][r*n : (r+1)*n]
		}
	}
	return out
}

// run is one compiled case: loss = Σ w ⊙ out for fixed random weights w, a
// random linear functional, so that the gradient check covers every output
// element with distinct weights.
type run[T autodiff.Float] struct {
	prog    *autodiff.ProgramOf[T]
	ins     []*autodiff.Node
	out     *autodiff.Node
	loss    *autodiff.Node
	weights []float64
}

func newRun[T autodiff.Float](c Case, p int, values [][]float64, threads int) (*run[T], error) {
	g := autodiff.NewGraph(p)
	ins := make([]*autodiff.Node, len(c.Inputs))
	for k, in := range c.Inputs {
		kind := autodiff.Param
		if in.Data {
			kind = autodiff.Data
		}
		ins[k] = g.Input(fmt.Sprintf("x%d", k), kind, in.Shape...)
	}
	// The op sees each Param through two exact negations: an operand
	// with one consumer, whose gradient the op assigns if it is a
	// GradAssigner (Backward below runs on poisoned buffers to check it
	// writes every element); a Param's own gradient is always cleared.
	opIns := make([]*autodiff.Node, len(ins))
	for k, n := range ins {
		opIns[k] = n
		if !c.Inputs[k].Data {
			opIns[k] = autodiff.Neg(autodiff.Neg(n))
		}
	}
	var out *autodiff.Node
	var rows *autodiff.Indices
	if c.BuildRows != nil {
		rows = g.Indices("rows", false, len(c.Rows))
		out = c.BuildRows(opIns, rows)
	} else {
		out = c.Build(opIns)
	}
	if err := g.Err(); err != nil {
		return nil, err
	}
	wrng := rand.New(rand.NewPCG(99, uint64(out.Size())))
	weights := make([]float64, out.Size())
	for i := range weights {
		weights[i] = 0.5 + wrng.Float64()
	}
	loss := autodiff.SumAll(autodiff.Mul(out, g.Const(out.Shape(), weights...)))
	var prog *autodiff.ProgramOf[T]
	var err error
	switch any(T(0)).(type) {
	case float64:
		p, e := g.Compile(out, loss)
		prog, err = any(p).(*autodiff.ProgramOf[T]), e
	default:
		p, e := g.Compile32(out, loss)
		prog, err = any(p).(*autodiff.ProgramOf[T]), e
	}
	if err != nil {
		return nil, err
	}
	prog.SetThreads(threads)
	for k, n := range ins {
		if err := prog.Set(n, values[k]); err != nil {
			return nil, err
		}
	}
	if rows != nil {
		if err := prog.SetIndices(rows, c.Rows); err != nil {
			return nil, err
		}
	}
	prog.Forward()
	prog.PoisonGradients()
	if err := prog.Backward(loss); err != nil {
		return nil, err
	}
	return &run[T]{prog: prog, ins: ins, out: out, loss: loss, weights: weights}, nil
}

// finiteDifference estimates ∂loss/∂x[i] by Richardson extrapolation of
// central differences at steps h and h/2 (error O(h⁴)), leaving x as it was.
func finiteDifference(r *run[float64], x []float64, i int) float64 {
	x0 := x[i]
	h := 1e-3 * math.Max(1, math.Abs(x0))
	central := func(h float64) float64 {
		x[i] = x0 + h
		r.prog.Forward()
		up := r.prog.Value(r.loss)[0]
		x[i] = x0 - h
		r.prog.Forward()
		down := r.prog.Value(r.loss)[0]
		return (up - down) / (2 * h)
	}
	d1, d2 := central(h), central(h/2)
	x[i] = x0
	r.prog.Forward()
	return (4*d2 - d1) / 3
}

// Domains for Input.Draw.

// Real draws from [-2, -0.1] ∪ [0.1, 2]: away from 0, where abs and relu
// have their kinks.
func Real(r *rand.Rand) float64 {
	v := 0.1 + 1.9*r.Float64()
	if r.IntN(2) == 0 {
		return -v
	}
	return v
}

// Positive draws from [0.2, 3].
func Positive(r *rand.Rand) float64 { return 0.2 + 2.8*r.Float64() }

// Unit draws from [0.05, 0.95].
func Unit(r *rand.Rand) float64 { return 0.05 + 0.9*r.Float64() }

// Uniform draws from [lo, hi].
func Uniform(lo, hi float64) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// Ints draws integers from [lo, hi] (as float64, as the graph holds them).
func Ints(lo, hi int) func(*rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return float64(lo + r.IntN(hi-lo+1)) }
}
