package lang

import (
	"fmt"
	"strings"
)

// The checks of local variables, loops, ifs and user-defined functions.
// All of them are decided when the model is compiled: the compiler unrolls
// a loop, takes the branch of an if whose condition it can compute, and
// inlines a function's body where it is called, so a loop's bounds and an
// if's condition may use only values known then (constExpr).

// localDecl checks `name: type` or `name: type = value`.
func (c *checker) localDecl(st *LocalDecl, s *scope) {
	t := st.Type
	if t != nil {
		if t.Kind != "" {
			c.errorf(t.Pos, "a local variable is real or int: %s is a type for parameters and data, whose values are checked or transformed", t.Kind)
		}
		for _, d := range t.Dims {
			k := c.check(d, s)
			c.constExpr(d, s, "the dimensions of a local variable are fixed when the model is compiled, so they")
			if k.needsInt() {
				c.errorf(StartPos(d), "dimension %s is not an integer", shortExpr(d))
			}
		}
	}
	if st.Value != nil {
		k := c.check(st.Value, s)
		if t != nil && t.Int && k.needsInt() {
			c.errorf(StartPos(st.Value), "%s is an int local variable, and %s is real-valued", st.Name, shortExpr(st.Value))
		}
	}
	c.checkName(st.Name, st.Pos)
	if prev := s.lookup(st.Name); prev != nil {
		e := c.errorf(st.Pos, "%s is already declared as %s", st.Name, article(prev.Kind))
		note(e, prev.Pos(), "previously declared here")
		return
	}
	sym := &Symbol{Kind: LocalSym, Name: st.Name, Local: st, Plate: s.inPlate(), Block: s.block, Func: s.fn}
	s.names[st.Name] = sym
	c.info.Defs[st] = sym
	c.declDepth[sym] = loopDepth(s)
	c.assigned[sym] = st.Value != nil
}

// loopDepth is the number of loops around s.
func loopDepth(s *scope) int {
	n := 0
	for ; s != nil; s = s.parent {
		if s.loop != nil || s.while != nil {
			n++
		}
	}
	return n
}

// readLocal reports a read of a local variable that nothing has assigned
// yet, where that is certain: no assignment comes before it in the
// source, and no loop opened since the declaration could run an
// assignment that comes after it first. Reads of elements that are not
// yet assigned the compiler finds as it unrolls.
func (c *checker) readLocal(name string, pos Pos, sym *Symbol, s *scope) {
	if c.assigned[sym] || loopDepth(s) != c.declDepth[sym] {
		return
	}
	e := c.errorf(pos, "%s is read before anything is assigned to it", name)
	note(e, sym.Pos(), "declared here")
	c.assigned[sym] = true // reported once
}

