package autodiff_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	ad "github.com/temper-ppl/temper/autodiff"
	"github.com/temper-ppl/temper/autodiff/adtest"
	"gonum.org/v1/gonum/mat"
)

// linearRHS is y' = A y with A (N × N, row-major) the parameters θ: J_y = A
// and ∂f_i/∂A_ij = y_j.
type linearRHS struct{ n int }

func (r linearRHS) Jacobian(dy, jy, jth []float64, _ float64, y, th []float64) {
	n := r.n
	for i := range n {
		v := 0.0
		for j := range n {
			v += th[i*n+j] * y[j]
		}
		dy[i] = v
	}
	if jy == nil {
		return
	}
	copy(jy, th[:n*n])
	clear(jth)
	for i := range n {
		for j := range n {
			jth[i*(n*n)+i*n+j] = y[j]
		}
	}
}

// forcedRHS is y' = -k (y - cos t), θ = k: stiff for large k.
type forcedRHS struct{}

func (forcedRHS) Jacobian(dy, jy, jth []float64, t float64, y, th []float64) {
	dy[0] = -th[0] * (y[0] - math.Cos(t))
	if jy != nil {
		jy[0] = -th[0]
		jth[0] = -(y[0] - math.Cos(t))
	}
}

// expm is exp(A t) y0 by gonum's matrix exponential: the independent
// reference of a linear system.
func expm(a []float64, n int, t float64, y0 []float64) []float64 {
	am := mat.NewDense(n, n, append([]float64(nil), a...))
	am.Scale(t, am)
	var e mat.Dense
	e.Exp(am)
	var y mat.VecDense
	y.MulVec(&e, mat.NewVecDense(n, append([]float64(nil), y0...)))
	return y.RawVector().Data
}

var tightODE = ad.ODEOptions{Method: ad.RK45, RelTol: 1e-11, AbsTol: 1e-11, MaxSteps: 100000}

// The solver through the harness: a linear 2-state system against the
// matrix exponential, with gradients in y0, t0, ts and A against finite
// differences (at tolerances tight enough that the adaptive step's
// choices move the solution less than the differences resolve).
func TestODELinear(t *testing.T) {
	ts := []float64{0.3, 0.7, 1.5}
	adtest.Run(t, adtest.Case{
		Name: "ode_rk45 linear",
		Inputs: []adtest.Input{
			{Shape: ad.Shape{2}, Draw: adtest.Real},
			{Shape: ad.Shape{}, Values: []float64{0.1}},
			{Shape: ad.Shape{3}, Values: ts},
			{Shape: ad.Shape{2, 2}, Draw: func(r *rand.Rand) float64 { return r.Float64() - 0.5 }},
		},
		Build: func(in []*ad.Node) *ad.Node {
			return ad.ODE(func() ad.ODERightSide { return linearRHS{2} }, tightODE, in[0], in[1], in[2], in[3])
		},
		Reference: func(x [][]float64) []float64 {
			var out []float64
			for _, tk := range x[2] {
				out = append(out, expm(x[3], 2, tk-x[1][0], x[0])...)
			}
			return out
		},
		ValueTol:    1e-8, // the solver's tolerance, 1e-11 per step, over some hundred steps
		Float64Only: true,
	})
}

