package autodiff

import "github.com/temper-ppl/temper/autodiff/kernel"

// ScalarFunc is a function of Arity real arguments applied elementwise with
// broadcasting. Most of the op set (arithmetic) and every scalar log density
// of stdlib is one: the broadcasting, replica handling and the chain rule are
// written once, in the elementwise op.
type ScalarFunc struct {
	Name  string
	Arity int
	// Value returns f(x).
	Value func(x []float64) float64
	// Grad sets dx[i] = ∂f/∂x_i at x, given y = f(x). Arguments that are not
	// differentiable (counts, labels) get 0.
	Grad func(dx, x []float64, y float64)
}

// Elementwise applies f to operands broadcast together (NumPy rules on the
// per-replica shapes; shared operands broadcast over replicas).
func Elementwise(f *ScalarFunc, ins ...*Node) *Node {
	g := graphOf(ins...)
	if g == nil {
		return nil
	}
	if anyFailed(ins...) {
		return g.placeholder(nil)
	}
	if len(ins) != f.Arity {
		return g.fail(nil, "%s takes %d arguments, got %d", f.Name, f.Arity, len(ins))
	}
	shapes := make([]Shape, len(ins))
	for i, in := range ins {
		shapes[i] = in.shape
	}
	out, err := BroadcastShapes(shapes...)
	if err != nil {
		return g.fail(nil, "%s: %v", f.Name, err)
	}
	return elementwiseTo(f, out, ins...)
}

// elementwiseTo applies f with the result shape given (BroadcastTo uses it to
// broadcast past the operands' own shapes).
func elementwiseTo(f *ScalarFunc, out Shape, ins ...*Node) *Node {
	g := graphOf(ins...)
	if plan := scalarPlan(out, ins); plan != nil {
		return g.Apply(&elementwiseOp{f: f, plan: plan}, out, ins...)
	}
	shapes := make([]Shape, len(ins))
	for i, in := range ins {
		shapes[i] = in.shape
	}
	plan, err := newBcastPlan(out, shapes)
	if err != nil {
		return g.fail(out, "%s: %v", f.Name, err)
	}
	same := true // and so every row contiguous in every operand
	for i, sh := range shapes {
		same = same && sh.Equal(out) && plan.innerStride[i] == 1
	}
	return g.Apply(&elementwiseOp{f: f, plan: plan, same: same}, out, ins...)
}

// scalarPlans are the plans of ops on scalars alone, by arity: an
// unrolled loop (sigma[t] = f(sigma[t-1])) builds thousands of them, and
// a plan is never changed once made.
var scalarPlans [maxOperands + 1]*bcastPlan

func init() {
	for n := 1; n <= maxOperands; n++ {
		scalarPlans[n], _ = newBcastPlan(Shape{}, make([]Shape, n))
	}
}

// scalarPlan returns the shared plan when out and every operand are
// scalars, else nil.
func scalarPlan(out Shape, ins []*Node) *bcastPlan {
	if len(out) != 0 || len(ins) == 0 || len(ins) > maxOperands {
		return nil
	}
	for _, in := range ins {
		if in == nil || len(in.shape) != 0 {
			return nil
		}
	}
	return scalarPlans[len(ins)]
}

type elementwiseOp struct {
	f    *ScalarFunc
	plan *bcastPlan
	same bool // every operand has the result's shape, nothing broadcast, rows contiguous
}

// AssignsGrad implements GradAssigner for add, sub and mul of operands of
// one shape, whose gradients are written an element each by the rows of
// arithBackward.
func (op *elementwiseOp) AssignsGrad(int) bool {
	return op.same && (op.f == addFunc || op.f == subFunc || op.f == mulFunc)
}

func (op *elementwiseOp) Name() string { return op.f.Name }

func (op *elementwiseOp) Forward(a *Args)      { elementwiseForward(op, a) }
func (op *elementwiseOp) Forward32(a *Args32)  { elementwiseForward(op, a) }
func (op *elementwiseOp) Backward(a *Args)     { elementwiseBackward(op, a) }
func (op *elementwiseOp) Backward32(a *Args32) { elementwiseBackward(op, a) }

// The kernels are written once for both element types: arguments are
// passed to the ScalarFunc in float64 and the result stored as T.
func elementwiseForward[T Float](op *elementwiseOp, a *ArgsOf[T]) {
	if len(a.Out) == 1 { // scalars, as a loop's recursion is: no plan to walk
		if f := op.f; f == addFunc || f == subFunc || f == mulFunc {
			arithRow(f, a.Out, a.In[0], a.In[1])
			return
		}
		x := a.scratch(op.f.Arity)
		for i := range x {
			x[i] = float64(a.In[i][0])
		}
		a.Out[0] = T(op.f.Value(x))
		return
	}
	if arithForward(op, a) {
		return
	}
	x := a.scratch(op.f.Arity)
	p := op.plan
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			for i := range x {
				x[i] = float64(a.In[i][offs[i]+t*p.innerStride[i]])
			}
			a.Out[start+t] = T(op.f.Value(x))
		}
	})
}

