package temper_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/temper-ppl/temper"
	"github.com/temper-ppl/temper/infer/summary"
)

// A moment is E f(draw) = want, for f of the draw's named columns.
type moment struct {
	what string
	f    func(col func(name string) float64) float64
	want float64
}

// mean and square are the first two moments of one column.
func mean(name string, want float64) moment {
	return moment{"E " + name, func(col func(string) float64) float64 { return col(name) }, want}
}

func square(name string, want float64) moment {
	return moment{"E " + name + "²", func(col func(string) float64) float64 { v := col(name); return v * v }, want}
}

// zMCSE is how many Monte Carlo standard errors a moment may be off. The
// standard error of each is sd(f)/√ESS(f), with the bulk ESS of f's own
// draws over the 4 chains (about 2,000 to 2,700 here, so the error
// of E p for simplex[4] is about 0.19/√2000 ≈ 0.0043). At 4 standard
// errors a correct sampler fails one of the ~35 moments below with
// probability about 2e-3; a wrong Jacobian moves a moment by many (the
// flat simplex without its Jacobian piles onto a vertex, an LKJ(η) with
// the wrong η has off-diagonal variance 1/(2η+K-1), 1/4 → 1/6 for η = 2).
// SGHMC's discretisation bias at the tuned step, a few percent of an sd
// (calibration_test.go), is below one standard error at these ESS; with
// seed 1 the worst of the moments is measured at 1.7 standard errors.
const zMCSE = 4

