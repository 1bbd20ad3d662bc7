package main

import (
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
