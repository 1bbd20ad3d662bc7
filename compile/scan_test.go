package compile_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/compile"
)

// scanCases are loops of the kinds the scan covers (scan.go): a sequence
// read at lags 1 and 2, a carried state with and without a value before the
// loop, a two-dimensional sequence (the Stan User's Guide's forward
// algorithm, gamma[t, k]), elements of a parameter and of a local array
// taken by the index, the index as a number, loops and user functions
// inside the body, and ~ statements in it.
var scanCases = []struct {
	name, src string
	scans     int // the loops scanned
}{
	{"garch", garchSrc, 1},
	{"ar2-lags", `
data { T: int  y: real[T] }
param { a: real  b: real  ls: real }
model {
  a ~ normal(0, 1)
  b ~ normal(0, 1)
  m: real[T]
  m[1] = 0
  m[2] = y[1]
  for t in 3:T {
    m[t] = a * y[t - 1] + b * m[t - 2] + 0.1 * m[t - 1]
    y[t] ~ normal(m[t], exp(ls))
  }
}`, 1},
	{"hmm-state", `
data { T: int  y: real[T] }
param { mu: ordered[2]  sigma: real<lower=0>  Gamma: simplex[2][2] }
model {
  mu ~ normal(0, 5)
  sigma ~ normal(0, 2)
  la: real[2]
  next: real[2]
  acc: real[2]
  for k in 1:2 {
    la[k] = log(0.5) + normal_lpdf(y[1] | mu[k], sigma)
  }
  for t in 2:T {
    for k in 1:2 {
      for j in 1:2 {
        acc[j] = la[j] + log(Gamma[j, k])
      }
      next[k] = log_sum_exp(acc) + normal_lpdf(y[t] | mu[k], sigma)
    }
    la = next
  }
  target += log_sum_exp(la)
}`, 1},
	{"hmm-matrix", `
functions {
  emit(x: real, m: real, s: real): real {
    return normal_lpdf(x | m, s)
  }
}
data { T: int  y: real[T] }
param { mu: ordered[2]  sigma: real<lower=0>  Gamma: simplex[2][2] }
model {
  mu ~ normal(0, 5)
  sigma ~ normal(0, 2)
  gamma: real[T, 2]
  acc: real[2]
  for k in 1:2 {
    gamma[1, k] = log(0.5) + emit(y[1], mu[k], sigma)
  }
  for t in 2:T {
    for k in 1:2 {
      for j in 1:2 {
        acc[j] = gamma[t - 1, j] + log(Gamma[j, k])
      }
      gamma[t, k] = log_sum_exp(acc) + emit(y[t], mu[k], sigma)
    }
  }
  target += log_sum_exp(gamma[T])
}`, 1},
	{"stochastic-volatility", `
data { T: int  y: real[T] }
param { mu: real  phi: real<lower=-1, upper=1>  sigma: real<lower=0>  z: real[T] }
model {
  mu ~ normal(0, 1)
  sigma ~ normal(0, 1)
  z ~ normal(0, 1)
  h: real[T]
  h[1] = mu + sigma * z[1] / sqrt(1 - phi * phi)
  for t in 2:T {
    h[t] = mu + phi * (h[t - 1] - mu) + sigma * z[t]
  }
  y ~ normal(0, exp(h / 2))
}`, 1},
	{"index-and-invariant", `
data { T: int  y: real[T] }
param { a: real  b: real<lower=0> }
model {
  w: real[T]
  for t in 1:T {
    w[t] = 0.5 + 0.01 * t
  }
  total: real = 0 * a
  for t in 1:T {
    total = total + w[t] * a + 0.001 * t * b
    y[t] ~ normal(total / t, b)
  }
  b ~ exponential(1)
}`, 2},
	{"states-by-data", `
data { T: int  y: real[T]  z: int[T] }
param { mu: real[2]  phi: real }
model {
  mu ~ normal(0, 3)
  e: real[T]
  e[1] = 0
  for t in 2:T {
    e[t] = y[t] - mu[z[t]] - phi * e[t - 1]
    e[t] ~ normal(0, 1)
  }
}`, 1},
	{"carry-written-first", `
data { T: int  y: real[T] }
param { a: real  s: real<lower=0> }
model {
  d: real[2]
  for t in 1:T {
    d[1] = y[t] - a
    d[2] = d[1] / s
    target += -0.5 * d[2] * d[2] - log(s)
  }
  target += d[2]
}`, 1},
}

