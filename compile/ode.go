package compile

import (
	"fmt"
	"math"
	"strings"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
)

// odeCall lowers ode_rk45(f, y0, t0, ts, ...) and ode_rk45_tol(f, y0, t0,
// ts, rtol, atol, max_steps, ...), and ode_bdf and ode_bdf_tol, to one ODE op (autodiff/ode.go). The
// user's function f is not inlined into the model's graph: its body is
// lowered once into a small graph of its own, with inputs t, y and the
// real arguments that are not data, and the op evaluates that graph (and
// its reverse-mode gradient, one state component at a time) wherever the
// solver needs f and its Jacobians. Data arguments and int arguments are
// constants of that graph, so they cost no sensitivities.
func (b *builder) odeCall(e *lang.Call) value {
	fixed := lang.ODEFixedArgs(e.Func)
	if len(e.Args) < fixed {
		return b.fail(e.Pos, "%s takes at least %d arguments, got %d", e.Func, fixed, len(e.Args))
	}
	id, _ := e.Args[0].(*lang.Ident)
	var f *lang.Function
	if id != nil {
		f = b.m.file.Function(id.Name)
	}
	if f == nil {
		return b.fail(lang.StartPos(e.Args[0]), "the first argument of %s must be the name of a function of the functions block", e.Func)
	}
	extra := e.Args[fixed:]
	if len(extra) != len(f.Params)-2 {
		return b.fail(e.Pos, "%s passes %s %d arguments after (t, y), and %s takes %d", e.Func, f.Name, len(extra), f.Name, len(f.Params)-2)
	}
	opts := ad.DefaultODEOptions
	if strings.HasPrefix(e.Func, "ode_bdf") {
		// Stan's ode_bdf is CVODES' BDF; temper's stiff solver is an
		// L-stable SDIRK method (autodiff/ode_implicit.go), with Stan's
		// defaults for ode_bdf: tolerances 1e-6 (relative) and 1e-6
		// (absolute), 10⁶ steps.
		opts.Method = ad.SDIRK3
	}
	if fixed == 7 {
		var tol [2]float64
		for i := range tol {
			v, err := b.constReal(e.Args[4+i])
			if err != nil || !(v > 0) {
				if err == nil {
					err = fmt.Errorf("it is %v", v)
				}
				return b.fail(lang.StartPos(e.Args[4+i]), "the %s of %s must be a positive number known when the model is compiled: %v", []string{"rtol", "atol"}[i], e.Func, err)
			}
			tol[i] = v
		}
		steps, err := b.constInt(e.Args[6])
		if err != nil || steps < 1 {
			if err == nil {
				err = fmt.Errorf("it is %d", steps)
			}
			return b.fail(lang.StartPos(e.Args[6]), "max_steps of %s must be a positive int known when the model is compiled: %v", e.Func, err)
		}
		opts.RelTol, opts.AbsTol, opts.MaxSteps = tol[0], tol[1], steps
	}
	// The state, the times and the arguments, in the model's graph.
	outer := map[string]value{}
	for i, name := range []string{"y0", "t0", "ts"} {
		v := b.expr(e.Args[1+i])
		if b.err != nil {
			return value{}
		}
		want := []int{1, 0, 1}[i]
		if v.batched {
			return b.fail(lang.StartPos(e.Args[1+i]), "the %s of %s cannot depend on the plate's row: solve the ODE outside the plate", name, e.Func)
		}
		if r := v.rowRank(); r != want {
			return b.fail(lang.StartPos(e.Args[1+i]), "argument %s of %s must have %d dimensions, and this has shape %s", name, e.Func, want, shapeString(v.node.Shape()))
		}
		outer[name] = v
	}
	y0, t0, ts := outer["y0"].node, outer["t0"].node, outer["ts"].node
	if c := y0.ConstValues(); c != nil {
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return b.fail(lang.StartPos(e.Args[1]), "the initial state of %s must be finite, and y0[%d] is %v", e.Func, i+1, v)
			}
		}
	}
	if c := ts.ConstValues(); c != nil {
		prev, what := math.Inf(-1), ""
		if t := t0.ConstValues(); t != nil {
			prev, what = t[0], " (t0)"
		}
		for i, v := range c {
			if !(v > prev) || math.IsInf(v, 0) {
				return b.fail(lang.StartPos(e.Args[3]), "the output times of %s must increase from t0 and be finite: ts[%d] = %v is not above %v%s", e.Func, i+1, v, prev, what)
			}
			prev, what = v, fmt.Sprintf(" (ts[%d])", i+1)
		}
	}
	// The inner graph of f: t, y and the non-data real arguments as inputs.
	n := y0.Shape()[0]
	ib := &builder{m: b.m, g: ad.NewGraph(1), data: map[string]*ad.Node{}, params: map[string]value{}, plateBy: b.m.plateBy}
	rhs := &odeGraph{n: n}
	rhs.t = ib.g.Input("t", ad.Param)
	rhs.y = ib.g.Input("y", ad.Param, n)
	params := map[string]value{f.Params[0].Name: {node: rhs.t}, f.Params[1].Name: {node: rhs.y}}
	consts := map[string]float64{}
	var theta []*ad.Node
	for i, a := range extra {
		p := f.Params[2+i]
		if p.Type.Int && p.Type.Rank == 0 {
			k, err := b.constInt(a)
			if err != nil {
				return b.fail(lang.StartPos(a), "argument %s of %s is an int, which must be known when the model is compiled: %v", p.Name, f.Name, err)
			}
			consts[p.Name] = float64(k)
			continue
		}
		v := b.expr(a)
		if b.err != nil {
			return value{}
		}
		if v.batched {
			return b.fail(lang.StartPos(a), "argument %s of %s cannot depend on the plate's row: solve the ODE outside the plate", p.Name, e.Func)
		}
		if r := v.rowRank(); r != p.Type.Rank {
			return b.fail(lang.StartPos(a), "argument %s of %s must have %d dimensions (%s), and this has shape %s", p.Name, f.Name, p.Type.Rank, p.Type, shapeString(v.node.Shape()))
		}
		if c := v.node.ConstValues(); c != nil || p.Type.Int {
			params[p.Name] = value{node: ib.g.Const(v.node.Shape(), c...)}
			if c == nil {
				return b.fail(lang.StartPos(a), "argument %s of %s is an int array, which must be data", p.Name, f.Name)
			}
			continue
		}
		in := ib.g.Input(p.Name, ad.Param, v.node.Shape()...)
		params[p.Name] = value{node: in}
		rhs.theta = append(rhs.theta, in)
		theta = append(theta, v.node)
	}
	ib.scopes, ib.consts = []map[string]value{params}, consts
	ib.nested, ib.inlining = 1, b.inlining+1
	ib.stmts(f.Body)
	if ib.err != nil {
		b.err = ib.err
		return value{node: b.g.Placeholder(nil)}
	}
	if ib.ret == nil {
		return b.fail(e.Pos, "%s ended without returning a value", f.Name)
	}
	rhs.out = ib.ret.node
	if s := rhs.out.Shape(); len(s) != 1 || s[0] != n {
		return b.fail(lang.StartPos(e.Args[0]), "%s returns shape %s for a state of %d elements (y0): the derivative must have the state's size", f.Name, shapeString(s), n)
	}
	rhs.w = ib.g.Input("w", ad.Data, n)
	rhs.loss = ad.SumAll(ad.Mul(rhs.out, rhs.w))
	if err := ib.g.Err(); err != nil {
		return b.fail(lang.StartPos(e.Args[0]), "%s: %v", f.Name, err)
	}
	if _, err := rhs.program(); err != nil {
		return b.fail(lang.StartPos(e.Args[0]), "%s: %v", f.Name, err)
	}
	out := ad.ODE(rhs.newRightSide, opts, y0, t0, ts, theta...)
	if !b.check(e.Pos) {
		return value{node: b.g.Placeholder(nil)}
	}
	return value{node: out}
}

