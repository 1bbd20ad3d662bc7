package stdlib_test

import (
	"math"
	"testing"

	"github.com/temper-ppl/temper/stdlib"
)

// The vector generators: each component's mean and variance against the
// exact ones, and the covariances, within 5 standard errors.

// vectorCases are the generators of vector variates, each with the check
// of its draws.
var vectorCases = []struct {
	name  string
	args  [][]float64
	k     int
	check func(t *testing.T, label string, draws [][]float64)
}{
	{"multi_normal_diag", [][]float64{{1, -2}, {0.5, 2}}, 2, func(t *testing.T, label string, d [][]float64) {
		checkNormalDraws(t, label, d, []float64{1, -2}, []float64{0.25, 0, 0, 4})
	}},
	// The 99 lies in L's upper triangle, which is ignored.
	{"multi_normal_cholesky", [][]float64{{1, -1, 0.5}, testL}, 3, func(t *testing.T, label string, d [][]float64) {
		checkNormalDraws(t, label, d, []float64{1, -1, 0.5}, lowerTimesTranspose(testL, 3))
	}},
	{"multi_normal", [][]float64{{1, -1, 0.5}, lowerTimesTranspose(testL, 3)}, 3, func(t *testing.T, label string, d [][]float64) {
		checkNormalDraws(t, label, d, []float64{1, -1, 0.5}, lowerTimesTranspose(testL, 3))
	}},
	{"dirichlet", [][]float64{{2, 3, 5}}, 3, func(t *testing.T, label string, d [][]float64) {
		checkDirichletDraws(t, label, d, []float64{2, 3, 5})
	}},
	// Small concentrations: nearly every draw is a vertex, and the gammas
	// underflow unless drawn in logs.
	{"dirichlet", [][]float64{{0.01, 0.02, 0.03}}, 3, func(t *testing.T, label string, d [][]float64) {
		checkDirichletDraws(t, label, d, []float64{0.01, 0.02, 0.03})
	}},
}

var testL = []float64{
	1, 0, 99,
	0.5, 2, 0,
	-0.3, 0.4, 0.7,
}

// lowerTimesTranspose is LLᵀ for the lower triangle of the k×k L.
func lowerTimesTranspose(l []float64, k int) []float64 {
	s := make([]float64, k*k)
	for i := range k {
		for j := range k {
			for m := 0; m <= min(i, j); m++ {
				s[i*k+j] += l[i*k+m] * l[j*k+m]
			}
		}
	}
	return s
}

func TestRNGVectors(t *testing.T) {
	for _, c := range vectorCases {
		label := c.name + labelOf(c.args)
		c.check(t, label, drawN(t, c.name, c.args, c.k, nDraws))
	}
}

// column is component i of every draw.
func column(draws [][]float64, i int) []float64 {
	c := make([]float64, len(draws))
	for j, d := range draws {
		c[j] = d[i]
	}
	return c
}

func covariance(x, y []float64) float64 {
	mx, _ := meanVar(x)
	my, _ := meanVar(y)
	s := 0.0
	for i := range x {
		s += (x[i] - mx) * (y[i] - my)
	}
	return s / float64(len(x)-1)
}

// checkNormalDraws checks draws of N(μ, Σ): each component's moments (a
// normal's μ₄ = 3σ⁴), and each covariance, whose sample estimate has
// variance (Σ_ii Σ_jj + Σ_ij²)/n by Isserlis' theorem.
func checkNormalDraws(t *testing.T, label string, draws [][]float64, mu, sigma []float64) {
	t.Helper()
	k, n := len(mu), float64(len(draws))
	for i := range k {
		checkMoments(t, label, column(draws, i), central(mu[i], sigma[i*k+i], 0))
		for j := range i {
			want := sigma[i*k+j]
			se := math.Sqrt((sigma[i*k+i]*sigma[j*k+j] + want*want) / n)
			if got := covariance(column(draws, i), column(draws, j)); math.Abs(got-want) > 5*se {
				t.Errorf("%s: cov(%d, %d) = %.4g, want %.4g ± %.3g", label, i, j, got, want, 5*se)
			}
		}
	}
}