// Exponential decay y' = -k y and the harmonic oscillator y1' = y2, y2' =
// -ω² y1 at Stan's default tolerances: the error against the closed form
// stays within a few times the tolerance.
func TestODEClosedForms(t *testing.T) {
	solve := func(rhs ad.ODERightSide, y0, ts, theta []float64) []float64 {
		g := ad.NewGraph(1)
		ny, nt, nth := g.Const(ad.Shape{len(y0)}, y0...), g.Scalar(0), g.Const(ad.Shape{len(ts)}, ts...)
		nthN := g.Const(ad.Shape{len(theta)}, theta...)
		out := ad.ODE(func() ad.ODERightSide { return rhs }, ad.DefaultODEOptions, ny, nt, nth, nthN)
		p, err := g.Compile(out)
		if err != nil {
			t.Fatal(err)
		}
		p.Forward()
		return p.Value(out)
	}
	ts := []float64{0.5, 1, 2, 5, 10}
	k := 0.7
	got := solve(linearRHS{1}, []float64{3}, ts, []float64{-k})
	worst := 0.0
	for i, tk := range ts {
		worst = max(worst, math.Abs(got[i]-3*math.Exp(-k*tk)))
	}
	t.Logf("decay: largest error %.2g", worst)
	if worst > 1e-5 {
		t.Errorf("decay: largest error %g, want below 1e-5", worst)
	}
	w := 2.0
	got = solve(linearRHS{2}, []float64{1, 0}, ts, []float64{0, 1, -w * w, 0})
	worst = 0
	for i, tk := range ts {
		worst = max(worst, math.Abs(got[2*i]-math.Cos(w*tk)), math.Abs(got[2*i+1]+w*math.Sin(w*tk)))
	}
	t.Logf("oscillator: largest error %.2g", worst)
	if worst > 1e-4 {
		t.Errorf("oscillator: largest error %g, want below 1e-4", worst)
	}
}

// Times that do not increase, and a state that overflows, give NaN.
func TestODENaN(t *testing.T) {
	for _, c := range []struct {
		name string
		ts   []float64
		k    float64
	}{{"times not increasing", []float64{1, 0.5}, -1}, {"time at t0", []float64{0, 1}, -1}, {"blow-up", []float64{1000}, 1000}} {
		g := ad.NewGraph(1)
		out := ad.ODE(func() ad.ODERightSide { return linearRHS{1} }, ad.DefaultODEOptions,
			g.Const(ad.Shape{1}, 1), g.Scalar(0), g.Const(ad.Shape{len(c.ts)}, c.ts...), g.Const(ad.Shape{1}, c.k))
		p, err := g.Compile(out)
		if err != nil {
			t.Fatal(err)
		}
		p.Forward()
		if v := p.Value(out); !math.IsNaN(v[0]) {
			t.Errorf("%s: got %v, want NaN", c.name, v)
		}
	}
}

var tightImplicit = ad.ODEOptions{Method: ad.SDIRK3, RelTol: 1e-10, AbsTol: 1e-10, MaxSteps: 100000}

// The implicit solver through the harness, as TestODELinear: its
// sensitivities are the derivatives of its discrete solution, so they
// match finite differences wherever the steps do not change.
func TestODEImplicitLinear(t *testing.T) {
	ts := []float64{0.3, 0.7, 1.5}
	adtest.Run(t, adtest.Case{
		Name: "ode_bdf linear",
		Inputs: []adtest.Input{
			{Shape: ad.Shape{2}, Draw: adtest.Real},
			{Shape: ad.Shape{}, Values: []float64{0.1}},
			{Shape: ad.Shape{3}, Values: ts},
			{Shape: ad.Shape{2, 2}, Draw: func(r *rand.Rand) float64 { return r.Float64() - 0.5 }},
		},
		Build: func(in []*ad.Node) *ad.Node {
			return ad.ODE(func() ad.ODERightSide { return linearRHS{2} }, tightImplicit, in[0], in[1], in[2], in[3])
		},
		Reference: func(x [][]float64) []float64 {
			var out []float64
			for _, tk := range x[2] {
				out = append(out, expm(x[3], 2, tk-x[1][0], x[0])...)
			}
			return out
		},
		ValueTol:    1e-7, // the solver's tolerance, 1e-10 per step
		Float64Only: true,
	})
}

