package stdlib

import (
	"fmt"

	"github.com/temper-ppl/temper/autodiff"
)

// ConstrainedType is one of Stan's constrained vector and matrix types
// (simplex[K], cov_matrix[K], ...): the transform from unconstrained reals,
// which the samplers move, onto the set, with its log-Jacobian, and the
// inverse, which maps a user's initial value or checks a data value. The
// transforms are those of the Stan Reference Manual, chapter "Constraint
// transforms"; each one's doc comment names its section.
type ConstrainedType struct {
	// Name is the type's name in the language: "simplex".
	Name string
	// Matrix says the value is a K×K matrix; otherwise it is a K-vector.
	Matrix bool
	// MinSize is the smallest K the type takes: below it the set is a
	// single point (simplex[1] is [1]) or not a manifold the transform
	// covers (unit_vector[1] is ±1).
	MinSize int
	// What says in words what a value of the type is, for errors: "a
	// simplex" (it completes "p: not ...").
	What string

	t transform
}

// transform is one constrained type's map, for one item (one vector or one
// matrix) of size k, on flat row-major slices. value and valueGrad are the
// map u ↦ x and its vector-Jacobian product; logJacobian and its gradient
// are the term the energy adds. The Grad methods add into uBar.
type transform interface {
	free(k int) int
	value(k int, u, x []float64)
	valueGrad(k int, u, x, xBar, uBar []float64)
	logJacobian(k int, u []float64) float64
	logJacobianGrad(k int, u []float64, g float64, uBar []float64)
	// inverse maps a value of the set to u, or says what is wrong with it
	// (completing "not a simplex: ...").
	inverse(k int, x []float64) ([]float64, error)
}

// constrainedTypes are the types by name, in the order the documentation
// lists them.
var constrainedTypes = []*ConstrainedType{
	{Name: "simplex", MinSize: 2, What: "a simplex", t: simplexTransform{}},
	{Name: "ordered", MinSize: 1, What: "ordered", t: orderedTransform{}},
	{Name: "positive_ordered", MinSize: 1, What: "positive and ordered", t: orderedTransform{positive: true}},
	{Name: "unit_vector", MinSize: 2, What: "a unit vector", t: unitVectorTransform{}},
	{Name: "cholesky_factor_corr", Matrix: true, MinSize: 2, What: "the Cholesky factor of a correlation matrix", t: choleskyCorrTransform{}},
	{Name: "cholesky_factor_cov", Matrix: true, MinSize: 1, What: "the Cholesky factor of a covariance matrix", t: choleskyCovTransform{}},
	{Name: "corr_matrix", Matrix: true, MinSize: 2, What: "a correlation matrix", t: corrMatrixTransform{factorProduct{choleskyCorrTransform{}}}},
	{Name: "cov_matrix", Matrix: true, MinSize: 1, What: "a covariance matrix", t: covMatrixTransform{factorProduct{choleskyCovTransform{}}}},
}

