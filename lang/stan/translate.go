package stan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/temper-ppl/temper/lang"
)

// Gap is a construct of the Stan program that has no counterpart in the
// .ppl language: the translation carries a `// TODO(translate): ...`
// comment where it was.
type Gap struct {
	Pos Pos
	Msg string
}

func (g Gap) String() string { return fmt.Sprintf("%s: %s", g.Pos, g.Msg) }

// Options of Translate; the zero value is the default.
type Options struct {
	// Env is the .ppl's standard library (compile.Env()): a call of a
	// function or a distribution it lacks is a gap. Nil: every name is
	// taken to exist.
	Env *lang.Env
	// Name is the Stan file's name, for the header comment.
	Name string
}

// Result is a translation.
type Result struct {
	PPL  string // the .ppl program, with a TODO comment at each gap
	Gaps []Gap  // sorted by position
	// Origins[i] is the position in the Stan program of the statement or
	// declaration that line i + 1 of PPL was written for (zero for the
	// lines of no statement: the header, the blocks' braces).
	Origins []Pos
}

// TranslateSource parses and translates a Stan program.
func TranslateSource(src string, opts Options) (*Result, error) {
	prog, err := Parse(src)
	if err != nil {
		return nil, err
	}
	return Translate(prog, src, opts), nil
}

// shape is what the translator knows of an expression's type: the number
// of array dimensions, and the vector kind of its elements.
type shape struct {
	arr   int
	kind  int // scalarK, vectorK, rowK, matrixK
	isInt bool
	known bool
}

const (
	scalarK = iota
	vectorK
	rowK
	matrixK
)

func (s shape) nonScalar() bool { return s.arr > 0 || s.kind != scalarK }

// linalg: a vector, row vector or matrix (not an array), whose Stan `*`
// is a matrix product.
func (s shape) linalg() bool { return s.known && s.arr == 0 && s.kind != scalarK }

type varInfo struct {
	shape  shape
	block  string // "data", "parameters", "local", ...
	rename string
}

type translator struct {
	src   []string // the source's lines
	opts  Options
	gaps  []Gap
	out   strings.Builder
	ind   int
	vars  map[string]*varInfo
	funcs map[string]*Function
	// assigned holds the names assigned anywhere in the block or function
	// being translated: a declaration with a value of one of them is a
	// local variable, of another a definition.
	assigned map[string]bool
	block    string
	pending  []Gap // gaps of the statement being written
	plateN   string
	comments []Comment // the Stan program's, those not yet written
	trailing []string  // comments that end the next line written
	cur      Pos       // the statement being written
	origins  []Pos     // each line's statement
	// truncation says whether the .ppl parses and checks `~ ... T[L, U]`.
	truncation bool
	inPlate    string
	loops      int
}

// pplKeywords are the .ppl's keywords that Stan allows as names.
var pplKeywords = map[string]bool{
	"param": true, "plate": true, "infer": true, "predict": true, "lower": true, "upper": true,
	"functions": true, "data": true, "transformed": true, "model": true, "generated": true,
	"real": true, "int": true, "for": true, "in": true, "target": true, "if": true, "else": true, "return": true,
}

// HasTruncation says whether the .ppl of env takes Stan's truncation
// syntax, `y ~ normal(mu, sigma) T[L, U]`: a probe program is parsed and
// checked.
func HasTruncation(env *lang.Env) bool {
	const probe = "param { x: real }\nmodel { x ~ normal(0, 1) T[0, 2] }\n"
	f, err := lang.Parse("probe.ppl", []byte(probe))
	if err == nil {
		_, err = lang.Check(f, env)
	}
	return err == nil
}