// assign checks `lhs = value` and `lhs += value`: lhs must be a local
// variable of this block (and function), or elements of one.
func (c *checker) assign(st *Assign, s *scope) {
	value := c.check(st.Value, s)
	id, _ := st.Lhs.(*Ident)
	var items []IndexItem
	if ix, ok := st.Lhs.(*Index); ok {
		id, _ = ix.X.(*Ident)
		items = ix.Items
	}
	if id == nil {
		return // the parser reported it
	}
	for _, it := range items {
		for _, x := range []Expr{it.Lo, it.Hi} {
			if x != nil && c.check(x, s).needsInt() {
				c.errorf(StartPos(x), "index %s must be integer-valued", shortExpr(x))
			}
		}
	}
	sym := s.lookup(id.Name)
	if sym == nil {
		c.unknownName(id, s.visible())
		return
	}
	c.info.Symbols[id] = sym
	var e *Error
	switch {
	case sym.Kind == DataSym:
		e = c.errorf(id.Pos, "cannot assign to %s: it is data, which the program cannot change; declare a local variable (%s2: %s) and assign to that", id.Name, id.Name, typeString(sym.Decl.Type))
	case sym.Kind == ParamSym:
		e = c.errorf(id.Pos, "cannot assign to %s: it is a parameter, which the sampler moves; declare a local variable and assign to that", id.Name)
	case sym.Kind == DefineSym:
		e = c.errorf(id.Pos, "cannot assign to %s: it is a definition, which cannot change; declare it as a local variable (%s: real = ...) to assign to it", id.Name, id.Name)
	case sym.Kind == IndexSym:
		e = c.errorf(id.Pos, "cannot assign to %s: it is the index of the plate", id.Name)
	case sym.Kind == LoopSym:
		e = c.errorf(id.Pos, "cannot assign to %s: it is the index of the loop", id.Name)
	case sym.Kind == FuncParamSym:
		e = c.errorf(id.Pos, "cannot assign to %s: a function's parameters cannot change; copy it into a local variable", id.Name)
	case sym.Block != s.block || sym.Func != s.fn:
		e = c.errorf(id.Pos, "cannot assign to %s: it is a local variable of the %s block, fixed once that block ends", id.Name, sym.Block)
	case sym.Plate == nil && s.inPlate() != nil:
		e = c.errorf(id.Pos, "cannot assign to %s inside the plate: it is declared outside it, and a plate's body is written for one row of a minibatch; declare it inside the plate, or add per-row terms with ~ or target +=", id.Name)
	default:
		if st.Op == "+=" {
			c.readLocal(id.Name, id.Pos, sym, s)
		}
		c.assigned[sym] = true
		if rank := len(sym.Local.Type.Dims); len(items) > rank {
			if rank == 0 {
				c.errorf(id.Pos, "%s is a scalar and cannot be indexed", id.Name)
			} else {
				c.errorf(id.Pos, "%s has %s, indexed with %d", id.Name, plural(rank, "dimension"), len(items))
			}
		}
		if sym.Local.Type.Int && value.needsInt() {
			c.errorf(StartPos(st.Value), "%s is an int local variable, and %s is real-valued", id.Name, shortExpr(st.Value))
		}
		return
	}
	note(e, sym.Pos(), "declared here")
}

// typeString prints a declared type's base and dimensions, for messages.
func typeString(t *Type) string {
	base := "real"
	if t.Int {
		base = "int"
	}
	if len(t.Dims) == 0 {
		return base
	}
	dims := make([]string, len(t.Dims))
	for i, d := range t.Dims {
		dims[i] = ExprString(d)
	}
	return base + "[" + strings.Join(dims, ", ") + "]"
}

// forLoop checks `for i in lo:hi { body }`.
func (c *checker) forLoop(st *For, s *scope) {
	for _, b := range []Expr{st.Lo, st.Hi} {
		if c.check(b, s).needsInt() {
			c.errorf(StartPos(b), "the bounds of a loop must be integers, and %s is real-valued", shortExpr(b))
		}
		c.constExpr(b, s, "the bounds of a loop are fixed when the model is compiled (it is unrolled), so they")
	}
	c.checkName(st.Index, st.IndexPos)
	if prev := s.lookup(st.Index); prev != nil {
		e := c.errorf(st.IndexPos, "the loop index must be a new name, and %s is already declared as %s", st.Index, article(prev.Kind))
		note(e, prev.Pos(), "previously declared here")
	}
	body := s.child()
	body.loop = st
	sym := &Symbol{Kind: LoopSym, Name: st.Index, For: st, Func: s.fn, Block: s.block}
	body.names[st.Index] = sym
	c.info.Defs[st] = sym
	c.stmts(st.Body, body)
}

// ifStmt checks `if cond { ... } else { ... }`.
func (c *checker) ifStmt(st *If, s *scope) {
	c.check(st.Cond, s)
	c.localsOK = true
	c.constExpr(st.Cond, s, "the condition of an if is decided when the model is compiled, so it")
	c.localsOK = false
	for _, branch := range [][]Stmt{st.Then, st.Else} {
		body := s.child()
		body.cond = st
		c.stmts(branch, body)
	}
}

