package compile_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// multivariateMoreModel uses each distribution of stdlib's
// multivariate_more.go on the constrained parameters they are written
// for: Y ~ FORM stands for a sampling statement on the data, replaced by
// the ~ form in a plate, the _lpdf form there, and the _lpdf form of the
// whole array.
const multivariateMoreModel = `
data { N: int  Y: real[N, 2]  C: int[N, 3]  W: real[2, 2]  LW: real[2, 2] }
param {
  mu: real[2]
  nu: real<lower=0>
  S: cov_matrix[2]
  V: cov_matrix[2]
  L: cholesky_factor_cov[2]
  Omega: corr_matrix[2]
  theta: simplex[3]
  gamma: real[3]
}
model {
  nu ~ gamma(2, 0.5)
  mu ~ normal(0, 1)
  gamma ~ normal(0, 1)
  S ~ wishart(4, W)
  V ~ inv_wishart(4, W)
  Omega ~ lkj_corr(2)
  L ~ wishart_cholesky(5, LW)
  FORM
}`

var multivariateMoreForms = [][]string{
	{
		"for n in plate(N) { Y[n] ~ multi_student_t(nu, mu, S) }",
		"for n in plate(N) { Y[n] ~ multi_student_t_cholesky(nu, mu, L) }",
		"for n in plate(N) { C[n] ~ multinomial(theta) }",
		"for n in plate(N) { C[n] ~ multinomial_logit(gamma) }",
	},
	{
		"for n in plate(N) { target += multi_student_t_lpdf(Y[n] | nu, mu, S) }",
		"for n in plate(N) { target += multi_student_t_cholesky_lpdf(Y[n] | nu, mu, L) }",
		"for n in plate(N) { target += multinomial_lpmf(C[n] | theta) }",
		"for n in plate(N) { target += multinomial_logit_lpmf(C[n] | gamma) }",
	},
	{
		"target += multi_student_t_lpdf(Y | nu, mu, S)",
		"target += multi_student_t_cholesky_lpdf(Y | nu, mu, L)",
		"target += multinomial_lpmf(C | theta)",
		"target += multinomial_logit_lpmf(C | gamma)",
	},
}

// TestMultivariateMoreCompile: the model of every form has the same
// finite energy and gradient, the gradient matching central differences
// of the energy through the constraining transforms (h = 1e-6: error
// about 1e-8 on energies of order 10, hence 1e-5 relative with a 1e-5
// floor).
func TestMultivariateMoreCompile(t *testing.T) {
	data := map[string]any{
		"N":  4,
		"Y":  [][]float64{{0.1, 0.2}, {-1, 0.5}, {0.3, 0.3}, {2, -1}},
		"C":  [][]int{{1, 0, 3}, {2, 2, 0}, {0, 0, 4}, {1, 1, 1}},
		"W":  [][]float64{{1, 0.3}, {0.3, 2}},
		"LW": [][]float64{{1, 0}, {0.3, 1.4}},
	}
	// mu 2, nu 1, S 3, V 3, L 3, Omega 1, theta 2, gamma 3.
	theta := []float64{0.2, -0.4, math.Log(3), 0.1, -0.2, 0.3, 0.2, 0.1, -0.3, 0.2, 0.4, 0.5, 0.2, -0.3, 0.1, 0.4, -0.5, 1}
	src := func(form int) string {
		return strings.Replace(multivariateMoreModel, "FORM", strings.Join(multivariateMoreForms[form], "\n  "), 1)
	}
	u0, g0 := energyAt(t, src(0), data, theta)
	if math.IsNaN(u0) || math.IsInf(u0, 0) {
		t.Fatalf("energy %v", u0)
	}
	if len(g0) != len(theta) {
		t.Fatalf("gradient of %d, want %d", len(g0), len(theta))
	}
	for form := 1; form < len(multivariateMoreForms); form++ {
		u, g := energyAt(t, src(form), data, theta)
		if math.Abs(u-u0) > 1e-10*math.Max(1, math.Abs(u0)) {
			t.Errorf("form %d: energy %.15g, with ~ %.15g", form, u, u0)
		}
		for i := range g {
			if math.Abs(g[i]-g0[i]) > 1e-10*math.Max(1, math.Abs(g0[i])) {
				t.Errorf("form %d: gradient %v, with ~ %v", form, g, g0)
				break
			}
		}
	}
	for i := range theta {
		const h = 1e-6
		up, down := slices.Clone(theta), slices.Clone(theta)
		up[i] += h
		down[i] -= h
		uu, _ := energyAt(t, src(0), data, up)
		ud, _ := energyAt(t, src(0), data, down)
		if fd := (uu - ud) / (2 * h); math.Abs(fd-g0[i]) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂U/∂θ%d = %.10g, finite difference %.10g", i, g0[i], fd)
		}
	}
}

