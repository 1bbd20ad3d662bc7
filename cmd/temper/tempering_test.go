package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/temper-ppl/temper/infer"
	"github.com/temper-ppl/temper/infer/draws"
)

// cosineCellMass is the exact mass of the unit cell around each integer
// point (i, j) under exp(-U) for the cosine2d target, which factorises into
// one-dimensional integrals of exp(-0.2x² + 2cos 2πx), done by the
// trapezoid rule on [-8, 8] (the density is below e^-10 of its peak beyond).
func cosineCellMass() map[[2]int]float64 {
	const n = 160000
	cell := map[int]float64{}
	total := 0.0
	for i := 0; i <= n; i++ {
		x := -8 + 16*float64(i)/n
		v := math.Exp(-0.2*x*x + 2*math.Cos(2*math.Pi*x))
		cell[int(math.Round(x))] += v
		total += v
	}
	mass := map[[2]int]float64{}
	for i, a := range cell {
		for j, b := range cell {
			mass[[2]int{i, j}] = a / total * b / total
		}
	}
	return mass
}

type exchangeDiag struct {
	Replicas          int       `json:"replicas"`
	Window            int       `json:"window"`
	RoundTripsPer1000 float64   `json:"round_trips_per_1000"`
	SwapRate          []float64 `json:"swap_rate"`
	SwapAttempts      []int     `json:"swap_attempts"`
	CorrectionBuffer  float64   `json:"correction_buffer"`
	// EvaluationsPerRound is written by the Barker test only.
	EvaluationsPerRound float64 `json:"exchange_evaluations_per_round"`
	Ladder              []struct {
		LR          float64 `json:"lr"`
		Temperature float64 `json:"temperature"`
	} `json:"ladder"`
}

