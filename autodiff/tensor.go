package autodiff

import "fmt"

// TensorOf is a dense row-major array: one replica's value of a node, or
// a constant. Data has Shape.Size() elements; a tensor from Program.Tensor
// shares the program's buffer.
type TensorOf[T Float] struct {
	Shape Shape
	Data  []T
}

// Tensor is a float64 tensor, the kind constants are made of.
type Tensor = TensorOf[float64]

// NewTensor checks that data fits shape.
func NewTensor(shape Shape, data []float64) (Tensor, error) {
	if err := validShape(shape); err != nil {
		return Tensor{}, err
	}
	if len(data) != shape.Size() {
		return Tensor{}, fmt.Errorf("shape %v needs %d values, got %d", shape, shape.Size(), len(data))
	}
	return Tensor{Shape: shape.Clone(), Data: data}, nil
}

// At returns the element at a multi-index, one index per axis.
func (t TensorOf[T]) At(index ...int) T { return t.Data[t.offset(index)] }

// Set sets the element at a multi-index.
func (t TensorOf[T]) Set(v T, index ...int) { t.Data[t.offset(index)] = v }

func (t TensorOf[T]) offset(index []int) int {
	if len(index) != len(t.Shape) {
		panic(fmt.Sprintf("autodiff: index %v for a tensor of shape %v", index, t.Shape))
	}
	off := 0
	for d, i := range index {
		if i < 0 || i >= t.Shape[d] {
			panic(fmt.Sprintf("autodiff: index %v out of range for shape %v", index, t.Shape))
		}
		off = off*t.Shape[d] + i
	}
	return off
}

// ConstTensor adds t as a constant shared by all replicas.
func (g *Graph) ConstTensor(t Tensor) *Node { return g.Const(t.Shape, t.Data...) }

// Tensor is replica r's value of n (the shared value when n is shared), a
// view into the program's buffer.
func (p *ProgramOf[T]) Tensor(n *Node, r int) TensorOf[T] {
	size := n.shape.Size()
	buf := p.Value(n)
	if n.replicated {
		buf = buf[r*size : (r+1)*size]
	}
	return TensorOf[T]{Shape: n.shape, Data: buf}
}