func elementwiseBackward[T Float](op *elementwiseOp, a *ArgsOf[T]) {
	if len(a.Out) == 1 { // as elementwiseForward
		if f := op.f; f == addFunc || f == subFunc || f == mulFunc {
			for i, gi := range a.GradIn[:2] {
				if gi != nil {
					arithRowBackward(f, i == 1, a.Assign(i), gi, a.GradOut, a.In[1-i])
				}
			}
			return
		}
		g := float64(a.GradOut[0])
		if g == 0 {
			return
		}
		x, dx := a.scratch(op.f.Arity), a.scratch2(op.f.Arity)
		for i := range x {
			x[i] = float64(a.In[i][0])
		}
		op.f.Grad(dx, x, float64(a.Out[0]))
		for i, gi := range a.GradIn {
			if gi != nil {
				gi[0] += T(g * dx[i])
			}
		}
		return
	}
	if arithBackward(op, a) {
		return
	}
	x := a.scratch(op.f.Arity)
	dx := a.scratch2(op.f.Arity)
	p := op.plan
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			g := float64(a.GradOut[start+t])
			if g == 0 {
				continue // no contribution; also keeps 0·∞ from poisoning unused elements
			}
			for i := range x {
				x[i] = float64(a.In[i][offs[i]+t*p.innerStride[i]])
			}
			op.f.Grad(dx, x, float64(a.Out[start+t]))
			for i, gi := range a.GradIn {
				if gi != nil {
					gi[offs[i]+t*p.innerStride[i]] += T(g * dx[i])
				}
			}
		}
	})
}

// UnaryFunc is an elementwise function of one argument. It has its own op,
// without the broadcasting machinery, because the activations of neural
// networks (relu, tanh, sigmoid) run on large tensors.
type UnaryFunc struct {
	Name string
	// Value returns f(x).
	Value func(x float64) float64
	// Deriv returns f'(x) given y = f(x) (tanh' = 1 - y², exp' = y).
	Deriv func(x, y float64) float64
}

// Unary applies f to every element of x.
func Unary(f *UnaryFunc, x *Node) *Node {
	if x == nil {
		return nil
	}
	if x.failed {
		return x.g.placeholder(x.shape)
	}
	return x.g.Apply(unaryOp{f}, x.shape, x)
}

type unaryOp struct{ f *UnaryFunc }

func (op unaryOp) Name() string { return op.f.Name }

func (op unaryOp) Forward(a *Args)      { unaryForward(op, a) }
func (op unaryOp) Forward32(a *Args32)  { unaryForward(op, a) }
func (op unaryOp) Backward(a *Args)     { unaryBackward(op, a) }
func (op unaryOp) Backward32(a *Args32) { unaryBackward(op, a) }

func unaryForward[T Float](op unaryOp, a *ArgsOf[T]) {
	in, out := a.In[0], a.Out
	if op.f == reluFunc { // the activation of most networks: vector kernels, no call per element
		kernel.Relu(out, in[:len(out)])
		return
	}
	for i := range out {
		out[i] = T(op.f.Value(float64(in[i])))
	}
}

func unaryBackward[T Float](op unaryOp, a *ArgsOf[T]) {
	gin := a.GradIn[0]
	if gin == nil {
		return
	}
	in, out, gout := a.In[0], a.Out, a.GradOut
	set := a.Assign(0)
	if op.f == reluFunc {
		kernel.ReluGrad(gin, in, gout, set)
		return
	}
	for i, g := range gout {
		if g != 0 {
			d := T(float64(g) * op.f.Deriv(float64(in[i]), float64(out[i])))
			if set {
				gin[i] = d
			} else {
				gin[i] += d
			}
		} else if set {
			gin[i] = 0
		}
	}
}

// AssignsGrad implements GradAssigner: the gradient of the one operand
// is written element by element.
func (op unaryOp) AssignsGrad(int) bool { return true }

// arithForward and arithBackward run add, sub and mul as typed loops over
// the broadcast plan's rows, without a call per element: the bias of every
// dense layer is one. They report false for other functions.
func arithForward[T Float](op *elementwiseOp, a *ArgsOf[T]) bool {
	f := op.f
	if f != addFunc && f != subFunc && f != mulFunc {
		return false
	}
	p := op.plan
	x, y, out := a.In[0], a.In[1], a.Out
	sx, sy := p.innerStride[0], p.innerStride[1]
	p.rows(func(offs [maxOperands]int, start int) {
		o := out[start : start+p.inner]
		ox, oy := offs[0], offs[1]
		if sx == 1 && sy == 1 {
			arithRow(f, o, x[ox:ox+len(o)], y[oy:oy+len(o)])
			return
		}
		switch f {
		case addFunc:
			for t := range o {
				o[t] = x[ox+t*sx] + y[oy+t*sy]
			}
		case subFunc:
			for t := range o {
				o[t] = x[ox+t*sx] - y[oy+t*sy]
			}
		default:
			for t := range o {
				o[t] = x[ox+t*sx] * y[oy+t*sy]
			}
		}
	})
	return true
}