// runCosine runs the cosine2d example's infer block (DEO*-SGD, 16 replicas,
// 20,000 iterations, η from 0.003 to 0.6, S = 0.4, noise 2 on energies and
// gradients) with extra flags, and returns its diagnostics and the target
// level's draws per unit cell.
func runCosine(t *testing.T, args ...string) (exchangeDiag, map[[2]int]float64) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr strings.Builder
	model := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	if code := run(context.Background(), append([]string{"run", model, "--out", out, "--quiet"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("temper run exited %d: %s", code, stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(out, "diagnostics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d exchangeDiag
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	tab, err := draws.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b1, b2 := tab.Values[tab.Index("beta.1")], tab.Values[tab.Index("beta.2")]
	freq := map[[2]int]float64{}
	for r := range b1 {
		freq[[2]int{int(math.Round(b1[r])), int(math.Round(b2[r]))}] += 1 / float64(len(b1))
	}
	return d, freq
}

func totalVariation(p, q map[[2]int]float64) float64 {
	tv := 0.0
	for k, v := range p {
		tv += math.Abs(v - q[k])
	}
	for k, v := range q {
		if _, ok := p[k]; !ok {
			tv += v
		}
	}
	return tv / 2
}

// TestCosineDEOStar reproduces the experiment of Figure 4(a) of seed 000
// (see examples/cosine2d/README.md) with two ladders per scheme: DEO
// (window 1) against DEO* (window auto, which must be W* = 8 for P = 16
// and S = 0.4).
//
// What it asserts, from runs over seeds 1-3 while developing: DEO* made
// 19.9-21.0 round trips per 1,000 iterations per ladder and DEO 15.0-15.8 (the
// paper: 45 and 18), so DEO* must make at least 15% more; DEO*'s target
// level visits all 25 central modes with a total-variation distance to the
// exact cell masses of 0.13-0.17, while DEO's stays above 0.3 (it leaves
// outer modes unvisited), so DEO* must be within 0.2 and better than DEO.
// The paper's 2.5× ratio is not reached: see the README for why.
func TestCosineDEOStar(t *testing.T) {
	if testing.Short() {
		t.Skip("two 16-replica runs of 20,000 iterations; skipped with -short")
	}
	exact := cosineCellMass()
	deo, deoFreq := runCosine(t, "--set", "window=1", "--chains", "2")
	star, starFreq := runCosine(t, "--chains", "2")
	tvDEO, tvStar := totalVariation(deoFreq, exact), totalVariation(starFreq, exact)
	t.Logf("round trips per 1,000 iterations: DEO %.1f, DEO* %.1f (window %d); TV to the exact cell masses: DEO %.3f, DEO* %.3f",
		deo.RoundTripsPer1000, star.RoundTripsPer1000, star.Window, tvDEO, tvStar)
	if deo.Window != 1 || star.Window < 6 || star.Window > 10 {
		t.Errorf("windows %d and %d, want 1 and W* in [6, 10]", deo.Window, star.Window)
	}
	if star.RoundTripsPer1000 < 1.15*deo.RoundTripsPer1000 {
		t.Errorf("DEO* made %.1f round trips per 1,000 iterations, DEO %.1f", star.RoundTripsPer1000, deo.RoundTripsPer1000)
	}
	for i := -2; i <= 2; i++ {
		for j := -2; j <= 2; j++ {
			if starFreq[[2]int{i, j}] == 0 {
				t.Errorf("DEO*'s target level never visited the mode at (%d, %d)", i, j)
			}
		}
	}
	if tvStar > 0.2 || tvStar >= tvDEO {
		t.Errorf("total variation to the exact masses: DEO* %.3f, DEO %.3f", tvStar, tvDEO)
	}
	if len(star.Ladder) != 16 || star.Ladder[0].LR != 0.003 || star.Ladder[15].LR != 0.6 || star.Ladder[0].Temperature != 1 || star.Ladder[1].Temperature != 0 {
		t.Errorf("final ladder %+v: want fixed ends 0.003 (SGLD at τ = 1) and 0.6 (SGD)", star.Ladder)
	}
}

// TestEveryPresetRuns runs every sampler from the CLI on the cosine2d and
// the German-credit examples for a few hundred iterations: each must finish
// (no divergence) and, for replica exchange, report its swaps.
func TestEveryPresetRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("a short run of every preset on two examples; skipped with -short")
	}
	for _, example := range []string{"cosine2d", "logistic"} {
		for _, name := range infer.SamplerNames() {
			t.Run(example+"/"+name, func(t *testing.T) {
				out := t.TempDir()
				var stdout, stderr strings.Builder
				model := filepath.Join("..", "..", "examples", example, "model.ppl")
				args := []string{"run", model, "--sampler", name, "--out", out, "--quiet", "--iters", "200", "--burn", "0", "--thin", "1", "--chains", "2"}
				if s, _ := infer.NewSampler(name, nil); s.Exact != nil { // Stan's warm-up of 1,000 is most of a short run's time
					args = append(args, "--set", "warmup=100")
					if s.Exact.Levels > 1 { // pt's ladder would grow to 23 levels on German credit
						args = append(args, "--replicas", "4")
					}
				}
				if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
					t.Fatalf("exit %d: %s", code, stderr.String())
				}
				raw, err := os.ReadFile(filepath.Join(out, "diagnostics.json"))
				if err != nil {
					t.Fatal(err)
				}
				var d exchangeDiag
				if err := json.Unmarshal(raw, &d); err != nil {
					t.Fatal(err)
				}
				s, _ := infer.NewSampler(name, nil)
				if s.Replicas > 1 && (d.Replicas < 2 || len(d.SwapAttempts) != d.Replicas-1 || d.SwapAttempts[0] == 0) {
					t.Errorf("swap attempts %v for %d replicas", d.SwapAttempts, d.Replicas)
				}
				// The Barker test on cosine2d's N(0, 2²) energy noise must
				// grow its exchange minibatch: (1 - 1/1.5)²·8 = 0.89 > σ*².
				if barker := s.Exchange != nil && s.Exchange.Name() == "barker"; barker != (d.EvaluationsPerRound > 0) || barker && example == "cosine2d" && d.EvaluationsPerRound < 2 {
					t.Errorf("exchange evaluations per round %g with exchange %v", d.EvaluationsPerRound, s.Exchange)
				}
			})
		}
	}
}

// TestKeepAll writes every replica's draws and reads back the target's.
func TestKeepAll(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr strings.Builder
	model := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	args := []string{"run", model, "--out", out, "--quiet", "--iters", "50", "--thin", "1", "--replicas", "4", "--keep", "all"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	tab, err := draws.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Chain) != 4*50 {
		t.Fatalf("%d rows, want 4 replicas × 50 draws", len(tab.Chain))
	}
	lr := tab.Values[tab.Index("lr__")]
	for r, rep := range tab.Values[tab.Index("replica__")] {
		if rep == 1 && lr[r] != 0.003 || rep == 4 && lr[r] != 0.6 {
			t.Fatalf("row %d: replica %g moved with lr %g", r, rep, lr[r])
		}
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"summary", filepath.Join(out, "draws.csv"), "--replica", "4"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "beta.1") {
		t.Fatalf("summary of replica 4: exit %d, %s %s", code, stdout.String(), stderr.String())
	}
	for _, n := range []string{"5", "0"} {
		code, _, stderr := runCLI(t, context.Background(), "summary", filepath.Join(out, "draws.csv"), "--replica", n)
		if code != exitBadInput || !strings.Contains(stderr, "holds replicas 1 to 4; there is no --replica "+n) {
			t.Errorf("summary --replica %s: exit %d, %s", n, code, stderr)
		}
	}
}

// TestReplicaOfRunFolder: summary and plot --replica N read a --keep all
// run's folder from its draws file, which holds every level, where its
// per-chain files hold the target level alone.
func TestReplicaOfRunFolder(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr strings.Builder
	model := filepath.Join("..", "..", "examples", "modes", "double_well.ppl")
	if code := run(context.Background(), []string{"run", model, "--sampler", "resgld", "--set", "replicas=3", "--keep", "all", "--iters", "200", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	for _, args := range [][]string{{"summary", out, "--replica", "2"}, {"plot", out, "--replica", "3", "--kind", "trace", "--out", filepath.Join(out, "t.svg")}} {
		stderr.Reset()
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Errorf("temper %v: exit %d, %s", args, code, stderr.String())
		}
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"summary", out, "--replica", "4"}, &stdout, &stderr); code != exitBadInput || !strings.Contains(stderr.String(), "holds replicas 1 to 3") {
		t.Errorf("--replica 4 of 3: exit %d, %s", code, stderr.String())
	}
}
