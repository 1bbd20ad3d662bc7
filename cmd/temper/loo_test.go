package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/internal/rclient"
)

// TestLooAgreesWithR runs three models with --log-lik (the eight schools,
// a hierarchy whose schools have k̂ near the threshold; a normal mean; a
// regression), then temper loo, and R's loo 2.5 on the log_lik columns of
// the same draws file with the same relative efficiencies: elpd_loo, p_loo,
// looic and every observation's k̂ must agree to 1e-6 (the same
// arithmetic; the draws file carries each number's shortest exact
// decimal). R's own relative_eff must be temper's to 1e-6 too: both are
// the ESS of exp(log_lik) over S by Geyer's initial monotone sequence on
// the chains as they are. A run without log_lik is refused with the flag
// that makes one.
func TestLooAgreesWithR(t *testing.T) {
	rscript := rclient.Require(t, "loo")
	for _, model := range []string{"eight-schools/model.ppl", "evidence/normal_mean.ppl", "evidence/regression.ppl"} {
		t.Run(model, func(t *testing.T) {
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			path := filepath.Join("..", "..", "examples", model)
			if code := run(context.Background(), []string{"run", path, "--sampler", "nuts", "--log-lik", "--seed", "1", "--out", dir, "--quiet"}, &stdout, &stderr); code != 0 {
				t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
			}
			stdout.Reset()
			pointwise := filepath.Join(dir, "loo.csv")
			if code := run(context.Background(), []string{"loo", dir, "--out", pointwise}, &stdout, &stderr); code != 0 {
				t.Fatalf("temper loo: exit %d\n%s", code, stderr.String())
			}
			printed := stdout.String()
			est := map[string]float64{}
			for _, name := range []string{"elpd_loo", "p_loo", "looic"} {
				m := regexp.MustCompile(name + `\s+(-?[0-9.]+)`).FindStringSubmatch(printed)
				if m == nil {
					t.Fatalf("temper loo printed no %s:\n%s", name, printed)
				}
				est[name], _ = strconv.ParseFloat(m[1], 64)
			}
			script := fmt.Sprintf(`suppressPackageStartupMessages(library(loo))
d <- read.csv(%q, comment.char = "#")
d <- d[order(d$chain, d$iter), ]
ll <- as.matrix(d[, grepl("^log_lik[.]", names(d))])
p <- read.csv(%q)
l <- suppressWarnings(loo(ll, r_eff = p$r_eff))
own <- relative_eff(exp(ll), chain_id = d$chain)
e <- l$estimates
cat("est", sprintf("%%.17g", c(e["elpd_loo", "Estimate"], e["p_loo", "Estimate"], e["looic", "Estimate"])), "\n")
cat("k", sprintf("%%.17g", l$diagnostics$pareto_k), "\n")
cat("elpd", sprintf("%%.17g", l$pointwise[, "elpd_loo"]), "\n")
cat("reff", sprintf("%%.17g", own), "\n")
`, filepath.Join(dir, "draws.csv"), pointwise)
			raw, err := exec.Command(rscript, "-e", script).CombinedOutput()
			if err != nil {
				t.Fatalf("R: %v\n%s", err, raw)
			}
			vals := map[string][]float64{}
			for _, line := range strings.Split(string(raw), "\n") {
				f := strings.Fields(line)
				for _, x := range f[min(1, len(f)):] {
					v, err := strconv.ParseFloat(x, 64)
					if err != nil {
						t.Fatalf("R printed %q", line)
					}
					vals[f[0]] = append(vals[f[0]], v)
				}
			}
			mine, err := os.ReadFile(pointwise)
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.Split(strings.TrimSpace(string(mine)), "\n")[1:]
			if len(vals["est"]) != 3 || len(vals["k"]) != len(rows) || len(vals["reff"]) != len(rows) {
				t.Fatalf("R printed:\n%s", raw)
			}
			// The printed estimates have one decimal; the pointwise file all.
			for j, name := range []string{"elpd_loo", "p_loo", "looic"} {
				if math.Abs(est[name]-vals["est"][j]) > 0.051 {
					t.Errorf("%s: temper loo printed %.1f, R's loo %.6f", name, est[name], vals["est"][j])
				}
			}
			total, maxK, worstReff := 0.0, 0.0, 0.0
			for i, row := range rows {
				f := strings.Split(row, ",")
				elpd, _ := strconv.ParseFloat(f[1], 64)
				k, _ := strconv.ParseFloat(f[4], 64)
				reff, _ := strconv.ParseFloat(f[5], 64)
				total += elpd
				maxK = max(maxK, k)
				worstReff = max(worstReff, math.Abs(reff-vals["reff"][i]))
				if math.Abs(elpd-vals["elpd"][i]) > 1e-6 || math.Abs(k-vals["k"][i]) > 1e-6 {
					t.Errorf("observation %d: elpd %.10g, k̂ %.10g; R's loo %.10g, %.10g", i+1, elpd, k, vals["elpd"][i], vals["k"][i])
				}
			}
			if math.Abs(total-vals["est"][0]) > 1e-6 {
				t.Errorf("elpd_loo %.10g, R's loo %.10g", total, vals["est"][0])
			}
			if worstReff > 1e-6 {
				t.Errorf("relative efficiencies differ from R's relative_eff by up to %.3f", worstReff)
			}
			t.Logf("elpd_loo %.3f (R %.3f), largest k̂ %.2f, r_eff within %.3f of R's", total, vals["est"][0], maxK, worstReff)
		})
	}
	var stdout, stderr bytes.Buffer
	dir := t.TempDir()
	if code := run(context.Background(), []string{"run", filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl"), "--out", dir, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d", code)
	}
	if code := run(context.Background(), []string{"loo", dir}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "--log-lik") {
		t.Errorf("temper loo of a run without log_lik: exit %d, %s", code, stderr.String())
	}
}

