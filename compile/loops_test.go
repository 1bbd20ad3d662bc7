package compile_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper/compile"
)

// garchSrc is GARCH(1,1) with unconstrained parameters mapped by hand, so
// that the energy is the plain likelihood below (no Jacobians): the
// variance a local vector filled by a loop, the likelihood one vectorised
// statement over it.
const garchSrc = `
data { T: int  y: real[T] }
param { mu: real  lw: real  la: real  lb: real }
model {
  omega = exp(lw)
  alpha = inv_logit(la)
  beta = inv_logit(lb)
  s2: real[T]
  s2[1] = omega / (1 - alpha - beta)
  for t in 2:T {
    s2[t] = omega + alpha * (y[t - 1] - mu) ^ 2 + beta * s2[t - 1]
  }
  y ~ normal(mu, sqrt(s2))
}
`

// garchEnergy is -log p(y | θ) of garchSrc, written in Go.
func garchEnergy(theta, y []float64) float64 {
	mu, omega := theta[0], math.Exp(theta[1])
	alpha, beta := 1/(1+math.Exp(-theta[2])), 1/(1+math.Exp(-theta[3]))
	s2 := omega / (1 - alpha - beta)
	u := 0.0
	for t := range y {
		if t > 0 {
			s2 = omega + alpha*(y[t-1]-mu)*(y[t-1]-mu) + beta*s2
		}
		r := y[t] - mu
		u += 0.5*math.Log(2*math.Pi*s2) + r*r/(2*s2)
	}
	return u
}

// garchSeries simulates T steps of GARCH(1,1) from a fixed seed.
func garchSeries(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	mu, omega, alpha, beta := 0.1, 0.2, 0.15, 0.7
	s2 := omega / (1 - alpha - beta)
	y := make([]float64, n)
	for t := range y {
		if t > 0 {
			s2 = omega + alpha*(y[t-1]-mu)*(y[t-1]-mu) + beta*s2
		}
		y[t] = mu + math.Sqrt(s2)*rng.NormFloat64()
	}
	return y
}