// odeGraph is the graph of an ODE's right-hand side f(t, y, θ), with the
// scalar loss w·f whose gradient, for w the i-th unit vector, is row i of
// f's Jacobians.
type odeGraph struct {
	n         int
	t, y, w   *ad.Node
	theta     []*ad.Node
	out, loss *ad.Node
}

func (r *odeGraph) program() (*ad.Program, error) { return r.g().Compile(r.out, r.loss) }

func (r *odeGraph) g() *ad.Graph { return r.t.Graph() }

// newRightSide compiles a program of the graph: one for each goroutine
// that solves the ODE at the same time.
func (r *odeGraph) newRightSide() ad.ODERightSide {
	p, err := r.program()
	if err != nil { // compiled once already, when the model was
		panic(err)
	}
	p.SetThreads(1)
	return &odeProgram{odeGraph: r, p: p}
}

// odeProgram evaluates f and its Jacobians with one compiled program.
type odeProgram struct {
	*odeGraph
	p *ad.Program
}

func (r *odeProgram) Jacobian(dy, jy, jth []float64, t float64, y, theta []float64) {
	p := r.p
	p.Value(r.t)[0] = t
	copy(p.Value(r.y), y)
	off := 0
	for _, th := range r.theta {
		off += copy(p.Value(th), theta[off:])
	}
	p.Forward()
	copy(dy, p.Value(r.out))
	if jy == nil {
		return
	}
	n, np := r.n, len(theta)
	w := p.Value(r.w)
	for i := range n {
		clear(w)
		w[i] = 1
		if err := p.Backward(r.loss); err != nil {
			panic(err)
		}
		grad(jy[i*n:(i+1)*n], p.Grad(r.y))
		off := 0
		for _, th := range r.theta {
			k := th.Size()
			grad(jth[i*np+off:i*np+off+k], p.Grad(th))
			off += k
		}
	}
}

// grad copies a gradient, zero where the program computed none (f does not
// depend on that input).
func grad(dst, g []float64) {
	if g == nil {
		clear(dst)
		return
	}
	copy(dst, g)
}
