package compile_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// varyingInterceptSrc is the radon-style model: one intercept per group,
// a[g[n]], gathered by a data column inside the plate.
const varyingInterceptSrc = `
data {
  N: int
  J: int
  g: int[N]
  x: real[N]
  y: real[N]
}
param {
  mu: real
  tau: real<lower=0>
  a: real[J]
  b: real
  sigma: real<lower=0>
}
model {
  mu ~ normal(0, 5)
  tau ~ exponential(1)
  a ~ normal(mu, tau)
  b ~ normal(0, 5)
  sigma ~ exponential(1)
  for n in plate(N) {
    y[n] ~ normal(a[g[n]] + b * x[n], sigma)
  }
}
`

type groupData struct {
	j    int
	g    []int
	x, y []float64
}

func newGroupData(n, j int, seed uint64) (groupData, map[string]any) {
	rng := rand.New(rand.NewPCG(seed, 3))
	d := groupData{j: j, g: make([]int, n), x: make([]float64, n), y: make([]float64, n)}
	for i := range n {
		d.g[i] = 1 + rng.IntN(j)
		d.x[i] = rng.NormFloat64()
		d.y[i] = 0.1*float64(d.g[i]%7) + 0.5*d.x[i] + 0.3*rng.NormFloat64()
	}
	return d, map[string]any{"J": j, "g": d.g, "x": d.x, "y": d.y}
}

// theta is laid out as mu, log tau, a[1..J], b, log sigma.
func (d groupData) rowLogLik(theta []float64, n int) float64 {
	a, b, sigma := theta[2:2+d.j], theta[2+d.j], math.Exp(theta[3+d.j])
	z := (d.y[n] - a[d.g[n]-1] - b*d.x[n]) / sigma
	return -0.5*z*z - math.Log(sigma) - 0.5*math.Log(2*math.Pi)
}

// energy is the hand-written -log p on the unconstrained scale, with the
// likelihood summed over rows and scaled by N/len(rows) (rows nil: all).
func (d groupData) energy(theta []float64, rows []int) float64 {
	normal := func(v, mu, s float64) float64 {
		z := (v - mu) / s
		return -0.5*z*z - math.Log(s) - 0.5*math.Log(2*math.Pi)
	}
	mu, tau := theta[0], math.Exp(theta[1])
	b, sigma := theta[2+d.j], math.Exp(theta[3+d.j])
	lp := normal(mu, 0, 5) - tau + theta[1] + normal(b, 0, 5) - sigma + theta[3+d.j]
	for _, a := range theta[2 : 2+d.j] {
		lp += normal(a, mu, tau)
	}
	if rows == nil {
		for n := range d.g {
			lp += d.rowLogLik(theta, n)
		}
		return -lp
	}
	ll := 0.0
	for _, n := range rows {
		ll += d.rowLogLik(theta, n)
	}
	return -(lp + float64(len(d.g))/float64(len(rows))*ll)
}