func scanData(n int, seed uint64) map[string]any {
	z := make([]int, n)
	for t := range z {
		z[t] = 1 + t/7%2
	}
	return map[string]any{"T": n, "y": garchSeries(n, seed), "z": z}
}

// TestScanMatchesUnrolled: each loop of scanCases, at T = 150, is one scan
// op, and its energy and gradient are those of the unrolled loop to 1e-10
// (relative), at random points: the scan runs the same operations in
// another order (the log-density terms summed per step, then over steps).
func TestScanMatchesUnrolled(t *testing.T) {
	const n = 150
	for _, c := range scanCases {
		t.Run(c.name, func(t *testing.T) {
			data := scanData(n, 3)
			scanned := compileSrc(t, c.src, data)
			nodes, scans, err := compile.EnergyGraph(scanned)
			if err != nil || scans != c.scans {
				t.Fatalf("%d scan ops (%v), want %d", scans, err, c.scans)
			}
			unrolled := compileSrc(t, c.src, data)
			restore := compile.SetScanMinSteps(math.MaxInt) // the models build their graphs when evaluated
			defer restore()
			nodesU, scansU, _ := compile.EnergyGraph(unrolled)
			if scansU != 0 || nodesU < 5*nodes {
				t.Errorf("unrolled: %d nodes and %d scans; scanned: %d nodes", nodesU, scansU, nodes)
			}
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 9))
			const reps = 3 // the three points again as replicas of one evaluator, on goroutines of their own
			d := scanned.Dim()
			thetas, energies := make([]float64, reps*d), make([]float64, reps)
			grads := make([]float64, reps*d)
			for r := range reps {
				theta := thetas[r*d : (r+1)*d]
				for i := range theta {
					theta[i] = 0.6 * rng.NormFloat64()
				}
				restore()
				u, g := exactEnergy(t, scanned, theta)
				compile.SetScanMinSteps(math.MaxInt)
				uu, gu := exactEnergy(t, unrolled, theta)
				if math.Abs(u-uu) > 1e-10*math.Max(1, math.Abs(uu)) {
					t.Fatalf("energy %.15g, unrolled %.15g", u, uu)
				}
				for i := range g {
					if math.Abs(g[i]-gu[i]) > 1e-10*math.Max(1, math.Abs(gu[i])) {
						t.Errorf("∂U/∂θ%d = %.15g, unrolled %.15g", i, g[i], gu[i])
					}
				}
				energies[r] = u
				copy(grads[r*d:], g)
			}
			restore()
			ev, err := scanned.Evaluator(reps, 0)
			if err != nil {
				t.Fatal(err)
			}
			e, g, v := make([]float64, reps), make([]float64, reps*d), make([]float64, reps)
			if err := ev.Evaluate(thetas, nil, e, g, v); err != nil {
				t.Fatal(err)
			}
			for r := range reps {
				if e[r] != energies[r] {
					t.Errorf("replica %d: energy %.17g, alone %.17g", r, e[r], energies[r])
				}
			}
			for i := range g {
				if g[i] != grads[i] {
					t.Errorf("replicas: gradient %d is %.17g, alone %.17g", i, g[i], grads[i])
				}
			}
		})
	}
}

