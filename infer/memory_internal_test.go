package infer

import (
	"errors"
	"strings"
	"testing"
)

// TestRecorderFits: a run's kept draws are 16 bytes a value (the draws and
// the summaries' column copies) and 64 a draw, twice over for the
// collector's headroom; 4 chains × 1,000 draws × 10 columns need 1.79 MB,
// so 2 MB passes and 1 MB is refused with a thinning that would fit, and
// keeping 8 levels needs 8 times as much.
func TestRecorderFits(t *testing.T) {
	rc := &recorder{o: Options{Iters: 1000, Thin: 1}, res: &Result{Columns: make([]string, 10), Draws: make([][][]float64, 4), Replicas: 8}}
	if err := rc.fits(2e6); err != nil {
		t.Errorf("1.79 MB refused in 2 MB: %v", err)
	}
	if err := rc.fits(0); err != nil {
		t.Errorf("unknown memory refused: %v", err)
	}
	err := rc.fits(1e6)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "thin = 2") || !strings.Contains(err.Error(), "4 chains × 1000 draws × 10 columns") {
		t.Errorf("1.79 MB in 1 MB: %v", err)
	}
	rc.res.All = make([][][][]float64, 4)
	if err := rc.fits(2e6); !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "8 levels") {
		t.Errorf("8 levels kept in 2 MB: %v", err)
	}
	if err := rc.fits(15e6); err != nil {
		t.Errorf("8 levels' 14.3 MB refused in 15 MB: %v", err)
	}
}
