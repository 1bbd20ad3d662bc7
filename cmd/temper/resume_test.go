package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper/internal/checkpoint"
	"github.com/temper-ppl/temper/internal/runfiles"
)

// rows are a draws file's data lines (the comments differ between runs).
func rows(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// TestResumeFromCLI: temper run --checkpoint, then --resume for more
// iterations into the same folder, makes the draws.csv of a straight run,
// row for row; so does a run interrupted part-way (as Ctrl-C does), whose
// checkpoint is written on the way out and whose draws file is continued.
// The summaries of the resumed run are of every draw. The samplers are the
// German credit example's SGHMC and a cyclical one (whose cycles are
// sized by the straight run's length, since a resumed run keeps its K).
// --iters counts the iterations after burn-in (20 here), and a resumed
// run's the iterations it adds.
func TestResumeFromCLI(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "logistic", "model.ppl")
	for _, sampler := range [][]string{{"--sampler", "sghmc"}, {"--sampler", "cyclical_sgld", "--set", "schedule_iterations=260", "--set", "lr=1e-4"}} {
		dir := t.TempDir()
		common := append([]string{"run", model, "--chains", "2", "--batch", "100", "--burn", "20", "--thin", "3", "--quiet"}, sampler...)
		straight, parts, stopped := filepath.Join(dir, "straight"), filepath.Join(dir, "parts"), filepath.Join(dir, "stopped")
		ck := filepath.Join(dir, "run.ckpt")
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "240", "--out", straight)...); code != 0 {
			t.Fatalf("%v straight: exit %d: %s", sampler, code, errs)
		}
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "120", "--out", parts, "--checkpoint", ck)...); code != 0 {
			t.Fatalf("%v first part: exit %d: %s", sampler, code, errs)
		}
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "120", "--out", parts, "--resume", ck)...); code != 0 {
			t.Fatalf("%v resumed: exit %d: %s", sampler, code, errs)
		}
		want := rows(t, filepath.Join(straight, runfiles.DrawsFile))
		if got := rows(t, filepath.Join(parts, runfiles.DrawsFile)); !slices.Equal(got, want) {
			t.Errorf("%v: 120 + 120 resumed: %d rows, the straight run's %d, not the same", sampler, len(got), len(want))
		}
		if len(want) < 2*60 {
			t.Fatalf("%v: the straight run kept %d rows", sampler, len(want))
		}
		var diag struct {
			Draws int `json:"draws_per_chain"`
		}
		raw, _ := os.ReadFile(filepath.Join(parts, runfiles.DiagnosticsFile))
		if err := json.Unmarshal(raw, &diag); err != nil || diag.Draws != len(want[1:])/2 {
			t.Errorf("%v: the resumed run's diagnostics count %d draws per chain (%v), want %d", sampler, diag.Draws, err, len(want[1:])/2)
		}

		// A run of a million iterations interrupted after half a second, as
		// Ctrl-C does, writes its checkpoint on the way out; resumed for 60
		// more, it makes the draws of a straight run of as many.
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		code, _, errs := runCLI(t, ctx, append(common, "--iters", "1000000", "--out", stopped, "--checkpoint", ck)...)
		cancel()
		st, err := checkpoint.Read(ck)
		if err != nil {
			t.Fatal(err)
		}
		if code != 1 || !strings.Contains(errs, "--resume "+ck) || st.Done >= 1000000 {
			t.Errorf("%v interrupted after %d iterations: exit %d, %q; want 1 and how to resume", sampler, st.Done, code, errs)
		}
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "60", "--out", stopped, "--resume", ck)...); code != 0 {
			t.Fatalf("%v resumed after %d iterations: exit %d: %s", sampler, st.Done, code, errs)
		}
		long := filepath.Join(dir, "long")
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", strconv.Itoa(st.Done+60-20), "--out", long)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", sampler, code, errs)
		}
		want = rows(t, filepath.Join(long, runfiles.DrawsFile))
		if got := rows(t, filepath.Join(stopped, runfiles.DrawsFile)); !slices.Equal(got, want) {
			t.Errorf("%v: interrupted after %d iterations and resumed: %d rows, not the straight run's %d", sampler, st.Done, len(got), len(want))
		}

		// A run killed after its checkpoint leaves draws past it, which
		// the resumed run cuts and makes again: the first part's 120
		// iterations, then a run of all 240 into the same folder without
		// a checkpoint, then the resume.
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "120", "--out", parts, "--checkpoint", ck)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "240", "--out", parts)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "120", "--out", parts, "--resume", ck)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		want = rows(t, filepath.Join(straight, runfiles.DrawsFile))
		if got := rows(t, filepath.Join(parts, runfiles.DrawsFile)); !slices.Equal(got, want) {
			t.Errorf("%v: resumed over the draws of a run past the checkpoint: %d rows, not the straight run's %d", sampler, len(got), len(want))
		}
	}
}

