package compile_test

import (
	"math"
	"math/rand/v2"
	"testing"
)

// logicSrc uses comparisons of data (age[n] == 2, a dummy), of data with a
// parameter (x[n] > a), logic, and if_else on parameters outside the plate.
const logicSrc = `
data {
  N: int
  age: int[N]
  x: real[N]
  y: real[N]
}
param {
  a: real
  b: real
  c: real
  sigma: real<lower=0>
}
model {
  a ~ normal(0, 1)
  b ~ normal(0, 2)
  c ~ normal(0, 2)
  sigma ~ exponential(1)
  target += -0.1 * if_else(a < 0, -a, a)
  for n in plate(N) {
    mu = a + b * (age[n] == 2) + c * if_else(x[n] > a && !(age[n] >= 3), x[n], -x[n])
    y[n] ~ normal(mu, sigma)
  }
}
`

func logicData(n int) (map[string]any, []int, []float64, []float64) {
	rng := rand.New(rand.NewPCG(11, 11))
	age := make([]int, n)
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range n {
		age[i] = 1 + rng.IntN(3)
		x[i] = rng.NormFloat64()
		y[i] = rng.NormFloat64() + float64(age[i])
	}
	return map[string]any{"age": age, "x": x, "y": y}, age, x, y
}

// logicEnergy is the hand-written -log p(θ | data) of logicSrc, with
// u = log σ.
func logicEnergy(theta []float64, age []int, x, y []float64) float64 {
	a, b, c, u := theta[0], theta[1], theta[2], theta[3]
	sigma := math.Exp(u)
	normal := func(v, mu, s float64) float64 {
		z := (v - mu) / s
		return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
	}
	lp := normal(a, 0, 1) + normal(b, 0, 2) + normal(c, 0, 2) - sigma + u
	lp += -0.1 * math.Abs(a)
	for n := range x {
		mu := a + c*-x[n]
		if age[n] == 2 {
			mu += b
		}
		if x[n] > a && age[n] < 3 {
			mu += 2 * c * x[n]
		}
		lp += normal(y[n], mu, sigma)
	}
	return -lp
}

// TestComparisonsMatchHandWritten compares the compiled energy and gradient
// with logicEnergy, at points on both sides of the if_else on a parameter.
func TestComparisonsMatchHandWritten(t *testing.T) {
	data, age, x, y := logicData(30)
	m := compileSrc(t, logicSrc, data)
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, theta := range [][]float64{{0.3, -0.5, 0.8, 0.1}, {-0.4, 1.2, -0.3, -0.2}} {
		energy, grad, variance := make([]float64, 1), make([]float64, 4), make([]float64, 1)
		if err := ev.Evaluate(theta, nil, energy, grad, variance); err != nil {
			t.Fatal(err)
		}
		want := logicEnergy(theta, age, x, y)
		if math.Abs(energy[0]-want) > 1e-10*math.Abs(want) {
			t.Fatalf("θ %v: energy %.15g, hand-written %.15g", theta, energy[0], want)
		}
		for i := range theta {
			const h = 1e-6
			up := append([]float64(nil), theta...)
			down := append([]float64(nil), theta...)
			up[i] += h
			down[i] -= h
			fd := (logicEnergy(up, age, x, y) - logicEnergy(down, age, x, y)) / (2 * h)
			if math.Abs(grad[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("θ %v: ∂U/∂θ%d = %.10g, finite difference %.10g", theta, i, grad[i], fd)
			}
		}
	}
}

// TestComparisonShapes checks that comparisons broadcast like arithmetic:
// a per-row scalar against a vector parameter gives a per-row vector.
func TestComparisonShapes(t *testing.T) {
	src := `
data { N: int  y: real[N] }
param { w: real[3] }
model {
  for n in plate(N) {
    target += sum((y[n] < w) * w)
  }
}`
	m := compileSrc(t, src, map[string]any{"y": []float64{0, 1, 2, 3}})
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.5, 1.5, 2.5}
	e, g, v := make([]float64, 1), make([]float64, 3), make([]float64, 1)
	if err := ev.Evaluate(w, nil, e, g, v); err != nil {
		t.Fatal(err)
	}
	// Rows below w: w1 = 0.5 by y = 0; w2 = 1.5 by 0, 1; w3 = 2.5 by 0, 1, 2.
	wantG := []float64{-1, -2, -3}
	if want := -(0.5 + 2*1.5 + 3*2.5); math.Abs(e[0]-want) > 1e-12 {
		t.Errorf("energy %v, want %v", e[0], want)
	}
	for i := range g {
		if g[i] != wantG[i] {
			t.Errorf("gradient %v, want %v", g, wantG)
			break
		}
	}
}
