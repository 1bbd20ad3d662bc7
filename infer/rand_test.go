package infer_test

import (
	"math"
	"slices"
	"testing"

	"github.com/temper-ppl/temper/infer"
)

// The same (seed, stream) gives the same scalar and bulk draws, and a
// neighbouring stream different ones: a run is reproducible and its
// replicas' noise is not shared.
func TestRandSameStreamSameDraws(t *testing.T) {
	draw := func(stream uint64) []float64 {
		r := infer.NewRand(11, stream)
		out := []float64{r.Float64(), r.NormFloat64()}
		out = append(out, r.Normals(3000)...)
		return append(out, r.NormFloat64())
	}
	a, b, c := draw(1), draw(1), draw(2)
	if !slices.Equal(a, b) {
		t.Error("two Rands on stream (11, 1) drew different values")
	}
	same := 0
	for i := range a {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("streams (11, 1) and (11, 2) share %d of %d draws", same, len(a))
	}
}

// Normals returns at most a chunk, in a buffer reused from call to call,
// and how the draws are cut into calls does not change them: chunks of
// any sizes are one fill of their total, as FillNormal into a caller's
// slice gives. Dynamics rely on this so that their chunking is invisible.
func TestRandNormalsChunks(t *testing.T) {
	const n = 2*infer.NormalChunk + 700
	want := make([]float64, n)
	infer.NewRand(5, 9).FillNormal(want)

	r := infer.NewRand(5, 9)
	var got []float64
	first := r.Normals(n)
	if len(first) != infer.NormalChunk {
		t.Fatalf("Normals(%d) returned %d draws, want a chunk of %d", n, len(first), infer.NormalChunk)
	}
	got = append(got, first...)
	for _, k := range []int{1, 0, -3, 700, infer.NormalChunk + 1, n} {
		z := r.Normals(min(k, n-len(got)))
		if want := max(0, min(k, n-len(got), infer.NormalChunk)); len(z) != want {
			t.Fatalf("Normals(%d) returned %d draws, want %d", k, len(z), want)
		}
		if len(z) > 0 && &z[0] != &first[0] {
			t.Error("Normals did not reuse its buffer")
		}
		got = append(got, z...)
	}
	if !slices.Equal(got, want[:len(got)]) {
		t.Error("chunked Normals differ from one FillNormal of the same stream")
	}
}

// Neither bulk fill allocates once the buffer exists, nor does any
// dynamics' step: a run's steps are allocation-free.
func TestRandNoAllocs(t *testing.T) {
	r := infer.NewRand(1, 1)
	r.Normals(1)
	dst := make([]float64, 5000)
	if a := testing.AllocsPerRun(20, func() {
		r.Normals(3 * infer.NormalChunk)
		r.FillNormal(dst)
	}); a != 0 {
		t.Errorf("bulk fills allocate %g times per call", a)
	}
	theta, grad := make([]float64, 5000), make([]float64, 5000)
	for _, dyn := range fusedDynamics() {
		aux := make([]float64, dyn.AuxLen(len(theta)))
		dyn.Step(aux, theta, grad, 0.01, 1, r)
		if a := testing.AllocsPerRun(20, func() { dyn.Step(aux, theta, grad, 0.01, 1, r) }); a != 0 {
			t.Errorf("%s: Step allocates %g times", dyn.Name(), a)
		}
	}
}

func fusedDynamics() []infer.Dynamics {
	return []infer.Dynamics{
		infer.Langevin{},
		&infer.Hamiltonian{Friction: 0.3},
		&infer.Preconditioned{Rho: 0.9, Eps: 1e-3},
		&infer.FastLangevin{GradVar: 0.5},
		&infer.NoseHoover{C: 0.1},
	}
}

