package compile

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// part selects the terms of the energy a Model builds: all of them, or the
// prior's or the likelihood's alone (PowerParts).
type part int

const (
	whole part = iota
	priorPart
	likelihoodPart
	// logLikPart is the likelihood's terms of each row of the plate, for
	// the pointwise log-likelihood (loglik.go): the data's ~ statements
	// and the target += terms, without the priors and the Jacobians.
	logLikPart
)

// powerSplit is what PowerParts found of the model: which ~ statements are
// the prior's, and the constant that normalises the prior where a bound
// truncates it.
type powerSplit struct {
	prior map[*lang.Sample]bool
	// logMass is Σ log(mass inside the bounds) over the truncated priors'
	// values: the prior's energy adds it, so that U₀ = -log p(θ) of the
	// truncated (normalised) prior.
	logMass float64
}

// keeps reports whether the energy m builds has the ~ statement s.
func (m *Model) keeps(s *lang.Sample) bool {
	switch m.part {
	case priorPart:
		return m.power.prior[s]
	case likelihoodPart, logLikPart:
		return !m.power.prior[s]
	}
	return true
}

var _ infer.PowerTarget = (*Model)(nil)

// PowerParts splits the energy for the power-posterior path (path =
// power) into the prior's U₀, normalised, and the likelihood's U₁:
// U₀ + U₁ = U + logMass, where logMass (0 unless a bound truncates a
// prior) is the log of the truncated priors' mass inside the bounds. The
// parts are copies of m on the same θ, with m's output columns: the
// likelihood minibatches as m does (its plate terms scaled N/B), and the
// prior is exact (NumData 0; a parameter indexed by the plate has every
// row's prior).
//
// The rule that tells them apart is the left side of each ~ statement of
// the model block: one that depends on a parameter (a declared parameter,
// a transformed parameter, or a definition computed from them) is the
// prior's, and one of data alone the likelihood's, in a plate or not. The
// constraining transforms' log-Jacobians are the prior's.
//
// U₀ must be a normalised density of θ, or log Z has no meaning; so the
// split is refused, with the reason, where that cannot be made sure of:
//   - a target += statement (it could be either part);
//   - a prior whose left side is not a parameter, or an element or slice
//     of one indexed by numbers, data scalars or the plate index (a
//     density on a function of the parameters lacks its Jacobian; the
//     left side y - mu is such a function);
//   - a parameter value that no prior covers (a flat, improper prior), or
//     that two cover (a product of densities), or a prior inside the plate
//     not indexed by it (counted once per row);
//   - priors that depend on each other (mu ~ normal(nu, 1), nu ~ normal(mu,
//     1)), or on the parameter itself (x[2:K] ~ normal(x[1:K-1], s), whose
//     elements' order is not followed here): only a product of
//     conditionals along an acyclic graph is normalised;
//   - a density not known to be normalised on the parameter's support: the
//     scalar continuous densities on a real, multi_normal* on an unbounded
//     real vector, dirichlet on a simplex and lkj_corr_cholesky on a
//     cholesky_factor_corr are; other constrained types have none;
//   - a bound that cuts the support of the prior (Stan's convention
//     truncates it there) where the mass inside is unknown: a bound that
//     is not constant, arguments that are not numbers or data scalars, or
//     a density without a CDF here. Where it is known, -log(mass) per
//     value renormalises the truncated prior.
func (m *Model) PowerParts() (prior, likelihood infer.Target, err error) {
	if m.part != whole {
		return nil, nil, fmt.Errorf("this model is already one part of a power split")
	}
	s, err := m.powerSplit()
	if err != nil {
		return nil, nil, err
	}
	p, l := *m, *m
	p.part, p.power = priorPart, s
	l.part, l.power = likelihoodPart, s
	for _, x := range []*Model{&p, &l} { // as Compile does: errors now, not at the first step
		if _, err := x.build(1, min(m.n, 2)); err != nil {
			return nil, nil, err
		}
	}
	return &p, &l, nil
}

