package lang

import (
	"fmt"
	"slices"
	"strings"
)

// The ODE solvers take a function of the functions block by its name, the
// one place the language passes a function as a value; the checker knows
// their signatures itself, since an ordinary Signature has no such
// argument. Stan's signatures: ode_rk45(f, y0, t0, ts, ...) and
// ode_rk45_tol(f, y0, t0, ts, rtol, atol, max_steps, ...), the same for
// ode_bdf and ode_bdf_tol; the arguments after them are passed to f after its (t, y).
var odeSolvers = map[string][]string{
	"ode_rk45":     {"f", "y0", "t0", "ts"},
	"ode_rk45_tol": {"f", "y0", "t0", "ts", "rtol", "atol", "max_steps"},
	"ode_bdf":      {"f", "y0", "t0", "ts"},
	"ode_bdf_tol":  {"f", "y0", "t0", "ts", "rtol", "atol", "max_steps"},
}

// ODESolvers returns the ODE solvers' names, sorted, for help and
// completion.
func ODESolvers() []string {
	names := make([]string, 0, len(odeSolvers))
	for n := range odeSolvers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ODEUsage is a solver's call as the docs write it:
// ode_rk45(f, y0, t0, ts, ...).
func ODEUsage(name string) string {
	return name + "(" + strings.Join(odeSolvers[name], ", ") + ", ...)"
}

// IsODESolver reports whether name is one of the ODE solvers.
func IsODESolver(name string) bool { _, ok := odeSolvers[name]; return ok }

// ODEFixedArgs returns the number of arguments an ODE solver takes before
// the ones it passes to f (0 for a name that is no solver).
func ODEFixedArgs(name string) int { return len(odeSolvers[name]) }

// odeCall checks a call of an ODE solver: its first argument names a
// function f(t: real, y: real[], ...): real[] of the functions block, the
// state y0 and times ts are vectors, t0 and the tolerances scalars,
// max_steps an int, and the remaining arguments match f's after y.
func (c *checker) odeCall(e *Call, s *scope) bool {
	fixed := odeSolvers[e.Func]
	sig := e.Func + "(" + strings.Join(fixed, ", ") + ", ...)"
	if len(e.Args) < len(fixed) {
		c.checkAll(e.Args[min(1, len(e.Args)):], s)
		c.errorf(e.Pos, "%s takes at least %d arguments, %s, got %d", e.Func, len(fixed), sig, len(e.Args))
		return false
	}
	var f *Function
	if id, ok := e.Args[0].(*Ident); ok {
		f = c.funcs[id.Name]
	}
	args := append([]checked{{}}, c.checkAll(e.Args[1:], s)...)
	if f == nil {
		c.errorf(StartPos(e.Args[0]), "the first argument of %s must be the name of a function of the functions block, f(t: real, y: real[], ...): real[], and %s is not", e.Func, shortExpr(e.Args[0]))
		return false
	}
	ok := len(f.Params) >= 2 && !f.Params[0].Type.Int && f.Params[0].Type.Rank == 0 &&
		!f.Params[1].Type.Int && f.Params[1].Type.Rank == 1 && !f.Result.Int && f.Result.Rank == 1
	if !ok {
		e2 := c.errorf(StartPos(e.Args[0]), "%s solves y' = f(t, y, ...): %s must be f(t: real, y: real[], ...): real[], and is %s", e.Func, f.Name, funcSignature(f))
		note(e2, f.Pos, "defined here")
		return false
	}
	ranks := map[string]int{"y0": 1, "t0": 0, "ts": 1, "rtol": 0, "atol": 0, "max_steps": 0}
	for i, name := range fixed[1:] {
		a := e.Args[i+1]
		if r := c.rank(a); r >= 0 && r != ranks[name] {
			c.errorf(StartPos(a), "argument %s of %s must have %s, but %s has %s", name, e.Func, plural(ranks[name], "dimension"), shortExpr(a), plural(r, "dimension"))
		}
		if name == "max_steps" {
			if args[i+1].needsInt() {
				c.errorf(StartPos(a), "argument max_steps of %s must be integer-valued, but %s is real-valued", e.Func, shortExpr(a))
			}
			c.constExpr(a, s, fmt.Sprintf("argument max_steps of %s is an int, known when the model is compiled, so it", e.Func))
		}
	}
	extra := e.Args[len(fixed):]
	if len(extra) != len(f.Params)-2 {
		e2 := c.errorf(e.Pos, "%s passes %s the arguments after %s: %s takes %d after (t, y), %s, got %d", e.Func, f.Name, fixed[len(fixed)-1], f.Name, len(f.Params)-2, funcSignature(f), len(extra))
		note(e2, f.Pos, "defined here")
		return false
	}
	for i, a := range extra {
		p := f.Params[i+2]
		if p.Type.Int {
			if args[len(fixed)+i].needsInt() {
				c.errorf(StartPos(a), "argument %s of %s must be integer-valued, but %s is real-valued", p.Name, f.Name, shortExpr(a))
			}
			c.constExpr(a, s, fmt.Sprintf("argument %s of %s is an int, known when the model is compiled, so it", p.Name, f.Name))
		}
		if r := c.rank(a); r >= 0 && r != p.Type.Rank {
			c.errorf(StartPos(a), "argument %s of %s must have %s (%s), but %s has %s", p.Name, f.Name, plural(p.Type.Rank, "dimension"), p.Type, shortExpr(a), plural(r, "dimension"))
		}
	}
	return false
}

// funcSignature writes f's parameters and result as declared.
func funcSignature(f *Function) string {
	params := make([]string, len(f.Params))
	for i, p := range f.Params {
		params[i] = p.Name + ": " + p.Type.String()
	}
	return f.Name + "(" + strings.Join(params, ", ") + "): " + f.Result.String()
}