// The fused steps are their update formulas with ξ the stream's normals
// in coordinate order, across chunk boundaries (D is 2.5 chunks plus one):
// the same values, to the last bit, as the formula written out coordinate
// by coordinate with one FillNormal of D draws from an identical stream.
// At T = 0 they are the noiseless update and draw nothing: the stream is
// where it started.
func TestFusedStepsAreTheirFormulas(t *testing.T) {
	// Variables, not constants: Go folds constant expressions exactly, and
	// the formulas must round as the steps do.
	const d = infer.NormalChunk*5/2 + 1
	lr, temperature, a, rho, eps := 0.01, 1.5, 0.3, 0.9, 1e-3
	theta0, grad, v0 := make([]float64, d), make([]float64, d), make([]float64, d)
	init := infer.NewRand(1, 2)
	for i := range d {
		theta0[i], grad[i], v0[i] = init.NormFloat64(), init.NormFloat64(), 0.1*init.NormFloat64()
	}
	// formulas gives the expected θ after one step.
	formulas := map[string]func(xi []float64) []float64{
		"langevin": func(xi []float64) []float64 {
			out := slices.Clone(theta0)
			for i := range out {
				out[i] = out[i] - lr*grad[i] + math.Sqrt(2*lr*temperature)*xi[i]
			}
			return out
		},
		"hamiltonian": func(xi []float64) []float64 {
			out := slices.Clone(theta0)
			for i := range out {
				out[i] += (1-a)*v0[i] - lr*grad[i] + math.Sqrt(2*a*lr*temperature)*xi[i]
			}
			return out
		},
		"preconditioned": func(xi []float64) []float64 {
			out := slices.Clone(theta0)
			for i := range out {
				g := grad[i]
				pre := 1 / (eps + math.Sqrt((1-rho)*g*g))
				out[i] = out[i] - lr*pre*g + math.Sqrt(2*lr*temperature*pre)*xi[i]
			}
			return out
		},
	}
	for _, dyn := range fusedDynamics()[:3] {
		for _, temp := range []float64{temperature, 0} {
			aux := make([]float64, dyn.AuxLen(d))
			if _, ok := dyn.(*infer.Hamiltonian); ok {
				copy(aux, v0) // its auxiliary state is the momentum
			}
			// At T = 0 the formula with ξ = 0 is the noiseless update
			// exactly (adding a zero changes no bits).
			xi := make([]float64, d)
			if temp > 0 {
				infer.NewRand(3, 4).FillNormal(xi)
			}
			want := formulas[dyn.Name()](xi)
			theta := slices.Clone(theta0)
			rng := infer.NewRand(3, 4)
			dyn.Step(aux, theta, grad, lr, temp, rng)
			if !slices.Equal(theta, want) {
				t.Errorf("%s at T = %g: fused step differs from its formula", dyn.Name(), temp)
			}
			if temp == 0 && rng.Uint64() != infer.NewRand(3, 4).Uint64() {
				t.Errorf("%s at T = 0 drew from its stream", dyn.Name())
			}
		}
	}
}

// stationaryMoments runs dyn on d independent coordinates of U = x²/2 at
// temperature T and step size lr, from x = 0, for burn steps and then n
// more, and returns over the last n steps and all coordinates the mean of
// x, the mean of x², the lag-one autocorrelation, the correlation of
// coordinates i and i + NormalChunk (noise from different chunks of the
// same step) and the standard error of the mean of x² from the spread of
// the d independent per-coordinate means.
func stationaryMoments(dyn infer.Dynamics, d, burn, n int, lr, temperature float64) (mean, second, lag1, cross, se float64) {
	aux := make([]float64, dyn.AuxLen(d))
	rng := infer.NewRand(2024, 1)
	theta, prev := make([]float64, d), make([]float64, d)
	per := make([]float64, d)
	var sum, lagSum, crossSum float64
	for k := range burn + n {
		copy(prev, theta)
		dyn.Step(aux, theta, prev, lr, temperature, rng) // ∇U(x) = x
		if k < burn {
			continue
		}
		for i, x := range theta {
			sum += x
			per[i] += x * x
			lagSum += x * prev[i]
			if i+infer.NormalChunk < d {
				crossSum += x * theta[i+infer.NormalChunk]
			}
		}
	}
	var s, ss float64
	for _, m := range per {
		m /= float64(n)
		s += m
		ss += m * m
	}
	second = s / float64(d)
	se = math.Sqrt((ss/float64(d) - second*second) / float64(d-1))
	mean = sum / float64(n*d)
	lag1 = lagSum / float64(n*d) / second
	cross = crossSum / float64(n*(d-infer.NormalChunk)) / second
	return mean, second, lag1, cross, se
}

