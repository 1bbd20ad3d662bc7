package stdlib_test

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/temper-ppl/temper/stdlib"
)

// The generators of multivariate_more.go's distributions: every mean and
// covariance (of a matrix variate, of every pair of entries) against the
// exact ones, within 5 standard errors estimated from the draws (the
// sample variance of each component, or of the products of deviations, over
// n): the parameters are chosen so that the fourth moments those estimates
// need are finite.

// multivariateMoreRNGs are the generators this file checks, for
// TestRNGCoverage.
var multivariateMoreRNGs = []string{"multi_student_t", "multi_student_t_cholesky", "multinomial", "multinomial_logit",
	"wishart", "inv_wishart", "wishart_cholesky", "inv_wishart_cholesky"}

// checkMeanCov checks draws against exact means and covariances
// (cov[i*k+j] for components i and j of k).
func checkMeanCov(t *testing.T, label string, draws [][]float64, mean, cov []float64) {
	t.Helper()
	k, n := len(mean), float64(len(draws))
	for i := range k {
		x := column(draws, i)
		m, v := meanVar(x)
		if se := math.Sqrt(v / n); math.Abs(m-mean[i]) > 5*se {
			t.Errorf("%s: mean %d = %.5g, want %.5g ± %.3g", label, i, m, mean[i], 5*se)
		}
		for j := 0; j <= i; j++ {
			y := column(draws, j)
			my, _ := meanVar(y)
			prods := make([]float64, len(x))
			for r := range x {
				prods[r] = (x[r] - m) * (y[r] - my)
			}
			_, pv := meanVar(prods)
			if got, se := covariance(x, y), math.Sqrt(pv/n); math.Abs(got-cov[i*k+j]) > 5*se {
				t.Errorf("%s: cov(%d, %d) = %.5g, want %.5g ± %.3g", label, i, j, got, cov[i*k+j], 5*se)
			}
		}
	}
}

func scaled(c float64, x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = c * v
	}
	return out
}

// TestRNGMultiStudentT: mean μ and covariance ν/(ν-2) Σ, at ν = 9 (finite
// fourth moments), from Σ and from its Cholesky factor.
func TestRNGMultiStudentT(t *testing.T) {
	mu, sigma := []float64{1, -1, 0.5}, lowerTimesTranspose(testL, 3)
	const nu = 9
	for _, c := range []struct {
		name string
		m    []float64
	}{{"multi_student_t", sigma}, {"multi_student_t_cholesky", testL}} {
		args := [][]float64{{nu}, mu, c.m}
		checkMeanCov(t, c.name+labelOf(args), drawN(t, c.name, args, 3, nDraws), mu, scaled(nu/(nu-2.0), sigma))
	}
}

// TestRNGMultinomial: every draw is N counts; mean Nθ and covariance
// N(θ_i δ_ij - θ_i θ_j); the logit form at γ = log θ + 1.
func TestRNGMultinomial(t *testing.T) {
	theta := []float64{0.2, 0.3, 0.5, 0}
	const n = 10
	k := len(theta)
	cov := make([]float64, k*k)
	for i := range k {
		for j := range k {
			cov[i*k+j] = -n * theta[i] * theta[j]
		}
		cov[i*k+i] += n * theta[i]
	}
	gamma := []float64{math.Log(0.2) + 1, math.Log(0.3) + 1, math.Log(0.5) + 1, -800}
	for _, c := range []struct {
		name string
		p    []float64
	}{{"multinomial", theta}, {"multinomial_logit", gamma}} {
		args := [][]float64{c.p, {n}}
		draws := drawN(t, c.name, args, k, nDraws)
		for _, d := range draws {
			if s := d[0] + d[1] + d[2] + d[3]; s != n || d[3] != 0 {
				t.Fatalf("%s: draw %v", c.name, d)
			}
		}
		checkMeanCov(t, c.name+labelOf(args), draws, scaled(n, theta), cov)
	}
}

// TestRNGWishart: the entries of W ~ Wishart(ν, Σ) have mean νΣ and
// covariances cov(W_ij, W_kl) = ν(Σ_ik Σ_jl + Σ_il Σ_jk); those of
// W ~ inverse Wishart(ν, Σ), with m = ν - K, mean Σ/(m-1) and
// covariances [2 Σ_ij Σ_kl + (m-1)(Σ_ik Σ_jl + Σ_il Σ_jk)] / (m (m-1)² (m-3))
// (the inverse Wishart's standard second moments). Each draw is
// symmetric and positive definite. ν = K + 10 keeps the inverse Wishart's
// fourth moments finite.
func TestRNGWishart(t *testing.T) {
	const k = 3
	sigma := lowerTimesTranspose(testL, k)
	s := func(i, j int) float64 { return sigma[i*k+j] }
	for _, c := range []struct {
		name string
		nu   float64
		mean func(i, j int) float64
		cov  func(i, j, p, q int) float64
	}{
		{"wishart", 5.5, func(i, j int) float64 { return 5.5 * s(i, j) },
			func(i, j, p, q int) float64 { return 5.5 * (s(i, p)*s(j, q) + s(i, q)*s(j, p)) }},
		{"inv_wishart", k + 10, func(i, j int) float64 { return s(i, j) / 9 },
			func(i, j, p, q int) float64 {
				const m = 10.0
				return (2*s(i, j)*s(p, q) + (m-1)*(s(i, p)*s(j, q)+s(i, q)*s(j, p))) / (m * (m - 1) * (m - 1) * (m - 3))
			}},
	} {
		for _, factor := range []bool{false, true} {
			name, args := c.name, [][]float64{{c.nu}, sigma}
			if factor {
				name, args = c.name+"_cholesky", [][]float64{{c.nu}, testL}
			}
			checkWishartDraws(t, name+labelOf(args), drawN(t, name, args, k*k, nDraws), factor, c.mean, c.cov)
		}
	}
}

