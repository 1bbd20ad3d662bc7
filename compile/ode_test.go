package compile_test

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pkSrc is the one-compartment pharmacokinetic model with first-order
// absorption as an ODE (gut and central amounts), its parameters mapped
// from the real line by hand so that the energy is the likelihood below:
// the closed form of the central amount is its reference.
const pkSrc = `
functions {
  one_cpt(t: real, y: real[], ka: real, ke: real): real[] {
    return [-ka * y[1], ka * y[1] - ke * y[2]]
  }
}
data { N: int  ts: real[N]  conc: real[N]  dose: real  V: real }
param { lka: real  lke: real  ls: real }
model {
  ka = exp(lka)
  ke = exp(lke)
  y = SOLVER(one_cpt, [dose, 0], 0, ts, TOL ka, ke)
  for n in 1:N {
    conc[n] ~ lognormal(log(y[n, 2] / V), exp(ls))
  }
}
`

var pkTimes = []float64{0.25, 0.5, 1, 2, 3, 4, 6, 8, 12, 24}

func pkData() map[string]any {
	conc := []float64{1.8, 3.1, 4.6, 5.3, 4.9, 4.4, 3.5, 2.6, 1.5, 0.35}
	return map[string]any{"N": len(pkTimes), "ts": pkTimes, "conc": conc, "dose": 100.0, "V": 12.0}
}

// pkEnergy is -log p(conc | θ) by the closed form A(t) = D ka/(ka - ke)
// (e^{-ke t} - e^{-ka t}).
func pkEnergy(theta []float64) float64 {
	ka, ke, s := math.Exp(theta[0]), math.Exp(theta[1]), math.Exp(theta[2])
	d := pkData()
	conc := d["conc"].([]float64)
	u := 0.0
	for i, t := range pkTimes {
		a := 100 * ka / (ka - ke) * (math.Exp(-ke*t) - math.Exp(-ka*t))
		z := (math.Log(conc[i]) - math.Log(a/12)) / s
		u += math.Log(conc[i]) + math.Log(s) + 0.5*math.Log(2*math.Pi) + 0.5*z*z
	}
	return u
}

func pkModelSrc(solver, tol string) string {
	return strings.NewReplacer("SOLVER", solver, "TOL", tol).Replace(pkSrc)
}

// The ODE model's energy and gradient against the closed form, at
// default and at tight tolerances; the gradient against central finite
// differences of the closed form.
func TestODEPharmacokinetic(t *testing.T) {
	for _, c := range []struct {
		solver, tol string
		etol, gtol  float64
	}{
		{"ode_rk45", "", 1e-5, 1e-4},
		{"ode_rk45_tol", "1e-10, 1e-10, 100000,", 1e-9, 1e-6},
		{"ode_bdf", "", 1e-3, 1e-3}, // order 3: its global error is a few hundred times the tolerance per step here
		{"ode_bdf_tol", "1e-10, 1e-10, 100000,", 1e-6, 1e-6},
	} {
		runtime.GC()
		start := time.Now()
		m := compileSrc(t, pkModelSrc(c.solver, c.tol), pkData())
		ev, err := m.Evaluator(1, 0)
		if err != nil {
			t.Fatal(err)
		}
		compiled := time.Since(start)
		for _, theta := range [][]float64{{math.Log(1.2), math.Log(0.15), math.Log(0.2)}, {math.Log(0.4), math.Log(0.3), 0}} {
			e, g, v := make([]float64, 1), make([]float64, 3), make([]float64, 1)
			reps := 20
			start = time.Now()
			for range reps {
				if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
					t.Fatal(err)
				}
			}
			per := time.Since(start) / time.Duration(reps)
			w := pkEnergy(theta)
			t.Logf("%s %s: compile %v, energy and gradient %v; energy error %.2g", c.solver, c.tol, compiled.Round(time.Microsecond), per.Round(time.Microsecond), math.Abs(e[0]-w))
			if math.Abs(e[0]-w) > c.etol*math.Max(1, math.Abs(w)) {
				t.Errorf("%s: energy %.12g, closed form %.12g", c.solver, e[0], w)
			}
			worst := 0.0
			for i := range theta {
				fd := centralDiff(pkEnergy, theta, i, 1e-5)
				worst = max(worst, math.Abs(g[i]-fd)/math.Max(1, math.Abs(fd)))
				if math.Abs(g[i]-fd) > c.gtol*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s: ∂U/∂θ%d = %.10g, closed form's finite difference %.10g", c.solver, i, g[i], fd)
				}
			}
			t.Logf("  largest relative gradient error %.2g", worst)
		}
	}
}