// checkDirichletDraws checks draws of Dirichlet(α), α₀ = Σα: every draw a
// simplex; component k is beta(α_k, α₀ - α_k), so mean α_k/α₀ and its
// beta moments; cov(i, j) = -α_iα_j/(α₀²(α₀+1)) (Kotz, Balakrishnan &
// Johnson, Continuous Multivariate Distributions, 49.1), within 5 standard
// errors estimated from the draws (the sample variance of the products of
// deviations over n).
func checkDirichletDraws(t *testing.T, label string, draws [][]float64, alpha []float64) {
	t.Helper()
	a0 := 0.0
	for _, a := range alpha {
		a0 += a
	}
	checkSimplices(t, label, draws)
	n := float64(len(draws))
	for i, ai := range alpha {
		x := column(draws, i)
		checkMoments(t, label, x, betaMoments(ai, a0-ai))
		for j := range i {
			y := column(draws, j)
			want := -ai * alpha[j] / (a0 * a0 * (a0 + 1))
			mx, _ := meanVar(x)
			my, _ := meanVar(y)
			prods := make([]float64, len(x))
			for m := range x {
				prods[m] = (x[m] - mx) * (y[m] - my)
			}
			_, v := meanVar(prods)
			if got, se := covariance(x, y), math.Sqrt(v/n); math.Abs(got-want) > 5*se {
				t.Errorf("%s: cov(%d, %d) = %.4g, want %.4g ± %.3g", label, i, j, got, want, 5*se)
			}
		}
	}
}

// TestRNGDirichletTiny: concentrations so small that every gamma underflows
// still give simplices (one vertex nearly always), never NaN.
func TestRNGDirichletTiny(t *testing.T) {
	for _, alpha := range [][]float64{{1e-3, 1e-3}, {1e-300, 1e-300, 1e-300}, {1e-100, 5}} {
		checkSimplices(t, "dirichlet"+labelOf([][]float64{alpha}), drawN(t, "dirichlet", [][]float64{alpha}, len(alpha), 2000))
	}
}

func checkSimplices(t *testing.T, label string, draws [][]float64) {
	t.Helper()
	for _, d := range draws {
		s := 0.0
		for _, v := range d {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s: draw %v", label, d)
			}
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("%s: draw %v sums to %v", label, d, s)
		}
	}
}

// TestLKJCorrCholeskyDraw: every draw is lower triangular with a positive
// diagonal and rows of unit norm (so LLᵀ is a correlation matrix), and
// each correlation r_ij of LKJ(η) on K×K is marginally 2B - 1 with
// B ~ beta(b, b), b = η - 1 + K/2 (Lewandowski, Kurowicka & Joe 2009,
// section 3.2): mean 0, E r² = 1/(2b+1), E r⁴ = 3/((2b+1)(2b+3)).
func TestLKJCorrCholeskyDraw(t *testing.T) {
	for _, c := range []struct {
		k   int
		eta float64
	}{{4, 2}, {3, 0.5}, {2, 1}, {5, 10}} {
		r := newRand("lkj" + labelOf([][]float64{{float64(c.k), c.eta}}))
		k := c.k
		b := c.eta - 1 + float64(k)/2
		m2, m4 := 1/(2*b+1), 3/((2*b+1)*(2*b+3))
		want := moments{0, m2, m4}
		corr := make([][]float64, k*k)
		out := make([]float64, k*k)
		for range nDraws / 2 {
			if !stdlib.LKJCorrCholeskyDraw(r, k, c.eta, out) {
				t.Fatalf("K = %d, η = %v: refused", k, c.eta)
			}
			for i := range k {
				norm := 0.0
				for j := range k {
					if v := out[i*k+j]; j > i && v != 0 || j == i && !(v > 0) || math.IsNaN(v) {
						t.Fatalf("K = %d, η = %v: not a Cholesky factor: %v", k, c.eta, out)
					}
					norm += out[i*k+j] * out[i*k+j]
				}
				if math.Abs(norm-1) > 1e-12 {
					t.Fatalf("K = %d, η = %v: row %d has norm² %v", k, c.eta, i, norm)
				}
			}
			s := lowerTimesTranspose(out, k)
			for e := range s {
				corr[e] = append(corr[e], s[e])
			}
		}
		for i := range k {
			for j := range i {
				checkMoments(t, labelOf([][]float64{{float64(k), c.eta, float64(i), float64(j)}}), corr[i*k+j], want)
			}
		}
	}
	r := newRand("lkj refusals")
	for _, bad := range []struct {
		k   int
		eta float64
		n   int
	}{{0, 1, 0}, {2, 0, 4}, {2, -1, 4}, {2, math.NaN(), 4}, {2, math.Inf(1), 4}, {3, 1, 4}} {
		if stdlib.LKJCorrCholeskyDraw(r, bad.k, bad.eta, make([]float64, bad.n)) {
			t.Errorf("LKJCorrCholeskyDraw(K = %d, η = %v, len %d) accepted", bad.k, bad.eta, bad.n)
		}
	}
}
