package mnist

import "testing"

func TestPeakRSS(t *testing.T) {
	b, ok := PeakRSS()
	if ok && b < 1<<20 {
		t.Errorf("peak RSS %d bytes: a Go test binary needs more than 1 MiB", b)
	}
}
