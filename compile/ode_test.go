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
			reps := 200
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
				h := 1e-5
				up := append([]float64(nil), theta...)
				down := append([]float64(nil), theta...)
				up[i] += h
				down[i] -= h
				fd := (pkEnergy(up) - pkEnergy(down)) / (2 * h)
				worst = max(worst, math.Abs(g[i]-fd)/math.Max(1, math.Abs(fd)))
				if math.Abs(g[i]-fd) > c.gtol*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s: ∂U/∂θ%d = %.10g, closed form's finite difference %.10g", c.solver, i, g[i], fd)
				}
			}
			t.Logf("  largest relative gradient error %.2g", worst)
		}
	}
}
