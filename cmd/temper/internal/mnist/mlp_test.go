package mnist

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestStepFLOPs checks the count against the figure for batch 128:
// 2·128·(784·100 + 100·10) forward plus 2·128·(2·100·10 + 784·100)
// backward.
func TestStepFLOPs(t *testing.T) {
	if got := Net.StepFLOPs(128); got != 40_908_800 {
		t.Errorf("StepFLOPs(128) = %v, want 40908800", got)
	}
	if Net.Params() != 79_510 {
		t.Errorf("Params = %d, want 79510", Net.Params())
	}
}

func TestLayoutOf(t *testing.T) {
	good := []Param{{"W1", []int{784, 100}, 0}, {"b1", []int{100}, 78400}, {"W2", []int{100, 10}, 78500}, {"b2", []int{10}, 79500}}
	at, err := Net.LayoutOf(good)
	if err != nil || at != (Layout{0, 78400, 78500, 79500}) {
		t.Fatalf("LayoutOf = %+v, %v", at, err)
	}
	bad := append([]Param(nil), good...)
	bad[2] = Param{"W2", []int{100, 9}, 78500}
	if _, err := Net.LayoutOf(bad); err == nil || !strings.Contains(err.Error(), "parameter 3 is W2[100 9]") {
		t.Errorf("wrong shape: %v", err)
	}
	if _, err := Net.LayoutOf(good[:3]); err == nil {
		t.Error("three parameters accepted")
	}
}

// TestInit checks the bounds ±1/√fan_in of each layer and that they are
// nearly reached (the draws are uniform, not squeezed).
func TestInit(t *testing.T) {
	at := Layout{0, 78400, 78500, 79500}
	theta := make([]float64, Net.Params())
	Net.Init(theta, at, rand.New(rand.NewPCG(1, 2)))
	for _, part := range []struct {
		name  string
		x     []float64
		fanIn float64
	}{{"W1", theta[:78400], 784}, {"b1", theta[78400:78500], 784}, {"W2", theta[78500:79500], 100}, {"b2", theta[79500:], 100}} {
		bound, top := 1/math.Sqrt(part.fanIn), 0.0
		for _, v := range part.x {
			if math.Abs(v) > bound {
				t.Fatalf("%s: %v outside ±%v", part.name, v, bound)
			}
			top = max(top, math.Abs(v))
		}
		// With n ≥ 10 uniform draws, max |x| < 0.7·bound has probability 0.7^n ≤ 0.03.
		if top < 0.7*bound && len(part.x) > 10 {
			t.Errorf("%s: largest |x| %v of bound %v", part.name, top, bound)
		}
	}
}

// TestPredictor compares the predictive's accuracies with a plain loop over
// a small random network, in both precisions.
func TestPredictor(t *testing.T) {
	net := MLP{D: 5, H: 4, K: 3}
	at := Layout{W1: 0, B1: 20, W2: 24, B2: 36}
	rng := rand.New(rand.NewPCG(3, 4))
	test := &Set{N: 40, Rows: 1, Cols: 5, Pixels: make([]float64, 200), Labels: make([]int, 40)}
	for i := range test.Pixels {
		test.Pixels[i] = rng.Float64()
	}
	for i := range test.Labels {
		test.Labels[i] = rng.IntN(3)
	}
	draws := make([][]float64, 5) // chain 0 gets draws 0-2, chain 1 draws 3-4
	for i := range draws {
		draws[i] = make([]float64, 39)
		for j := range draws[i] {
			draws[i][j] = 3 * rng.NormFloat64()
		}
	}
	// The reference: average the softmax probabilities with plain loops.
	probs := func(theta []float64, n int) []float64 {
		x := test.Pixels[n*5 : n*5+5]
		h := make([]float64, 4)
		for j := range h {
			h[j] = theta[at.B1+j]
			for i, xi := range x {
				h[j] += xi * theta[at.W1+i*4+j]
			}
			h[j] = max(h[j], 0)
		}
		out, total := make([]float64, 3), 0.0
		for k := range out {
			z := theta[at.B2+k]
			for j, hj := range h {
				z += hj * theta[at.W2+j*3+k]
			}
			out[k] = math.Exp(z)
			total += out[k]
		}
		for k := range out {
			out[k] /= total
		}
		return out
	}
	acc := func(ds [][]float64) float64 {
		right := 0
		for n := range test.N {
			sum := make([]float64, 3)
			for _, d := range ds {
				for k, p := range probs(d, n) {
					sum[k] += p
				}
			}
			best := 0
			for k := range sum {
				if sum[k] > sum[best] {
					best = k
				}
			}
			if best == test.Labels[n] {
				right++
			}
		}
		return float64(right) / float64(test.N)
	}
	for _, precision := range []string{"float64", "float32"} {
		p, err := NewPredictor(net, at, test, 2, precision, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range draws {
			p.Add(i/3, d)
		}
		pooled, per := p.Accuracy()
		// float32 rounding could flip a near tie; with 40 images and
		// continuous random weights none is within 1e-6 here.
		if pooled != acc(draws) || per[0] != acc(draws[:3]) || per[1] != acc(draws[3:]) {
			t.Errorf("%s: accuracy pooled %v, per chain %v; want %v, [%v %v]", precision, pooled, per, acc(draws), acc(draws[:3]), acc(draws[3:]))
		}
		if s := p.Samples(); s[0] != 3 || s[1] != 2 {
			t.Errorf("%s: samples %v, want [3 2]", precision, s)
		}
	}
	if _, err := NewPredictor(net, at, test, 1, "float16", 1); err == nil {
		t.Error("float16 accepted")
	}
}
