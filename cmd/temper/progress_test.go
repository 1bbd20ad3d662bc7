package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/temper-ppl/temper"
)

// TestProgressLabel: the bar's description carries the run's notes.
func TestProgressLabel(t *testing.T) {
	for _, c := range []struct {
		p    temper.Progress
		want string
	}{
		{temper.Progress{Done: 5, Total: 10, Replicas: 1, Chains: 4}, "sampling"},
		{temper.Progress{Replicas: 8, SwapRate: 0.38, RoundTrips: 12, Chains: 4}, "sampling (swap 0.38, 12 round trips)"},
		{temper.Progress{Cycles: 4, Cycle: 3, Chains: 4, Failed: 1}, "sampling (cycle 4/4 sampling; 1 of 4 chains stopped)"},
	} {
		if got := progressLabel(c.p); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}

// TestProgressLines: where stderr is not a terminal, progress is a line
// every TEMPER_PROGRESS_SECONDS with the count, the share done, the rate
// and the time left; nothing within the first interval, and nothing at
// all with --quiet.
func TestProgressLines(t *testing.T) {
	t.Setenv("TEMPER_PROGRESS_SECONDS", "0.05")
	var log strings.Builder
	p := newProgress(&log, false)
	p.update(temper.Progress{Done: 1, Total: 100})
	if log.Len() != 0 {
		t.Errorf("a line before the interval: %q", log.String())
	}
	time.Sleep(60 * time.Millisecond)
	p.update(temper.Progress{Done: 40, Total: 100})
	if got := log.String(); !strings.HasPrefix(got, "sampling: 40 of 100 (40%), ") || !strings.Contains(got, "/s, about ") || !strings.HasSuffix(got, " left\n") {
		t.Errorf("the line: %q", got)
	}
	var quiet strings.Builder
	q := newProgress(&quiet, true)
	time.Sleep(60 * time.Millisecond)
	q.update(temper.Progress{Done: 40, Total: 100})
	if quiet.Len() != 0 {
		t.Errorf("--quiet wrote %q", quiet.String())
	}
}

// TestProgressStage: a long step after sampling is a line of its own at
// once, in a log (no interval to wait for) and not with --quiet; and a run
// that kept 2,000,000 values or more announces its judgement and its
// files through Options.Progress, a smaller one neither.
func TestProgressStage(t *testing.T) {
	var log strings.Builder
	newProgress(&log, false).update(temper.Progress{Stage: "judging the draws"})
	if got := log.String(); got != "judging the draws …\n" {
		t.Errorf("the stage line: %q", got)
	}
	var quiet strings.Builder
	newProgress(&quiet, true).update(temper.Progress{Stage: "judging the draws"})
	if quiet.Len() != 0 {
		t.Errorf("--quiet wrote %q", quiet.String())
	}
	m, err := temper.Compile("s.ppl", "param { x: real[99] }\nmodel { x ~ normal(0, 1) }\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		iters  int
		stages int
	}{{5000, 2}, {4000, 0}} { // 4 chains × 5,000 × 100 columns = 2,000,000
		var stages []string
		res, err := m.Sample(context.Background(), temper.Options{Sampler: "sgld", Iters: c.iters, Seed: 1, Progress: func(p temper.Progress) {
			if p.Stage != "" {
				stages = append(stages, p.Stage)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.SaveSummaries(t.TempDir()); err != nil {
			t.Fatal(err)
		}
		if len(stages) != c.stages {
			t.Errorf("%d iterations: stages %q, want %d", c.iters, stages, c.stages)
		}
	}
}