// arithRow is a row of arithForward whose operands are contiguous: slices
// of one length, so that the loops carry no bounds checks and no strides
// (a bias added to the rows of a layer's output runs here).
func arithRow[T Float](f *ScalarFunc, o, x, y []T) {
	x, y = x[:len(o)], y[:len(o)]
	switch f {
	case addFunc:
		for t := range o {
			o[t] = x[t] + y[t]
		}
	case subFunc:
		for t := range o {
			o[t] = x[t] - y[t]
		}
	default:
		for t := range o {
			o[t] = x[t] * y[t]
		}
	}
}

// arithRowBackward adds a contiguous row's gradient g to the operand
// gradient gz, or with set assigns it, where other is the other operand
// (for a product) and second says gz is the right operand's (negated for a
// difference). The arithmetic is arithBackward's, element by element.
func arithRowBackward[T Float](f *ScalarFunc, second, set bool, gz, g, other []T) {
	gz, other = gz[:len(g)], other[:len(g)]
	if set {
		switch {
		case f == mulFunc:
			for t, v := range g {
				if v != 0 { // as the general kernel: 0·∞ must not poison unused elements
					v *= other[t]
				}
				gz[t] = v
			}
		case f == subFunc && second:
			for t, v := range g {
				gz[t] = -v
			}
		default:
			copy(gz, g)
		}
		return
	}
	switch {
	case f == mulFunc:
		for t, v := range g {
			if v != 0 { // as the general kernel: 0·∞ must not poison unused elements
				gz[t] += v * other[t]
			}
		}
	case f == subFunc && second:
		for t, v := range g {
			gz[t] += -v
		}
	default:
		for t, v := range g {
			gz[t] += v
		}
	}
}

// arithSumBackward is the gradient of a broadcast operand (stride 0 along
// the row): Σ_t g[t]·∂f/∂operand, with the other operand at other[o +
// t·so]; second says the operand is f's second. The sum runs in four
// float64 accumulators: adding each term into the operand's one gradient
// element in turn made a chain of dependent adds through memory, the
// largest cost of α's gradient in α + X·β over 100,000 rows. A mul's
// zero g terms are left out, as in the general kernel.
func arithSumBackward[T Float](f *ScalarFunc, second bool, g, other []T, o, so int) float64 {
	var s [4]float64
	switch {
	case f == mulFunc:
		for t, v := range g {
			if v != 0 {
				s[t&3] += float64(v * other[o+t*so])
			}
		}
	case f == subFunc && second:
		for t, v := range g {
			s[t&3] -= float64(v)
		}
	default:
		for t, v := range g {
			s[t&3] += float64(v)
		}
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

func arithBackward[T Float](op *elementwiseOp, a *ArgsOf[T]) bool {
	f := op.f
	if f != addFunc && f != subFunc && f != mulFunc {
		return false
	}
	p := op.plan
	x, y, gx, gy := a.In[0], a.In[1], a.GradIn[0], a.GradIn[1]
	sx, sy := p.innerStride[0], p.innerStride[1]
	p.rows(func(offs [maxOperands]int, start int) {
		g := a.GradOut[start : start+p.inner]
		ox, oy := offs[0], offs[1]
		if sx == 1 && sy == 1 {
			n := len(g)
			if gx != nil {
				arithRowBackward(f, false, a.Assign(0), gx[ox:ox+n], g, y[oy:oy+n])
			}
			if gy != nil {
				arithRowBackward(f, true, a.Assign(1), gy[oy:oy+n], g, x[ox:ox+n])
			}
			return
		}
		if gx != nil && sx == 0 {
			gx[ox] += T(arithSumBackward(f, false, g, y, oy, sy))
		} else if gx != nil {
			for t, v := range g {
				if f == mulFunc {
					if v == 0 {
						continue // as the general kernel: 0·∞ must not poison unused elements
					}
					v *= y[oy+t*sy]
				}
				gx[ox+t*sx] += v
			}
		}
		if gy != nil && sy == 0 {
			gy[oy] += T(arithSumBackward(f, true, g, x, ox, sx))
		} else if gy != nil {
			for t, v := range g {
				switch f {
				case subFunc:
					v = -v
				case mulFunc:
					if v == 0 {
						continue
					}
					v *= x[ox+t*sx]
				}
				gy[oy+t*sy] += v
			}
		}
	})
	return true
}