// Errors that need the data: times that do not increase, a state that is
// not finite, a derivative of the wrong size, a plate-dependent argument;
// each positioned at its argument.
func TestODEErrors(t *testing.T) {
	const src = `
functions {
  decay(t: real, y: real[], k: real): real[] {
    return -k * y
  }
  short(t: real, y: real[], k: real): real[] {
    return [-k * y[1]]
  }
}
data { N: int  ts: real[N]  y0: real[2] }
param { k: real }
model {
  y = SOLVER
  k ~ normal(0, 1)
}
`
	for _, c := range []struct{ call, want string }{
		{"ode_rk45(decay, y0, 0, ts, k)", "test.ppl:13:30: the output times of ode_rk45 must increase from t0 and be finite: ts[3] = 2 is not above 3 (ts[2])"},
		{"ode_rk45(decay, y0, 1, ts, k)", "test.ppl:13:30: the output times of ode_rk45 must increase from t0 and be finite: ts[1] = 1 is not above 1 (t0)"},
		{"ode_rk45(short, y0, 0, [1, 2], k)", "test.ppl:13:16: short returns shape [1] for a state of 2 elements (y0): the derivative must have the state's size"},
		{"ode_rk45_tol(decay, y0, 0, [1, 2], -1, 1e-6, 100, k)", "test.ppl:13:42: the rtol of ode_rk45_tol must be a positive number known when the model is compiled: it is -1"},
	} {
		_, err := tryCompile(strings.Replace(src, "SOLVER", c.call, 1), map[string]any{"N": 3, "ts": []float64{1, 3, 2}, "y0": []float64{1, 1}})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: got error %v, want %s", c.call, err, c.want)
		}
	}
}

// A state that leaves the finite numbers while the sampler runs makes the
// energy NaN, a point the samplers reject (a divergence).
func TestODEBlowUp(t *testing.T) {
	const src = `
functions {
  grow(t: real, y: real[], k: real): real[] {
    return k * y
  }
}
param { k: real }
model {
  y = ode_rk45(grow, [1], 0, [1, 1000], k)
  target += y[2, 1]
}
`
	m := compileSrc(t, src, nil)
	ev, err := m.Evaluator(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	e, g, v := make([]float64, 1), make([]float64, 1), make([]float64, 1)
	err = ev.Evaluate([]float64{1}, nil, e, g, v)
	t.Logf("energy %v, gradient %v, error %v", e[0], g[0], err)
	if err == nil && !math.IsNaN(e[0]) && !math.IsInf(e[0], 0) {
		t.Errorf("energy %v for a state that overflows, want NaN", e[0])
	}
}

// An initial state that is a parameter, a rate that is data, and three
// replicas evaluated at once (the replicas of a ladder run on separate
// goroutines, each with its own program of f): y' = −k y from y(0) = a
// is a·e^{−kt}, and the energy −Σ log N(obs | y, 1) with a ~ N(0, 10).
func TestODEInitialStateReplicas(t *testing.T) {
	const src = `
functions {
  decay(t: real, y: real[], k: real): real[] {
    return -k * y
  }
}
data { N: int  ts: real[N]  obs: real[N]  k: real }
param { a: real }
model {
  a ~ normal(0, 10)
  y = ode_rk45_tol(decay, [a], 0, ts, 1e-10, 1e-10, 100000, k)
  obs ~ normal(y[:, 1], 1)
}
`
	ts, obs, k := []float64{0.5, 1, 2}, []float64{1.2, 0.8, 0.3}, 0.6
	m := compileSrc(t, src, map[string]any{"N": 3, "ts": ts, "obs": obs, "k": k})
	energy := func(a float64) (u, du float64) {
		u, du = a*a/200+0.5*math.Log(2*math.Pi*100), a/100
		for i, tk := range ts {
			y := a * math.Exp(-k*tk)
			u += 0.5*(obs[i]-y)*(obs[i]-y) + 0.5*math.Log(2*math.Pi)
			du -= (obs[i] - y) * math.Exp(-k*tk)
		}
		return u, du
	}
	ev, err := m.Evaluator(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.5, 1.5, -2}
	e, g, v := make([]float64, 3), make([]float64, 3), make([]float64, 3)
	if err := ev.Evaluate(theta, nil, e, g, v); err != nil {
		t.Fatal(err)
	}
	for r, a := range theta {
		u, du := energy(a)
		if math.Abs(e[r]-u) > 1e-8*math.Abs(u) || math.Abs(g[r]-du) > 1e-8*math.Max(1, math.Abs(du)) {
			t.Errorf("replica %d: energy %.12g and gradient %.12g, closed form %.12g and %.12g", r, e[r], g[r], u, du)
		}
	}
}