// checkWishartDraws checks draws of a K×K matrix variate (of Cholesky
// factors, lower triangular with a positive diagonal, when factor is set;
// then of L Lᵀ) against the mean and covariances of its entries.
func checkWishartDraws(t *testing.T, label string, draws [][]float64, factor bool, mean func(i, j int) float64, cov func(i, j, p, q int) float64) {
	t.Helper()
	const k = 3
	for n, d := range draws {
		if factor {
			for i := range k {
				if !(d[i*k+i] > 0) || slices.ContainsFunc(d[i*k+i+1:(i+1)*k], func(v float64) bool { return v != 0 }) {
					t.Fatalf("%s: draw %v is not a Cholesky factor", label, d)
				}
			}
			d = lowerTimesTranspose(d, k)
			draws[n] = d
		}
		var chol mat.Cholesky
		if !mat.EqualApprox(mat.NewDense(k, k, d), mat.NewDense(k, k, d).T(), 0) || !chol.Factorize(mat.NewSymDense(k, d)) {
			t.Fatalf("%s: draw %v is not symmetric positive definite", label, d)
		}
	}
	m, v := make([]float64, k*k), make([]float64, k*k*k*k)
	for i := range k {
		for j := range k {
			m[i*k+j] = mean(i, j)
			for p := range k {
				for q := range k {
					v[(i*k+j)*k*k+p*k+q] = cov(i, j, p, q)
				}
			}
		}
	}
	checkMeanCov(t, label, draws, m, v)
}

// TestRNGMultivariateMoreDomain: arguments outside each domain are
// refused, not drawn from.
func TestRNGMultivariateMoreDomain(t *testing.T) {
	sigma := []float64{2, 0.3, 0.3, 1}
	notPD := []float64{1, 2, 2, 1}
	for _, c := range []struct {
		name string
		args [][]float64
		k    int
	}{
		{"multi_student_t", [][]float64{{0}, {0, 0}, sigma}, 2},
		{"multi_student_t", [][]float64{{3}, {0, 0}, notPD}, 2},
		{"multi_student_t", [][]float64{{3}, {math.Inf(1), 0}, sigma}, 2},
		{"multi_student_t_cholesky", [][]float64{{3}, {0, 0}, {1, 0, 0.5, -1}}, 2},
		{"multinomial", [][]float64{{0.5, 0.6}, {3}}, 2},
		{"multinomial", [][]float64{{0.5, 0.5}, {-1}}, 2},
		{"multinomial_logit", [][]float64{{math.Inf(1), 0}, {3}}, 2},
		{"wishart", [][]float64{{1}, sigma}, 4},
		{"wishart", [][]float64{{3}, notPD}, 4},
		{"inv_wishart", [][]float64{{0.5}, sigma}, 4},
		{"inv_wishart", [][]float64{{3}, {2, 0.3, 0.2, 1}}, 4},
		{"wishart_cholesky", [][]float64{{3}, {1, 0, 0.5, -1}}, 4},
		{"inv_wishart_cholesky", [][]float64{{1}, {1, 0, 0.5, 1}}, 4},
	} {
		g, _ := stdlib.LookupRNG(c.name)
		if g.Draw(newRand(c.name), c.args, make([]float64, c.k)) {
			t.Errorf("%s%v: drew a variate", c.name, c.args)
		}
	}
}

// TestLKJCorrDraw: lkj_corr_rng's draws are correlation matrices
// (symmetric, unit diagonal, positive definite), each off-diagonal entry r
// with (r+1)/2 ~ beta(b, b), b = η - 1 + K/2: mean 0, variance 1/(2b+1),
// fourth moment 3/((2b+1)(2b+3)), within 5 standard errors.
func TestLKJCorrDraw(t *testing.T) {
	for _, c := range []struct {
		k   int
		eta float64
	}{{3, 2}, {4, 0.7}} {
		k, b := c.k, c.eta-1+float64(c.k)/2
		label := labelOf([][]float64{{float64(k), c.eta}})
		r := newRand("lkj_corr" + label)
		entries := make([][]float64, k*k)
		out := make([]float64, k*k)
		for range nDraws / 2 {
			if !stdlib.LKJCorrDraw(r, k, c.eta, out) {
				t.Fatalf("K = %d, η = %v: refused", k, c.eta)
			}
			var chol mat.Cholesky
			if !mat.Equal(mat.NewDense(k, k, out), mat.NewDense(k, k, out).T()) || !chol.Factorize(mat.NewSymDense(k, out)) {
				t.Fatalf("%s: draw %v is not symmetric positive definite", label, out)
			}
			for e, v := range out {
				if e%(k+1) == 0 && v != 1 {
					t.Fatalf("%s: draw %v has a diagonal entry %v", label, out, v)
				}
				entries[e] = append(entries[e], v)
			}
		}
		for i := range k {
			for j := range i {
				checkMoments(t, label, entries[i*k+j], moments{0, 1 / (2*b + 1), 3 / ((2*b + 1) * (2*b + 3))})
			}
		}
	}
	if stdlib.LKJCorrDraw(newRand("lkj_corr refused"), 3, 0, make([]float64, 9)) {
		t.Error("η = 0 drew a variate")
	}
}