// powerCheck walks the transformed parameters and the model block for
// PowerParts.
type powerCheck struct {
	m      *Model
	params map[string]*param
	deps   map[string]map[string]bool     // the parameters each name depends on
	cover  map[string][]*lang.Sample      // each parameter value's prior
	edges  map[string]map[string]lang.Pos // prior of x depends on y, at
	// refused are the parameters of a prior refused before the values it
	// covers were known: not reported again as without a prior.
	refused map[string]bool
	split   *powerSplit
	errs    []error
}

func (m *Model) powerSplit() (*powerSplit, error) {
	c := &powerCheck{m: m, params: map[string]*param{}, deps: map[string]map[string]bool{},
		cover: map[string][]*lang.Sample{}, edges: map[string]map[string]lang.Pos{}, refused: map[string]bool{},
		split: &powerSplit{prior: map[*lang.Sample]bool{}}}
	for _, p := range m.params {
		name := p.decl.Name
		c.params[name] = p
		c.deps[name] = map[string]bool{name: true}
		c.cover[name] = make([]*lang.Sample, sizeOf(p.shape))
		c.edges[name] = map[string]lang.Pos{}
	}
	if b := m.file.TransformedParam; b != nil {
		c.walk(b.Stmts, "")
	}
	if b := m.file.Model; b != nil {
		c.walk(b.Stmts, "")
	}
	c.uncovered()
	c.cycles()
	return c.split, errors.Join(c.errs...)
}

func (c *powerCheck) errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
}

func (c *powerCheck) walk(stmts []lang.Stmt, plateIx string) {
	for _, s := range stmts {
		switch s := s.(type) {
		case *lang.Define:
			c.deps[s.Name] = c.depsOf(s.Value)
		case *lang.TargetAdd:
			c.errorf("path = power needs the prior and the likelihood told apart; target += at %s could be either: write it as a ~ statement", s.Pos)
		case *lang.Plate:
			c.walk(s.Body, s.Index)
		case *lang.LocalDecl, *lang.Assign, *lang.For, *lang.If, *lang.While:
			c.errorf("path = power does not yet take local variables, loops or ifs (at %s): it must see which values each prior covers", s.Position())
		case *lang.Sample:
			if s.Trunc != nil && len(c.depsOf(s.Lhs)) > 0 {
				c.errorf("path = power does not yet take a truncated prior (T[L, U] at %s): declare the parameter's bounds instead, which the prior's mass is computed from", s.Trunc.Pos)
				continue
			}
			if len(c.depsOf(s.Lhs)) > 0 {
				c.split.prior[s] = true
				c.prior(s, plateIx)
			}
		}
	}
}

// depsOf is the set of parameters e depends on.
func (c *powerCheck) depsOf(e lang.Expr) map[string]bool {
	out := map[string]bool{}
	lang.WalkExpr(e, func(e lang.Expr) {
		if id, ok := e.(*lang.Ident); ok {
			for p := range c.deps[id.Name] {
				out[p] = true
			}
		}
	})
	return out
}

// prior checks the prior statement s, inside the plate of index plateIx
// if that is set, and records the values it covers, its truncation's mass
// and the parameters it depends on.
func (c *powerCheck) prior(s *lang.Sample, plateIx string) {
	p, items := c.lhsParam(s.Lhs)
	if p == nil {
		for d := range c.depsOf(s.Lhs) {
			c.refused[d] = true
		}
		c.errorf("the left side of ~ at %s, %s, depends on parameters but is not a parameter: path = power takes a ~ statement with a parameter (or an element or slice of one) on its left for the prior and one with data alone on its left for the likelihood, and a density of another function of the parameters is not a normalised prior (it lacks the Jacobian): write it as data ~ dist(...) or parameter ~ dist(...)",
			s.Pos, exprString(s.Lhs))
		return
	}
	name := p.decl.Name
	byPlate := len(items) > 0 && !items[0].Slice && identName(items[0].Lo) == plateIx && plateIx != ""
	if plateIx != "" && !byPlate {
		c.refused[name] = true
		c.errorf("the prior of %s at %s is inside the plate, where it counts once per row, so it is not a normalised prior: move it out of the plate, or index %s by the plate index %s", name, s.Pos, name, plateIx)
		return
	}
	sel, why := c.selection(p, items, plateIx)
	if why != "" {
		c.refused[name] = true
		c.errorf("the prior of %s at %s: %s: path = power must see which values of %s each prior covers", name, s.Pos, why, name)
		return
	}
	for _, i := range sel {
		if prev := c.cover[name][i]; prev != nil {
			c.errorf("parameter %s has two priors on %s (at %s and %s): their product is not a normalised density: give each value one prior",
				name, draws.FlatNames(name, p.shape)[i], prev.Pos, s.Pos)
			return
		}
		c.cover[name][i] = s
	}
	logMass, err := c.logMass(s, p)
	if err != nil {
		c.errs = append(c.errs, err)
		return
	}
	c.split.logMass += float64(len(sel)) * logMass
	for _, a := range s.Args {
		for d := range c.depsOf(a) {
			if _, ok := c.edges[name][d]; !ok {
				c.edges[name][d] = s.Pos
			}
		}
	}
}

