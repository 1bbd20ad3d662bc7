//go:build cuda

package autodiff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// profile is DeviceProfile's record: time and launches per step name.
var profile struct {
	on    bool
	mu    sync.Mutex
	total map[string]time.Duration
	count map[string]int
}

// timed runs step s between two synchronisations of the device and adds
// its time to the profile, under the step's kernel or product.
func (p *cudaProgram) timed(s step) error {
	if err := p.dev.Sync(); err != nil {
		return err
	}
	start := time.Now()
	if err := s.run(p.dev); err != nil {
		return err
	}
	if err := p.dev.Sync(); err != nil {
		return err
	}
	var name string
	switch s := s.(type) {
	case *kernelStep:
		name = s.name
	case *gemmStep:
		name = fmt.Sprintf("gemm %d×%d×%d ×%d", s.m, s.n, s.k, s.batch)
	case *zeroStep:
		name = "zero"
	default:
		name = fmt.Sprintf("%T", s)
	}
	profile.mu.Lock()
	defer profile.mu.Unlock()
	if profile.total == nil {
		profile.total, profile.count = map[string]time.Duration{}, map[string]int{}
	}
	profile.total[name] += time.Since(start)
	profile.count[name]++
	return nil
}

// profileReport lists the steps by total time, largest first.
func profileReport() string {
	profile.mu.Lock()
	defer profile.mu.Unlock()
	names := make([]string, 0, len(profile.total))
	var sum time.Duration
	for n, d := range profile.total {
		names = append(names, n)
		sum += d
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(profile.total[b], profile.total[a]) })
	var out strings.Builder
	fmt.Fprintf(&out, "device steps, %v in all (each between two synchronisations):\n", sum.Round(time.Millisecond))
	for _, n := range names {
		d := profile.total[n]
		fmt.Fprintf(&out, "%6.1f%%  %10v  %8d × %-8v  %s\n", 100*float64(d)/float64(sum), d.Round(time.Microsecond), profile.count[n],
			(d / time.Duration(profile.count[n])).Round(100*time.Nanosecond), n)
	}
	return out.String()
}