// TestVaryingInterceptMatchesHandWritten checks the energy and gradient of
// the varying-intercept model (85 groups, 900 rows) against the
// hand-written density on the full data and on a minibatch.
func TestVaryingInterceptMatchesHandWritten(t *testing.T) {
	const n, j = 900, 85
	d, data := newGroupData(n, j, 1)
	m := compileSrc(t, varyingInterceptSrc, data)
	dim := m.Dim()
	if dim != j+4 {
		t.Fatalf("dim %d, want %d", dim, j+4)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	theta := make([]float64, dim)
	for i := range theta {
		theta[i] = 0.5 * rng.NormFloat64()
	}
	minibatch := rng.Perm(n)[:64]
	minibatch[1] = minibatch[0] // a row drawn twice: its group's gradient adds up
	for _, rows := range [][]int{nil, minibatch} {
		ev, err := m.Evaluator(1, len(rows))
		if err != nil {
			t.Fatal(err)
		}
		energy, grad, variance := make([]float64, 1), make([]float64, dim), make([]float64, 1)
		if err := ev.Evaluate(theta, rows, energy, grad, variance); err != nil {
			t.Fatal(err)
		}
		want := d.energy(theta, rows)
		if math.Abs(energy[0]-want) > 1e-10*math.Abs(want) {
			t.Fatalf("batch %d: energy %.15g, hand-written %.15g", len(rows), energy[0], want)
		}
		for i := range theta {
			const h = 1e-5
			up := append([]float64(nil), theta...)
			down := append([]float64(nil), theta...)
			up[i] += h
			down[i] -= h
			fd := (d.energy(up, rows) - d.energy(down, rows)) / (2 * h)
			if math.Abs(grad[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("batch %d: ∂U/∂θ%d = %.10g, finite difference %.10g", len(rows), i, grad[i], fd)
			}
		}
	}
}

// TestIndexByDataOutsidePlate takes rows of a matrix parameter by an int
// array: W[idx] is a [3, 2] matrix of rows 3, 1, 3 of W.
func TestIndexByDataOutsidePlate(t *testing.T) {
	src := `
data { idx: int[3] }
param { W: real[4, 2] }
model {
  target += sum(W[idx] * [1.0, 10.0]) + W[idx, 2][1]
}`
	m := compileSrc(t, src, map[string]any{"idx": []int{3, 1, 3}})
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	e, g, v := make([]float64, 1), make([]float64, 8), make([]float64, 1)
	if err := ev.Evaluate(w, nil, e, g, v); err != nil {
		t.Fatal(err)
	}
	// Rows 3, 1, 3: (5 + 60) + (1 + 20) + (5 + 60), plus W[3, 2] = 6.
	if want := -(65.0 + 21 + 65 + 6); e[0] != want {
		t.Errorf("energy %v, want %v", e[0], want)
	}
	wantG := []float64{-1, -10, 0, 0, -2, -21, 0, 0}
	if fmt.Sprint(g) != fmt.Sprint(wantG) {
		t.Errorf("gradient %v, want %v", g, wantG)
	}
}

// TestIndexByDataRows takes a row of a matrix parameter per plate row: a
// varying intercept and slope, ab[g[n]] a [2]-vector per row.
func TestIndexByDataRows(t *testing.T) {
	src := `
data { N: int  g: int[N]  x: real[N]  y: real[N] }
param { ab: real[3, 2] }
model {
  for n in plate(N) {
    r = ab[g[n]]
    target += -0.5 * (y[n] - r[1] - r[2] * x[n]) ^ 2
  }
}`
	g := []int{2, 3, 2, 1}
	x := []float64{0.5, -1, 2, 1}
	y := []float64{1, 0, 3, -1}
	m := compileSrc(t, src, map[string]any{"g": g, "x": x, "y": y})
	ev, err := m.Evaluator(1, 2)
	if err != nil {
		t.Fatal(err)
	}
	ab := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	rows := []int{2, 1}
	e, grad, v := make([]float64, 1), make([]float64, 6), make([]float64, 1)
	if err := ev.Evaluate(ab, rows, e, grad, v); err != nil {
		t.Fatal(err)
	}
	want, wantG := 0.0, make([]float64, 6)
	for _, r := range rows {
		k := g[r] - 1
		res := y[r] - ab[2*k] - ab[2*k+1]*x[r]
		want += 2 * 0.5 * res * res // scaled by N/B = 2
		wantG[2*k] -= 2 * res
		wantG[2*k+1] -= 2 * res * x[r]
	}
	if math.Abs(e[0]-want) > 1e-12 {
		t.Errorf("energy %v, want %v", e[0], want)
	}
	for i := range wantG {
		if math.Abs(grad[i]-wantG[i]) > 1e-12 {
			t.Errorf("gradient %v, want %v", grad, wantG)
			break
		}
	}
}

// TestIndexByDataErrors: values outside 1..J are compile-time errors that
// name the field and element; forms of index the compiler cannot check
// are refused.
func TestIndexByDataErrors(t *testing.T) {
	for _, c := range []struct {
		g    []float64
		body string
		want string
	}{
		{[]float64{1, 2, 4}, "target += a[g[n]]", `g[3] = 4 in Go value, which indexes an axis of 3: an index by data must be an integer in 1..3`},
		{[]float64{0, 2, 1}, "target += a[g[n]]", `g[1] = 0`},
		{[]float64{1, 2, 3}, "k = g[n]\n target += a[k]", `an index must be a constant, the plate index, or int data indexed by the plate index or constants`},
		{[]float64{1, 2, 3}, "target += x[n][g[n]]", `an index by data (g[...]) must be the first index of an array that does not depend on the plate`},
	} {
		src := fmt.Sprintf(`
data { N: int  g: int[N]  x: real[N, 3] }
param { a: real[3] }
model {
  for n in plate(N) {
    %s
  }
}`, c.body)
		_, err := tryCompile(src, map[string]any{"g": c.g, "x": [][]float64{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with g = %v: error %v, want %q", c.body, c.g, err, c.want)
		}
	}
}

// varyingSlopeSrc is the likelihood of correlated varying intercepts and
// slopes: a [J, 2] parameter, each row's subject's pair gathered by
// ab[g[n], 1] and ab[g[n], 2].
const varyingSlopeSrc = `
data { N: int  J: int  g: int[N]  x: real[N]  y: real[N] }
param { ab: real[J, 2]  sigma: real<lower=0> }
model {
  for n in plate(N) {
    y[n] ~ normal(ab[g[n], 1] + ab[g[n], 2] * x[n], sigma)
  }
}`

// BenchmarkIndexByData evaluates the energy and gradient of the
// varying-intercept likelihood, and of the varying-intercept-and-slope
// one, on minibatches of 1024 rows at 10 and 1000 groups, reporting the
// time per row: a gather and a scatter-add cost the same per row whatever
// the number of groups. (The prior on the groups' effects, O(J) once per
// evaluation, is left out so that the figure is the rows' alone.)
func BenchmarkIndexByData(b *testing.B) {
	const n, batch = 8192, 1024
	models := []struct{ name, src string }{
		{"intercept", strings.Replace(varyingInterceptSrc, "a ~ normal(mu, tau)", "", 1)},
		{"intercept+slope", varyingSlopeSrc},
	}
	for _, md := range models {
		for _, j := range []int{10, 1000} {
			b.Run(fmt.Sprintf("%s/J=%d", md.name, j), func(b *testing.B) {
				_, data := newGroupData(n, j, 5)
				m, err := tryCompile(md.src, data)
				if err != nil {
					b.Fatal(err)
				}
				ev, err := m.Evaluator(1, batch)
				if err != nil {
					b.Fatal(err)
				}
				theta := make([]float64, m.Dim())
				energy, grad, variance := make([]float64, 1), make([]float64, m.Dim()), make([]float64, 1)
				rows := rand.New(rand.NewPCG(1, 1)).Perm(n)[:batch]
				b.ResetTimer()
				for range b.N {
					if err := ev.Evaluate(theta, rows, energy, grad, variance); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/row")
			})
		}
	}
}

// TestStrata: the int data that index a parameter by row (g in a[g[n]])
// are the rows' groups that the stochastic-gradient samplers stratify
// their minibatches by: each row's value less one, with the indexed
// array's length as the number of groups; a model without such an index
// has none, and of two the one of more groups is chosen.
func TestStrata(t *testing.T) {
	d, data := newGroupData(500, 12, 1)
	m, err := tryCompile(varyingInterceptSrc, data)
	if err != nil {
		t.Fatal(err)
	}
	of, groups := m.Strata()
	if groups != 12 || len(of) != 500 {
		t.Fatalf("Strata: %d rows of %d groups, want 500 of 12", len(of), groups)
	}
	for i, g := range of {
		if int(g) != d.g[i]-1 {
			t.Fatalf("row %d: group %d, want %d", i, g, d.g[i]-1)
		}
	}
	plain, err := tryCompile(`data { N: int  x: real[N]  y: real[N] }
param { b: real }
model { for n in plate(N) { y[n] ~ normal(b * x[n], 1) } }`, map[string]any{"x": d.x, "y": d.y})
	if err != nil {
		t.Fatal(err)
	}
	if of, _ := plain.Strata(); of != nil {
		t.Errorf("a model without an index by data has strata")
	}
	coarse := make([]int, 500)
	for i := range coarse {
		coarse[i] = 1 + i%3
	}
	two, err := tryCompile(`data { N: int  J: int  g: int[N]  h: int[N]  y: real[N] }
param { a: real[J]  c: real[3] }
model { a ~ normal(0, 1)  c ~ normal(0, 1)  for n in plate(N) { y[n] ~ normal(a[g[n]] + c[h[n]], 1) } }`,
		map[string]any{"J": 12, "g": d.g, "h": coarse, "y": d.y})
	if err != nil {
		t.Fatal(err)
	}
	if _, groups := two.Strata(); groups != 12 {
		t.Errorf("of g (12 groups) and h (3), Strata chose %d groups", groups)
	}
}