// Constrained returns the constrained type of that name.
func Constrained(name string) (*ConstrainedType, bool) {
	for _, c := range constrainedTypes {
		if c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// ConstrainedTypes lists the constrained types.
func ConstrainedTypes() []*ConstrainedType {
	return append([]*ConstrainedType(nil), constrainedTypes...)
}

// Free is the number of unconstrained values of one item of size k.
func (c *ConstrainedType) Free(k int) int { return c.t.free(k) }

// Shape is the shape of one item of size k: [k] or [k, k].
func (c *ConstrainedType) Shape(k int) []int {
	if c.Matrix {
		return []int{k, k}
	}
	return []int{k}
}

// Apply maps u [..., Free(k)] to x [..., Shape(k)...], item by item along
// the last axis of u; the log-Jacobian has u's leading shape.
func (c *ConstrainedType) Apply(u *autodiff.Node, k int) (x, logJacobian *autodiff.Node) {
	g := u.Graph()
	if u.Failed() {
		return g.Placeholder(nil), g.Placeholder(nil)
	}
	s := u.Shape()
	free := c.Free(k)
	if k < c.MinSize || len(s) == 0 || s[len(s)-1] != free {
		bad := g.Fail(nil, "%s[%d]: the unconstrained value has shape %v, not [..., %d]", c.Name, k, s, free)
		return bad, bad
	}
	lead := s[: len(s)-1 : len(s)-1]
	rows := lead.Size()
	x = g.Apply(&constrainOp{c: c, k: k, rows: rows}, append(lead, c.Shape(k)...), u)
	logJacobian = g.Apply(&constrainOp{c: c, k: k, rows: rows, jacobian: true}, lead, u)
	return x, logJacobian
}

// Fixed reports whether entry i (row-major) of an item of size k is the
// same for every value of the set: the zeros above the diagonal of a
// Cholesky factor, the unit diagonal of a correlation matrix and the first
// entry of its factor. A sampler's draws never move there, and must not be
// judged stuck for it.
func (c *ConstrainedType) Fixed(k, i int) bool {
	row, col := i/k, i%k
	switch c.Name {
	case "cholesky_factor_corr":
		return col > row || i == 0
	case "cholesky_factor_cov":
		return col > row
	case "corr_matrix":
		return col == row
	}
	return false
}

// Inverse maps one item's constrained values x (row-major, Shape(k)) to the
// unconstrained values that Apply maps to it. A value outside the set is
// an error saying what is wrong: "not a simplex: its entries sum to 1.3".
func (c *ConstrainedType) Inverse(k int, x []float64) ([]float64, error) {
	if n := autodiff.Shape(c.Shape(k)).Size(); len(x) != n {
		return nil, fmt.Errorf("%d values for a %s[%d], which has %d", len(x), c.Name, k, n)
	}
	u, err := c.t.inverse(k, x)
	if err != nil {
		return nil, fmt.Errorf("not %s: %v", c.What, err)
	}
	return u, nil
}

// constrainOp applies a constrained type's transform (or, with jacobian,
// its log-Jacobian) to each of rows items. The kernels are float64; the
// float32 ones widen to them, as the transforms are small next to the
// products of a model and their recursions lose digits in float32.
type constrainOp struct {
	c        *ConstrainedType
	k, rows  int
	jacobian bool
}

func (op *constrainOp) Name() string {
	if op.jacobian {
		return op.c.Name + "_log_jacobian"
	}
	return op.c.Name
}

// DeviceKernel implements autodiff.DeviceOp: a backend runs the types it
// knows by name (the CUDA one: simplex, cholesky_factor_corr) and refuses
// the others.
func (op *constrainOp) DeviceKernel() autodiff.DeviceKernel {
	return autodiff.DeviceKernel{Name: op.Name(), Ints: []int{op.k, op.rows}}
}

func (op *constrainOp) sizes() (free, size int) {
	return op.c.Free(op.k), autodiff.Shape(op.c.Shape(op.k)).Size()
}

func (op *constrainOp) Forward(a *autodiff.Args) {
	free, size := op.sizes()
	for r := range op.rows {
		u := a.In[0][r*free : (r+1)*free]
		if op.jacobian {
			a.Out[r] = op.c.t.logJacobian(op.k, u)
		} else {
			op.c.t.value(op.k, u, a.Out[r*size:(r+1)*size])
		}
	}
}

func (op *constrainOp) Backward(a *autodiff.Args) {
	gu := a.GradIn[0]
	if gu == nil {
		return
	}
	free, size := op.sizes()
	for r := range op.rows {
		u, uBar := a.In[0][r*free:(r+1)*free], gu[r*free:(r+1)*free]
		if op.jacobian {
			op.c.t.logJacobianGrad(op.k, u, a.GradOut[r], uBar)
		} else {
			span := func(s []float64) []float64 { return s[r*size : (r+1)*size] }
			op.c.t.valueGrad(op.k, u, span(a.Out), span(a.GradOut), uBar)
		}
	}
}

func (op *constrainOp) Forward32(a *autodiff.Args32)  { widened(op, a, true) }
func (op *constrainOp) Backward32(a *autodiff.Args32) { widened(op, a, false) }

// widened runs op's float64 kernel on a float32 op's buffers.
func widened(op autodiff.Op, a *autodiff.Args32, forward bool) {
	w := &autodiff.Args{Replica: a.Replica, In: make([][]float64, len(a.In)), Out: widen(a.Out)}
	for i, in := range a.In {
		w.In[i] = widen(in)
	}
	if forward {
		op.Forward(w)
		narrow(a.Out, w.Out)
		return
	}
	w.GradOut = widen(a.GradOut)
	w.GradIn = make([][]float64, len(a.GradIn))
	for i, g := range a.GradIn {
		if g != nil {
			w.GradIn[i] = make([]float64, len(g))
		}
	}
	op.Backward(w)
	for i, g := range a.GradIn {
		for j, v := range w.GradIn[i] {
			g[j] += float32(v)
		}
	}
}

func widen(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

func narrow(dst []float32, src []float64) {
	for i, v := range src {
		dst[i] = float32(v)
	}
}

// Simplex maps u [..., K-1] to x [..., K] with positive entries summing to
// one along the last axis; the log-Jacobian has u's leading shape.
func Simplex(u *autodiff.Node) (x, logJacobian *autodiff.Node) {
	s := u.Shape()
	if len(s) == 0 && !u.Failed() {
		bad := u.Graph().Fail(nil, "simplex: the unconstrained value must have at least one axis")
		return bad, bad
	}
	c, _ := Constrained("simplex")
	k := 2
	if len(s) > 0 {
		k = s[len(s)-1] + 1
	}
	return c.Apply(u, k)
}

// SimplexInverse maps a point of the simplex (K values) to the K-1
// unconstrained reals that Simplex maps to it.
func SimplexInverse(x []float64) ([]float64, error) {
	if len(x) < 2 {
		return nil, fmt.Errorf("a simplex needs at least 2 entries, got %d", len(x))
	}
	c, _ := Constrained("simplex")
	return c.Inverse(len(x), x)
}
