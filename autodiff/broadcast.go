package autodiff

import "fmt"

// maxOperands bounds the arity of elementwise functions, so that kernels keep
// their per-operand offsets in fixed arrays on the stack.
const maxOperands = 8

// maxRank bounds the rank of a broadcast after contiguous axes are merged.
const maxRank = 16

// bcastPlan walks the elements of a broadcast result in row-major order,
// giving each operand's offset. Axes that are contiguous for every operand are
// merged first, so an operation on equal shapes is one flat row and adding a
// bias to a matrix is a loop of rows.
type bcastPlan struct {
	arity       int
	outer       []int   // extents of the merged outer axes
	strides     [][]int // per operand, its stride along each outer axis (0: broadcast)
	inner       int     // extent of the innermost merged axis
	innerStride []int   // per operand, 0 or its stride along the innermost axis
}

// newBcastPlan plans the broadcast of operands with the given shapes to out.
func newBcastPlan(out Shape, ins []Shape) (*bcastPlan, error) {
	if len(ins) > maxOperands {
		return nil, fmt.Errorf("%d operands, at most %d", len(ins), maxOperands)
	}
	rank := len(out)
	// Per operand, the stride of each output axis: 0 where it broadcasts.
	full := make([][]int, len(ins))
	for i, s := range ins {
		if len(s) > rank {
			return nil, fmt.Errorf("operand of shape %v has more axes than the result %v", s, out)
		}
		st := s.strides()
		full[i] = make([]int, rank)
		off := rank - len(s)
		for d := range s {
			switch s[d] {
			case out[off+d]:
				if s[d] > 1 {
					full[i][off+d] = st[d]
				}
			case 1:
			default:
				return nil, fmt.Errorf("operand of shape %v does not broadcast to %v", s, out)
			}
		}
	}
	// Merge axes from the innermost outwards; axes of extent 1 vanish.
	var extents []int
	var strides [][]int = make([][]int, len(ins))
	for d := rank - 1; d >= 0; d-- {
		if out[d] == 1 {
			continue
		}
		if k := len(extents) - 1; k >= 0 {
			mergeable := true
			for i := range ins {
				if full[i][d] != strides[i][k]*extents[k] {
					mergeable = false
					break
				}
			}
			if mergeable {
				extents[k] *= out[d]
				continue
			}
		}
		extents = append(extents, out[d])
		for i := range ins {
			strides[i] = append(strides[i], full[i][d])
		}
	}
	if len(extents) > maxRank {
		return nil, fmt.Errorf("broadcast of rank %d, at most %d", len(extents), maxRank)
	}
	p := &bcastPlan{arity: len(ins), inner: 1, innerStride: make([]int, len(ins)), strides: make([][]int, len(ins))}
	if len(extents) > 0 {
		p.inner = extents[0]
		for i := range ins {
			p.innerStride[i] = strides[i][0]
		}
		extents = extents[1:]
		for i := range ins {
			strides[i] = strides[i][1:]
		}
	}
	// Store outer axes outermost first.
	for k := len(extents) - 1; k >= 0; k-- {
		p.outer = append(p.outer, extents[k])
	}
	for i := range ins {
		for k := len(strides[i]) - 1; k >= 0; k-- {
			p.strides[i] = append(p.strides[i], strides[i][k])
		}
	}
	return p, nil
}

// rows calls visit for each row of the result with the operands' offsets at
// the row's start and the row's offset in the result. A row has p.inner
// elements; operand i advances by p.innerStride[i] along it.
func (p *bcastPlan) rows(visit func(offs [maxOperands]int, start int)) {
	var offs [maxOperands]int
	var ctr [maxRank]int
	nrows := 1
	for _, e := range p.outer {
		nrows *= e
	}
	for row := 0; row < nrows; row++ {
		visit(offs, row*p.inner)
		// Advance the odometer over the outer axes, innermost first.
		for k := len(p.outer) - 1; k >= 0; k-- {
			ctr[k]++
			for i := 0; i < p.arity; i++ {
				offs[i] += p.strides[i][k]
			}
			if ctr[k] < p.outer[k] {
				break
			}
			for i := 0; i < p.arity; i++ {
				offs[i] -= p.strides[i][k] * ctr[k]
			}
			ctr[k] = 0
		}
	}
}