// TestLooSubsample: temper loo --subsample evaluates a run's draws on the
// model's data without log_lik columns. With every observation sampled it
// is PSIS-LOO of the whole (to the printed decimal); with half of them,
// within 4 of its subsampling standard errors of it (the difference
// estimator is unbiased; its error estimate is the sample's). It needs the
// model.
func TestLooSubsample(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join("..", "..", "examples", "evidence", "regression.ppl")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"run", model, "--sampler", "nuts", "--log-lik", "--seed", "1", "--out", dir, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	elpd := func(args ...string) (float64, float64) {
		t.Helper()
		stdout.Reset()
		if code := run(context.Background(), append([]string{"loo", dir}, args...), &stdout, &stderr); code != 0 {
			t.Fatalf("temper loo %v: exit %d\n%s", args, code, stderr.String())
		}
		m := regexp.MustCompile(`elpd_loo\s+(-?[0-9.]+)(?:\s+se [0-9.]+\s+subsampling se ([0-9.]+))?`).FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("temper loo %v printed:\n%s", args, stdout.String())
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		se := 0.0
		if m[2] != "" {
			se, _ = strconv.ParseFloat(m[2], 64)
		}
		return v, se
	}
	full, _ := elpd()
	all, allSE := elpd("--subsample", "30", "--model", model)
	half, halfSE := elpd("--subsample", "15", "--model", model)
	t.Logf("elpd_loo %.1f; every row subsampled %.1f (se %.2f); half %.1f (subsampling se %.2f)", full, all, allSE, half, halfSE)
	if math.Abs(all-full) > 0.051 || allSE != 0 {
		t.Errorf("every row subsampled: %.1f (se %.2f), PSIS-LOO %.1f", all, allSE, full)
	}
	if !(halfSE > 0) || math.Abs(half-full) > 4*halfSE+0.05 {
		t.Errorf("half the rows: %.1f ± %.2f, PSIS-LOO %.1f", half, halfSE, full)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"loo", dir, "--subsample", "10"}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "--model") {
		t.Errorf("--subsample without --model: exit %d, %s", code, stderr.String())
	}
}