// Translate writes the .ppl program of prog, whose source is src.
func Translate(prog *Program, src string, opts Options) *Result {
	t := &translator{src: strings.Split(src, "\n"), opts: opts, vars: map[string]*varInfo{}, funcs: map[string]*Function{}}
	t.truncation = opts.Env != nil && HasTruncation(opts.Env)
	t.comments = prog.Comments
	name := opts.Name
	if name == "" {
		name = "a Stan program"
	}
	t.linef("// Translated from %s by temper translate.", name)
	for _, f := range prog.Functions {
		if f.Body != nil {
			t.funcs[f.Name] = f
		}
	}
	if len(t.funcs) > 0 {
		t.writeComments(prog.FunctionsPos, false)
		t.line("functions {")
		t.ind++
		for _, f := range prog.Functions {
			if f.Body != nil {
				t.writeComments(f.Pos, false)
				t.function(f)
			}
		}
		t.ind--
		t.line("}")
	}
	order := []string{"data", "transformed data", "parameters", "transformed parameters", "model", "generated quantities"}
	names := map[string]string{"data": "data", "transformed data": "transformed data", "parameters": "param",
		"transformed parameters": "transformed param", "model": "model", "generated quantities": "generated"}
	for _, bn := range order {
		for _, b := range prog.Blocks {
			if b.Name != bn {
				continue
			}
			t.block = b.Name
			t.assigned = map[string]bool{}
			collectAssigned(b.Stmts, t.assigned)
			t.plateN = ""
			if b.Name == "model" {
				t.plateN = t.choosePlate(b.Stmts)
			}
			t.cur = Pos{}
			t.writeComments(b.Pos, false)
			t.linef("%s {", names[b.Name])
			t.ind++
			t.stmts(b.Stmts)
			t.writeComments(b.End, false)
			t.ind--
			t.line("}")
		}
	}
	t.writeComments(Pos{Line: len(t.src) + 1}, false)
	sort.SliceStable(t.gaps, func(i, j int) bool {
		a, b := t.gaps[i].Pos, t.gaps[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return &Result{PPL: t.out.String(), Gaps: t.gaps, Origins: t.origins}
}

func (t *translator) line(s string) {
	if len(t.trailing) > 0 && !strings.HasPrefix(s, "//") {
		s += "  // " + strings.Join(t.trailing, "; ")
		t.trailing = nil
	}
	t.origins = append(t.origins, t.cur)
	t.out.WriteString(strings.Repeat("  ", t.ind))
	t.out.WriteString(s)
	t.out.WriteByte('\n')
}

func (t *translator) linef(format string, args ...any) { t.line(fmt.Sprintf(format, args...)) }

// writeComments writes the Stan program's comments that come before pos
// on lines of their own; with trailing, those after pos on its line end
// the next line written, as they ended the statement at pos.
func (t *translator) writeComments(pos Pos, trailing bool) {
	for len(t.comments) > 0 {
		c := t.comments[0]
		if c.Pos.Line > pos.Line || c.Pos.Line == pos.Line && !trailing && c.Pos.Col >= pos.Col {
			return
		}
		t.comments = t.comments[1:]
		if c.Pos.Line == pos.Line && c.Pos.Col > pos.Col {
			t.trailing = append(t.trailing, c.Text)
			continue
		}
		t.line("// " + c.Text)
	}
}

// gap records a construct without counterpart, written as a TODO before
// the statement being translated.
func (t *translator) gap(pos Pos, format string, args ...any) {
	t.pending = append(t.pending, Gap{pos, fmt.Sprintf(format, args...)})
}

// flush writes the pending gaps as TODO comments.
func (t *translator) flush() {
	for _, g := range t.pending {
		t.linef("// TODO(translate): %s (%s of the Stan program)", g.Msg, g.Pos)
		t.gaps = append(t.gaps, g)
	}
	t.pending = nil
}

// emit writes one statement, its gaps' comments first.
func (t *translator) emit(s string) {
	t.flush()
	t.line(s)
}

// commentOut writes the Stan source of a statement without counterpart,
// commented out, after its TODO.
func (t *translator) commentOut(pos Pos, format string, args ...any) {
	t.gap(pos, format, args...)
	t.flush()
	if pos.Line-1 < len(t.src) {
		t.linef("// %s", strings.TrimSpace(t.src[pos.Line-1]))
	}
}

func collectAssigned(ss []Stmt, into map[string]bool) {
	for _, s := range ss {
		switch s := s.(type) {
		case *Assign:
			if n := baseName(s.LHS); n != "" {
				into[n] = true
			}
		case *For:
			collectAssigned(s.Body, into)
		case *While:
			collectAssigned(s.Body, into)
		case *If:
			collectAssigned(s.Then, into)
			collectAssigned(s.Else, into)
		case *Nested:
			collectAssigned(s.Stmts, into)
		}
	}
}

func baseName(e Expr) string {
	switch e := e.(type) {
	case *Name:
		return e.Name
	case *Index:
		return baseName(e.X)
	}
	return ""
}

func (t *translator) declare(n string, pos Pos, sh shape, block string) string {
	v := &varInfo{shape: sh, block: block}
	if pplKeywords[n] {
		v.rename = n + "_"
		if block == "data" {
			t.gap(pos, "%s is a keyword of the .ppl: renamed %s, so the data file's field must be renamed too", n, v.rename)
		}
	}
	t.vars[n] = v
	if v.rename != "" {
		return v.rename
	}
	return n
}

// typeShape is the shape a declared type gives its variable.
func typeShape(ty *Type) shape {
	s := shape{arr: len(ty.ArrayDims) + ty.ArrayRank, known: true}
	switch ty.Base {
	case "int":
		s.isInt = true
	case "real":
	case "vector", "simplex", "ordered", "positive_ordered", "unit_vector", "sum_to_zero_vector":
		s.kind = vectorK
	case "row_vector":
		s.kind = rowK
	default:
		s.kind = matrixK
	}
	return s
}

var constrainedTypes = map[string]bool{
	"simplex": true, "ordered": true, "positive_ordered": true, "unit_vector": true,
	"cholesky_factor_corr": true, "cholesky_factor_cov": true, "corr_matrix": true, "cov_matrix": true,
}

// declType writes a declaration's .ppl type; local says the variable is
// computed (no bounds, no constrained type).
func (t *translator) declType(ty *Type, local bool) string {
	if ty.Complex {
		t.gap(ty.Pos, "the type %s has no counterpart (no complex numbers or tuples in the .ppl)", ty.Base)
	}
	var dims []string
	for _, d := range ty.ArrayDims {
		dims = append(dims, t.expr(d))
	}
	if constrainedTypes[ty.Base] && !local {
		if ty.Base == "cholesky_factor_cov" && len(ty.Sizes) == 2 {
			t.gap(ty.Pos, "a rectangular cholesky_factor_cov[M, N] has no counterpart")
		}
		if len(ty.Bounds) > 0 {
			t.gap(ty.Pos, "%s takes no bounds in the .ppl", ty.Base)
		}
		s := fmt.Sprintf("%s[%s]", ty.Base, t.expr(ty.Sizes[0]))
		if len(dims) > 0 {
			s += "[" + strings.Join(dims, ", ") + "]"
		}
		return s
	}
	base := "real"
	switch ty.Base {
	case "int":
		base = "int"
	case "real", "vector", "row_vector", "matrix":
	case "simplex", "ordered", "positive_ordered", "unit_vector", "cholesky_factor_corr", "corr_matrix", "cov_matrix", "cholesky_factor_cov":
		// a local variable of a constrained type: its values, unchecked
	default:
		if !ty.Complex {
			t.gap(ty.Pos, "the type %s has no counterpart in the .ppl", ty.Base)
		}
	}
	for i, sz := range ty.Sizes {
		dims = append(dims, t.expr(sz))
		if i == 0 && len(ty.Sizes) == 1 && (ty.Base == "cholesky_factor_corr" || ty.Base == "corr_matrix" || ty.Base == "cov_matrix" || ty.Base == "cholesky_factor_cov") {
			dims = append(dims, t.expr(sz))
		}
	}
	if !local && len(ty.Bounds) > 0 {
		var bs []string
		for _, b := range ty.Bounds {
			bs = append(bs, b.Key+"="+t.exprPrec(b.Value, precPPLAdd))
		}
		base += "<" + strings.Join(bs, ", ") + ">"
	}
	if len(dims) > 0 {
		base += "[" + strings.Join(dims, ", ") + "]"
	}
	return base
}

// argType writes a function argument's or result's type.
func (t *translator) argType(ty *Type) string {
	if ty.Complex {
		t.gap(ty.Pos, "the type %s has no counterpart (no complex numbers or tuples in the .ppl)", ty.Base)
	}
	rank := ty.ArrayRank
	base := "real"
	switch ty.Base {
	case "int":
		base = "int"
	case "real":
	case "vector", "row_vector":
		rank++
	case "matrix":
		rank += 2
	case "void":
		t.gap(ty.Pos, "a function returning void has no counterpart (a .ppl function returns a value)")
		return "real"
	default:
		if !ty.Complex {
			t.gap(ty.Pos, "the argument type %s has no counterpart", ty.Base)
		}
	}
	if rank > 0 {
		base += "[" + strings.Repeat(",", rank-1) + "]"
	}
	return base
}

func (t *translator) function(f *Function) {
	saved := t.vars
	t.vars = map[string]*varInfo{}
	t.block = "functions"
	t.assigned = map[string]bool{}
	collectAssigned(f.Body, t.assigned)
	switch {
	case strings.HasSuffix(f.Name, "_lp"):
		t.gap(f.Pos, "%s: a function that adds to target (_lp) has no counterpart; return the value and add it in the model block", f.Name)
	case strings.HasSuffix(f.Name, "_rng"):
		t.gap(f.Pos, "%s: a user-defined _rng function has no counterpart (a .ppl function cannot draw)", f.Name)
	}
	var ps []string
	for _, p := range f.Params {
		n := t.declare(p.Name, f.Pos, typeShape(p.Type), "argument")
		ps = append(ps, n+": "+t.argType(p.Type))
		if t.assigned[p.Name] {
			t.gap(f.Pos, "%s assigns to its argument %s, which the .ppl does not allow; copy it into a local variable", f.Name, p.Name)
		}
	}
	res := t.argType(f.Result)
	t.cur = f.Pos
	t.flush()
	t.linef("%s(%s): %s {", f.Name, strings.Join(ps, ", "), res)
	t.ind++
	t.stmts(f.Body)
	t.writeComments(f.End, false)
	t.ind--
	t.line("}")
	t.vars = saved
}

func (t *translator) stmts(ss []Stmt) {
	for _, s := range ss {
		t.stmt(s)
	}
}

func (t *translator) stmt(s Stmt) {
	saved := t.cur
	t.writeComments(s.stmtPos(), true)
	t.cur = s.stmtPos()
	defer func() { t.cur = saved }()
	switch s := s.(type) {
	case *Decl:
		t.decl(s)
	case *Tilde:
		t.tilde(s)
	case *TargetPlus:
		if t.block != "model" {
			t.gap(s.Pos, "target += outside the model block has no counterpart")
		}
		t.emit("target += " + t.expr(s.Expr))
	case *Assign:
		t.assign(s)
	case *For:
		t.forLoop(s)
	case *While:
		// The .ppl's while unrolls when the model is compiled: a condition
		// on a parameter is refused by the check after the translation.
		t.emit("while " + t.expr(s.Cond) + " {")
		t.ind++
		t.stmts(s.Body)
		t.ind--
		t.line("}")
	case *If:
		t.ifStmt(s, "if ")
	case *Nested:
		t.nested(s)
	case *Return:
		if s.Value == nil {
			t.commentOut(s.Pos, "a return without a value has no counterpart")
			return
		}
		t.emit("return " + t.expr(s.Value))
	case *Other:
		if s.What == "break" {
			t.emit("break")
			return
		}
		if s.What == "print" {
			t.flush()
			t.linef("// print(...) left out (%s of the Stan program)", s.Pos)
			return
		}
		t.commentOut(s.Pos, "%s has no counterpart", s.What)
	case *ExprStmt:
		if c, ok := s.Expr.(*Call); ok && c.Name == "increment_log_prob" && len(c.Args) == 1 {
			// Stan's old form of target +=
			t.stmt(&TargetPlus{Pos: s.Pos, Expr: c.Args[0]})
			return
		}
		t.commentOut(s.Pos, "a call as a statement (a void function) has no counterpart")
	}
}

// nested writes a braced block. One that declares variables in the
// transformed data, transformed parameters or generated quantities is
// written as `if 1 { ... }`, so that its variables stay local, not values
// of the block written to the draws; elsewhere its statements join the
// enclosing ones (a plate cannot be inside an if).
func (t *translator) nested(s *Nested) {
	declares := false
	for _, st := range s.Stmts {
		if _, ok := st.(*Decl); ok {
			declares = true
		}
	}
	if !declares || t.block == "model" || t.block == "functions" {
		t.stmts(s.Stmts)
		return
	}
	t.emit("if 1 {  // a block of its own: its variables are local to it")
	t.ind++
	t.loops++
	t.stmts(s.Stmts)
	t.loops--
	t.ind--
	t.line("}")
}

func (t *translator) decl(d *Decl) {
	sh := typeShape(d.Type)
	switch t.block {
	case "data", "parameters":
		ty := t.declType(d.Type, false)
		if t.block == "parameters" && sh.isInt {
			t.gap(d.Pos, "an int parameter has no counterpart (the samplers move reals)")
		}
		n := t.declare(d.Name, d.Pos, sh, t.block)
		t.emit(n + ": " + ty)
		return
	}
	if len(d.Type.Bounds) > 0 && t.block != "functions" {
		for _, b := range d.Type.Bounds {
			if b.Key == "offset" || b.Key == "multiplier" {
				t.gap(d.Pos, "offset and multiplier are for parameters only")
			}
		}
	}
	block := "local"
	if t.block == "transformed data" && t.loops == 0 {
		block = t.block
	}
	if d.Init != nil && !t.assigned[d.Name] {
		init := t.expr(d.Init)
		n := t.declare(d.Name, d.Pos, sh, block)
		t.emit(n + " = " + init)
		return
	}
	ty := t.declType(d.Type, true)
	var init string
	if d.Init != nil {
		init = " = " + t.expr(d.Init)
	}
	n := t.declare(d.Name, d.Pos, sh, block)
	t.emit(n + ": " + ty + init)
}

// stdNormal are Stan's std_normal forms: normal(0, 1).
func isStdNormal(name string) bool {
	return name == "std_normal" || strings.HasPrefix(name, "std_normal_")
}

func (t *translator) tilde(s *Tilde) {
	lhs := t.expr(s.LHS)
	args := t.exprs(s.Args)
	dist := s.Dist
	if dist == "std_normal" {
		dist, args = "normal", append([]string{"0", "1"}, args...)
	}
	var stmt string
	switch {
	case t.funcs[dist+"_lpdf"] != nil || t.funcs[dist+"_lpmf"] != nil:
		fn := dist + "_lpdf"
		if t.funcs[fn] == nil {
			fn = dist + "_lpmf"
		}
		stmt = fmt.Sprintf("target += %s(%s)", fn, joinBar(lhs, args))
	default:
		if t.opts.Env != nil {
			if _, ok := t.opts.Env.Distributions[dist]; !ok {
				t.gap(s.DistPos, "the distribution %s has no counterpart in the .ppl", s.Dist)
			}
		}
		stmt = fmt.Sprintf("%s ~ %s(%s)", lhs, dist, strings.Join(args, ", "))
	}
	if s.Trunc {
		lo, hi := "", ""
		if s.TruncLo != nil {
			lo = t.expr(s.TruncLo)
		}
		if s.TruncHi != nil {
			hi = t.expr(s.TruncHi)
		}
		if !t.truncation {
			t.gap(s.TruncPos, "truncation T[,] has no counterpart in the .ppl yet")
		}
		stmt += fmt.Sprintf(" T[%s, %s]", lo, hi)
	}
	if t.block != "model" {
		t.gap(s.Pos, "~ outside the model block has no counterpart")
	}
	t.emit(stmt)
}

func joinBar(lhs string, args []string) string {
	if len(args) == 0 {
		return lhs
	}
	return lhs + " | " + strings.Join(args, ", ")
}

func (t *translator) assign(s *Assign) {
	lhs := t.expr(s.LHS)
	if s.Op == "<-" {
		s.Op = "="
	}
	switch s.Op {
	case "=", "+=":
		t.emit(lhs + " " + s.Op + " " + t.expr(s.RHS))
	case "-=":
		t.emit(lhs + " = " + lhs + " - " + t.exprPrec(s.RHS, precPPLMul))
	case "*=", ".*=", "/=", "./=":
		op := "*"
		if s.Op == "*=" && t.shapeOf(s.LHS).linalg() && t.shapeOf(s.RHS).linalg() {
			op = "@"
		}
		if s.Op == "/=" || s.Op == "./=" {
			op = "/"
		}
		t.emit(lhs + " = " + lhs + " " + op + " " + t.exprPrec(s.RHS, precPPLUnary))
	}
}

func (t *translator) ifStmt(s *If, prefix string) {
	cond := t.expr(s.Cond)
	t.emit(prefix + cond + " {")
	t.ind++
	t.stmts(s.Then)
	t.ind--
	if len(s.Else) == 1 {
		if ei, ok := s.Else[0].(*If); ok {
			t.ifStmtElse(ei)
			return
		}
	}
	if s.Else != nil {
		t.line("} else {")
		t.ind++
		t.stmts(s.Else)
		t.ind--
	}
	t.line("}")
}

// ifStmtElse writes `} else if c {`, its gaps' comments inside the
// previous branch.
func (t *translator) ifStmtElse(s *If) {
	cond := t.expr(s.Cond)
	t.ind++
	t.flush()
	t.ind--
	t.line("} else if " + cond + " {")
	t.ind++
	t.stmts(s.Then)
	t.ind--
	if len(s.Else) == 1 {
		if ei, ok := s.Else[0].(*If); ok {
			t.ifStmtElse(ei)
			return
		}
	}
	if s.Else != nil {
		t.line("} else {")
		t.ind++
		t.stmts(s.Else)
		t.ind--
	}
	t.line("}")
}

func (t *translator) forLoop(s *For) {
	if s.Hi == nil {
		t.commentOut(s.Pos, "a loop over the elements of a container (for (x in xs)) has no counterpart; loop over the indices")
		return
	}
	saved, had := t.vars[s.Var]
	v := t.declare(s.Var, s.Pos, shape{isInt: true, known: true}, "loop")
	hi := t.exprPrec(s.Hi, precPPLAdd)
	if t.block == "model" && t.loops == 0 && t.inPlate == "" && t.plateN != "" && t.isPlate(s) == t.plateN {
		t.emit(fmt.Sprintf("for %s in plate(%s) {", v, t.plateN))
		t.inPlate = s.Var
		t.ind++
		t.stmts(s.Body)
		t.ind--
		t.inPlate = ""
	} else {
		t.emit(fmt.Sprintf("for %s in %s:%s {", v, t.exprPrec(s.Lo, precPPLAdd), hi))
		t.loops++
		t.ind++
		t.stmts(s.Body)
		t.ind--
		t.loops--
	}
	t.line("}")
	if had {
		t.vars[s.Var] = saved
	} else {
		delete(t.vars, s.Var)
	}
}

// choosePlate picks the size of the model block's plates: that of its
// first top-level loop that is a per-observation likelihood (the .ppl
// requires every plate of the block to run over one size).
func (t *translator) choosePlate(ss []Stmt) string {
	for _, s := range ss {
		switch s := s.(type) {
		case *For:
			if n := t.isPlate(s); n != "" {
				return n
			}
		case *Nested:
			if n := t.choosePlate(s.Stmts); n != "" {
				return n
			}
		}
	}
	return ""
}

// isPlate says whether a loop `for (n in 1:N) body` is a per-observation
// likelihood, and returns N: it runs from 1 over an int data scalar, its
// body has a ~ or a target += and reads data indexed first by n, assigns
// no variable declared outside it, and n decides no if and bounds no loop.
func (t *translator) isPlate(s *For) string {
	lo, ok := s.Lo.(*Number)
	if !ok || lo.Text != "1" || s.Hi == nil {
		return ""
	}
	hi, ok := s.Hi.(*Name)
	if !ok {
		return ""
	}
	v, ok := t.vars[hi.Name]
	if !ok || v.block != "data" || !v.shape.isInt || v.shape.nonScalar() {
		return ""
	}
	locals := map[string]bool{}
	scores, ok := t.plateBody(s.Var, s.Body, locals)
	if !ok || !scores || !t.readsRow(s.Var, s.Body) {
		return ""
	}
	return hi.Name
}

// readsRow says whether a statement of ss reads data indexed first by idx.
func (t *translator) readsRow(idx string, ss []Stmt) bool {
	for _, s := range ss {
		var es []Expr
		switch s := s.(type) {
		case *Decl:
			es = []Expr{s.Init}
		case *Assign:
			es = []Expr{s.RHS}
		case *Tilde:
			es = append([]Expr{s.LHS}, s.Args...)
		case *TargetPlus:
			es = []Expr{s.Expr}
		case *For:
			if t.readsRow(idx, s.Body) {
				return true
			}
		case *If:
			if t.readsRow(idx, s.Then) || t.readsRow(idx, s.Else) {
				return true
			}
		case *Nested:
			if t.readsRow(idx, s.Stmts) {
				return true
			}
		}
		for _, e := range es {
			if e != nil && t.indexesData(e, idx) {
				return true
			}
		}
	}
	return false
}

func (t *translator) plateBody(idx string, ss []Stmt, locals map[string]bool) (scores, ok bool) {
	for _, s := range ss {
		switch s := s.(type) {
		case *Decl:
			locals[s.Name] = true
		case *Assign:
			if !locals[baseName(s.LHS)] {
				return false, false
			}
		case *Tilde, *TargetPlus:
			scores = true
		case *For:
			if mentions(s.Lo, idx) || mentions(s.Hi, idx) {
				return false, false
			}
			sc, ok := t.plateBody(idx, s.Body, locals)
			if !ok {
				return false, false
			}
			scores = scores || sc
		case *If:
			if mentions(s.Cond, idx) {
				return false, false
			}
			sc1, ok1 := t.plateBody(idx, s.Then, locals)
			sc2, ok2 := t.plateBody(idx, s.Else, locals)
			if !ok1 || !ok2 {
				return false, false
			}
			scores = scores || sc1 || sc2
		case *Nested:
			sc, ok := t.plateBody(idx, s.Stmts, locals)
			if !ok {
				return false, false
			}
			scores = scores || sc
		default:
			return false, false
		}
	}
	return scores, true
}

// indexesData says whether e holds a data field indexed first by idx.
func (t *translator) indexesData(e Expr, idx string) bool {
	found := false
	walk(e, func(x Expr) {
		ix, ok := x.(*Index)
		if !ok {
			return
		}
		n, ok := ix.X.(*Name)
		if !ok {
			return
		}
		if v := t.vars[n.Name]; v != nil && (v.block == "data" || v.block == "transformed data") {
			if first, ok := ix.Items[0].(*Name); ok && first.Name == idx {
				found = true
			}
		}
	})
	return found
}

func mentions(e Expr, name string) bool {
	found := false
	walk(e, func(x Expr) {
		if n, ok := x.(*Name); ok && n.Name == name {
			found = true
		}
	})
	return found
}

func walk(e Expr, f func(Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch e := e.(type) {
	case *Binary:
		walk(e.L, f)
		walk(e.R, f)
	case *Unary:
		walk(e.X, f)
	case *Transpose:
		walk(e.X, f)
	case *Cond:
		walk(e.C, f)
		walk(e.A, f)
		walk(e.B, f)
	case *Call:
		for _, a := range e.Args {
			walk(a, f)
		}
	case *Index:
		walk(e.X, f)
		for _, a := range e.Items {
			walk(a, f)
		}
	case *Slice:
		walk(e.Lo, f)
		walk(e.Hi, f)
	case *ArrayExpr:
		for _, a := range e.Elems {
			walk(a, f)
		}
	case *RowVectorExpr:
		for _, a := range e.Elems {
			walk(a, f)
		}
	case *Paren:
		walk(e.X, f)
	}
}
