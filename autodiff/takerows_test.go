package autodiff_test

import (
	"math"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// TakeRows through the op harness: a gather of parameter rows by data
// values, alone and by a minibatch of a data column (the plate's a[g[n]]),
// with repeated rows so that the scatter-add's sums are checked.
func TestTakeRows(t *testing.T) {
	take := func(x []float64, row int, idx []float64) []float64 {
		var out []float64
		for _, v := range idx {
			out = append(out, x[int(v)*row:(int(v)+1)*row]...)
		}
		return out
	}
	groups := []float64{0, 4, 2, 2, 1, 0, 4, 3}
	rows := []int{6, 2, 3, 6, 0}
	var drawn []float64
	for _, r := range rows {
		drawn = append(drawn, groups[r])
	}
	for _, c := range []adtest.Case{
		{Name: "vector", Inputs: []adtest.Input{{Shape: ad.Shape{5}, Draw: adtest.Real}, {Shape: ad.Shape{8}, Values: groups, Data: true}},
			Build:     func(x []*ad.Node) *ad.Node { return ad.TakeRows(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 { return take(x[0], 1, groups) }},
		{Name: "matrix_rows", Inputs: []adtest.Input{{Shape: ad.Shape{5, 3}, Draw: adtest.Real}, {Shape: ad.Shape{2, 4}, Values: groups, Data: true}},
			Build:     func(x []*ad.Node) *ad.Node { return ad.TakeRows(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 { return take(x[0], 3, groups) }},
		{Name: "by_minibatch", Inputs: []adtest.Input{{Shape: ad.Shape{5, 2}, Draw: adtest.Real}, {Shape: ad.Shape{8}, Values: groups, Data: true}},
			Rows: rows,
			BuildRows: func(x []*ad.Node, ix *ad.Indices) *ad.Node {
				return ad.Mul(ad.TakeRows(x[0], ad.Gather(x[1], ix)), ad.TakeRows(x[0], ad.Gather(x[1], ix)))
			},
			Reference: func(x [][]float64) []float64 {
				out := take(x[0], 2, drawn)
				for i := range out {
					out[i] *= out[i]
				}
				return out
			}},
	} {
		t.Run(c.Name, func(t *testing.T) { adtest.Run(t, c) })
	}
}

// TestTakeRowsOutOfRange: a value naming no row gives NaN, not a panic.
func TestTakeRowsOutOfRange(t *testing.T) {
	g := ad.NewGraph(1)
	x := g.Input("x", ad.Param, 3)
	idx := g.Const(ad.Shape{3}, 0, 3, 1.5)
	out := ad.Sum(ad.TakeRows(x, idx), 0)
	prog, err := g.Compile(out)
	if err != nil {
		t.Fatal(err)
	}
	prog.Set(x, []float64{1, 2, 3})
	prog.Forward()
	prog.Backward(out)
	if v := prog.Tensor(out, 0).Data[0]; !math.IsNaN(v) {
		t.Errorf("sum %v, want NaN", v)
	}
}
