package compile

import (
	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
)

// glmArgs lines up the arguments (y, x, alpha, beta, rest...) of one of
// Stan's GLMs for stdlib, which computes α + x·β as one matrix product of the
// rows of x by β: in a plate, the minibatch's rows [B, D] of X[n]. beta must
// not depend on the plate (it is the product's right operand) and must be a
// vector as long as a row of x; y, alpha and the rest are per-row values,
// aligned as for an elementwise density against x's rows without their
// last axis. It returns nil, having recorded the error, when the shapes do
// not fit; the messages name the shapes of one row, as dot's do.
func (b *builder) glmArgs(s *lang.Sample, vals []value) []*ad.Node {
	x, beta := vals[1], vals[3]
	if beta.batched {
		b.fail(lang.StartPos(s.Args[2]), "beta of %s cannot depend on the plate index: it multiplies every row", s.Dist)
		return nil
	}
	xs, bs := rowShape(x.node.Shape(), x.batched), beta.node.Shape()
	if len(bs) != 1 || len(xs) == 0 || xs[len(xs)-1] != bs[0] {
		b.fail(s.DistPos, "%s of x %s and beta %s: beta must be a vector as long as a row of x", s.Dist, shapeString(xs), shapeString(bs))
		return nil
	}
	perRow := []value{vals[0], vals[2]}
	perRow = append(perRow, vals[4:]...)
	rank := x.rowRank() - 1
	for _, v := range perRow {
		rank = max(rank, v.rowRank())
	}
	n := b.alignTo(perRow, rank)
	return append([]*ad.Node{n[0], b.alignTo([]value{x}, rank+1)[0], n[1], beta.node}, n[2:]...)
}