// TestConstrainedTypesSampleUniformly samples each constrained type under
// a flat density (or a simple prior with known order statistics) with the
// default sampler and settings, 4,000 iterations, and compares moments with
// exact values: a flat simplex[K] is Dirichlet(1, ..., 1), E p_i = 1/K,
// Var p_i = (K-1)/(K²(K+1)); a flat corr_matrix[K] is LKJ(1), whose
// off-diagonals have mean 0 and variance 1/(K+1) (Beta(K/2, K/2) on
// (-1, 1)); a flat cholesky_factor_corr[3] is flat in its strictly lower
// entries, each row's on its unit ball: L[2, 1] uniform on (-1, 1)
// (E L² = 1/3), (L[3, 1], L[3, 2]) uniform on the disc (E L² = 1/4), and
// with LKJ(1)'s density on the factor, Π_k L_kk^{K-k} = L[2, 2] for K = 3,
// L[2, 1] = Ω[2, 1] has E L² = 1/4; ordered[2] with
// normal(0, 1) entries is the order statistics of two standard normals,
// E max = 1/√π = -E min, E x² = 1 for both; positive_ordered[2] with
// exponential(1) entries is those of two exponentials, the minimum
// Exp(2) (mean 1/2, E x² = 1/2), the maximum the minimum plus an Exp(1)
// (mean 3/2, E x² = 7/2); a cov_matrix[2] with the Wishart(ν = 4, I)
// density |S|^{(ν-K-1)/2} e^{-tr S/2} has E S = νI, Var S_ij = ν(1 + δ_ij),
// so E S_11 = 4, E S_11² = 24, E S_12 = 0, E S_12² = 4; a
// cholesky_factor_cov[2] with normal(0, 1) on its lower entry and
// exponential(1) on its diagonal has those marginals (E L_21² = 1, E L_ii
// = 1, E L_ii² = 2), its transform's Jacobian making the density on L the
// one written; a flat unit_vector[K] is uniform on the sphere, E u_i = 0,
// E u_i² = 1/K.
func TestConstrainedTypesSampleUniformly(t *testing.T) {
	k := 4.0
	cases := []struct {
		src     string
		moments []moment
	}{
		{"param { p: simplex[4] }\nmodel { target += 0 }", []moment{
			mean("p.1", 1/k), mean("p.2", 1/k), mean("p.3", 1/k), mean("p.4", 1/k),
			square("p.1", (k-1)/(k*k*(k+1))+1/(k*k)), square("p.4", (k-1)/(k*k*(k+1))+1/(k*k)),
		}},
		{"param { O: corr_matrix[3] }\nmodel { target += 0 }", []moment{
			mean("O.2.1", 0), mean("O.3.1", 0), mean("O.3.2", 0),
			square("O.2.1", 0.25), square("O.3.1", 0.25), square("O.3.2", 0.25),
		}},
		{"param { L: cholesky_factor_corr[3] }\nmodel { target += 0 }", []moment{
			mean("L.2.1", 0), square("L.2.1", 1./3), mean("L.3.1", 0), square("L.3.1", 0.25), square("L.3.2", 0.25),
		}},
		{"param { L: cholesky_factor_corr[3] }\nmodel { target += log(L[2, 2]) }", []moment{
			mean("L.2.1", 0), square("L.2.1", 0.25), square("L.3.1", 0.25),
		}},
		{"param { c: ordered[2] }\nmodel { c ~ normal(0, 1) }", []moment{
			mean("c.1", -1/math.Sqrt(math.Pi)), mean("c.2", 1/math.Sqrt(math.Pi)), square("c.1", 1), square("c.2", 1),
		}},
		{"param { s: positive_ordered[2] }\nmodel { s ~ exponential(1) }", []moment{
			mean("s.1", 0.5), mean("s.2", 1.5), square("s.1", 0.5), square("s.2", 3.5),
		}},
		{"param { S: cov_matrix[2] }\nmodel { target += 0.5 * log(S[1, 1] * S[2, 2] - S[1, 2] * S[2, 1]) - 0.5 * (S[1, 1] + S[2, 2]) }", []moment{
			mean("S.1.1", 4), mean("S.2.2", 4), mean("S.1.2", 0), square("S.1.1", 24), square("S.1.2", 4),
		}},
		{"param { L: cholesky_factor_cov[2] }\nmodel { L[2, 1] ~ normal(0, 1)\n  L[1, 1] ~ exponential(1)\n  L[2, 2] ~ exponential(1) }", []moment{
			mean("L.2.1", 0), square("L.2.1", 1), mean("L.1.1", 1), square("L.1.1", 2), mean("L.2.2", 1), square("L.2.2", 2),
		}},
		{"param { u: unit_vector[3] }\nmodel { target += 0 }", []moment{
			mean("u.1", 0), mean("u.3", 0), square("u.1", 1./3), square("u.2", 1./3), square("u.3", 1./3),
		}},
	}
	for _, c := range cases {
		m, err := temper.Compile("uniform.ppl", c.src, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		res, err := m.Sample(context.Background(), temper.Options{Seed: 1, Iters: 4000})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if len(res.Warnings) > 0 { // none: the fixed entries (a unit diagonal) are not "stuck"
			t.Errorf("%s: warnings %q", c.src, res.Warnings)
		}
		index := map[string]int{}
		for i, name := range res.Columns {
			index[name] = i
		}
		for _, mo := range c.moments {
			est, mcse := momentOf(res, index, mo)
			off := math.Abs(est-mo.want) / mcse
			line := fmt.Sprintf("%q: %s = %.4f, exact %.4f, off %.2f standard errors (%.4f)", c.src, mo.what, est, mo.want, off, mcse)
			if off > zMCSE {
				t.Error(line)
			} else if testing.Verbose() {
				t.Log(line)
			}
		}
	}
}

// momentOf estimates E f over every chain's draws with its Monte Carlo
// standard error, sd(f)/√ESS_bulk(f).
func momentOf(res *temper.Result, index map[string]int, mo moment) (est, mcse float64) {
	chains := make([][]float64, len(res.Draws))
	var sum, sumSq float64
	n := 0
	for c, draws := range res.Draws {
		for _, d := range draws {
			v := mo.f(func(name string) float64 { return d[index[name]] })
			chains[c] = append(chains[c], v)
			sum, sumSq, n = sum+v, sumSq+v*v, n+1
		}
	}
	est = sum / float64(n)
	sd := math.Sqrt(sumSq/float64(n) - est*est)
	return est, sd / math.Sqrt(summary.ESSBulk(chains))
}
