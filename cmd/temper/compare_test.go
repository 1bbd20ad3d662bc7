package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCompareBayesFactor runs the normal mean under its prior N(0, 2²) and
// under one ten times wider on the power path, and compares them: the log
// Bayes factor of the narrow prior over the wide one is exactly
// log N(y; 0, I + 4·11ᵀ) - log N(y; 0, I + 400·11ᵀ) = -28.9579 + 31.1724
// = 2.2145 (evidence_test.go's exact values), and the runs' estimate, each
// within a few hundredths of its own, must be within 0.1. Each run's
// diagnostics.json has log_z and log_z_se, and its summary says log Z; a
// run without log Z is refused with the command that makes one.
func TestCompareBayesFactor(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"normal_mean", "normal_mean_wide"} {
		var stdout, stderr bytes.Buffer
		out := filepath.Join(dir, name)
		args := []string{"run", filepath.Join("..", "..", "examples", "evidence", name+".ppl"), "--sampler", "pt", "--set", "path=power", "--seed", "1", "--out", out}
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("temper %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "log Z = ") || !strings.Contains(stdout.String(), "on the power path") {
			t.Errorf("%s: the summary does not say log Z:\n%s", name, stdout.String())
		}
		raw, err := os.ReadFile(filepath.Join(out, "diagnostics.json"))
		if err != nil {
			t.Fatal(err)
		}
		var d map[string]any
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		if _, ok := d["log_z"].(float64); !ok {
			t.Errorf("%s: diagnostics.json has no log_z: %v", name, d["log_z"])
		}
		if se, ok := d["log_z_se"].(float64); !ok || !(se > 0) {
			t.Errorf("%s: diagnostics.json's log_z_se is %v", name, d["log_z_se"])
		}
	}
	var stdout, stderr bytes.Buffer
	narrow, wide := filepath.Join(dir, "normal_mean"), filepath.Join(dir, "normal_mean_wide")
	if code := run(context.Background(), []string{"compare", wide, narrow}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper compare: exit %d\n%s", code, stderr.String())
	}
	m := regexp.MustCompile(`log Bayes factor of (\S+) over (\S+): (-?[0-9.]+) ± ([0-9.]+)`).FindStringSubmatch(stdout.String())
	if m == nil || m[1] != narrow || m[2] != wide {
		t.Fatalf("temper compare printed:\n%s", stdout.String())
	}
	bf, _ := strconv.ParseFloat(m[3], 64)
	se, _ := strconv.ParseFloat(m[4], 64)
	t.Logf("%s", stdout.String())
	if math.Abs(bf-2.2145) > 0.1 || !(se > 0 && se < 0.1) {
		t.Errorf("log Bayes factor %.4f ± %.4f, exact 2.2145", bf, se)
	}

	// A run without log Z is refused, saying how to make one.
	plain := filepath.Join(dir, "plain")
	if code := run(context.Background(), []string{"run", filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl"), "--sampler", "nuts", "--out", plain, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"compare", narrow, plain}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "--set path=power") {
		t.Errorf("temper compare of a run without log Z: exit %d, %s", code, stderr.String())
	}
}

// TestCompareLoo ranks two models of the normal mean's data by elpd_loo:
// the model whose prior N(5, 0.1²) holds the mean far from the data's
// (about 0.8) predicts them worse than the one with the prior N(0, 2²),
// by many standard errors of the difference, which loo_compare takes from
// the pointwise differences.
func TestCompareLoo(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(src), "mu ~ normal(0, 2)", "mu ~ normal(5, 0.1)", 1)
	data, err := filepath.Abs(filepath.Join("..", "..", "examples", "evidence", "normal_mean.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad = strings.Replace(bad, `data = "normal_mean.json"`, `data = "`+data+`"`, 1)
	badPath := filepath.Join(dir, "bad.ppl")
	if err := os.WriteFile(badPath, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bad, "normal(5, 0.1)") {
		t.Fatal("the model was not changed")
	}
	good, worse := filepath.Join(dir, "good"), filepath.Join(dir, "worse")
	for model, out := range map[string]string{filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl"): good, badPath: worse} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"run", model, "--sampler", "nuts", "--log-lik", "--seed", "1", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
			t.Fatalf("temper run %s: exit %d\n%s", model, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"compare", worse, good}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper compare: exit %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	t.Logf("%s", stdout.String())
	if len(lines) != 3 || !strings.Contains(lines[0], "elpd_diff") || !strings.HasPrefix(strings.TrimSpace(lines[1]), good) {
		t.Fatalf("temper compare printed:\n%s", stdout.String())
	}
	f := strings.Fields(lines[2])
	diff, _ := strconv.ParseFloat(f[1], 64)
	se, _ := strconv.ParseFloat(f[2], 64)
	if !(diff < -3*se && se > 0) {
		t.Errorf("elpd_diff %.1f ± %.1f: the worse model is not clearly worse", diff, se)
	}
}