// TestLangevinStationaryMoments checks the fused SGLD step against the
// exact law of its chain on U = x²/2: x' = (1 - η)x + √(2ηT) ξ is an AR(1)
// with φ = 1 - η, whose stationary law is N(0, σ²), σ² = 2ηT/(1 - φ²) =
// T/(1 - η/2), and whose lag-one autocorrelation is φ. With η = 0.1 and
// T = 1/2, σ² = 0.52632, 5.3% above the continuous-time T, so the check
// sees the discretisation and the noise scale √(2ηT) alike.
//
// Monte Carlo error: d = 3000 coordinates (three chunks, the last partial)
// × n = 2000 steps after a burn-in of 300 (φ^300 ≈ 2·10⁻¹⁴) give N = 6·10⁶
// draws. For a Gaussian AR(1) the mean of x² has relative standard error
// √(2(1 + φ²)/((1 - φ²)N)) = 0.18% (the spread of the per-coordinate means
// gives the same), the mean of x has standard error σ√((1 + φ)/((1 - φ)N))
// = 0.0013, the lag-one autocorrelation √((1 - φ²)/N) = 0.0002, and the
// correlation of two independent coordinates √((1 + φ²)/((1 - φ²)N')) =
// 0.0016 over the N' = 3.95·10⁶ pairs a chunk apart. Each tolerance is five
// standard errors: 0.9%, 0.0065, 0.001 and 0.008.
func TestLangevinStationaryMoments(t *testing.T) {
	const d, burn, n, lr, temperature = 3000, 300, 2000, 0.1, 0.5
	phi := 1 - lr
	want := temperature / (1 - lr/2)
	mean, second, lag1, cross, se := stationaryMoments(infer.Langevin{}, d, burn, n, lr, temperature)
	t.Logf("mean %.5f, E x² %.5f (exact %.5f, se %.5f), lag-one %.5f (exact %.2f), cross-chunk correlation %.5f", mean, second, want, se, lag1, phi, cross)
	if math.Abs(second/want-1) > 0.009 {
		t.Errorf("E x² = %.5f, want T/(1 - η/2) = %.5f", second, want)
	}
	if math.Abs(mean) > 0.0065 {
		t.Errorf("E x = %.5f, want 0", mean)
	}
	if math.Abs(lag1-phi) > 0.001 {
		t.Errorf("lag-one autocorrelation %.5f, want 1 - η = %.2f", lag1, phi)
	}
	if math.Abs(cross) > 0.008 {
		t.Errorf("coordinates a chunk apart have correlation %.5f, want 0", cross)
	}
}

// TestHamiltonianStationaryMoments is the same check for the fused SGHMC
// step. On U = x²/2 with friction α the chain (θ, v) is linear, and its
// stationary covariance solves a 3×3 linear system whose θ-component is
// E θ² = T(2 - α)/(2 - α - η/2) (the NoseHoover doc quotes it), with
// lag-one autocorrelation 1 - η + (1 - α)E[θv]/E[θ²] = 1 - η + (1 - α)η/
// (2 - α), since E[θv] = ηT/(2 - α - η/2). For α = η = 0.1, T = 1/2: E θ²
// = 0.51351 and the autocorrelation 0.94737. The standard error of E θ²
// over 3000 coordinates × 2000 steps, from the spread of the
// per-coordinate means, is 0.19% (measured over 12 seeds); the tolerances
// are five standard errors, 1% and 0.001 (the AR(1) bound of the Langevin
// test, which the measured spread of 3·10⁻⁵ is well inside).
func TestHamiltonianStationaryMoments(t *testing.T) {
	const d, burn, n, lr, temperature, alpha = 3000, 300, 2000, 0.1, 0.5, 0.1
	want := temperature * (2 - alpha) / (2 - alpha - lr/2)
	wantLag := 1 - lr + (1-alpha)*lr/(2-alpha)
	_, second, lag1, _, se := stationaryMoments(&infer.Hamiltonian{Friction: alpha}, d, burn, n, lr, temperature)
	t.Logf("E θ² %.5f (exact %.5f, se %.5f), lag-one %.5f (exact %.5f)", second, want, se, lag1, wantLag)
	if math.Abs(second/want-1) > 0.01 {
		t.Errorf("E θ² = %.5f, want T(2 - α)/(2 - α - η/2) = %.5f", second, want)
	}
	if math.Abs(lag1-wantLag) > 0.001 {
		t.Errorf("lag-one autocorrelation %.5f, want %.5f", lag1, wantLag)
	}
}