// TestScanGradient checks the scan's gradient against central differences
// of its own energy (step 1e-5: truncation O(h²) and rounding ε·|U|/h both
// below 1e-6 relative here), on the two-dimensional sequence and the
// stochastic volatility model, whose gradients flow through lags, the
// rows before the loop, parameters taken by the index and the carries.
func TestScanGradient(t *testing.T) {
	for _, c := range scanCases {
		if c.name != "hmm-matrix" && c.name != "stochastic-volatility" && c.name != "carry-written-first" {
			continue
		}
		m := compileSrc(t, c.src, scanData(120, 5))
		rng := rand.New(rand.NewPCG(4, 4))
		theta := make([]float64, m.Dim())
		for i := range theta {
			theta[i] = 0.5 * rng.NormFloat64()
		}
		_, g := exactEnergy(t, m, theta)
		energy := func(th []float64) float64 {
			u, _ := exactEnergy(t, m, th)
			return u
		}
		for i := range theta {
			fd := centralDiff(energy, theta, i, 1e-5)
			if math.Abs(g[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: ∂U/∂θ%d = %.10g, finite difference %.10g", c.name, i, g[i], fd)
			}
		}
	}
}

// TestScanFallsBack: loops the scan does not cover are unrolled, with the
// same energy as before, and errors in a long loop's body are positioned
// as in a short one.
func TestScanFallsBack(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"if on the index", `if t > 100 { target += a } else { target += 2 * a }`},
		{"break", `target += a
    if t == 140 { break }`},
		{"read ahead", `m[t] = a * m[t + 1]
    target += m[t]`},
		{"whole sequence", `m[t] = a * y[t]
    target += sum(m)`},
	} {
		src := `
data { T: int  y: real[T] }
param { a: real }
model {
  m: real[T]
  for t in 1:T { m[t] = 0 }
  for t in 1:T - 1 {
    ` + c.body + `
  }
  a ~ normal(0, 1)
  target += m[1]
}`
		m := compileSrc(t, src, scanData(150, 2))
		if _, scans, err := compile.EnergyGraph(m); err != nil || scans != 1 { // the first loop alone
			t.Errorf("%s: %d scans (%v), want 1: the second loop unrolled", c.name, scans, err)
		}
	}
	src := `
data { T: int  y: real[T] }
param { a: real }
model {
  m: real[T]
  m[1] = 0
  for t in 2:T {
    m[t] = a * m[t - 1] + y[t + 1]
  }
  a ~ normal(0, 1)
}`
	_, err := tryCompile(src, scanData(150, 2))
	if err == nil || !strings.Contains(err.Error(), "8:29") || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("error %v, want index out of range at 8:29", err)
	}
	// An index by data checked at every step: z[120] = 3 indexes mu of 2.
	data := scanData(150, 2)
	data["z"].([]int)[119] = 3
	_, err = tryCompile(scanCases[6].src, data) // states-by-data
	if err == nil || !strings.Contains(err.Error(), "z[120] = 3") {
		t.Errorf("error %v, want z[120] = 3 out of range", err)
	} else {
		t.Log(err)
	}
}

// benchLoop compiles a scanCases model at T time points, scanned or
// unrolled, and returns it with a point to evaluate.
func benchLoop(b *testing.B, name string, n int) (*compile.Model, []float64) {
	for _, c := range scanCases {
		if c.name == name {
			m, err := tryCompile(c.src, scanData(n, 4))
			if err != nil {
				b.Fatal(err)
			}
			theta := make([]float64, m.Dim())
			for i := range theta {
				theta[i] = 0.1 * float64(i%5-2)
			}
			return m, theta
		}
	}
	b.Fatalf("no case %s", name)
	return nil, nil
}

