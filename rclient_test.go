package temper

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/rclient"
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
	files := ChainFiles(dir)
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
	// Standard output only: R notes on standard error (rstan's, when the
	// recommended package codetools is missing) are not results.
	var stderr strings.Builder
	cmd := exec.Command(rscript, "-e", script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Rscript: %v\n%s%s", err, out, stderr.String())
	}
	want := map[string][3]float64{}
	for _, s := range res.Summary() {
		want[s.Name] = [3]float64{s.Rhat, s.ESSBulk, s.ESSTail}
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
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