// lhsParam returns the parameter that e is, or indexes, and the index
// items; nil if e is neither.
func (c *powerCheck) lhsParam(e lang.Expr) (*param, []lang.IndexItem) {
	var items []lang.IndexItem
	if ix, ok := e.(*lang.Index); ok {
		e, items = ix.X, ix.Items
	}
	id, ok := e.(*lang.Ident)
	if !ok {
		return nil, nil
	}
	return c.params[id.Name], items
}

// selection returns the row-major positions of p's values that the index
// items select (all of them for none), or why it cannot tell.
func (c *powerCheck) selection(p *param, items []lang.IndexItem, plateIx string) ([]int, string) {
	if p.kind != nil && len(items) > len(p.decl.Type.Dims) {
		return nil, fmt.Sprintf("it indexes inside a %s, whose values have a prior only together", p.decl.Type.Kind)
	}
	if len(items) > len(p.shape) {
		return nil, "it has more indices than the parameter has axes"
	}
	axes := make([][]int, len(p.shape))
	for a, n := range p.shape {
		lo, hi := 1, n
		if a < len(items) {
			it := items[a]
			var err error
			switch {
			case !it.Slice && a == 0 && plateIx != "" && identName(it.Lo) == plateIx:
			case !it.Slice:
				if lo, err = c.m.constInt(it.Lo); err != nil {
					return nil, fmt.Sprintf("its index %s is not a number, a data scalar or the plate index", exprString(it.Lo))
				}
				hi = lo
			default:
				if it.Lo != nil {
					if lo, err = c.m.constInt(it.Lo); err != nil {
						return nil, fmt.Sprintf("its slice's start %s is not a number or a data scalar", exprString(it.Lo))
					}
				}
				if it.Hi != nil {
					if hi, err = c.m.constInt(it.Hi); err != nil {
						return nil, fmt.Sprintf("its slice's end %s is not a number or a data scalar", exprString(it.Hi))
					}
				}
			}
		}
		if lo < 1 || hi > n || lo > hi {
			return nil, fmt.Sprintf("its index %d:%d is out of range 1..%d", lo, hi, n)
		}
		for i := lo; i <= hi; i++ {
			axes[a] = append(axes[a], i-1)
		}
	}
	sel := []int{0}
	for a, ix := range axes {
		next := make([]int, 0, len(sel)*len(ix))
		for _, base := range sel {
			for _, i := range ix {
				next = append(next, base*p.shape[a]+i)
			}
		}
		sel = next
	}
	return sel, ""
}

// uncovered reports the parameter values that no prior covers.
func (c *powerCheck) uncovered() {
	for _, p := range c.m.params {
		name := p.decl.Name
		var missing []int
		for i, s := range c.cover[name] {
			if s == nil {
				missing = append(missing, i)
			}
		}
		switch {
		case len(missing) == 0 || c.refused[name]:
		case len(missing) == len(c.cover[name]):
			c.errorf("parameter %s has no prior, so its prior has no normalising constant and log Z is undefined: give it a proper prior", name)
		default:
			more := ""
			if len(missing) > 1 {
				more = fmt.Sprintf(" and %d more of its %d values", len(missing)-1, len(c.cover[name]))
			}
			c.errorf("parameter %s has no prior on %s%s, so its prior has no normalising constant and log Z is undefined: give every value a proper prior",
				name, draws.FlatNames(name, p.shape)[missing[0]], more)
		}
	}
}