// BenchmarkLoop compiles (Compile and an evaluator) and differentiates
// GARCH(1,1) and the two-state HMM at T = 100, 1,000 and 10,000, with
// the loop scanned and unrolled.
func BenchmarkLoop(b *testing.B) {
	for _, name := range []string{"garch", "hmm-state"} {
		for _, n := range []int{100, 1000, 10000} {
			for _, mode := range []string{"scan", "unrolled"} {
				b.Run(fmt.Sprintf("%s/T=%d/%s/compile", name, n, mode), func(b *testing.B) {
					if mode == "unrolled" {
						defer compile.SetScanMinSteps(math.MaxInt)()
					}
					for b.Loop() {
						m, _ := benchLoop(b, name, n)
						if _, err := m.Evaluator(1, 0); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("%s/T=%d/%s/gradient", name, n, mode), func(b *testing.B) {
					if mode == "unrolled" {
						defer compile.SetScanMinSteps(math.MaxInt)()
					}
					m, theta := benchLoop(b, name, n)
					ev, err := m.Evaluator(1, 0)
					if err != nil {
						b.Fatal(err)
					}
					e, g, v := make([]float64, 1), make([]float64, len(theta)), make([]float64, 1)
					for b.Loop() {
						if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// TestScanGraphSize: a scanned loop's graph does not grow with T (GARCH and
// the HMM at T = 150 and 10,000 have the same nodes), which is what makes
// it compile in milliseconds at any length (BenchmarkLoop times it).
func TestScanGraphSize(t *testing.T) {
	for _, c := range scanCases[:3] {
		var sizes []int
		for _, n := range []int{150, 10000} {
			nodes, scans, err := compile.EnergyGraph(compileSrc(t, c.src, scanData(n, 6)))
			if err != nil || scans != 1 {
				t.Fatalf("%s, T = %d: %d scans (%v)", c.name, n, scans, err)
			}
			sizes = append(sizes, nodes)
		}
		if sizes[0] != sizes[1] {
			t.Errorf("%s: %d nodes at T = 150, %d at 10,000", c.name, sizes[0], sizes[1])
		}
	}
}

// TestScanDerived: a long loop of the transformed data and of the
// transformed parameters is a scan too, and gives the values the unrolled
// loop gives: the running sums of y (data) and sigma's recursion, written
// to each draw.
func TestScanDerived(t *testing.T) {
	const src = `
data { T: int  y: real[T] }
transformed data {
  run: real[T]
  run[1] = y[1]
  for t in 2:T {
    run[t] = run[t - 1] + y[t]
  }
}
param { a: real<lower=0, upper=1>  b: real }
transformed param {
  s: real[T]
  s[1] = 1
  for t in 2:T {
    s[t] = b + a * s[t - 1] + 0.001 * run[t]
  }
}
model {
  a ~ uniform(0, 1)
  b ~ normal(0, 1)
  y ~ normal(0, exp(0.01 * s))
}`
	data := scanData(150, 8)
	values := func() []float64 {
		m := compileSrc(t, src, data)
		cols := make([]float64, len(m.OutputNames()))
		m.Constrain(cols, []float64{0.3, -0.2})
		return cols
	}
	before := compile.ScansBuilt()
	scanned := values()
	if n := compile.ScansBuilt() - before; n < 2 { // the transformed data's, and the draws' columns' at least
		t.Errorf("%d scans built for the data and the draws' columns", n)
	}
	m := compileSrc(t, src, data)
	if _, scans, err := compile.EnergyGraph(m); err != nil || scans != 1 { // the transformed parameters' loop; the data's ran once
		t.Fatalf("%d scans (%v), want 1", scans, err)
	}
	defer compile.SetScanMinSteps(math.MaxInt)()
	unrolled := values()
	if len(scanned) != len(unrolled) || len(scanned) < 150 {
		t.Fatalf("%d derived values scanned, %d unrolled", len(scanned), len(unrolled))
	}
	for i := range scanned {
		if math.Abs(scanned[i]-unrolled[i]) > 1e-12*math.Max(1, math.Abs(unrolled[i])) {
			t.Errorf("derived value %d: %.15g scanned, %.15g unrolled", i, scanned[i], unrolled[i])
		}
	}
}
