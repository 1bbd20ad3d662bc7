package autodiff

import (
	"slices"
	"testing"
)

// TestStoredData checks data kept in its own type (ConstStored): int8 rows
// and memory-mapped float64 rows (ConstMapped) gathered by a minibatch in a
// float32 and a float64 program give the rows' values in the program's
// type, with no copy of the whole array made (the program holds no buffer
// for it and the node no conversion), while in-memory float64 data
// (ConstData) get one float32 copy for the faster gathers; and a sum over
// the whole array (an op other than a gather) converts it once and gives
// the exact total.
func TestStoredData(t *testing.T) {
	ints := StoredSlice[int8]{1, -2, 3, -4, 5, -6, 7, -8} // 4 rows of 2
	floats := make([]float64, 8)
	for i := range floats {
		floats[i] = float64(i) + 0.5
	}
	for _, is32 := range []bool{false, true} {
		g := NewGraph(1)
		xi := g.ConstStored("ints", Shape{4, 2}, ints)
		xf := g.ConstMapped("floats", Shape{4, 2}, floats)
		xd := g.ConstData("in memory", Shape{4, 2}, floats)
		rows := g.Indices("rows", false, 2)
		gi, gf, gd := Gather(xi, rows), Gather(xf, rows), Gather(xd, rows)
		check := func(name string, got []float64, want []float64) {
			if !slices.Equal(got, want) {
				t.Errorf("float32 %v: %s = %v, want %v", is32, name, got, want)
			}
		}
		if is32 {
			p, err := g.Compile32(gi, gf, gd)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SetIndices(rows, []int{3, 1}); err != nil {
				t.Fatal(err)
			}
			p.Forward()
			check("gathered ints", to64(p.Value(gi)), []float64{7, -8, 3, -4})
			check("gathered floats", to64(p.Value(gf)), []float64{6.5, 7.5, 2.5, 3.5})
			check("gathered in-memory floats", to64(p.Value(gd)), []float64{6.5, 7.5, 2.5, 3.5})
			if p.vals[xi.id] != nil || p.vals[xf.id] != nil || xi.constant32 != nil || xf.constant32 != nil {
				t.Errorf("float32: a gathered int8 or mapped data array was copied whole")
			}
			if xd.constant32 == nil {
				t.Errorf("float32: in-memory float64 data are converted at every gather, not copied once")
			}
		} else {
			p, err := g.Compile(gi, gf)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.SetIndices(rows, []int{0, 3}); err != nil {
				t.Fatal(err)
			}
			p.Forward()
			check("gathered ints", p.Value(gi), []float64{1, -2, 7, -8})
			check("gathered floats", p.Value(gf), []float64{0.5, 1.5, 6.5, 7.5})
			if p.vals[xi.id] != nil || xi.constant != nil || &p.vals[xf.id][0] != &floats[0] {
				t.Errorf("float64: the int8 data were copied whole, or the float64 data not read in place")
			}
		}
		g2 := NewGraph(1)
		total := SumAll(g2.ConstStored("ints", Shape{4, 2}, ints))
		var got float64
		if is32 {
			p, err := g2.Compile32(total)
			if err != nil {
				t.Fatal(err)
			}
			p.Forward()
			got = float64(p.Value(total)[0])
		} else {
			p, err := g2.Compile(total)
			if err != nil {
				t.Fatal(err)
			}
			p.Forward()
			got = p.Value(total)[0]
		}
		if got != -4 {
			t.Errorf("float32 %v: the sum of the int8 data is %v, want -4", is32, got)
		}
	}
}

func to64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