// A stiff problem, y' = −k(y − cos t) with k = 1000, whose solution is
// y(t) = C e^{−kt} + (k² cos t + k sin t)/(k² + 1), C = y0 − k²/(k² + 1):
// the implicit solver at Stan's default tolerances stays within them in
// few steps, where the explicit one needs hundreds of steps per unit of
// time (its stability bound h < 3.3/k); the gradient in k against the
// closed form's derivative.
func TestODEStiff(t *testing.T) {
	const k, y0 = 1000.0, 0.0
	ts := []float64{0.001, 0.01, 0.1, 1, 5, 10}
	exact := func(k, t float64) float64 {
		c := y0 - k*k/(k*k+1)
		return c*math.Exp(-k*t) + (k*k*math.Cos(t)+k*math.Sin(t))/(k*k+1)
	}
	for _, method := range []ad.ODEMethod{ad.SDIRK3, ad.RK45} {
		g := ad.NewGraph(1)
		kIn := g.Input("k", ad.Param, 1)
		out := ad.ODE(func() ad.ODERightSide { return forcedRHS{} }, ad.ODEOptions{Method: method, RelTol: 1e-6, AbsTol: 1e-6, MaxSteps: 1_000_000},
			g.Const(ad.Shape{1}, y0), g.Scalar(0), g.Const(ad.Shape{len(ts)}, ts...), kIn)
		loss := ad.SumAll(out)
		p, err := g.Compile(out, loss)
		if err != nil {
			t.Fatal(err)
		}
		p.Value(kIn)[0] = k
		start := time.Now()
		if err := p.ForwardBackward(loss); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		worst, dk := 0.0, 0.0
		for i, tk := range ts {
			worst = max(worst, math.Abs(p.Value(out)[i]-exact(k, tk)))
			h := 1e-3
			dk += (exact(k+h, tk) - exact(k-h, tk)) / (2 * h)
		}
		gk := p.Grad(kIn)[0]
		t.Logf("method %d: largest error %.2g, ∂Σy/∂k %.6g (closed form %.6g), %v", method, worst, gk, dk, took)
		if worst > 1e-5 {
			t.Errorf("method %d: largest error %g, want below 1e-5", method, worst)
		}
		if math.Abs(gk-dk) > 1e-3*math.Abs(dk)+1e-6 { // the tolerances are absolute where y is small
			t.Errorf("method %d: ∂Σy/∂k = %g, closed form %g", method, gk, dk)
		}
	}
}

// robertsonRHS is Robertson's chemical kinetics (1966), the classic stiff
// test (Hairer & Wanner II, section IV.1), with its three rates as θ.
type robertsonRHS struct{}

func (robertsonRHS) Jacobian(dy, jy, jth []float64, _ float64, y, k []float64) {
	dy[0] = -k[0]*y[0] + k[2]*y[1]*y[2]
	dy[1] = k[0]*y[0] - k[2]*y[1]*y[2] - k[1]*y[1]*y[1]
	dy[2] = k[1] * y[1] * y[1]
	if jy == nil {
		return
	}
	copy(jy, []float64{
		-k[0], k[2] * y[2], k[2] * y[1],
		k[0], -k[2]*y[2] - 2*k[1]*y[1], -k[2] * y[1],
		0, 2 * k[1] * y[1], 0,
	})
	copy(jth, []float64{
		-y[0], 0, y[1] * y[2],
		y[0], -y[1] * y[1], -y[1] * y[2],
		0, y[1] * y[1], 0,
	})
}

// Robertson's problem to t = 40 by the implicit solver, against the
// reference solution of Hairer & Wanner's test set (computed there at
// tight tolerances): y(40) = (0.7158270687, 9.185534765e-6, 0.2841637457).
func TestODERobertson(t *testing.T) {
	g := ad.NewGraph(1)
	out := ad.ODE(func() ad.ODERightSide { return robertsonRHS{} }, ad.ODEOptions{Method: ad.SDIRK3, RelTol: 1e-8, AbsTol: 1e-12, MaxSteps: 100000},
		g.Const(ad.Shape{3}, 1, 0, 0), g.Scalar(0), g.Const(ad.Shape{1}, 40), g.Const(ad.Shape{3}, 0.04, 3e7, 1e4))
	p, err := g.Compile(out)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p.Forward()
	took := time.Since(start)
	want := []float64{0.7158270687, 9.185534765e-6, 0.2841637457}
	got := p.Value(out)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6*math.Abs(want[i]) {
			t.Errorf("y%d(40) = %.10g, want %.10g", i+1, got[i], want[i])
		}
	}
	t.Logf("y(40) = %.10g, relative errors %.1g %.1g %.1g, %v", got,
		math.Abs(got[0]/want[0]-1), math.Abs(got[1]/want[1]-1), math.Abs(got[2]/want[2]-1), took)
}