// cycles reports priors that depend on each other: the product of
// conditional densities is normalised only along an acyclic graph.
func (c *powerCheck) cycles() {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(string) bool
	visit = func(x string) bool {
		state[x] = open
		stack = append(stack, x)
		for _, p := range c.m.params { // in declaration order, for a stable message
			y := p.decl.Name
			at, ok := c.edges[x][y]
			if !ok {
				continue
			}
			switch state[y] {
			case open:
				i := len(stack) - 1
				for stack[i] != y {
					i--
				}
				cycle := append(append([]string(nil), stack[i:]...), y)
				if len(cycle) == 2 {
					c.errorf("the prior of %s at %s depends on %s itself, so it is not a normalised density and log Z is undefined: give %s a prior whose arguments do not use it (path = power does not follow one element's dependence on another, as in a random walk)", x, at, x, x)
				} else {
					c.errorf("the priors of %s depend on each other (%s), so their product is not a normalised density and log Z is undefined: give one of them a prior that does not depend on the others",
						strings.Join(stack[i:], ", "), strings.Join(cycle, " ← "))
				}
				return true
			case unseen:
				if visit(y) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[x] = done
		return false
	}
	for _, p := range c.m.params {
		if state[p.decl.Name] == unseen && visit(p.decl.Name) {
			return
		}
	}
}

// logMass checks that s's distribution is a normalised density of p's
// values on p's support and returns the log of its mass inside p's
// bounds: 0 where they hold the whole support.
func (c *powerCheck) logMass(s *lang.Sample, p *param) (float64, error) {
	name, t := p.decl.Name, p.decl.Type
	if p.kind != nil {
		want := map[lang.TypeKind]string{lang.Simplex: "dirichlet", lang.CholeskyFactorCorr: "lkj_corr_cholesky"}[t.Kind]
		if want == "" {
			return 0, fmt.Errorf("parameter %s is declared %s, for which path = power knows no normalised prior (it knows dirichlet on a simplex and lkj_corr_cholesky on a cholesky_factor_corr): the prior at %s is not known to be normalised", name, t.Kind, s.Pos)
		}
		if s.Dist != want {
			return 0, fmt.Errorf("the prior of %s at %s is %s, which is not a normalised density on a %s: give it a %s prior", name, s.Pos, s.Dist, t.Kind, want)
		}
		return 0, nil
	}
	dist, _ := stdlib.Lookup(s.Dist)
	lo, hi := c.m.constBound(t.Lower, math.Inf(-1)), c.m.constBound(t.Upper, math.Inf(1))
	law, known := priorLaws[s.Dist]
	switch {
	case s.Dist == "multi_normal" || s.Dist == "multi_normal_diag" || s.Dist == "multi_normal_cholesky":
		if !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
			return 0, fmt.Errorf("the prior of %s at %s is %s, but %s is bounded (%s), which truncates it to a region whose mass path = power cannot compute: declare %s without bounds, or give its values scalar priors", name, s.Pos, s.Dist, name, boundsString(t), name)
		}
		return 0, nil
	case s.Dist == "von_mises":
		return 0, fmt.Errorf("the prior of %s at %s is von_mises, which is normalised over one turn of the circle, not over %s's values: path = power needs a normalised prior", name, s.Pos, name)
	case len(dist.Int) > 0 && dist.Int[0]:
		return 0, fmt.Errorf("the prior of %s at %s is %s, a distribution of integers, not a density of the real parameter %s: give it a continuous prior", name, s.Pos, s.Dist, name)
	case s.Dist == "dirichlet" || s.Dist == "lkj_corr_cholesky":
		kind := map[string]string{"dirichlet": "simplex", "lkj_corr_cholesky": "cholesky_factor_corr"}[s.Dist]
		return 0, fmt.Errorf("the prior of %s at %s is %s, which is a normalised density only on a %s: declare %s a %s", name, s.Pos, s.Dist, kind, name, kind)
	case !known:
		return 0, fmt.Errorf("the prior of %s at %s is %s, which path = power does not know to be a normalised density of a real parameter: give %s a scalar continuous prior (normal, student_t, gamma, ...) or multi_normal", name, s.Pos, s.Dist, name)
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return 0, nil
	case math.IsNaN(lo) || math.IsNaN(hi):
		return 0, fmt.Errorf("the bounds of %s (%s) depend on parameters, so the mass of its prior %s at %s inside them, the prior's normalising constant, is not known: give %s constant bounds", name, boundsString(t), s.Dist, s.Pos, name)
	}
	args := make([]float64, len(s.Args))
	constant := true
	for i, a := range s.Args {
		v, err := c.m.constReal(a)
		args[i], constant = v, constant && err == nil
	}
	sLo, sHi := law.lo, law.hi
	if s.Dist == "uniform" {
		sLo, sHi = args[0], args[1]
	}
	if (s.Dist != "uniform" || constant) && lo <= sLo && hi >= sHi {
		return 0, nil
	}
	if law.loc >= 0 && math.IsInf(lo, -1) != math.IsInf(hi, 1) {
		if at, err := c.m.constReal(s.Args[law.loc]); err == nil && (at == lo || at == hi) {
			return math.Log(0.5), nil // cut at its centre
		}
	}
	if !constant || law.cdf == nil {
		why := fmt.Sprintf("the mass left inside them, the prior's normalising constant, changes with %s's arguments, which are not all numbers or data scalars: give %s constant arguments, or give %s a prior whose support lies inside its bounds",
			s.Dist, s.Dist, name)
		if constant {
			why = fmt.Sprintf("path = power has no CDF of %s to compute the mass left inside them: give %s a prior whose support lies inside its bounds, or one with a CDF here (normal, student_t, cauchy, gamma, lognormal, beta, ...)", s.Dist, name)
		}
		return 0, fmt.Errorf("the bounds of %s (%s) cut the support of its prior %s at %s (Stan's convention truncates the prior there), and %s",
			name, boundsString(t), s.Dist, s.Pos, why)
	}
	mass := law.mass(args, lo, hi)
	if !(mass > 0) {
		return 0, fmt.Errorf("the prior %s at %s has no mass inside the bounds of %s (%s): give %s a prior with mass there", s.Dist, s.Pos, name, boundsString(t), name)
	}
	return math.Log(mass), nil
}

func boundsString(t *lang.Type) string {
	var parts []string
	if t.Lower != nil {
		parts = append(parts, "lower="+lang.ExprString(t.Lower))
	}
	if t.Upper != nil {
		parts = append(parts, "upper="+lang.ExprString(t.Upper))
	}
	return "<" + strings.Join(parts, ", ") + ">"
}

// priorLaw is what path = power knows of a scalar density as a prior: its
// support [lo, hi] (uniform's is its arguments), and its distribution
// function at finite x, P(X ≤ x) and P(X > x) each computed directly so
// that a mass in either tail keeps its digits; nil where there is none
// here. A density symmetric about a location argument has loc = its
// index in the arguments after the variate (else no location, -1): cut at
// that location it has mass ½ whatever its other arguments, so that
// sigma ~ normal(0, tau) with sigma's lower bound 0 is normalised.
type priorLaw struct {
	lo, hi float64
	cdf    func(x float64, a []float64) (below, above float64)
	loc    int
}

// mass is P(lo < X < hi) for the arguments a.
func (l priorLaw) mass(a []float64, lo, hi float64) float64 {
	fLo, sLo, fHi, sHi := 0.0, 1.0, 1.0, 0.0
	if !math.IsInf(lo, -1) {
		fLo, sLo = l.cdf(lo, a)
	}
	if !math.IsInf(hi, 1) {
		fHi, sHi = l.cdf(hi, a)
	}
	if fLo < 0.5 {
		return fHi - fLo
	}
	return sLo - sHi
}

var inf = math.Inf(1)

// priorLaws are the scalar continuous densities of stdlib, all of which
// include their normalising constants.
var priorLaws = map[string]priorLaw{
	"normal": {lo: -inf, hi: inf, loc: 0, cdf: func(x float64, a []float64) (float64, float64) {
		return normalCDF((x - a[0]) / a[1])
	}},
	"student_t": {lo: -inf, hi: inf, loc: 1, cdf: func(x float64, a []float64) (float64, float64) {
		t := distuv.StudentsT{Nu: a[0], Mu: a[1], Sigma: a[2]}
		return t.CDF(x), t.Survival(x)
	}},
	"cauchy": {lo: -inf, hi: inf, loc: 0, cdf: func(x float64, a []float64) (float64, float64) {
		z := (x - a[0]) / a[1]
		return math.Atan2(1, -z) / math.Pi, math.Atan2(1, z) / math.Pi
	}},
	"logistic": {lo: -inf, hi: inf, loc: 0, cdf: func(x float64, a []float64) (float64, float64) {
		z := (x - a[0]) / a[1]
		return 1 / (1 + math.Exp(-z)), 1 / (1 + math.Exp(z))
	}},
	"double_exponential": {lo: -inf, hi: inf, loc: 0, cdf: func(x float64, a []float64) (float64, float64) {
		z := (x - a[0]) / a[1]
		if z < 0 {
			f := 0.5 * math.Exp(z)
			return f, 1 - f
		}
		s := 0.5 * math.Exp(-z)
		return 1 - s, s
	}},
	"skew_normal": {lo: -inf, hi: inf, loc: -1},
	"lognormal": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) {
		return normalCDF((math.Log(x) - a[0]) / a[1])
	})},
	"exponential": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) {
		return -math.Expm1(-a[0] * x), math.Exp(-a[0] * x)
	})},
	"gamma": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) { // rate a[1]
		return mathext.GammaIncReg(a[0], a[1]*x), mathext.GammaIncRegComp(a[0], a[1]*x)
	})},
	"inv_gamma": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) { // 1/X ~ gamma(a[0], a[1])
		return mathext.GammaIncRegComp(a[0], a[1]/x), mathext.GammaIncReg(a[0], a[1]/x)
	})},
	"weibull": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) {
		z := math.Pow(x/a[1], a[0])
		return -math.Expm1(-z), math.Exp(-z)
	})},
	"half_normal": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) {
		z := x / (a[0] * math.Sqrt2)
		return math.Erf(z), math.Erfc(z)
	})},
	"half_cauchy": {lo: 0, hi: inf, loc: -1, cdf: positive(func(x float64, a []float64) (float64, float64) {
		return 2 / math.Pi * math.Atan(x/a[0]), 2 / math.Pi * math.Atan(a[0]/x)
	})},
	"beta": {lo: 0, hi: 1, loc: -1, cdf: func(x float64, a []float64) (float64, float64) {
		switch {
		case x <= 0:
			return 0, 1
		case x >= 1:
			return 1, 0
		}
		return mathext.RegIncBeta(a[0], a[1], x), mathext.RegIncBeta(a[1], a[0], 1-x)
	}},
	"uniform": {lo: -inf, hi: inf, loc: -1, cdf: func(x float64, a []float64) (float64, float64) {
		f := min(max((x-a[0])/(a[1]-a[0]), 0), 1)
		return f, 1 - f
	}},
}

// positive is a distribution function on x > 0: no mass at or below 0.
func positive(cdf func(x float64, a []float64) (float64, float64)) func(x float64, a []float64) (float64, float64) {
	return func(x float64, a []float64) (float64, float64) {
		if x <= 0 {
			return 0, 1
		}
		return cdf(x, a)
	}
}

func normalCDF(z float64) (float64, float64) {
	return 0.5 * math.Erfc(-z/math.Sqrt2), 0.5 * math.Erfc(z/math.Sqrt2)
}
