package stdlib_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

func sigmoidRef(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// cellRef is one step of a recurrent cell for one sequence: the new hidden
// and cell states from the input x [D] and the previous states, with W [D,
// G·H], U [H, G·H] and b [G·H] as flat row-major slices.
type cellRef func(x, hPrev, cPrev, w, u, b []float64, d, h int) (hNew, cNew []float64)

// affine is x·W + hPrev·U + b for gate block k (columns k·H..(k+1)·H), or
// its input and recurrent parts apart.
func affine(x, hPrev, w, u, b []float64, d, h, gates, k int) (in, rec []float64) {
	in, rec = make([]float64, h), make([]float64, h)
	for j := range h {
		col := k*h + j
		in[j] = b[col]
		for i := range d {
			in[j] += x[i] * w[i*gates*h+col]
		}
		for i := range h {
			rec[j] += hPrev[i] * u[i*gates*h+col]
		}
	}
	return in, rec
}

// lstmCell is the LSTM's step written out from its equations.
func lstmCell(x, hPrev, cPrev, w, u, b []float64, d, h int) ([]float64, []float64) {
	z := make([][]float64, 4)
	for k := range 4 {
		in, rec := affine(x, hPrev, w, u, b, d, h, 4, k)
		z[k] = make([]float64, h)
		for j := range h {
			z[k][j] = in[j] + rec[j]
		}
	}
	hNew, cNew := make([]float64, h), make([]float64, h)
	for j := range h {
		i, f, g, o := sigmoidRef(z[0][j]), sigmoidRef(z[1][j]), math.Tanh(z[2][j]), sigmoidRef(z[3][j])
		cNew[j] = f*cPrev[j] + i*g
		hNew[j] = o * math.Tanh(cNew[j])
	}
	return hNew, cNew
}

// gruCell is the GRU's step written out from PyTorch's equations, with the
// candidate's recurrent term inside the reset gate and no recurrent bias.
func gruCell(x, hPrev, _, w, u, b []float64, d, h int) ([]float64, []float64) {
	rin, rrec := affine(x, hPrev, w, u, b, d, h, 3, 0)
	zin, zrec := affine(x, hPrev, w, u, b, d, h, 3, 1)
	nin, nrec := affine(x, hPrev, w, u, b, d, h, 3, 2)
	hNew := make([]float64, h)
	for j := range h {
		r, z := sigmoidRef(rin[j]+rrec[j]), sigmoidRef(zin[j]+zrec[j])
		n := math.Tanh(nin[j] + r*nrec[j])
		hNew[j] = (1-z)*n + z*hPrev[j]
	}
	return hNew, nil
}

// seqReference runs cell over B sequences of T steps from zero states.
func seqReference(cell cellRef, x, w, u, b []float64, batch, steps, d, h int, seq bool) []float64 {
	var out []float64
	for s := range batch {
		hs, cs := make([]float64, h), make([]float64, h)
		for t := range steps {
			hs, cs = cell(x[(s*steps+t)*d:][:d], hs, cs, w, u, b, d, h)
			if seq {
				out = append(out, hs...)
			}
		}
		if !seq {
			out = append(out, hs...)
		}
	}
	return out
}

// TestRecurrent runs the LSTM and the GRU through the harness: values
// against the cells written out from their equations step by step,
// gradients of the sequences and every weight against finite differences
// (backpropagation through time against the unrolled function), replicas,
// float32; with the last hidden state or every step's as the result, with
// two batch axes and none, and with data sequences.
func TestRecurrent(t *testing.T) {
	type layer struct {
		name  string
		gates int
		build func(x, w, u, b *ad.Node, seq bool) *ad.Node
		cell  cellRef
	}
	layers := []layer{{"lstm", 4, stdlib.LSTM, lstmCell}, {"gru", 3, stdlib.GRU, gruCell}}
	cases := []struct {
		batch         ad.Shape
		steps, d, h   int
		seq, dataSeqs bool
	}{
		{batch: ad.Shape{2}, steps: 3, d: 2, h: 3},
		{batch: ad.Shape{2}, steps: 4, d: 3, h: 2, seq: true},
		{batch: ad.Shape{}, steps: 3, d: 2, h: 2},
		{batch: ad.Shape{2, 1}, steps: 2, d: 1, h: 2, seq: true},
		{batch: ad.Shape{3}, steps: 3, d: 2, h: 2, dataSeqs: true},
	}
	for _, l := range layers {
		for _, c := range cases {
			name := fmt.Sprintf("%s batch %v T=%d D=%d H=%d seq=%v data=%v", l.name, c.batch, c.steps, c.d, c.h, c.seq, c.dataSeqs)
			t.Run(name, func(t *testing.T) {
				gh := l.gates * c.h
				adtest.Run(t, adtest.Case{
					Name: name,
					Inputs: []adtest.Input{
						{Shape: append(c.batch.Clone(), c.steps, c.d), Draw: adtest.Real, Data: c.dataSeqs},
						{Shape: ad.Shape{c.d, gh}, Draw: adtest.Uniform(-0.8, 0.8)},
						{Shape: ad.Shape{c.h, gh}, Draw: adtest.Uniform(-0.8, 0.8)},
						{Shape: ad.Shape{gh}, Draw: adtest.Uniform(-0.5, 0.5)},
					},
					Build: func(x []*ad.Node) *ad.Node { return l.build(x[0], x[1], x[2], x[3], c.seq) },
					Reference: func(x [][]float64) []float64 {
						return seqReference(l.cell, x[0], x[1], x[2], x[3], c.batch.Size(), c.steps, c.d, c.h, c.seq)
					},
				})
			})
		}
	}
}

// TestRecurrentShapeErrors: malformed weights are errors naming the shapes
// expected.
func TestRecurrentShapeErrors(t *testing.T) {
	for _, c := range []struct {
		name       string
		x, w, u, b ad.Shape
		want       string
	}{
		{"vector input", ad.Shape{5}, ad.Shape{5, 8}, ad.Shape{2, 8}, ad.Shape{8}, "needs sequences [..., T, D]"},
		{"W rows", ad.Shape{4, 3}, ad.Shape{2, 8}, ad.Shape{2, 8}, ad.Shape{8}, "W must be [3, 8], U [2, 8] and b [8]"},
		{"U columns", ad.Shape{4, 3}, ad.Shape{3, 8}, ad.Shape{2, 6}, ad.Shape{8}, "W must be [3, 8], U [2, 8] and b [8]"},
		{"bias", ad.Shape{4, 3}, ad.Shape{3, 8}, ad.Shape{2, 8}, ad.Shape{6}, "b [8]"},
	} {
		g := ad.NewGraph(1)
		stdlib.LSTM(g.Input("x", ad.Data, c.x...), g.Input("W", ad.Param, c.w...), g.Input("U", ad.Param, c.u...), g.Input("b", ad.Param, c.b...), false)
		if err := g.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
