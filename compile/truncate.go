package compile

import (
	"fmt"
	"math"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// truncate renormalises the elementwise log density lp of s's left side
// y (vals[0], then the distribution's arguments) to s's truncation T[L,
// U], Stan's: lp − log(F(U) − F(L)), computed in log space as
// log_diff_exp(lcdf(U), lcdf(L)); with a lower bound alone, lp −
// lccdf(L), with an upper one alone, lp − lcdf(U). For a discrete
// variate the lower bound's CDF is taken at L − 1, so that
// P(L ≤ y ≤ U) is normalised to one. An element of y outside [L, U]
// has log density −∞; where y and the bounds are data, known when the
// model is compiled, it is an error instead (checkTruncatedData).
func (b *builder) truncate(s *lang.Sample, vals []value, lp value) value {
	c, ok := stdlib.LookupLogCDF(s.Dist)
	if !ok {
		return b.fail(s.Trunc.Pos, "%s cannot be truncated: it has no log CDF", s.Dist)
	}
	dist, _ := stdlib.Lookup(s.Dist)
	discrete := len(dist.Int) > 0 && dist.Int[0]
	b.checkTruncatedData(s)
	var lower, upper value
	if s.Trunc.Lower != nil {
		lower = b.expr(s.Trunc.Lower)
	}
	if s.Trunc.Upper != nil {
		upper = b.expr(s.Trunc.Upper)
	}
	if b.err != nil {
		return value{}
	}
	// cdf is one of c's log CDFs at bound x with the distribution's
	// arguments, broadcast together.
	cdf := func(f *ad.ScalarFunc, x value) value {
		in := append([]value{x}, vals[1:]...)
		return value{node: ad.Elementwise(f, b.align(in)...), batched: anyBatched(in)}
	}
	lowerAt := lower // the lower bound's CDF argument
	if discrete && lower.node != nil {
		lowerAt = value{node: ad.Sub(lower.node, b.scalar(1)), batched: lower.batched}
	}
	var norm value
	switch {
	case lower.node != nil && upper.node != nil:
		hi, lo := cdf(c.Lower, upper), cdf(c.Lower, lowerAt)
		n := b.align([]value{hi, lo})
		norm = value{node: stdlib.LogDiffExp(n[0], n[1]), batched: hi.batched || lo.batched}
	case lower.node != nil:
		norm = cdf(c.Upper, lowerAt)
	default:
		norm = cdf(c.Lower, upper)
	}
	pair := []value{lp, norm}
	n := b.align(pair)
	out := value{node: ad.Sub(n[0], n[1]), batched: anyBatched(pair)}
	// Outside the bounds the density is zero.
	y := vals[0]
	outside := func(bound value, below bool) {
		in := []value{y, bound, out}
		a := b.align(in)
		cond := ad.Less(a[0], a[1])
		if !below {
			cond = ad.Greater(a[0], a[1])
		}
		out = value{node: ad.IfElse(cond, b.scalar(math.Inf(-1)), a[2]), batched: anyBatched(in)}
	}
	if lower.node != nil {
		outside(lower, true)
	}
	if upper.node != nil {
		outside(upper, false)
	}
	return out
}

// checkTruncatedData fails the compilation where s's left side is data
// (a whole field, an element by constant indices, or a plate's row y[n],
// all of whose rows are checked) and a bound known when the model is
// compiled excludes one of its values: Stan rejects such data when it
// reads it.
func (b *builder) checkTruncatedData(s *lang.Sample) {
	var name string
	var items []lang.IndexItem
	switch e := s.Lhs.(type) {
	case *lang.Ident:
		name = e.Name
	case *lang.Index:
		id, ok := e.X.(*lang.Ident)
		if !ok {
			return
		}
		name, items = id.Name, e.Items
	default:
		return
	}
	v, isData := b.m.data[name]
	if _, shadowed := b.lookupScopes(name); !isData || shadowed {
		return
	}
	bound := func(e lang.Expr, inf float64) (float64, bool) {
		if e == nil {
			return inf, true
		}
		x, err := b.constReal(e)
		return x, err == nil
	}
	lo, okLo := bound(s.Trunc.Lower, math.Inf(-1))
	hi, okHi := bound(s.Trunc.Upper, math.Inf(1))
	if !okLo || !okHi {
		return // a bound on the parameters: −∞ at run time
	}
	var ys []float64
	plateRows := len(items) == 1 && !items[0].Slice && isPlateIndex(items[0].Lo, b.plateIx)
	switch {
	case items == nil || plateRows:
		for i := range v.Len() {
			ys = append(ys, v.At(i))
		}
	default:
		b.constElems = true
		x, err := b.dataElement(name, v, items)
		b.constElems = false
		if err != nil {
			return
		}
		ys = []float64{x}
	}
	for i, y := range ys {
		if y < lo || y > hi {
			where := lang.ExprString(s.Lhs)
			if len(ys) > 1 {
				where = fmt.Sprintf("element %d of %s", i+1, name)
			}
			b.fail(lang.StartPos(s.Lhs), "%s is %v, outside the truncation T[%s, %s]: truncated data must lie within its bounds", where, y, boundText(s.Trunc.Lower), boundText(s.Trunc.Upper))
			return
		}
	}
}

func isPlateIndex(e lang.Expr, plateIx string) bool {
	id, ok := e.(*lang.Ident)
	return ok && plateIx != "" && id.Name == plateIx
}

func boundText(e lang.Expr) string {
	if e == nil {
		return ""
	}
	return lang.ExprString(e)
}
