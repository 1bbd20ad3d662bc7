package infer

import (
	"maps"
	"math"
	"slices"
	"testing"
)

// TestWindowSchedule places the metric windows where Stan's manual says
// they fall: for 1,000 warm-up iterations with buffers 75 and 50 and a
// first window of 25, windows end at iterations 100, 150, 250, 450 and
// 950 (counted from 1); a warm-up shorter than the three is split 15/75/10%, and one
// under 20 learns no metric.
func TestWindowSchedule(t *testing.T) {
	for _, tc := range []struct {
		warmup int
		ends   []int // from 0
		init   int
	}{
		{1000, []int{99, 149, 249, 449, 949}, 75},
		{200, []int{99, 149}, 75},
		{160, []int{99, 109}, 75},
		{150, []int{99}, 75}, // 75 + 25 + 50 fit exactly: no shrinking
		{149, []int{134}, 22},
		{19, nil, 75},
	} {
		w := newWindowSchedule(&Exact{Warmup: tc.warmup, InitBuffer: 75, Window: 25, TermBuffer: 50})
		ends := slices.Sorted(maps.Keys(w.ends))
		if !slices.Equal(ends, tc.ends) || len(ends) > 0 && w.initBuffer != tc.init {
			t.Errorf("warm-up %d: windows end at %v after a buffer of %d, want %v after %d", tc.warmup, ends, w.initBuffer, tc.ends, tc.init)
		}
		if len(ends) > 0 && (w.inWindow(w.initBuffer-1) || !w.inWindow(w.initBuffer) || !w.inWindow(ends[len(ends)-1]) || w.inWindow(ends[len(ends)-1]+1)) {
			t.Errorf("warm-up %d: the windows do not span iterations %d to %d", tc.warmup, w.initBuffer, ends[len(ends)-1])
		}
	}
}

// TestDualAverage drives the step size with a deterministic acceptance
// α(ε) = exp(−ε): the averaged step must settle where α = δ, ε = −log δ,
// within 2% after 20,000 updates (the average of the iterates forgets its start slowly: after 2,000 it is still 6% off for δ = 0.95).
func TestDualAverage(t *testing.T) {
	for _, delta := range []float64{0.574, 0.8, 0.95} {
		var d DualAverage
		eps := 1.0
		d.restart(eps)
		for range 20000 {
			eps = d.learn(math.Exp(-eps), delta)
		}
		if want := -math.Log(delta); math.Abs(d.final()/want-1) > 0.02 {
			t.Errorf("δ = %g: ε̄ = %.4g, want %.4g", delta, d.final(), want)
		}
	}
}

// TestRegularisedMetric checks Stan's shrinkage of a window's sample
// (co)variance, toward its own diagonal times 10⁻³ rather than Stan's
// 10⁻³·I, and the Cholesky factor of the dense one; a coordinate that
// never moved is shrunk toward Stan's 10⁻³.
func TestRegularisedMetric(t *testing.T) {
	points := [][]float64{{1, 2}, {2, 1}, {4, 5}, {0, 1}, {3, 3}}
	n := float64(len(points))
	diag, dense := newWindowEstimate(2, false), newWindowEstimate(2, true)
	for _, p := range points {
		diag.add(p)
		dense.add(p)
	}
	// Sample covariance (divisor n − 1) of the points: var 2.5 and 2.8,
	// covariance 2.25.
	cov := []float64{2.5, 2.25, 2.25, 2.8}
	shrink := 1e-3 * 5 / (n + 5)
	want := []float64{n/(n+5)*cov[0] + shrink*cov[0], n / (n + 5) * cov[1], n / (n + 5) * cov[2], n/(n+5)*cov[3] + shrink*cov[3]}
	got := dense.regularised(make([]float64, 4))
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("dense metric %v, want %v", got, want)
			break
		}
	}
	if d := diag.regularised(make([]float64, 2)); math.Abs(d[0]-want[0]) > 1e-12 || math.Abs(d[1]-want[3]) > 1e-12 {
		t.Errorf("diagonal metric %v, want %v", d, []float64{want[0], want[3]})
	}
	still := newWindowEstimate(2, false)
	for _, p := range points {
		still.add([]float64{p[0], 7})
	}
	if d := still.regularised(make([]float64, 2)); math.Abs(d[0]-want[0]) > 1e-12 || d[1] != shrink {
		t.Errorf("a coordinate that never moved: metric %v, want %v", d, []float64{want[0], shrink})
	}
	l := make([]float64, 4)
	if err := choleskyLower(l, got, 2); err != nil {
		t.Fatal(err)
	}
	if llt := []float64{l[0] * l[0], l[0] * l[2], l[2] * l[0], l[2]*l[2] + l[3]*l[3]}; l[1] != 0 || math.Abs(llt[3]-got[3]) > 1e-12 || math.Abs(llt[1]-got[1]) > 1e-12 {
		t.Errorf("L = %v: LLᵀ = %v, want %v", l, llt, got)
	}
	if err := choleskyLower(l, []float64{1, 2, 2, 1}, 2); err == nil {
		t.Error("an indefinite matrix was factored")
	}
}
