package loo_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer/loo"
	"github.com/temper-ppl/temper/internal/rclient"
)

// normalMatrix is the log-likelihood matrix of n observations under a
// normal model with S posterior draws of (μ, σ) around the data's own,
// the last observations moved out by outlier sds so that their ratios
// have heavy tails (large k̂).
func normalMatrix(s, n int, outlier float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	for i := n - 3; i < n; i++ {
		y[i] += outlier * float64(i-n+4)
	}
	ll := make([][]float64, s)
	for d := range ll {
		mu, sigma := 0.2*rng.NormFloat64(), math.Exp(0.15*rng.NormFloat64())
		ll[d] = make([]float64, n)
		for i, v := range y {
			z := (v - mu) / sigma
			ll[d][i] = -0.5*z*z - math.Log(sigma) - 0.5*math.Log(2*math.Pi)
		}
	}
	return ll
}

// TestAgreesWithR computes PSIS-LOO and WAIC of three log-likelihood
// matrices (normal models of 30, 50 and 100 observations, 1,000 to 4,000
// draws, the last three observations moved 0.5 to 4.5 sds, which gives
// k̂ from about 0 to above the threshold) and
// R's loo 2.5 of the same matrices with the same relative efficiencies:
// elpd_loo, p_loo, looic, their standard errors, WAIC's, and every
// pointwise elpd and k̂ must agree to 1e-6 (the same arithmetic agrees to
// about 1e-12; the matrices travel as 17-digit decimals).
func TestAgreesWithR(t *testing.T) {
	rscript := rclient.Require(t, "loo")
	for _, c := range []struct {
		s, n    int
		outlier float64
	}{{1000, 30, 0.5}, {4000, 50, 1}, {2000, 100, 1.5}} {
		t.Run(fmt.Sprintf("S=%d,N=%d", c.s, c.n), func(t *testing.T) {
			ll := normalMatrix(c.s, c.n, c.outlier, uint64(c.n))
			rEff := make([]float64, c.n)
			for i := range rEff {
				rEff[i] = 0.6 + 0.4*float64(i%5)/4 // as chains' relative efficiencies vary
			}
			got, err := loo.Compute(ll, rEff)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var b strings.Builder
			for _, row := range ll {
				for i, v := range row {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(strconv.FormatFloat(v, 'g', 17, 64))
				}
				b.WriteByte('\n')
			}
			path := filepath.Join(dir, "ll.csv")
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			var reff []string
			for _, v := range rEff {
				reff = append(reff, strconv.FormatFloat(v, 'g', 17, 64))
			}
			script := fmt.Sprintf(`suppressPackageStartupMessages(library(loo))
ll <- as.matrix(read.csv(%q, header = FALSE))
l <- suppressWarnings(loo(ll, r_eff = c(%s)))
w <- suppressWarnings(waic(ll))
e <- l$estimates; v <- w$estimates
cat("est", sprintf("%%.17g", c(e["elpd_loo", ], e["p_loo", ], e["looic", ], v["elpd_waic", ], v["p_waic", ], v["waic", ])), "\n")
cat("elpd", sprintf("%%.17g", l$pointwise[, "elpd_loo"]), "\n")
cat("k", sprintf("%%.17g", l$diagnostics$pareto_k), "\n")
`, path, strings.Join(reff, ","))
			raw, err := exec.Command(rscript, "-e", script).CombinedOutput()
			if err != nil {
				t.Fatalf("R: %v\n%s", err, raw)
			}
			vals := map[string][]float64{}
			for _, line := range strings.Split(string(raw), "\n") {
				f := strings.Fields(line)
				if len(f) < 2 {
					continue
				}
				for _, x := range f[1:] {
					v, err := strconv.ParseFloat(x, 64)
					if err != nil {
						t.Fatalf("R printed %q: %v", line, err)
					}
					vals[f[0]] = append(vals[f[0]], v)
				}
			}
			want := vals["est"]
			if len(want) != 12 || len(vals["elpd"]) != c.n || len(vals["k"]) != c.n {
				t.Fatalf("R printed:\n%s", raw)
			}
			mine := []float64{got.ELPD, got.ELPDSE, got.PLoo, got.PLooSE, got.LooIC, got.LooICSE, got.ELPDWAIC, got.ELPDWAICSE, got.PWAIC, got.PWAICSE, got.WAIC, got.WAICSE}
			names := []string{"elpd_loo", "its se", "p_loo", "its se", "looic", "its se", "elpd_waic", "its se", "p_waic", "its se", "waic", "its se"}
			for j := range mine {
				if math.Abs(mine[j]-want[j]) > 1e-6 {
					t.Errorf("%s: temper %.10g, R's loo %.10g", names[j], mine[j], want[j])
				}
			}
			maxK := 0.0
			for i, p := range got.Pointwise {
				maxK = max(maxK, p.K)
				if math.Abs(p.ELPD-vals["elpd"][i]) > 1e-6 || math.Abs(p.K-vals["k"][i]) > 1e-6 {
					t.Errorf("observation %d: elpd %.10g, k̂ %.10g; R's loo %.10g, %.10g", i+1, p.ELPD, p.K, vals["elpd"][i], vals["k"][i])
				}
			}
			t.Logf("elpd_loo %.3f ± %.3f, p_loo %.2f, largest k̂ %.2f, %d above %.2f", got.ELPD, got.ELPDSE, got.PLoo, maxK, len(got.HighK()), got.KThreshold)
		})
	}
}
