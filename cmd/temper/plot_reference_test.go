package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotReference runs the normal example briefly and draws its
// posterior against references of each form the file may take: a mean
// and sd per parameter under Stan's names (under "parameters" or, as the
// examples' own long runs record them, "posterior"), and draws. Each writes a PNG
// image that decodes; a missing file, malformed JSON, a parameter without
// a positive sd, a reference lacking a plotted column and no --reference
// at all are refused with exit 2 and a message naming the file and what
// is wrong.
func TestPlotReference(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"run", filepath.Join("..", "..", "examples", "normal", "model.ppl"), "--iters", "300", "--chains", "2", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plot := func(ref string, extra ...string) (int, string) {
		stdout.Reset()
		stderr.Reset()
		args := append([]string{"plot", out, "--kind", "reference", "--params", "mu,sigma", "--out", filepath.Join(dir, "reference.png")}, extra...)
		if ref != "" {
			args = append(args, "--reference", ref)
		}
		code := run(context.Background(), args, &stdout, &stderr)
		return code, stderr.String()
	}
	for _, ref := range []string{
		write("summary.json", `{"source": "a test", "parameters": {"mu": {"mean": 1.0, "sd": 0.3, "q5": 0.5}, "sigma": {"mean": 1.2, "sd": 0.2}}}`),
		write("stan.json", `{"parameters": {"mu": {"mean": 1.0, "sd": 0.3}}, "draws": {"sigma[1]": [1.0, 1.1, 1.3, 1.2, 0.9]}}`),
		// the examples' long runs (examples/garch/reference.json): "posterior", with the truth beside
		write("example.json", `{"truth": {"mu": 1}, "posterior": {"mu": {"mean": 1.0, "sd": 0.3, "mcse": 0.01}, "sigma": {"mean": 1.2, "sd": 0.2}}}`),
	} {
		_ = os.Remove(filepath.Join(dir, "reference.png"))
		if strings.HasSuffix(ref, "stan.json") { // Stan's sigma[1] is no column of this run's
			if code, msg := plot(ref); code != exitBadInput || !strings.Contains(msg, "stan.json has no sigma (it has mu, sigma.1)") {
				t.Errorf("a reference under other names: exit %d, %s", code, msg)
			}
			ref = write("stan.json", `{"parameters": {"mu": {"mean": 1.0, "sd": 0.3}}, "draws": {"sigma": [1.0, 1.1, 1.3, 1.2, 0.9]}}`)
		}
		if code, msg := plot(ref); code != 0 {
			t.Fatalf("temper plot --reference %s: exit %d, %s", ref, code, msg)
		}
		f, err := os.Open(filepath.Join(dir, "reference.png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() < 500 {
			t.Errorf("--reference %s: the plot is not a PNG image of a readable size: %v", ref, err)
		}
	}
	for _, c := range []struct {
		name, ref string
		want      []string
	}{
		{"missing", filepath.Join(dir, "absent.json"), []string{"--reference " + filepath.Join(dir, "absent.json"), "no such file"}},
		{"malformed", write("bad.json", `{"parameters": {"mu": [1, 2]}}`), []string{"bad.json is not a reference posterior", `want {"parameters"`}},
		{"not JSON", write("text.json", `mu 1.0 0.3`), []string{"text.json is not a reference posterior"}},
		{"no sd", write("nosd.json", `{"parameters": {"mu": {"mean": 1}}}`), []string{"nosd.json: parameter mu needs a finite mean and a positive sd"}},
		{"empty", write("empty.json", `{"source": "nothing"}`), []string{"empty.json names no parameter"}},
		{"no flag", "", []string{"--reference REF.json"}},
	} {
		if code, msg := plot(c.ref); code != exitBadInput || !containsAll(msg, c.want) {
			t.Errorf("%s: exit %d, %q; want exit %d and %q", c.name, code, msg, exitBadInput, c.want)
		}
	}
}

// TestPlotPPCLog1p draws the roaches' posterior predictive check on
// log(1 + y), whose axis says so, and refuses --log1p for another kind.
func TestPlotPPCLog1p(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join("..", "..", "examples", "roaches", "model.ppl")
	out := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"run", model, "--iters", "200", "--chains", "2", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 && code != exitWarnings {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	svg := filepath.Join(dir, "ppc.svg")
	if code := run(context.Background(), []string{"plot", out, "--kind", "ppc", "--model", model, "--y", "y", "--yrep", "y_rep", "--log1p", "--out", svg}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper plot --kind ppc --log1p: exit %d\n%s", code, stderr.String())
	}
	raw, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(raw), "log(1 + y)") {
		t.Errorf("the plot's axis does not say log(1 + y): %v", err)
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"plot", out, "--kind", "ppc-stat", "--model", model, "--y", "y", "--yrep", "y_rep", "--log1p", "--out", svg}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "--log1p is for --kind ppc") {
		t.Errorf("--log1p with ppc-stat: exit %d, %s", code, stderr.String())
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
