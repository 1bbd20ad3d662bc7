package autodiff

import (
	"fmt"
	"strings"
)

// Shape is the per-replica shape of a tensor, row-major. The empty shape is
// a scalar. The replica axis is never part of a Shape: it is a property of the
// node (see Node.Replicated), so that every op is written for one replica.
type Shape []int

// Size is the number of elements, 1 for a scalar.
func (s Shape) Size() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// Rank is the number of axes.
func (s Shape) Rank() int { return len(s) }

// Equal reports whether two shapes have the same axes.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy that the caller may modify.
func (s Shape) Clone() Shape { return append(Shape{}, s...) }

func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// strides returns the row-major element strides of s.
func (s Shape) strides() []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// validShape rejects negative or zero extents: every tensor temper builds has
// at least one element, which keeps the kernels free of empty-range cases.
func validShape(s Shape) error {
	for _, d := range s {
		if d <= 0 {
			return fmt.Errorf("shape %v: every dimension must be positive", s)
		}
	}
	return nil
}

// BroadcastShapes returns the shape that NumPy's broadcasting rules give the
// operands: shapes are aligned at their last axis, and each axis must agree or
// be 1 in all but one of them.
func BroadcastShapes(shapes ...Shape) (Shape, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make(Shape, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			switch {
			case out[off+i] == d || d == 1:
			case out[off+i] == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("shapes %v cannot be broadcast together", shapeList(shapes))
			}
		}
	}
	return out, nil
}

func shapeList(shapes []Shape) string {
	parts := make([]string, len(shapes))
	for i, s := range shapes {
		parts[i] = s.String()
	}
	return strings.Join(parts, " and ")
}

// normAxis maps a possibly negative axis (-1 is the last) into [0, rank).
func normAxis(axis, rank int) (int, error) {
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	return axis, nil
}

// splitAt views a shape as [outer, n, inner] around axis: the layout every
// along-an-axis kernel (reductions, softmax, concat, slice) works in.
func splitAt(s Shape, axis int) (outer, n, inner int) {
	outer, inner = 1, 1
	for i := 0; i < axis; i++ {
		outer *= s[i]
	}
	for i := axis + 1; i < len(s); i++ {
		inner *= s[i]
	}
	return outer, s[axis], inner
}
