package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sbcTestdata is the top-level package's SBC models and generators.
func sbcTestdata(name string) string { return filepath.Join("..", "..", "examples", "sbc", name) }

// temper sbc on the bounded probability with its generator program and
// SGHMC's defaults: exit 0, a row for p, and in --out the ranks of the
// 100 replications, the tests and the histograms. About 1 s.
func TestSBCCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sbc")
	code, stdout, stderr := runCLI(t, context.Background(), "sbc", sbcTestdata("bounded.ppl"),
		"--generator", sbcTestdata("bounded_gen.ppl"), "--data", sbcTestdata("bounded_data.json"), "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	t.Log(stdout)
	for _, want := range []string{"sghmc, 100 replications of 1 chain × 990 iterations", "\np ", "ranks among 99 draws", "ranks, tests and rank histograms in"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	ranks, err := os.ReadFile(filepath.Join(out, "ranks.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(ranks)), "\n"); len(lines) != 101 || lines[0] != "replication,p" {
		t.Errorf("ranks.csv has %d lines, header %q; want 101 and replication,p", len(lines), lines[0])
	}
	raw, err := os.ReadFile(filepath.Join(out, "sbc.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Completed int `json:"completed"`
		Tests     []struct {
			Param  string `json:"param"`
			Counts []int  `json:"counts"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &got); err != nil || got.Completed != 100 || len(got.Tests) != 1 || got.Tests[0].Param != "p" || len(got.Tests[0].Counts) != 20 {
		t.Errorf("sbc.json: %v, %+v; want 100 replications and p's test in 20 bins", err, got)
	}
	if _, err := os.Stat(filepath.Join(out, "ranks.svg")); err != nil {
		t.Error(err)
	}
}

// With --strict a sampler broken on purpose (SGHMC at temperature 0.5, a
// posterior 29% too narrow: p = 6e-19 over 400 replications in the Go
// test) exits 3, its table printed. About 2 s.
func TestSBCCommandStrict(t *testing.T) {
	code, stdout, stderr := runCLI(t, context.Background(), "sbc", sbcTestdata("normal.ppl"),
		"--generator", sbcTestdata("normal_gen.ppl"), "--data", sbcTestdata("normal_data.json"),
		"--set", "temperature=0.5", "--replications", "400", "--strict", "--quiet")
	if code != exitWarnings || !strings.Contains(stdout, "not uniform") || !strings.Contains(stderr, "--strict: mu reject uniformity") {
		t.Errorf("exit %d, want 3:\n%s%s", code, stdout, stderr)
	}
}

// What temper sbc cannot run is bad input, exit 2, said before any
// sampling.
func TestSBCCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	withParam := write(t, dir, "param.ppl", "data { N: int }\nparam { mu: real }\nmodel { mu ~ normal(0, 1) }\ngenerated { y = normal_rng(mu, 1) }\n")
	noParams := write(t, dir, "none.ppl", "data { N: int }\ngenerated { z = normal_rng(0, 1) }\n")
	model, gen, data := sbcTestdata("normal.ppl"), sbcTestdata("normal_gen.ppl"), sbcTestdata("normal_data.json")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no generator", []string{model, "--data", data}, "usage: temper sbc"},
		{"generator with parameters", []string{model, "--generator", withParam, "--data", data}, "param.ppl:2:1: a generator has no param block"},
		{"generator of no parameter", []string{model, "--generator", noParams, "--data", data}, "generates none of the parameters"},
		{"no data", []string{model, "--generator", gen}, "missing data for N"},
		{"unknown sampler", []string{model, "--generator", gen, "--data", data, "--sampler", "nope"}, "nope"},
		{"checkpoint", []string{model, "--generator", gen, "--data", data, "--set", "checkpoint=" + filepath.Join(dir, "c")}, "no checkpoint"},
		{"checkpoint flag", []string{model, "--generator", gen, "--data", data, "--checkpoint", filepath.Join(dir, "c")}, "flag provided but not defined: -checkpoint"},
		{"too few replications", []string{model, "--generator", gen, "--data", data, "--replications", "5"}, "too few for a χ² test"},
	} {
		code, stdout, stderr := runCLI(t, context.Background(), append([]string{"sbc"}, c.args...)...)
		if code != exitBadInput || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s%s", c.name, code, c.want, stdout, stderr)
		}
	}
}
