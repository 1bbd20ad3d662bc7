package autodiff

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
	shapes := make([]Shape, len(ins))
	for i, in := range ins {
		shapes[i] = in.shape
	}
	plan, err := newBcastPlan(out, shapes)
	if err != nil {
		return g.fail(out, "%s: %v", f.Name, err)
	}
	return g.Apply(&elementwiseOp{f: f, plan: plan}, out, ins...)
}

type elementwiseOp struct {
	f    *ScalarFunc
	plan *bcastPlan
}

func (op *elementwiseOp) Name() string { return op.f.Name }

func (op *elementwiseOp) Forward(a *Args) {
	x := a.scratch(op.f.Arity)
	p := op.plan
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			for i := range x {
				x[i] = a.In[i][offs[i]+t*p.innerStride[i]]
			}
			a.Out[start+t] = op.f.Value(x)
		}
	})
}

func (op *elementwiseOp) Backward(a *Args) {
	x := a.scratch(op.f.Arity)
	dx := a.scratch2(op.f.Arity)
	p := op.plan
	p.rows(func(offs [maxOperands]int, start int) {
		for t := range p.inner {
			g := a.GradOut[start+t]
			if g == 0 {
				continue // no contribution; also keeps 0·∞ from poisoning unused elements
			}
			for i := range x {
				x[i] = a.In[i][offs[i]+t*p.innerStride[i]]
			}
			op.f.Grad(dx, x, a.Out[start+t])
			for i, gi := range a.GradIn {
				if gi != nil {
					gi[offs[i]+t*p.innerStride[i]] += g * dx[i]
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

func (op unaryOp) Forward(a *Args) {
	in, out := a.In[0], a.Out
	for i := range out {
		out[i] = op.f.Value(in[i])
	}
}

func (op unaryOp) Backward(a *Args) {
	gin := a.GradIn[0]
	if gin == nil {
		return
	}
	in, out, gout := a.In[0], a.Out, a.GradOut
	for i, g := range gout {
		if g != 0 {
			gin[i] += g * op.f.Deriv(in[i], out[i])
		}
	}
}

// scratch and scratch2 lend an op two small per-program buffers (maxOperands
// long) for argument vectors, so that kernels calling a func value allocate
// nothing.
func (a *Args) scratch(n int) []float64  { return a.prog.xs[:n] }
func (a *Args) scratch2(n int) []float64 { return a.prog.dxs[:n] }