// whileLoop checks `while cond { body }`: the condition, like an if's,
// is decided when the model is compiled, and may also read scalar local
// variables (a counter), which the compiler knows where their values were
// computed from such values alone.
func (c *checker) whileLoop(st *While, s *scope) {
	c.check(st.Cond, s)
	c.whileCond, c.localsOK = true, true
	c.constExpr(st.Cond, s, "the condition of a while loop is decided when the model is compiled (it is unrolled), so it")
	c.whileCond, c.localsOK = false, false
	body := s.child()
	body.while = st
	c.stmts(st.Body, body)
}

// breakStmt checks `break`: only inside a for or while loop of the same
// block or function body, never out of a plate.
func (c *checker) breakStmt(st *Break, s *scope) {
	for ; s != nil; s = s.parent {
		switch {
		case s.loop != nil || s.while != nil:
			return
		case s.plate != nil:
			c.errorf(st.Pos, "break cannot leave a plate: it leaves a for or while loop only")
			return
		}
	}
	c.errorf(st.Pos, "break is only allowed inside a for or while loop")
}

// returnStmt checks `return value`: only in a function's body, of the
// function's result type where the checker can tell.
func (c *checker) returnStmt(st *Return, s *scope) {
	v := c.check(st.Value, s)
	if s.fn == nil {
		c.errorf(st.Pos, "return is only allowed in the body of a function (functions { ... })")
		return
	}
	res := s.fn.Result
	if res.Int && v.needsInt() {
		c.errorf(StartPos(st.Value), "%s returns an int, and %s is real-valued", s.fn.Name, shortExpr(st.Value))
	}
	if r := c.rank(st.Value); r >= 0 && r != res.Rank {
		c.errorf(StartPos(st.Value), "%s returns %s (%s), and %s has %s", s.fn.Name, res, plural(res.Rank, "dimension"), shortExpr(st.Value), plural(r, "dimension"))
	}
}

// constExpr reports an error unless e can be computed when the model is
// compiled: from numbers, data, transformed data, loop indices and the int
// parameters of a function (which its callers must give as such values).
// what begins the message: "the bounds of a loop ... so they".
func (c *checker) constExpr(e Expr, s *scope, what string) {
	var bad *Ident
	var why string
	WalkExpr(e, func(x Expr) {
		if bad != nil {
			return
		}
		switch x := x.(type) {
		case *Ident:
			sym := c.info.Symbols[x]
			if sym == nil {
				return // reported as unknown, or a function's name
			}
			switch {
			case sym.Kind == DataSym, sym.Kind == LoopSym:
			case sym.Kind == DefineSym && sym.Block == TransformedDataBlock:
			case sym.Kind == FuncParamSym && sym.Param.Type.Int:
			case sym.Kind == LocalSym && c.localsOK && len(sym.Local.Type.Dims) == 0:
			case sym.Kind == ParamSym:
				bad, why = x, "a parameter"
			case sym.Kind == IndexSym:
				bad, why = x, "the plate's index, whose rows are drawn into minibatches"
			default:
				bad, why = x, article(sym.Kind)
			}
		case *Call:
			if !constFunctions[x.Func] {
				bad, why = &Ident{Pos: x.Pos, Name: x.Func}, "a function the compiler does not evaluate"
			}
		case *String, *Vector:
			bad, why = &Ident{Pos: x.Position(), Name: shortExpr(x)}, describeExpr(x)
		}
	})
	if bad == nil {
		return
	}
	uses := "numbers, data, transformed data and loop indices"
	if c.whileCond {
		uses = "numbers, data, transformed data, loop indices and scalar local variables computed from them"
	}
	msg := fmt.Sprintf("%s may use only %s, and %s is %s", what, uses, bad.Name, why)
	if strings.HasPrefix(what, "the condition") && why == "a parameter" {
		msg += ": for a value that depends on parameters write if_else(cond, a, b), which chooses elementwise (its gradient goes to the branch taken), or a smooth step such as inv_logit(k * x)"
	}
	c.errorf(bad.Pos, "%s", msg)
}

// constFunctions are the functions a condition, a loop's bound or a local
// variable's dimension may call: those the compiler evaluates on numbers.
var constFunctions = map[string]bool{"abs": true, "fabs": true, "exp": true, "log": true, "sqrt": true, "square": true}

