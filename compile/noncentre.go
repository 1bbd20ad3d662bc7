package compile

import (
	"github.com/temper-ppl/temper/lang"
)

// NonCentred is the model with each centred hierarchy rewritten to be
// sampled non-centred, and the parameters rewritten; it is m itself, with
// none, when there are none. A centred hierarchy is a parameter x declared
// real, without bounds, offset or multiplier, whose one prior statement is
// `x ~ normal(mu, tau)` at the top of the model block, with tau using a
// parameter: it becomes x: real<offset=mu, multiplier=tau> (Stan's affine
// transform), which leaves the posterior as it was (the log-Jacobian
// log tau per element makes the density the hand-written non-centred
// one's) and takes the funnel between x and tau out of the sampler's
// coordinates: NumPyro's LocScaleReparam at centring 0. A rewrite that the
// checker refuses (mu or tau use a parameter declared after x) is not
// made.
func (m *Model) NonCentred() (*Model, []string, error) {
	f := m.file
	if f.Param == nil || f.Model == nil {
		return m, nil, nil
	}
	params := map[string]bool{}
	for _, d := range f.Param.Decls {
		params[d.Name] = true
	}
	priors := map[string][]*lang.Sample{}
	var order []string
	for _, s := range f.Model.Stmts {
		if smp, ok := s.(*lang.Sample); ok {
			if name := identName(smp.Lhs); params[name] {
				if priors[name] == nil {
					order = append(order, name)
				}
				priors[name] = append(priors[name], smp)
			}
		}
	}
	var rewritten []string
	current := f
	for _, name := range order {
		s := priors[name]
		if len(s) != 1 || s[0].Dist != "normal" || len(s[0].Args) != 2 || s[0].Trunc != nil || !usesAny(s[0].Args[1], params) {
			continue
		}
		next, ok := withAffine(current, name, s[0].Args[0], s[0].Args[1])
		if !ok {
			continue
		}
		if _, err := lang.Check(next, Env()); err != nil {
			continue
		}
		current = next
		rewritten = append(rewritten, name)
	}
	if len(rewritten) == 0 {
		return m, nil, nil
	}
	nm, err := Compile(current, m.input)
	if err != nil {
		return nil, nil, err
	}
	return nm, rewritten, nil
}

// withAffine is f with parameter name declared with offset and multiplier,
// if it is a plain real without bounds; the rest of f is shared.
func withAffine(f *lang.File, name string, offset, multiplier lang.Expr) (*lang.File, bool) {
	out := *f
	block := *f.Param
	block.Decls = append([]*lang.Decl(nil), f.Param.Decls...)
	for i, d := range block.Decls {
		t := d.Type
		if d.Name != name {
			continue
		}
		if t.Int || t.Kind != "" || t.Lower != nil || t.Upper != nil || t.Offset != nil || t.Multiplier != nil {
			return nil, false
		}
		nt := *t
		nt.Offset, nt.Multiplier = offset, multiplier
		nd := *d
		nd.Type = &nt
		block.Decls[i] = &nd
		out.Param = &block
		for j, b := range out.Blocks {
			if b == f.Param {
				out.Blocks = append([]*lang.Block(nil), f.Blocks...)
				out.Blocks[j] = &block
			}
		}
		return &out, true
	}
	return nil, false
}

// usesAny reports whether e names any of names (or holds an expression
// this walk does not know, to be safe).
func usesAny(e lang.Expr, names map[string]bool) bool {
	switch e := e.(type) {
	case *lang.Ident:
		return names[e.Name]
	case *lang.Number:
		return false
	case *lang.Unary:
		return usesAny(e.X, names)
	case *lang.Binary:
		return usesAny(e.L, names) || usesAny(e.R, names)
	case *lang.Call:
		for _, a := range e.Args {
			if usesAny(a, names) {
				return true
			}
		}
		return false
	case *lang.Index:
		if usesAny(e.X, names) {
			return true
		}
		for _, it := range e.Items {
			if it.Lo != nil && usesAny(it.Lo, names) || it.Hi != nil && usesAny(it.Hi, names) {
				return true
			}
		}
		return false
	}
	return true
}
