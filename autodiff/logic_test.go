package autodiff_test

import (
	"fmt"
	"math"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
)

// The comparisons, logic and if_else through the op harness: values against
// a naive reference, on data with ties (where == and <= differ from < ), and
// gradients against finite differences at points away from the steps.

func TestLogicOps(t *testing.T) {
	for _, c := range logicCases() {
		t.Run(c.Name, func(t *testing.T) { adtest.Run(t, c) })
	}
}

func logicCases() []adtest.Case {
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	preds := []struct {
		name  string
		build func(a, c *ad.Node) *ad.Node
		ref   func(a, c float64) bool
	}{
		{"less", ad.Less, func(a, c float64) bool { return a < c }},
		{"less_equal", ad.LessEqual, func(a, c float64) bool { return a <= c }},
		{"greater", ad.Greater, func(a, c float64) bool { return a > c }},
		{"greater_equal", ad.GreaterEqual, func(a, c float64) bool { return a >= c }},
		{"equal", ad.Equal, func(a, c float64) bool { return a == c }},
		{"not_equal", ad.NotEqual, func(a, c float64) bool { return a != c }},
		{"and", ad.And, func(a, c float64) bool { return a != 0 && c != 0 }},
		{"or", ad.Or, func(a, c float64) bool { return a != 0 || c != 0 }},
	}
	// Ties, zeros, negatives: a [2, 3] against a row [3] (broadcast).
	left := []float64{1, 2, 0, -1, 2.5, 0}
	right := []float64{1, 0, 2.5}
	var cases []adtest.Case
	for _, p := range preds {
		cases = append(cases, adtest.Case{
			Name:   p.name + "/ties",
			Inputs: []adtest.Input{{Shape: ad.Shape{2, 3}, Values: left, Data: true}, {Shape: ad.Shape{3}, Values: right, Data: true}},
			Build:  func(x []*ad.Node) *ad.Node { return p.build(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, 6)
				for i := range out {
					out[i] = b(p.ref(x[0][i], x[1][i%3]))
				}
				return out
			},
		})
		// Parameters on both sides, drawn apart (a in [-3, -1], c in [1, 3]):
		// the gradient is zero, as are the finite differences.
		cases = append(cases, adtest.Case{
			Name:   p.name + "/params",
			Inputs: []adtest.Input{{Shape: ad.Shape{4}, Draw: adtest.Uniform(-3, -1)}, {Shape: ad.Shape{4}, Draw: adtest.Uniform(1, 3)}},
			Build:  func(x []*ad.Node) *ad.Node { return p.build(x[0], x[1]) },
			Reference: func(x [][]float64) []float64 {
				out := make([]float64, 4)
				for i := range out {
					out[i] = b(p.ref(x[0][i], x[1][i]))
				}
				return out
			},
		})
	}
	cases = append(cases, adtest.Case{
		Name:      "not",
		Inputs:    []adtest.Input{{Shape: ad.Shape{6}, Values: left, Data: true}},
		Build:     func(x []*ad.Node) *ad.Node { return ad.Not(x[0]) },
		Reference: func(x [][]float64) []float64 { return mapRef(x[0], func(v float64) float64 { return b(v == 0) }) },
	})
	// if_else: a fixed 0/1 condition (data: it gets no gradient) chooses
	// between two parameters, broadcast three ways; the gradient goes to
	// the chosen branch only.
	for _, s := range [][3]ad.Shape{{{6}, {6}, {6}}, {{2, 3}, {3}, {}}, {{3}, {2, 3}, {2, 1}}} {
		cond := make([]float64, s[0].Size())
		for i := range cond {
			cond[i] = float64(i % 2)
		}
		out, _ := ad.BroadcastShapes(s[0], s[1], s[2])
		cases = append(cases, adtest.Case{
			Name: fmt.Sprintf("if_else%v%v%v", s[0], s[1], s[2]),
			Inputs: []adtest.Input{{Shape: s[0], Values: cond, Data: true},
				{Shape: s[1], Draw: adtest.Real}, {Shape: s[2], Draw: adtest.Real}},
			Build: func(x []*ad.Node) *ad.Node { return ad.IfElse(x[0], x[1], x[2]) },
			Reference: func(x [][]float64) []float64 {
				return broadcastRef(out, s[:], x, func(v []float64) float64 {
					if v[0] != 0 {
						return v[1]
					}
					return v[2]
				})
			},
		})
	}
	// A condition that is itself a comparison of parameters, and a branch
	// undefined where it is not chosen: log of a negative number must not
	// put NaN into the gradient.
	cases = append(cases, adtest.Case{
		Name:   "if_else/guarded_log",
		Inputs: []adtest.Input{{Shape: ad.Shape{4}, Values: []float64{-2, 0.5, -0.7, 3}}},
		Build: func(x []*ad.Node) *ad.Node {
			zero := x[0].Graph().Scalar(0)
			return ad.IfElse(ad.Greater(x[0], zero), ad.Log(x[0]), ad.Mul(x[0], x[0]))
		},
		Reference: func(x [][]float64) []float64 {
			return mapRef(x[0], func(v float64) float64 {
				if v > 0 {
					return math.Log(v)
				}
				return v * v
			})
		},
	})
	return cases
}
