package stan_test

import (
	"math"
	"path/filepath"
	"testing"
)

// TestFunctionForms: the Stan functions that the .ppl writes in another
// form (testdata/functions.stan) have Stan's values in the translation.
func TestFunctionForms(t *testing.T) {
	res := translateGolden(t, "functions")
	if len(res.Gaps) > 0 {
		t.Fatalf("gaps: %v", res.Gaps)
	}
	m := compileWith(t, "functions.ppl", []byte(res.PPL), filepath.Join("testdata", "functions.json"))
	for _, theta := range [][]float64{{0.3, -0.7}, {-1.2, 1.5}} {
		names := m.OutputNames()
		out := make([]float64, len(names))
		m.Constrain(out, theta)
		v := map[string]float64{}
		for i, n := range names {
			v[n] = out[i]
		}
		p, x := v["p"], v["x"]
		lse := math.Max(x, p) + math.Log1p(math.Exp(-math.Abs(x-p)))
		want := map[string]float64{
			"r_inv": 1 / p, "r_inv_sqrt": 1 / math.Sqrt(p), "r_inv_square": 1 / (p * p),
			"r_log1m": math.Log1p(-p), "r_log1m_inv_logit": -math.Log1p(math.Exp(x)),
			"r_Phi":        0.5 * math.Erfc(-x/math.Sqrt2),
			"r_Phi_approx": 1 / (1 + math.Exp(-(0.07056*x*x*x + 1.5976*x))),
			"r_logit":      math.Log(p / (1 - p)), "r_log2": math.Log2(p), "r_log10": math.Log10(p), "r_e": math.E,
			"r_step": b2f(x >= 0), "r_fmax": math.Max(x, p), "r_fmin": math.Min(x, p), "r_lse": lse,
			"r_dot_self": x*x + p*p, "r_cond": math.Max(x, p), "r_min": math.Min(x, p), "r_minus": -x * x,
			// matrices, row-major: rep_matrix of a row vector stacks rows
			"r_rep_matrix.1.1": x, "r_rep_matrix.1.2": p, "r_rep_matrix.3.1": x, "r_rep_matrix.3.2": p,
			"r_append_col.1": x, "r_append_col.2": p, "r_append_col.3": p, "r_append_col.4": x,
			"r_append_row.1.1": x, "r_append_row.1.2": p, "r_append_row.2.1": p, "r_append_row.2.2": x,
			"r_tcrossprod.1.1": x*x + p*p, "r_tcrossprod.1.2": x*p + p, "r_tcrossprod.2.2": p*p + 1,
		}
		for n, w := range want {
			got, ok := v[n]
			if !ok {
				t.Errorf("no column %s in %v", n, names)
				continue
			}
			if math.Abs(got-w) > 1e-9*(1+math.Abs(w)) {
				t.Errorf("at p = %g, x = %g: %s = %.12g, want %.12g", p, x, n, got, w)
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
