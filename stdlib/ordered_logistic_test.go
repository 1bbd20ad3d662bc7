package stdlib_test

import (
	"math"
	"testing"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"github.com/temper-ppl/temper/stdlib"
)

// orderedRef is log P(k | η, c) from Stan's definition, the probabilities
// formed first: σ(a) - σ(b) with a = η - c_{k-1} > b = η - c_k, written as
// σ(-b) - σ(-a) where both are above 1/2 (a difference of two small numbers
// rather than of two near one), and log σ(x) near one as log1p(-σ(-x)). Off by at most a few ulps of the difference
// divided by P, far below 1e-10 at the points tested.
func orderedRef(k int, eta float64, c []float64) float64 {
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	logSig := func(x float64) float64 { // log σ(x), as log(1 - σ(-x)) near one
		if x > 0 {
			return math.Log1p(-sig(-x))
		}
		return math.Log(sig(x))
	}
	K := len(c) + 1
	switch {
	case k == 1:
		return logSig(c[0] - eta)
	case k == K:
		return logSig(eta - c[K-2])
	}
	a, b := eta-c[k-2], eta-c[k-1]
	if b > 0 {
		return math.Log(sig(-b) - sig(-a))
	}
	return math.Log(sig(a) - sig(b))
}

// TestOrderedLogistic runs the density through the harness against
// orderedRef, on labels against per-row η and cutpoint rows that
// broadcast. Cutpoints are parameters with fixed increasing values, at
// least 0.3 apart, so that the harness's steps (1e-3·max(1, |c|)) keep
// them ordered.
func TestOrderedLogistic(t *testing.T) {
	layouts := []struct {
		name          string
		label, eta    ad.Shape
		cLead         ad.Shape
		cuts          []float64
		etaLo, etaHi  float64
		labelsUpTo, m int
	}{
		{"rows", ad.Shape{6}, ad.Shape{6}, ad.Shape{}, []float64{-1.2, 0.3, 1.1}, -3, 3, 4, 3},
		{"shared_eta", ad.Shape{5}, ad.Shape{}, ad.Shape{}, []float64{-0.5, 0.5}, -2, 2, 3, 2},
		{"cut_rows", ad.Shape{2, 1}, ad.Shape{3}, ad.Shape{2, 1}, []float64{-2, 0, 2, -1, -0.7, 3}, -2, 2, 4, 3},
		{"two_categories", ad.Shape{4}, ad.Shape{4}, ad.Shape{}, []float64{0.4}, -2, 2, 2, 1},
		{"tails", ad.Shape{8}, ad.Shape{8}, ad.Shape{}, []float64{-1, 0, 1}, 15, 30, 4, 3},
	}
	for _, l := range layouts {
		m := l.m
		cShape := append(l.cLead.Clone(), m)
		adtest.Run(t, adtest.Case{Name: "ordered_logistic/" + l.name,
			Inputs: []adtest.Input{
				{Shape: l.label, Draw: adtest.Ints(1, l.labelsUpTo), Data: true},
				{Shape: l.eta, Draw: adtest.Uniform(l.etaLo, l.etaHi)},
				{Shape: cShape, Values: l.cuts},
			},
			Build: func(x []*ad.Node) *ad.Node { return stdlib.OrderedLogisticLPMF(x[0], x[1], x[2]) },
			Reference: func(x [][]float64) []float64 {
				return broadcastReference([]ad.Shape{l.label, l.eta, l.cLead}, func(v []float64) float64 {
					return orderedRef(int(v[0]), v[1], x[2][int(v[2])*m:][:m])
				})([][]float64{x[0], x[1], indices(l.cLead.Size())})
			}})
	}
}

// TestOrderedLogisticSumsToOne: the K probabilities, each computed in log
// space by the op, sum to one to within rounding (1e-14: K terms each good
// to a few ulps), in the middle, in both tails (η ± 40, where P(1) or P(K)
// is e^-40 and the others must not cancel to 0 or go negative) and with
// cutpoints 1e-9 apart (a middle category of probability about 2e-10).
func TestOrderedLogisticSumsToOne(t *testing.T) {
	cases := []struct {
		eta float64
		c   []float64
	}{
		{0.3, []float64{-1, 0.5, 2}},
		{40, []float64{-1, 0.5, 2}},
		{-40, []float64{-1, 0.5, 2}},
		{0.1, []float64{0, 1e-9}},
		{2, []float64{-3}},
	}
	for _, c := range cases {
		k := len(c.c) + 1
		labels, etas := make([]float64, k), make([]float64, k)
		for i := range k {
			labels[i], etas[i] = float64(i+1), c.eta
		}
		vals, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.OrderedLogisticLPMF(x[0], x[1], x[2]) },
			[]ad.Shape{{k}, {k}, {k - 1}}, [][]float64{labels, etas, c.c})
		sum := 0.0
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("η = %v, c = %v: log P = %v", c.eta, c.c, vals)
			}
			sum += math.Exp(v)
		}
		if math.Abs(sum-1) > 1e-14 {
			t.Errorf("η = %v, c = %v: the probabilities sum to %.17g", c.eta, c.c, sum)
		}
	}
	// The middle category at η = 40: log(σ(39) - σ(38.5)) = log(e^-38.5 -
	// e^-39) to a relative 1e-16 (σ(-x) = e^-x(1 - e^-x + …)), which the
	// probabilities' difference would lose entirely.
	vals, _ := evalDensity(t, func(x ...*ad.Node) *ad.Node { return stdlib.OrderedLogisticLPMF(x[0], x[1], x[2]) },
		[]ad.Shape{{}, {}, {3}}, [][]float64{{3}, {40}, {-1, 0.5, 2}})
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	if want := math.Log(sig(-38) - sig(-39.5)); math.Abs(vals[0]-want) > 1e-13*math.Abs(want) {
		t.Errorf("ordered_logistic(3 | 40, c) = %.17g, want %.17g", vals[0], want)
	}
}