// TestResumeGenerated: a run with a generated block, resumed from its
// checkpoint, writes the generated columns of a straight run row for row:
// each draw's random numbers come from a stream seeded by the run's seed,
// the chain, the level and the iteration, not from a stream that runs on.
func TestResumeGenerated(t *testing.T) {
	model := filepath.Join("..", "..", "examples", "eight-schools", "model.ppl")
	dir := t.TempDir()
	// No escalation: the straight run's judgement of its 200 draws may send
	// it to a second attempt (a few divergences: adapt_delta up) that the
	// first 100 draws did not, and this test is about the resumed rows.
	common := []string{"run", model, "--chains", "2", "--quiet", "--escalate", "never"}
	straight, parts, ck := filepath.Join(dir, "straight"), filepath.Join(dir, "parts"), filepath.Join(dir, "run.ckpt")
	if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "200", "--out", straight)...); code != 0 {
		t.Fatalf("straight: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "100", "--out", parts, "--checkpoint", ck)...); code != 0 {
		t.Fatalf("first part: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, context.Background(), append(common, "--iters", "100", "--out", parts, "--resume", ck)...); code != 0 {
		t.Fatalf("resumed: exit %d: %s", code, errs)
	}
	want := rows(t, filepath.Join(straight, runfiles.DrawsFile))
	if !strings.Contains(want[0], "y_rep.8") || len(want) != 1+2*200 {
		t.Fatalf("the straight run wrote %d rows with columns %s", len(want), want[0])
	}
	if got := rows(t, filepath.Join(parts, runfiles.DrawsFile)); !slices.Equal(got, want) {
		t.Errorf("100 + 100 resumed: %d rows, not the straight run's %d", len(got), len(want))
	}
}

// TestResumeRefusedFromCLI: a checkpoint of another model or sampler, or a
// damaged one, is refused with exit 2 and a message that says so.
func TestResumeRefusedFromCLI(t *testing.T) {
	dir := t.TempDir()
	logistic := filepath.Join("..", "..", "examples", "logistic", "model.ppl")
	cosine := filepath.Join("..", "..", "examples", "cosine2d", "model.ppl")
	ck := filepath.Join(dir, "run.ckpt")
	if code, _, errs := runCLI(t, context.Background(), "run", logistic, "--sampler", "sghmc", "--chains", "2", "--iters", "20", "--quiet", "--out", dir, "--checkpoint", ck); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	raw, err := os.ReadFile(ck)
	if err != nil {
		t.Fatal(err)
	}
	damaged := write(t, dir, "damaged.ckpt", string(raw[:len(raw)/2]))
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"another model", []string{"run", cosine, "--chains", "2", "--resume", ck}, "another model or other data"},
		{"another sampler", []string{"run", logistic, "--chains", "2", "--sampler", "sgld", "--resume", ck}, "it was written by the sampler sghmc("},
		{"damaged", []string{"run", logistic, "--chains", "2", "--resume", damaged}, "not a temper checkpoint, or a damaged one"},
	} {
		code, _, errs := runCLI(t, context.Background(), append(c.args, "--iters", "10", "--quiet", "--out", filepath.Join(dir, c.name))...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", c.name, code, errs, c.want)
		}
	}
}

// TestResumeTakesCheckpointSeed: a run resumed without --seed continues
// with the seed its checkpoint was started with (the default seed would
// not match it); a different seed given is refused with what to do.
func TestResumeTakesCheckpointSeed(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl")
	ckpt, out := filepath.Join(dir, "run.ckpt"), filepath.Join(dir, "out")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"run", model, "--sampler", "sghmc", "--seed", "7", "--iters", "100", "--checkpoint", ckpt, "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"run", model, "--sampler", "sghmc", "--iters", "50", "--resume", ckpt, "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Errorf("resumed without --seed: exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"run", model, "--sampler", "sghmc", "--seed", "3", "--iters", "50", "--resume", ckpt, "--out", out, "--quiet"}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "started with seed 7, this run has seed 3: leave the seed out") {
		t.Errorf("resumed with another seed: exit %d, %s", code, stderr.String())
	}
}

// TestResumeGapRefused: resuming into a folder whose draws file stops
// before the iterations the checkpoint's run kept, or has none, would
// leave a silent gap in the draws: refused, saying where the draws stop.
func TestResumeGapRefused(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join("..", "..", "examples", "evidence", "normal_mean.ppl")
	ckpt, out := filepath.Join(dir, "run.ckpt"), filepath.Join(dir, "out")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"run", model, "--sampler", "sghmc", "--iters", "100", "--checkpoint", ckpt, "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("temper run: exit %d\n%s", code, stderr.String())
	}
	resume := func(folder string) (int, string) {
		stderr.Reset()
		code := run(context.Background(), []string{"run", model, "--sampler", "sghmc", "--iters", "50", "--resume", ckpt, "--out", folder, "--quiet"}, &stdout, &stderr)
		return code, stderr.String()
	}
	if code, msg := resume(filepath.Join(dir, "elsewhere")); code == 0 || !strings.Contains(msg, "does not exist, and the run being resumed kept draws up to its iteration 100") {
		t.Errorf("resumed into a new folder: exit %d, %s", code, msg)
	}
	raw, err := os.ReadFile(filepath.Join(out, "draws.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var cut []string
	rows := 0
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "#") && line != "" {
			if rows > 40 { // the header and 10 iterations of 4 chains
				break
			}
			rows++
		}
		cut = append(cut, line)
	}
	short := filepath.Join(dir, "short")
	if err := os.MkdirAll(short, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(short, "draws.csv"), []byte(strings.Join(cut, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, msg := resume(short); code == 0 || !strings.Contains(msg, "stops at iteration 10, and the run being resumed kept draws up to its iteration 100") {
		t.Errorf("resumed into a folder whose draws stop early: exit %d, %s", code, msg)
	}
	if code, msg := resume(out); code != 0 {
		t.Errorf("resumed into its own folder: exit %d, %s", code, msg)
	}
}
