package autodiff

import "fmt"

// Stored is a data set kept in the element type it was read in (a narrow
// int column, a float32 array, a float64 array memory-mapped from a file)
// rather than copied into the program's type. A program reads it in place
// where that is its own type (float64 data in a float64 program, float32
// in a float32 one); otherwise it converts the rows a gather selects, each
// time (a minibatch's), where gathers are the data's only readers, and
// the whole array once, on its first use, where some other op reads it
// (a full-data plate's matrix product). So int data stay narrow and a
// memory-mapped file is never copied whole into memory by a minibatched
// program of either precision.
type Stored interface {
	Len() int
	// Float64s and Float32s convert elements [from, from+len(dst)).
	Float64s(dst []float64, from int)
	Float32s(dst []float32, from int)
}

// Element is a type a Stored array may hold.
type Element interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// StoredSlice is a Stored array of a Go slice.
type StoredSlice[E Element] []E

func (s StoredSlice[E]) Len() int { return len(s) }

func (s StoredSlice[E]) Float64s(dst []float64, from int) {
	for i, x := range s[from : from+len(dst)] {
		dst[i] = float64(x)
	}
}

func (s StoredSlice[E]) Float32s(dst []float32, from int) {
	for i, x := range s[from : from+len(dst)] {
		dst[i] = float32(x)
	}
}

// ConstStored adds data shared by all replicas, kept as s holds it (see
// Stored); s must not change while a program uses it.
func (g *Graph) ConstStored(name string, shape Shape, s Stored) *Node {
	if f, ok := s.(StoredSlice[float64]); ok {
		return g.ConstData(name, shape, f)
	}
	sh := shape.Clone()
	if err := validShape(sh); err != nil {
		return g.fail(sh, "data %q: %v", name, err)
	}
	if s.Len() != sh.Size() {
		return g.fail(sh, "data %q of shape %v needs %d values, got %d", name, sh, sh.Size(), s.Len())
	}
	n := &Node{name: name, shape: sh, stored: s}
	if f, ok := s.(StoredSlice[float32]); ok {
		n.constant32 = f
	}
	return g.add(n)
}

// isConst reports whether n is a constant (its values fixed in the graph).
func (n *Node) isConst() bool { return n.constant != nil || n.stored != nil }

// native is n's values as T where n holds them as T already, else nil.
func native[T Float](n *Node) []T {
	if c, ok := any(n.constant).([]T); ok && c != nil {
		return c
	}
	if c, ok := any(n.constant32).([]T); ok && c != nil && n.stored != nil {
		return c
	}
	return nil
}

// gatheredOnly reports whether every op of order that reads n is a gather
// of its rows: then a program need not hold n whole in its own type.
func gatheredOnly(n *Node, order []*Node) bool {
	for _, m := range order {
		for k, in := range m.ins {
			if in != n {
				continue
			}
			if _, ok := m.op.(*gatherOp); !ok || k != 0 {
				return false
			}
		}
	}
	return true
}

// storedRows writes the rows of a gather into out from the gathered
// operand's stored values, converted to T.
func storedRows[T Float](s Stored, rows []int, row int, out []T) {
	switch o := any(out).(type) {
	case []float64:
		for b, r := range rows {
			s.Float64s(o[b*row:(b+1)*row], r*row)
		}
	case []float32:
		for b, r := range rows {
			s.Float32s(o[b*row:(b+1)*row], r*row)
		}
	default:
		panic(fmt.Sprintf("autodiff: no conversion to %T", out))
	}
}
