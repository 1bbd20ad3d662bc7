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