// ConstFunctions lists the functions the compiler evaluates in an if's
// condition or a loop's bounds.
func ConstFunctions() []string { return keys(constFunctions) }

// functions checks the functions block: names, parameters, bodies and
// that no function calls itself, directly or through others.
func (c *checker) functions(list []*Function) {
	c.funcs = map[string]*Function{}
	for _, f := range list {
		if f == nil {
			continue
		}
		c.checkName(f.Name, f.Pos)
		_, isFunc := c.env.Functions[f.Name]
		_, isDist := c.env.Distributions[f.Name]
		switch prev := c.funcs[f.Name]; {
		case prev != nil:
			e := c.errorf(f.Pos, "function %s redefined", f.Name)
			note(e, prev.Pos, "previously defined here")
			continue
		case isFunc || isDist:
			c.errorf(f.Pos, "%s is already a %s of the standard library: give the function another name", f.Name, map[bool]string{true: "function", false: "distribution"}[isFunc])
		}
		c.funcs[f.Name] = f
	}
	c.funcBodies(list)
	c.recursion(list)
}

// funcBodies checks each function's parameters and body.
func (c *checker) funcBodies(list []*Function) {
	prev := c.current
	c.current = FunctionsBlock
	defer func() { c.current = prev }()
	for _, f := range list {
		if f == nil {
			continue
		}
		s := &scope{names: map[string]*Symbol{}, block: FunctionsBlock, fn: f}
		for _, p := range f.Params {
			c.checkName(p.Name, p.Pos)
			if prev := s.names[p.Name]; prev != nil {
				e := c.errorf(p.Pos, "parameter %s of %s is declared twice", p.Name, f.Name)
				note(e, prev.Pos(), "previously declared here")
				continue
			}
			s.names[p.Name] = &Symbol{Kind: FuncParamSym, Name: p.Name, Param: p, Func: f, Block: FunctionsBlock}
		}
		c.blockDefs = map[string]defAt{}
		collectDefs(f.Body, FunctionsBlock, c.blockDefs)
		c.stmts(f.Body, s)
		c.blockDefs = nil
		if !returns(f.Body) {
			c.errorf(f.BodyEnd, "%s can reach the end of its body without returning a value: end it with return", f.Name)
		}
	}
}

// returns reports whether every path through stmts ends in a return.
func returns(stmts []Stmt) bool {
	if len(stmts) == 0 {
		return false
	}
	switch st := stmts[len(stmts)-1].(type) {
	case *Return:
		return true
	case *If:
		return st.Else != nil && returns(st.Then) && returns(st.Else)
	}
	return false
}

// recursion reports each cycle of calls among the functions, once, at the
// first function of the cycle in the source: a function is inlined where
// it is called, which a recursive one cannot be.
func (c *checker) recursion(list []*Function) {
	calls := map[string][]*Call{} // each function's calls of user functions, in order
	for _, f := range list {
		if f == nil || c.funcs[f.Name] != f {
			continue
		}
		walkStmtExprs(f.Body, func(e Expr) {
			call, ok := e.(*Call)
			if !ok {
				return
			}
			if c.funcs[call.Func] != nil {
				calls[f.Name] = append(calls[f.Name], call)
			}
			// An ODE solver calls the function named by its first argument.
			if IsODESolver(call.Func) && c.funcs[call.Func] == nil && len(call.Args) > 0 {
				if id, ok := call.Args[0].(*Ident); ok && c.funcs[id.Name] != nil {
					calls[f.Name] = append(calls[f.Name], &Call{Pos: id.Pos, Func: id.Name})
				}
			}
		})
	}
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	var path []string
	var pathCalls []*Call
	var visit func(name string)
	visit = func(name string) {
		state[name] = active
		path = append(path, name)
		for _, call := range calls[name] {
			pathCalls = append(pathCalls, call)
			switch state[call.Func] {
			case unseen:
				visit(call.Func)
			case active:
				start := 0
				for path[start] != call.Func {
					start++
				}
				c.cycle(path[start:], pathCalls[start:])
			}
			pathCalls = pathCalls[:len(pathCalls)-1]
		}
		path = path[:len(path)-1]
		state[name] = done
	}
	for _, f := range list {
		if f != nil && c.funcs[f.Name] == f && state[f.Name] == unseen {
			visit(f.Name)
		}
	}
}

