package compile

import (
	"math"
	"math/rand/v2"
	"strings"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/lang"
	"github.com/temper-ppl/temper/stdlib"
)

// rngSource is the random stream of the generated block's _rng calls,
// and the ops that draw from it.
type rngSource struct {
	src *rand.Rand
	ops []*rngOp
}

// rngOp draws variates of a distribution, one per element of its
// arguments' broadcast leading axes (times K for a vector variate, K×K
// for a matrix). It has
// no gradient: the generated block is evaluated forward only.
type rngOp struct {
	gen   stdlib.RNG
	src   *rand.Rand
	pos   lang.Pos
	lead  ad.Shape   // the broadcast leading shape
	ins   []ad.Shape // each argument's leading shape
	trail []int      // each argument's trailing size: 1, K or K×K
	k     int        // the variate's size
	bad   int        // draws with arguments outside the domain
	last  int        // the Forward count at the last bad draw, to count draws not elements
	calls int
	args  [][]float64
}

func (op *rngOp) Name() string { return op.gen.Name + "_rng" }

func (op *rngOp) Forward(a *ad.Args) {
	op.calls++
	idx := make([]int, len(op.lead))
	for j := range op.lead.Size() {
		for i, in := range a.In {
			at := broadcastAt(idx, op.ins[i]) * op.trail[i]
			op.args[i] = in[at : at+op.trail[i]]
		}
		out := a.Out[j*op.k : (j+1)*op.k]
		if !op.gen.Draw(op.src, op.args, out) || !allIntegral(op.gen, op.args) {
			for i := range out {
				out[i] = math.NaN()
			}
			if op.last != op.calls {
				op.bad++
				op.last = op.calls
			}
		}
		for d := len(idx) - 1; d >= 0; d-- { // the next position, row-major
			if idx[d]++; idx[d] < op.lead[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// Backward adds nothing: no gradient flows through a random draw.
func (op *rngOp) Backward(*ad.Args) {}

// allIntegral checks the integer arguments (binomial's n): a real there is
// outside the domain.
func allIntegral(g stdlib.RNG, args [][]float64) bool {
	for i, a := range args {
		if g.Int[i] {
			for _, x := range a {
				if x != math.Trunc(x) {
					return false
				}
			}
		}
	}
	return true
}

// broadcastAt maps a position of the broadcast shape (idx, of the longer
// rank) to the flat position in a shape that right-aligns with it, its
// axes of extent 1 repeating.
func broadcastAt(idx []int, shape ad.Shape) int {
	flat, off := 0, len(idx)-len(shape)
	for d, n := range shape {
		i := idx[off+d]
		if n == 1 {
			i = 0
		}
		flat = flat*n + i
	}
	return flat
}

// rngCall lowers name_rng(args): only the generated block's builder has a
// random stream.
func (b *builder) rngCall(e *lang.Call) value {
	gen, _ := stdlib.LookupRNG(strings.TrimSuffix(e.Func, "_rng"))
	if b.rng == nil {
		return b.fail(e.Pos, "%s draws random numbers: it is only allowed in the generated block", e.Func)
	}
	if len(e.Args) != len(gen.Args) {
		return b.fail(e.Pos, "%s takes %d arguments (%s), got %d", e.Func, len(gen.Args), strings.Join(gen.Args, ", "), len(e.Args))
	}
	vals := make([]value, len(e.Args))
	for i, a := range e.Args {
		vals[i] = b.expr(a)
	}
	if b.err != nil {
		return value{}
	}
	// Align the leading axes of per-row values, as align does for whole
	// rows: a batched argument with fewer leading row axes than another
	// gets axes of extent 1 after its batch axis.
	leadRank := 0
	for i, v := range vals {
		leadRank = max(leadRank, v.rowRank()-gen.Rank[i])
	}
	nodes := make([]*ad.Node, len(vals))
	for i, v := range vals {
		nodes[i] = v.node
		if lr := v.rowRank() - gen.Rank[i]; v.batched && lr >= 0 && lr < leadRank {
			shape := v.node.Shape()
			padded := append([]int{shape[0]}, ones(leadRank-lr)...)
			nodes[i] = ad.Reshape(v.node, append(padded, shape[1:]...)...)
		}
	}
	op := &rngOp{gen: gen, src: b.rng.src, pos: e.Pos, args: make([][]float64, len(nodes)), k: 1}
	var lead ad.Shape
	side := 0 // the variate's K: the last axis of the first argument of rank ≥ 1
	for i, n := range nodes {
		shape := n.Shape()
		r := gen.Rank[i]
		if len(shape) < r {
			return b.fail(lang.StartPos(e.Args[i]), "argument %s of %s must have %d dimensions, and it has shape %s",
				gen.Args[i], e.Func, r, shapeString(rowShape(shape, vals[i].batched)))
		}
		in, trail := ad.Shape(shape[:len(shape)-r]), shape[len(shape)-r:]
		size := 1
		for _, t := range trail {
			size *= t
		}
		if r > 0 && side == 0 {
			side = trail[0]
		}
		op.ins, op.trail = append(op.ins, in), append(op.trail, size)
		next, err := ad.BroadcastShapes(lead, in)
		if err != nil {
			return b.fail(e.Pos, "the arguments of %s do not broadcast together: %s and %s", e.Func, shapeString(lead), shapeString(in))
		}
		lead = next
	}
	batched := anyBatched(vals)
	if !batched && b.full != nil && b.plateIx != "" {
		// A draw in a plate body is one per row, as a loop's would be in
		// Stan, even when its arguments are the same for every row: the
		// rows become its leading axis (the arguments broadcast to it).
		lead, batched = append(ad.Shape{b.batch}, lead...), true
	}
	op.lead = lead
	out := lead.Clone()
	for range gen.OutRank { // a vector of K, or a K × K matrix
		out = append(out, side)
		op.k *= side
	}
	b.rng.ops = append(b.rng.ops, op)
	return value{node: b.g.Apply(op, out, nodes...), batched: batched}
}

// lkjCall lowers lkj_corr_cholesky_rng(K, eta), Stan's draw of the
// Cholesky factor of a K×K correlation matrix from LKJ(eta), and
// lkj_corr_rng(K, eta), of the matrix itself: the variate's shape is K's
// value, so K must be a constant (an int literal or int data scalar), and
// eta a scalar that does not depend on the plate.
func (b *builder) lkjCall(e *lang.Call) value {
	if b.rng == nil {
		return b.fail(e.Pos, "%s draws random numbers: it is only allowed in the generated block", e.Func)
	}
	if len(e.Args) != 2 {
		return b.fail(e.Pos, "%s takes 2 arguments (K, eta), got %d", e.Func, len(e.Args))
	}
	k, err := b.m.constInt(e.Args[0])
	if err != nil || k < 1 {
		return b.fail(lang.StartPos(e.Args[0]), "the K of %s sets the shape of its variate (K × K), so it must be a constant of at least 1: an int literal or an int data scalar", e.Func)
	}
	eta := b.expr(e.Args[1])
	if b.err != nil {
		return value{}
	}
	if eta.batched || len(eta.node.Shape()) != 0 {
		return b.fail(lang.StartPos(e.Args[1]), "the eta of %s must be a scalar that does not depend on the plate", e.Func)
	}
	draw := stdlib.LKJCorrCholeskyDraw
	if e.Func == lkjCorrRNG {
		draw = stdlib.LKJCorrDraw
	}
	gen := stdlib.RNG{Name: strings.TrimSuffix(e.Func, "_rng"), Args: []string{"eta"}, Int: []bool{false}, Rank: []int{0},
		Draw: func(r *rand.Rand, a [][]float64, out []float64) bool {
			return draw(r, k, a[0][0], out)
		}}
	op := &rngOp{gen: gen, src: b.rng.src, pos: e.Pos, args: make([][]float64, 1), k: k * k,
		ins: []ad.Shape{{}}, trail: []int{1}}
	b.rng.ops = append(b.rng.ops, op)
	return value{node: b.g.Apply(op, ad.Shape{k, k}, eta.node)}
}