// checkEnergy compares the model's energy and gradient at theta with want
// (to 1e-10 relative) and want's central finite differences.
func checkEnergy(t *testing.T, m *compile.Model, theta []float64, want func([]float64) float64) {
	t.Helper()
	u, g := exactEnergy(t, m, theta)
	w := want(theta)
	if math.Abs(u-w) > 1e-10*math.Max(1, math.Abs(w)) {
		t.Fatalf("energy %.15g, hand-written %.15g", u, w)
	}
	for i := range theta {
		fd := centralDiff(want, theta, i, 1e-5)
		if math.Abs(g[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂U/∂θ%d = %.10g, finite difference %.10g", i, g[i], fd)
		}
	}
}

// centralDiff is (f(θ + h e_i) − f(θ − h e_i)) / 2h.
func centralDiff(f func([]float64) float64, theta []float64, i int, h float64) float64 {
	up := append([]float64(nil), theta...)
	down := append([]float64(nil), theta...)
	up[i] += h
	down[i] -= h
	return (f(up) - f(down)) / (2 * h)
}

func TestLoopGARCH(t *testing.T) {
	y := garchSeries(60, 1)
	m := compileSrc(t, garchSrc, map[string]any{"T": len(y), "y": y})
	for _, theta := range [][]float64{{0.1, math.Log(0.2), -1.7, 0.8}, {-0.3, -2, -2, 1.5}} {
		checkEnergy(t, m, theta, func(th []float64) float64 { return garchEnergy(th, y) })
	}
}

// armaSrc is ARMA(1,1) with the errors in a local vector and the mean in
// a scalar local changed by every iteration, each observation its own ~
// statement inside the loop, and an if that treats the first step apart.
const armaSrc = `
data { T: int  y: real[T] }
param { mu: real  phi: real  theta: real  ls: real }
model {
  sigma = exp(ls)
  err: real[T]
  nu: real = mu
  for t in 1:T {
    if t == 1 {
      nu = mu + phi * mu
    } else {
      nu = mu + phi * y[t - 1] + theta * err[t - 1]
    }
    err[t] = y[t] - nu
    y[t] ~ normal(nu, sigma)
  }
}
`

func armaEnergy(th, y []float64) float64 {
	mu, phi, theta, sigma := th[0], th[1], th[2], math.Exp(th[3])
	u, prevErr := 0.0, 0.0
	for t := range y {
		nu := mu + phi*mu
		if t > 0 {
			nu = mu + phi*y[t-1] + theta*prevErr
		}
		prevErr = y[t] - nu
		u += 0.5*math.Log(2*math.Pi) + math.Log(sigma) + prevErr*prevErr/(2*sigma*sigma)
	}
	return u
}

func TestLoopARMA(t *testing.T) {
	y := garchSeries(40, 2)
	m := compileSrc(t, armaSrc, map[string]any{"T": len(y), "y": y})
	checkEnergy(t, m, []float64{0.2, 0.5, -0.3, -0.1}, func(th []float64) float64 { return armaEnergy(th, y) })
}

// hmmSrc is a two-state HMM's forward algorithm, a matrix local filled a
// row at a time, with a user function for the emission and a function
// with an int parameter and a loop of its own.
const hmmSrc = `
functions {
  emit(y: real, m: real): real {
    return normal_lpdf(y | m, 1)
  }
  lse2(a: real, b: real): real {
    hi: real = a
    if 1 > 0 {
      hi = a
    }
    return log(exp(a - b) + 1) + b
  }
  total(x: real[], n: int): real {
    acc: real = 0
    for i in 1:n {
      acc += x[i]
    }
    return acc
  }
}
data { T: int  y: real[T] }
param { m: real[2]  lp: real }
model {
  p = inv_logit(lp)
  la: real[T, 2]
  for k in 1:2 {
    la[1, k] = log(0.5) + emit(y[1], m[k])
  }
  for t in 2:T {
    for k in 1:2 {
      stay = la[t - 1, k] + log(p)
      move = la[t - 1, 3 - k] + log1p(-p)
      la[t, k] = lse2(stay, move) + emit(y[t], m[k])
    }
  }
  target += log_sum_exp(la[T])
  target += 0 * total(la[1], 2)
}
`

func hmmEnergy(th, y []float64) float64 {
	m, p := th[:2], 1/(1+math.Exp(-th[2]))
	emit := func(y, m float64) float64 { return -0.5*math.Log(2*math.Pi) - (y-m)*(y-m)/2 }
	lse := func(a, b float64) float64 { hi := math.Max(a, b); return hi + math.Log(math.Exp(a-hi)+math.Exp(b-hi)) }
	la := [2]float64{math.Log(0.5) + emit(y[0], m[0]), math.Log(0.5) + emit(y[0], m[1])}
	for t := 1; t < len(y); t++ {
		var next [2]float64
		for k := range 2 {
			next[k] = lse(la[k]+math.Log(p), la[1-k]+math.Log1p(-p)) + emit(y[t], m[k])
		}
		la = next
	}
	return -lse(la[0], la[1])
}

func TestLoopHMM(t *testing.T) {
	y := garchSeries(30, 3)
	m := compileSrc(t, hmmSrc, map[string]any{"T": len(y), "y": y})
	checkEnergy(t, m, []float64{-0.5, 0.7, 1.2}, func(th []float64) float64 { return hmmEnergy(th, y) })
}

// TestLoopInPlate runs a time loop inside the plate: N independent AR(1)
// series, one a row, minibatched over the series.
func TestLoopInPlate(t *testing.T) {
	const src = `
data { N: int  T: int  y: real[N, T] }
param { phi: real  ls: real }
model {
  for n in plate(N) {
    prev: real = 0
    for t in 1:T {
      y[n, t] ~ normal(phi * prev, exp(ls))
      prev = y[n, t]
    }
  }
}
`
	const n, steps = 5, 7
	y := make([][]float64, n)
	for i := range y {
		y[i] = garchSeries(steps, uint64(10+i))
	}
	m := compileSrc(t, src, map[string]any{"N": n, "T": steps, "y": y})
	want := func(th []float64) float64 {
		u := 0.0
		for _, row := range y {
			prev := 0.0
			for _, x := range row {
				r := (x - th[0]*prev) / math.Exp(th[1])
				u += 0.5*math.Log(2*math.Pi) + th[1] + r*r/2
				prev = x
			}
		}
		return u
	}
	checkEnergy(t, m, []float64{0.4, -0.2}, want)
}

// TestLocalOutputs: the top-level local variables of transformed param
// and generated are columns of the draws, the loops' own locals are not,
// and later blocks read the transformed parameter's final value.
func TestLocalOutputs(t *testing.T) {
	const src = `
data { T: int }
param { a: real }
transformed param {
  path: real[T]
  path[1] = a
  for t in 2:T {
    step = 2 * path[t - 1]
    path[t] = step
  }
}
model { a ~ normal(0, 1)  path[T] ~ normal(0, 10) }
generated {
  total: real = 0
  for t in 1:T {
    total += path[t]
  }
  sign = if_else(total > 0, 1, -1)
}
`
	m := compileSrc(t, src, map[string]any{"T": 4})
	names := strings.Join(m.OutputNames(), " ")
	if names != "a path.1 path.2 path.3 path.4 total sign" {
		t.Fatalf("columns %s", names)
	}
	out := make([]float64, 7)
	m.Constrain(out, []float64{0.5})
	if fmt.Sprint(out) != "[0.5 0.5 1 2 4 7.5 1]" {
		t.Errorf("values %v", out)
	}
	u, _ := exactEnergy(t, m, []float64{0.5})
	want := 0.5*0.5/2 + 0.5*math.Log(2*math.Pi) + 0.5*math.Log(2*math.Pi) + math.Log(10) + 4*4/200.0
	if math.Abs(u-want) > 1e-12 {
		t.Errorf("energy %v, want %v", u, want)
	}
}

// TestLoopCompileErrors: what only the unrolling can tell, positioned.
func TestLoopCompileErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`data { T: int  y: real[T] } param { mu: real } model {
  s: real[T]
  for t in 2:T { s[t] = s[t - 1] + mu }
}`, "test.ppl:3:25: s[1] is read before it is assigned"},
		{`data { T: int  y: real[T] } param { mu: real } model {
  s: real[T]
  s[T + 1] = mu
}`, "test.ppl:3:5: index 6 is out of range 1..5"},
		{`data { T: int  y: real[T] } param { mu: real[2] } model {
  s: real[T] = mu
}`, "test.ppl:2:16: s has shape [5], and the value assigned has shape [2]"},
		{`data { T: int  y: real[T] } param { mu: real } transformed param {
  s: real[T]
  s[1] = mu
}`, "test.ppl:2:3: s[2] is never assigned"},
		{`data { T: int  y: real[T] } param { mu: real } model {
  for t in 1:T { if y[t] > 0 { mu ~ normal(0, 1) } }
  target += y[T + 0 * 1]
}`, ""},
	} {
		_, err := tryCompile(c.src, map[string]any{"T": 5, "y": []float64{1, -1, 2, -2, 3}})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if c.want == "" && err != nil || !strings.HasPrefix(got, c.want) {
			t.Errorf("%s\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestGARCHTimings logs the time to compile GARCH(1,1) (Compile and an
// Evaluator: the graph is built twice) and to evaluate its energy and
// gradient at T = 100, 1,000 and 10,000, as wall-clock and as the
// process's CPU time (on a shared machine the wall clock counts other
// processes' turns). The loop is a scan at these T (scan.go): the
// compile time hardly grows with T, the gradient's grows as T.
func TestGARCHTimings(t *testing.T) {
	for _, n := range []int{100, 1000, 10000} {
		if testing.Short() && n > 1000 {
			break
		}
		y := garchSeries(n, 4)
		runtime.GC()
		start, cpu := time.Now(), cpuTime()
		m := compileSrc(t, garchSrc, map[string]any{"T": n, "y": y})
		ev, err := m.Evaluator(1, 0)
		if err != nil {
			t.Fatal(err)
		}
		compiled, compiledCPU := time.Since(start), cpuTime()-cpu
		theta := []float64{0.1, math.Log(0.2), -1.7, 0.8}
		e, g, v := make([]float64, 1), make([]float64, 4), make([]float64, 1)
		reps := max(1, 200000/n)
		start, cpu = time.Now(), cpuTime()
		for range reps {
			if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
				t.Fatal(err)
			}
		}
		per, perCPU := time.Since(start)/time.Duration(reps), (cpuTime()-cpu)/time.Duration(reps)
		t.Logf("GARCH(1,1), T = %5d: compile %v (CPU %v), gradient %v (CPU %v)", n,
			compiled.Round(time.Millisecond/10), compiledCPU.Round(time.Millisecond/10), per.Round(time.Microsecond), perCPU.Round(time.Microsecond))
		if w := garchEnergy(theta, y); math.Abs(e[0]-w) > 1e-9*math.Abs(w) {
			t.Errorf("T = %d: energy %v, want %v", n, e[0], w)
		}
	}
}

// BenchmarkGARCHCompile compiles GARCH(1,1) at T = 10,000.
func BenchmarkGARCHCompile(b *testing.B) {
	y := garchSeries(10000, 4)
	data := map[string]any{"T": len(y), "y": y}
	for b.Loop() {
		m, err := tryCompile(garchSrc, data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Evaluator(1, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGARCHGradient evaluates GARCH(1,1)'s energy and gradient at
// T = 10,000.
func BenchmarkGARCHGradient(b *testing.B) {
	y := garchSeries(10000, 4)
	m, err := tryCompile(garchSrc, map[string]any{"T": len(y), "y": y})
	if err != nil {
		b.Fatal(err)
	}
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		b.Fatal(err)
	}
	theta := []float64{0.1, math.Log(0.2), -1.7, 0.8}
	e, g, v := make([]float64, 1), make([]float64, 4), make([]float64, 1)
	for b.Loop() {
		if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoopCorners: an empty loop, a function called in a plate with a
// per-row argument and an int parameter that bounds its loop, and a
// generated AR(1) path drawn step by step.
func TestLoopCorners(t *testing.T) {
	const src = `
functions {
  powsum(x: real, n: int): real {
    acc: real = 0
    for k in 1:n {
      acc += x ^ k
    }
    return acc
  }
}
data { N: int  K: int  x: real[N] }
param { a: real }
model {
  for t in 5:4 {
    a ~ normal(100, 1)
  }
  a ~ normal(0, 1)
  for n in plate(N) {
    x[n] ~ normal(a * powsum(x[n], K), 1)
  }
}
generated {
  path: real[4]
  path[1] = 0
  for t in 2:4 {
    path[t] = normal_rng(0.5 * path[t - 1], 1)
  }
}
`
	x := []float64{0.5, -1, 2}
	m := compileSrc(t, src, map[string]any{"N": 3, "K": 3, "x": x})
	checkEnergy(t, m, []float64{0.7}, func(th []float64) float64 {
		u := th[0]*th[0]/2 + 0.5*math.Log(2*math.Pi)
		for _, v := range x {
			r := v - th[0]*(v+v*v+v*v*v)
			u += r*r/2 + 0.5*math.Log(2*math.Pi)
		}
		return u
	})
	a, b := make([]float64, 5), make([]float64, 5)
	m.ConstrainSeeded(a, []float64{0.7}, 1)
	m.ConstrainSeeded(b, []float64{0.7}, 1)
	if fmt.Sprint(a) != fmt.Sprint(b) || a[1] != 0 || a[2] == a[3] || a[3] == a[4] {
		t.Errorf("path %v, again %v", a[1:], b[1:])
	}
}
