package compile

import (
	"math"
	"slices"
	"strings"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// function is a callable of the model language, written for one row: its
// lowering receives batched values and keeps the batch axis out of the way.
type function struct {
	params []string
	build  func(b *builder, args []value) value
	intIf  []int // the result is an int when these arguments are (lang.Signature.IntIf)
	// intResult: the result is always an int (rows(A), a size known when
	// the model is compiled).
	intResult bool

	// A layer (layers.go) ends its parameters with settings, integer
	// constants that shape its result (a stride, a window's size), the
	// last optional of them left out for their defaults; ranks are its
	// weights' (lang.Signature.Ranks). Its lowering receives the array
	// arguments and the settings given.
	settings, optional int
	ranks              []int
	layer              func(b *builder, args []value, settings []int) value

	// alt is the function under the same name with another number of
	// arguments (lang.Signature.Alt): gp_exp_quad_cov(x1, x2, alpha, rho)
	// beside gp_exp_quad_cov(x, alpha, rho).
	alt *function
}

// elementwise functions of one argument, under their language names (Stan's
// where Stan has one).
var unaryFunctions = map[string]func(*ad.Node) *ad.Node{
	"exp": ad.Exp, "log": ad.Log, "log1p": ad.Log1p, "expm1": ad.Expm1,
	"sqrt": ad.Sqrt, "square": ad.Square, "abs": ad.Abs, "fabs": ad.Abs,
	"sin": ad.Sin, "cos": ad.Cos, "tanh": ad.Tanh,
	"sigmoid": ad.Sigmoid, "inv_logit": ad.Sigmoid,
	"softplus": ad.Softplus, "log1p_exp": ad.Softplus,
	"log_sigmoid": ad.LogSigmoid, "log_inv_logit": ad.LogSigmoid,
	"relu": ad.Relu, "lgamma": ad.Lgamma, "digamma": ad.Digamma,
}

// reductions over every element of a row: along one axis (for the batched
// [B, -1] view) and over everything (unbatched).
var reductions = map[string]struct {
	along func(*ad.Node, int) *ad.Node
	all   func(*ad.Node) *ad.Node
}{
	"sum":         {ad.Sum, ad.SumAll},
	"mean":        {ad.Mean, ad.MeanAll},
	"max":         {ad.Max, ad.MaxAll},
	"log_sum_exp": {ad.LogSumExp, ad.LogSumExpAll},
}

var functions = map[string]function{}

func init() {
	for name, f := range unaryFunctions {
		functions[name] = function{params: []string{"x"}, build: func(_ *builder, a []value) value {
			return value{node: f(a[0].node), batched: a[0].batched}
		}}
	}
	for name, r := range reductions {
		all, along := r.all, r.along
		functions[name] = function{params: []string{"x"}, build: func(b *builder, a []value) value {
			if !a[0].batched {
				return value{node: all(a[0].node)}
			}
			if a[0].rowRank() == 0 {
				return a[0]
			}
			return value{node: along(ad.Reshape(a[0].node, b.batch, -1), 1), batched: true}
		}}
	}
	// variance and sd are the sample's, with n - 1 (Stan's): over every
	// element, or over each row's in a plate body.
	spread := func(sd bool) function {
		return function{params: []string{"x"}, build: func(b *builder, a []value) value {
			x, batched := a[0].node, a[0].batched
			if batched {
				x = ad.Reshape(x, b.batch, -1)
			} else {
				x = ad.Reshape(x, 1, -1)
			}
			n := x.Shape()[1]
			if n < 2 {
				return value{node: b.g.Fail(nil, "a variance needs at least 2 values, and this has %d", n)}
			}
			dev := ad.Sub(x, ad.Reshape(ad.Mean(x, 1), -1, 1))
			v := ad.Mul(ad.Sum(ad.Square(dev), 1), b.g.Scalar(1/float64(n-1)))
			if sd {
				v = ad.Sqrt(v)
			}
			if !batched {
				v = ad.Reshape(v)
			}
			return value{node: v, batched: batched}
		}}
	}
	functions["variance"], functions["sd"] = spread(false), spread(true)
	for name, f := range map[string]func(*ad.Node, int) *ad.Node{"softmax": ad.Softmax, "log_softmax": ad.LogSoftmax} {
		functions[name] = function{params: []string{"x"}, build: func(_ *builder, a []value) value {
			return value{node: f(a[0].node, -1), batched: a[0].batched}
		}}
	}
	functions["pi"] = function{build: func(b *builder, _ []value) value {
		return value{node: b.g.Scalar(math.Pi)}
	}}
	functions["pow"] = function{params: []string{"x", "y"}, build: func(b *builder, a []value) value {
		n := b.align(a)
		return value{node: ad.Pow(n[0], n[1]), batched: anyBatched(a)}
	}}
	// if_else(cond, a, b) is a where cond is nonzero, else b, elementwise:
	// Stan's conditional operator as a function, whose gradient goes to the
	// branch chosen.
	functions["if_else"] = function{params: []string{"cond", "a", "b"}, intIf: []int{1, 2}, build: func(b *builder, a []value) value {
		n := b.align(a)
		return value{node: ad.IfElse(n[0], n[1], n[2]), batched: anyBatched(a)}
	}}
	// log_mix(theta, lp1, lp2) is Stan's two-component mixture of log
	// densities, log(θ e^lp1 + (1-θ) e^lp2), computed stably; with two
	// arguments, log_mix(theta, lps), the K-component one (logMixK).
	functions["log_mix"] = function{params: []string{"theta", "lp1", "lp2"}, optional: 1, build: func(b *builder, a []value) value {
		if len(a) == 2 {
			return b.logMixK(a[0], a[1])
		}
		n := b.align(a)
		return value{node: stdlib.LogMix(n[0], n[1], n[2]), batched: anyBatched(a)}
	}}
	functions["dot"] = function{params: []string{"x", "y"}, build: func(b *builder, a []value) value {
		// Judged on the shapes the user wrote (one row of a plate), so that
		// the minibatch's axis never shows in the message.
		x, y := rowShape(a[0].node.Shape(), a[0].batched), rowShape(a[1].node.Shape(), a[1].batched)
		if len(x) == 0 || len(y) == 0 || x[len(x)-1] != y[len(y)-1] {
			return value{node: b.g.Fail(nil, "dot of %s and %s: the last dimensions must agree", shapeString(x), shapeString(y))}
		}
		n := b.align(a)
		return value{node: ad.Dot(n[0], n[1]), batched: anyBatched(a)}
	}}
	// transpose swaps a matrix's two axes (of one row's value in a plate);
	// diag_pre_multiply(v, M) is diag(v)·M, each row i of M times v[i],
	// and diag_post_multiply(M, v) is M·diag(v): Stan's, for building a
	// covariance's Cholesky factor from scales and a correlation's.
	functions["transpose"] = function{params: []string{"x"}, build: func(b *builder, a []value) value {
		x := a[0]
		if x.rowRank() != 2 {
			return value{node: b.g.Fail(nil, "transpose takes a matrix, and this has shape %s", shapeString(rowShape(x.node.Shape(), x.batched)))}
		}
		perm := []int{1, 0}
		if x.batched {
			perm = []int{0, 2, 1}
		}
		return value{node: ad.Transpose(x.node, perm...), batched: x.batched}
	}}
	functions["diag_pre_multiply"] = function{params: []string{"v", "M"}, build: func(b *builder, a []value) value {
		v, m := a[0], a[1]
		vs, ms := rowShape(v.node.Shape(), v.batched), rowShape(m.node.Shape(), m.batched)
		if len(vs) != 1 || len(ms) != 2 || vs[0] != ms[0] {
			return value{node: b.g.Fail(nil, "diag_pre_multiply takes a vector [K] and a matrix [K, M], got %s and %s", shapeString(vs), shapeString(ms))}
		}
		col := ad.Reshape(v.node, append(v.node.Shape(), 1)...) // v as a column
		n := b.align([]value{{node: col, batched: v.batched}, m})
		return value{node: ad.Mul(n[0], n[1]), batched: v.batched || m.batched}
	}}
	functions["diag_post_multiply"] = function{params: []string{"M", "v"}, build: func(b *builder, a []value) value {
		m, v := a[0], a[1]
		ms, vs := rowShape(m.node.Shape(), m.batched), rowShape(v.node.Shape(), v.batched)
		if len(vs) != 1 || len(ms) != 2 || vs[0] != ms[1] {
			return value{node: b.g.Fail(nil, "diag_post_multiply takes a matrix [M, K] and a vector [K], got %s and %s", shapeString(ms), shapeString(vs))}
		}
		n := b.align(a)
		return value{node: ad.Mul(n[0], n[1]), batched: anyBatched(a)}
	}}
	matmul := function{params: []string{"x", "y"}, build: func(b *builder, a []value) value {
		return b.product(a[0], a[1])
	}}
	functions["matmul"] = matmul
	functions["dense"] = function{params: []string{"x", "W", "b"}, build: func(b *builder, a []value) value {
		prod := matmul.build(b, a[:2])
		n := b.align([]value{prod, a[2]})
		return value{node: ad.Add(n[0], n[1]), batched: prod.batched || a[2].batched}
	}}
}

func (b *builder) call(e *lang.Call) value {
	if f := b.m.file.Function(e.Func); f != nil {
		return b.userCall(e, f)
	}
	if lang.IsODESolver(e.Func) {
		return b.odeCall(e)
	}
	if lang.IsDensityCall(e.Func) {
		return b.densityCall(e)
	}
	f, ok := functions[e.Func]
	if e.Func == lkjRNG || e.Func == lkjCorrRNG {
		return b.lkjCall(e)
	}
	if !ok && isRNG(e.Func) {
		return b.rngCall(e)
	}
	if !ok {
		return b.fail(e.Pos, "unknown function %q", e.Func)
	}
	if f.alt != nil && len(e.Args) == len(f.alt.params) {
		f = *f.alt
	}
	if len(e.Args) > len(f.params) || len(e.Args) < len(f.params)-f.optional {
		return b.fail(e.Pos, "%s takes %d arguments, got %d", e.Func, len(f.params), len(e.Args))
	}
	arrays := len(f.params) - f.settings
	args := make([]value, min(len(e.Args), arrays))
	for i, a := range e.Args[:len(args)] {
		args[i] = b.expr(a)
	}
	if b.err != nil {
		return value{}
	}
	if f.layer == nil {
		return f.build(b, args)
	}
	settings := make([]int, len(e.Args)-arrays)
	for i := range settings {
		arg := e.Args[arrays+i]
		v, err := b.constInt(arg)
		if err != nil {
			return b.fail(lang.StartPos(arg), "the %s of %s must be a constant, an int literal or an int data scalar: %v", f.params[arrays+i], e.Func, err)
		}
		settings[i] = v
	}
	return f.layer(b, args, settings)
}

// signature is f's for the checker.
func (f function) signature() lang.Signature {
	sig := lang.Signature{Params: slices.Clone(f.params), Int: make([]bool, len(f.params)), IntIf: slices.Clone(f.intIf),
		Optional: f.optional, Ranks: slices.Clone(f.ranks), IntResult: f.intResult}
	for i := len(f.params) - f.settings; i < len(f.params); i++ {
		sig.Int[i] = true
	}
	return sig
}

// Env is what the checker may call: stdlib's distributions and the model
// language's functions.
func Env() *lang.Env {
	env := &lang.Env{Distributions: map[string]lang.Signature{}, Functions: map[string]lang.Signature{}}
	for _, name := range stdlib.Names() {
		d, _ := stdlib.Lookup(name)
		env.Distributions[name] = lang.Signature{Params: d.Args, Int: d.Int, Outside: d.Outside}
		env.Functions[densityName(name, d)] = lang.Signature{Params: d.Args, Int: d.Int}
	}
	for _, name := range stdlib.LogCDFNames() {
		d, _ := stdlib.Lookup(name)
		for _, suffix := range cdfSuffixes {
			env.Functions[name+suffix] = lang.Signature{Params: d.Args, Int: d.Int}
		}
	}
	for name, f := range functions {
		sig := f.signature()
		if f.alt != nil {
			alt := f.alt.signature()
			sig.Alt = &alt
		}
		env.Functions[name] = sig
	}
	for _, name := range stdlib.RNGNames() {
		g, _ := stdlib.LookupRNG(name)
		env.Functions[name+"_rng"] = lang.Signature{Params: g.Args, Int: g.Int, IntResult: g.IntOut, Random: true}
	}
	for _, name := range []string{lkjRNG, lkjCorrRNG} {
		env.Functions[name] = lang.Signature{Params: []string{"K", "eta"}, Int: []bool{true, false}, Random: true}
	}
	return env
}

// densityName is Stan's name of a distribution's log density as a
// function: NAME_lpmf for a discrete variate, NAME_lpdf otherwise.
func densityName(name string, d stdlib.Distribution) string {
	if len(d.Int) > 0 && d.Int[0] {
		return name + "_lpmf"
	}
	return name + "_lpdf"
}

// densityCall compiles NAME_lpdf(y | θ) (or _lpmf), Stan's log density as
// an expression: the ~ statement y ~ NAME(θ)'s terms, summed over y's
// elements, each row of a plate apart (one value a row, as a ~ statement
// in the plate counts it), for target += and for the log_lik of mixtures.
func (b *builder) densityCall(e *lang.Call) value {
	for _, suffix := range cdfSuffixes {
		if strings.HasSuffix(e.Func, suffix) {
			return b.logCDFCall(e, suffix)
		}
	}
	base := strings.TrimSuffix(strings.TrimSuffix(e.Func, "_lpdf"), "_lpmf")
	d, ok := stdlib.Lookup(base)
	switch {
	case !ok || densityName(base, d) != e.Func: // the checker names the right one
		return b.fail(e.Pos, "unknown function %q", e.Func)
	case len(e.Args) == 0:
		return b.fail(e.Pos, "%s takes the value whose density it is, then %d parameters: %s(y | ...)", e.Func, len(d.Args)-1, e.Func)
	}
	v := b.sample(&lang.Sample{Pos: e.Pos, Lhs: e.Args[0], Dist: base, DistPos: e.Pos, Args: e.Args[1:]})
	if b.err != nil {
		return value{}
	}
	return b.sumTerms(v)
}

// sumTerms sums a log density's elementwise terms over the variate's
// elements, each row of a plate apart.
func (b *builder) sumTerms(v value) value {
	if v.batched {
		n := v.node
		if len(n.Shape()) > 1 {
			n = ad.Sum(ad.Reshape(n, b.batch, -1), 1)
		}
		return value{node: n, batched: true}
	}
	return value{node: stdlib.SumAll(v.node)}
}

// cdfSuffixes are the names of a distribution's CDFs as functions.
var cdfSuffixes = []string{"_lcdf", "_lccdf", "_cdf"}

// logCDFCall compiles NAME_lcdf(y | θ) = log P(Y ≤ y) and NAME_lccdf(y |
// θ) = log P(Y > y), summed as densityCall sums: a censored observation's
// likelihood, target += normal_lccdf(c | mu, sigma); and NAME_cdf(y | θ),
// Stan's product of P(Y ≤ y) over y's elements, as the exponential of
// that sum (each row of a plate its own).
func (b *builder) logCDFCall(e *lang.Call, suffix string) value {
	c, ok := stdlib.LookupLogCDF(strings.TrimSuffix(e.Func, suffix))
	if !ok {
		return b.fail(e.Pos, "unknown function %q", e.Func)
	}
	if len(e.Args) != len(c.Args)+1 {
		return b.fail(e.Pos, "%s takes the value, then %d parameters: %s(y | %s)", e.Func, len(c.Args), e.Func, strings.Join(c.Args, ", "))
	}
	vals := make([]value, len(e.Args))
	for i, a := range e.Args {
		vals[i] = b.expr(a)
	}
	if b.err != nil {
		return value{}
	}
	f := c.Lower
	if suffix == "_lccdf" {
		f = c.Upper
	}
	out := value{node: ad.Elementwise(f, b.align(vals)...), batched: anyBatched(vals)}
	if !b.check(e.Pos) {
		return value{}
	}
	sum := b.sumTerms(out)
	if suffix == "_cdf" {
		sum.node = ad.Exp(sum.node)
	}
	return sum
}

// lkjRNG and lkjCorrRNG draw variates whose shape is an argument's value
// (lkjCall).
const (
	lkjRNG     = "lkj_corr_cholesky_rng"
	lkjCorrRNG = "lkj_corr_rng"
)

// isRNG reports whether name is a distribution's random number generator.
func isRNG(name string) bool {
	_, ok := stdlib.LookupRNG(strings.TrimSuffix(name, "_rng"))
	return ok && strings.HasSuffix(name, "_rng")
}
