package temper

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/rclient"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// TestDrawsReadByR runs the eight schools and has R read its files in
// CmdStan's layout: rstan::read_stan_csv must find four chains of every
// draw, and posterior's R-hat, bulk and tail ESS (Vehtari et al. 2021) of
// every column, from the array rstan built, must agree with temper's
// summary to 1e-6 relative. The same formulas on the same numbers agree
// to about 1e-12 (infer/summary's reference test); the files carry each
// number's shortest exact decimal, so a looser bar would hide a reader
// that split the chains wrongly or lost digits. A NUTS run's files must
// also give rstan its sampler diagnostics (get_sampler_params), with the
// divergences temper counted.
func TestDrawsReadByR(t *testing.T) {
	rscript := rclient.Require(t, "posterior", "rstan")
	m, err := CompileFile("examples/eight-schools/model.ppl", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sampler := range []string{"sghmc", "nuts"} {
		t.Run(sampler, func(t *testing.T) { drawsReadByR(t, rscript, m, sampler) })
	}
}

func drawsReadByR(t *testing.T, rscript string, m *Model, sampler string) {
	res, err := m.Sample(context.Background(), Options{Sampler: sampler, Iters: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := res.Save(dir); err != nil {
		t.Fatal(err)
	}
	files := runfiles.ChainFiles(dir)
	if len(files) != 4 {
		t.Fatalf("%d chain files, want 4", len(files))
	}
	script := fmt.Sprintf(`
fit <- rstan::read_stan_csv(c(%s))
a <- as.array(fit)
cat("dims", dim(a), "\n")
for (p in dimnames(a)[[3]]) {
  x <- a[, , p]
  cat(p, sprintf("%%.17g", c(posterior::rhat(x), posterior::ess_bulk(x), posterior::ess_tail(x))), "\n")
}
if (%s) {
  sp <- rstan::get_sampler_params(fit, inc_warmup = FALSE)
  cat("sampler", length(sp), nrow(sp[[1]]), sum(sapply(sp, function(s) sum(s[, "divergent__"]))), colnames(sp[[1]]), "\n")
}`, quoteR(files), map[bool]string{true: "TRUE", false: "FALSE"}[res.Exact != nil])
	out := rclient.Output(t, rscript, script)
	want := map[string][3]float64{}
	for _, s := range res.Summary() {
		want[s.Name] = [3]float64{s.Rhat, s.ESSBulk, s.ESSTail}
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if f[0] == "sampler" {
			divergent := 0
			for _, x := range res.Exact {
				divergent += x.Divergent
			}
			// rstan puts the diagnostics in an order of its own.
			names := slices.Sorted(slices.Values(f[4:]))
			want := fmt.Sprintf("4 %d %d %s", len(res.Draws[0]), divergent, strings.Join(slices.Sorted(slices.Values(res.StatColumns)), " "))
			if got := strings.Join(append(f[1:4], names...), " "); got != want {
				t.Errorf("rstan's sampler parameters: %q, want %q", got, want)
			}
			continue
		}
		if f[0] == "dims" {
			if got := strings.Join(f[1:3], " "); got != fmt.Sprintf("%d 4", len(res.Draws[0])) {
				t.Errorf("rstan read %s draws × chains, temper wrote %d × 4", got, len(res.Draws[0]))
			}
			continue
		}
		// rstan names eta.1 eta[1], and a matrix's W.1.2 W[1,2].
		name := strings.NewReplacer("[", ".", ",", ".", "]", "").Replace(f[0])
		w, ok := want[name]
		if !ok || len(f) != 4 {
			t.Errorf("R printed %q: no such column", line)
			continue
		}
		for i, what := range []string{"R-hat", "bulk ESS", "tail ESS"} {
			if (f[1+i] == "NA" || f[1+i] == "NaN") && math.IsNaN(w[i]) {
				continue // undefined in both: a tail ESS of a 0/1 indicator
			}
			got, err := strconv.ParseFloat(f[1+i], 64)
			if err != nil || math.Abs(got-w[i]) > 1e-6*math.Abs(w[i]) {
				t.Errorf("%s: %s %s in R, %.17g in temper", name, what, f[1+i], w[i])
			}
		}
		checked++
	}
	if checked != len(want) {
		t.Errorf("R checked %d columns of %d", checked, len(want))
	}
	t.Logf("rstan and posterior read %d columns of 4 × %d draws; R-hat, bulk and tail ESS agree to 1e-6", checked, len(res.Draws[0]))
}

// quoteR is a list of paths as R string literals.
func quoteR(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = strconv.Quote(filepath.ToSlash(p))
	}
	return strings.Join(q, ", ")
}

// TestMatrixOrderReadByRstan has rstan::extract build the arrays of a
// matrix, an array of simplexes and a Cholesky factor from the per-chain
// files, as rstan does by position in CmdStan's column-major order: each
// element's mean in R must be temper's mean of the column of that name
// (to 1e-9 relative: the same draws summed in another order), and the
// Cholesky factor's upper triangle must be exactly 0 in R. Written
// row-major, as before, R's W[, 1, 2] held W.2.1's draws (about 21 against
// 12) and L[, 1, 2] held L.2.1's nonzero ones.
func TestMatrixOrderReadByRstan(t *testing.T) {
	rscript := rclient.Require(t, "rstan")
	m, err := Compile("order.ppl", `data { M: real[2, 3]  a: real[3] }
param {
  W: real[2, 3]
  theta: simplex[3][2]
  L: cholesky_factor_corr[3]
}
model {
  W ~ normal(M, 0.1)
  theta[1] ~ dirichlet(a)
  theta[2] ~ dirichlet(a)
  L ~ lkj_corr_cholesky(2)
}
`, map[string]any{"M": [][]float64{{11, 12, 13}, {21, 22, 23}}, "a": []float64{2, 5, 9}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), Options{Iters: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := res.Save(dir); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`
fit <- rstan::read_stan_csv(c(%s))
e <- rstan::extract(fit)
for (p in c("W", "theta", "L")) {
  x <- e[[p]]
  for (i in seq_len(dim(x)[2])) for (j in seq_len(dim(x)[3]))
    cat(sprintf("%%s.%%d.%%d %%.17g %%d\n", p, i, j, mean(x[, i, j]), sum(x[, i, j] != 0)))
}`, quoteR(runfiles.ChainFiles(dir)))
	out := rclient.Output(t, rscript, script)
	want := map[string]float64{}
	for _, s := range res.Summary() {
		want[s.Name] = s.Mean
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		w, ok := want[f[0]]
		if !ok || len(f) != 3 {
			t.Errorf("R printed %q: no such column", line)
			continue
		}
		got, err := strconv.ParseFloat(f[1], 64)
		if err != nil || math.Abs(got-w) > 1e-9*math.Abs(w) {
			t.Errorf("rstan::extract's %s has mean %s, temper's column of that name %.17g", f[0], f[1], w)
		}
		var i, j int
		if _, err := fmt.Sscanf(f[0], "L.%d.%d", &i, &j); err == nil && j > i && f[2] != "0" {
			t.Errorf("rstan::extract's %s, above the Cholesky factor's diagonal, has %s nonzero draws", f[0], f[2])
		}
		checked++
	}
	if checked != 6+6+9 {
		t.Errorf("R checked %d elements, want 21", checked)
	}
}