// TestMultivariateMoreRNG: the generators in a generated block, with a
// plate of Student-t and multinomial rows and a Wishart and an inverse
// Wishart matrix, an inverse Wishart's Cholesky factor and an LKJ
// correlation matrix: the columns are named by entry, the matrices are
// symmetric with a positive diagonal (the correlation matrix's 1), the
// factor lower triangular, the counts sum to N.
func TestMultivariateMoreRNG(t *testing.T) {
	const src = `
data { N: int  mu: real[2]  S: real[2, 2]  LS: real[2, 2]  theta: real[3] }
generated {
  for n in plate(N) {
    y = multi_student_t_rng(4, mu, S)
    c = multinomial_rng(theta, 10)
    d = multinomial_logit_rng(log(theta), 10)
  }
  W = wishart_rng(5, S)
  V = inv_wishart_rng(5, S)
  LV = inv_wishart_cholesky_rng(5, LS)
  O = lkj_corr_rng(3, 2)
}`
	g, err := compileGenerator(src, map[string]any{"N": 2, "mu": []float64{1, -1}, "S": [][]float64{{2, 0.5}, {0.5, 1}}, "LS": [][]float64{{1.2, 0}, {0.3, 0.9}}, "theta": []float64{0.2, 0.3, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	cols := g.Columns()
	at := func(name string) int {
		i := slices.Index(cols, name)
		if i < 0 {
			t.Fatalf("no column %s in %v", name, cols)
		}
		return i
	}
	out := make([]float64, len(cols))
	for s := range uint64(100) {
		g.Draw(out, s)
		for _, v := range out {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("seed %d: draw %v (columns %v)", s, out, cols)
			}
		}
		for _, m := range []string{"W", "V"} {
			if out[at(m+".1.2")] != out[at(m+".2.1")] || !(out[at(m+".1.1")] > 0) || !(out[at(m+".2.2")] > 0) {
				t.Fatalf("seed %d: %s = %v", s, m, out)
			}
		}
		if out[at("LV.1.2")] != 0 || !(out[at("LV.1.1")] > 0) || !(out[at("LV.2.2")] > 0) {
			t.Fatalf("seed %d: LV = %v, not a Cholesky factor", s, out)
		}
		for i := 1; i <= 3; i++ {
			for j := 1; j <= 3; j++ {
				o := out[at(fmt.Sprintf("O.%d.%d", i, j))]
				if i == j && o != 1 || o != out[at(fmt.Sprintf("O.%d.%d", j, i))] || !(o >= -1 && o <= 1) {
					t.Fatalf("seed %d: O = %v, not a correlation matrix", s, out)
				}
			}
		}
		for _, c := range []string{"c", "d"} {
			for n := 1; n <= 2; n++ {
				sum := 0.0
				for k := 1; k <= 3; k++ {
					sum += out[at(fmt.Sprintf("%s.%d.%d", c, n, k))]
				}
				if sum != 10 {
					t.Fatalf("seed %d: row %d of %s sums to %v", s, n, c, sum)
				}
			}
		}
	}
}

// TestMultivariateMoreShapeErrors: a matrix of the wrong size is an error
// at the distribution's position that gives the shapes.
func TestMultivariateMoreShapeErrors(t *testing.T) {
	const head = `
data { W: real[3, 3]  y: real[2] }
param { S: cov_matrix[2]  mu: real[2] }
model {
`
	data := map[string]any{"W": [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, "y": []float64{1, 2}}
	for _, c := range []struct{ statement, want string }{
		{"  S ~ wishart(4, W)\n}", "5:7: wishart: W [2, 2] and Sigma [3, 3] must be square matrices of one size"},
		{"  y ~ multi_student_t(3, mu, W)\n}", "5:7: multi_student_t: y [2] and mu [2] must end in an axis of 3, the size of Sigma"},
	} {
		_, err := tryCompile(head+c.statement, data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