// cycle reports the functions of names calling each other in a circle
// (calls[i] is the call of names[i+1] in names[i], the last one back to
// names[0]).
func (c *checker) cycle(names []string, calls []*Call) {
	// "f calls itself", or "f calls g, which calls h, which calls f"
	msg := names[0] + " calls itself"
	if len(names) > 1 {
		parts := []string{names[0] + " calls " + names[1]}
		for _, n := range append(names[2:], names[0]) {
			parts = append(parts, "which calls "+n)
		}
		msg = strings.Join(parts, ", ")
	}
	e := c.errorf(c.funcs[names[0]].Pos, "recursive functions are not supported (a function is inlined where it is called): %s", msg)
	for _, call := range calls {
		note(e, call.Pos, "the call of "+call.Func)
	}
}

// walkStmtExprs calls fn on every expression of stmts and their bodies.
func walkStmtExprs(stmts []Stmt, fn func(Expr)) {
	for _, st := range stmts {
		switch st := st.(type) {
		case *Sample:
			WalkExpr(st.Lhs, fn)
			for _, a := range st.Args {
				WalkExpr(a, fn)
			}
			if st.Trunc != nil {
				WalkExpr(st.Trunc.Lower, fn)
				WalkExpr(st.Trunc.Upper, fn)
			}
		case *Define:
			WalkExpr(st.Value, fn)
		case *TargetAdd:
			WalkExpr(st.Value, fn)
		case *Plate:
			WalkExpr(st.Size, fn)
			walkStmtExprs(st.Body, fn)
		case *LocalDecl:
			if st.Type != nil {
				for _, d := range st.Type.Dims {
					WalkExpr(d, fn)
				}
			}
			WalkExpr(st.Value, fn)
		case *Assign:
			WalkExpr(st.Lhs, fn)
			WalkExpr(st.Value, fn)
		case *For:
			WalkExpr(st.Lo, fn)
			WalkExpr(st.Hi, fn)
			walkStmtExprs(st.Body, fn)
		case *If:
			WalkExpr(st.Cond, fn)
			walkStmtExprs(st.Then, fn)
			walkStmtExprs(st.Else, fn)
		case *While:
			WalkExpr(st.Cond, fn)
			walkStmtExprs(st.Body, fn)
		case *Return:
			WalkExpr(st.Value, fn)
		}
	}
}

// userCall checks a call of a user-defined function: the number of
// arguments, int arguments that the compiler can compute (a function's
// int parameters may size loops and decide ifs), and the ranks where the
// checker knows them.
func (c *checker) userCall(e *Call, f *Function, args []checked, s *scope) bool {
	if len(e.Args) != len(f.Params) {
		params := make([]string, len(f.Params))
		for i, p := range f.Params {
			params[i] = p.Name + ": " + p.Type.String()
		}
		e2 := c.errorf(e.Pos, "%s takes %s (%s), got %d", f.Name, plural(len(f.Params), "argument"), strings.Join(params, ", "), len(e.Args))
		note(e2, f.Pos, "defined here")
		return f.Result.Int
	}
	for i, a := range e.Args {
		p := f.Params[i]
		if p.Type.Int {
			if args[i].needsInt() {
				c.errorf(StartPos(a), "argument %s of %s must be integer-valued, but %s is real-valued", p.Name, f.Name, shortExpr(a))
			}
			c.constExpr(a, s, fmt.Sprintf("argument %s of %s is an int, known when the model is compiled, so it", p.Name, f.Name))
		}
		if r := c.rank(a); r >= 0 && r != p.Type.Rank {
			c.errorf(StartPos(a), "argument %s of %s must have %s (%s), but %s has %s", p.Name, f.Name, plural(p.Type.Rank, "dimension"), p.Type, shortExpr(a), plural(r, "dimension"))
		}
	}
	return f.Result.Int
}
