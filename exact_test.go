package temper_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/temper-ppl/temper"
)

// TestCalibrationExact runs the exact samplers with their defaults (Stan's
// warm-up of 1,000 iterations, 4 chains of 2,000 draws) on the calibration
// suite's posteriors, known exactly, with the stochastic-gradient
// samplers' bars: every mean within 0.1 sd and every sd within 10%. NUTS
// makes near-independent draws here (bulk ESS above 5,000 of 8,000), so
// the Monte Carlo errors are under 0.015 sd and 1%: the bars are 7
// standard errors and more, and NUTS must meet them without a warning.
// HMC's fixed ten steps and MALA's one cannot cross the raw-scale
// regression's long correlated direction (nor MALA the hierarchy's) in
// 2,000 iterations; there they must warn (R-hat, ESS, E-BFMI), and where
// they do not warn they must meet the bars.
func TestCalibrationExact(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s of sampling; skipped with -short")
	}
	for _, c := range calibrationCases(t) {
		m, err := temper.Compile(c.name+".ppl", c.src, c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, sampler := range []string{"nuts", "hmc", "mala"} {
			res, err := m.Sample(context.Background(), temper.Options{Sampler: sampler, Seed: 1})
			if err != nil {
				t.Errorf("%s with %s: %v", c.name, sampler, err)
				continue
			}
			warned := len(res.Warnings) > 0
			if warned && sampler == "nuts" {
				t.Errorf("%s with %s: warnings %q", c.name, sampler, res.Warnings)
			}
			report, bad := c.check(res)
			if bad && !warned {
				t.Fail()
			}
			if len(report) > 0 {
				t.Logf("%s with %s (step %.3g, warned: %t):\n  %s", c.name, sampler, res.Exact[0].StepSize, warned, strings.Join(report, "\n  "))
			}
		}
	}
}

// runExample runs an example's model file with its infer block.
func runExample(t *testing.T, path string) *temper.Result {
	t.Helper()
	m, err := temper.CompileFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := m.InferOptions()
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Sample(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFunnel samples Neal's funnel in 10 dimensions (examples/funnel: v ~
// N(0, 3²), nine x_i ~ N(0, e^v)) with NUTS's defaults: the non-centred
// form gives v's and z's exact marginals, N(0, 9) and N(0, 1) (mean within
// 5 MCSE, sd within 10%: bulk ESS is above 3,000, which puts the sd's
// error under 2%) and no warning; the centred form, whose neck is narrower
// than any one step size can follow, must say so with divergences, as
// Stan's does.
func TestFunnel(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s of sampling; skipped with -short")
	}
	res := runExample(t, "examples/funnel/model.ppl")
	if len(res.Warnings) > 0 {
		t.Errorf("non-centred funnel: warnings %q", res.Warnings)
	}
	for _, s := range res.Summary() {
		sd := 1.0
		switch {
		case s.Name == "v":
			sd = 3
		case strings.HasPrefix(s.Name, "z."):
		default:
			continue
		}
		if math.Abs(s.Mean) > 5*s.MCSE || math.Abs(s.SD/sd-1) > 0.1 {
			t.Errorf("non-centred funnel: %s has mean %.3g (MCSE %.3g) and sd %.3g, want 0 and %g", s.Name, s.Mean, s.MCSE, s.SD, sd)
		}
	}

	res = runExample(t, "examples/funnel/centred.ppl")
	divergent := 0
	for _, x := range res.Exact {
		divergent += x.Divergent
	}
	if divergent == 0 || !strings.Contains(strings.Join(res.Warnings, "\n"), "ended with a divergence") {
		t.Errorf("centred funnel: %d divergences, warnings %q; want divergences and a warning", divergent, res.Warnings)
	}
	t.Logf("centred funnel: %d divergent transitions of %d; warnings:\n%s", divergent, 4*2000, strings.Join(res.Warnings, "\n"))
}
