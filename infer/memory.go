package infer

import (
	"errors"
	"fmt"

	"github.com/temper-ppl/temper/internal/sysmem"
)

// ErrMemory is returned, before sampling, by a run whose draws would not
// fit in the memory the process can still fill.
var ErrMemory = errors.New("not enough memory")

// fits checks that the draws this run keeps in memory (every chain's kept
// iterations, of every level with KeepAll, each a slice of lp__ and the
// outputs with the sampler's statistics beside it, and once more as the
// columns the summaries copy out) fit in avail bytes with the garbage
// collector's headroom: its default GOGC = 100 lets the heap reach twice
// what is live. Measured (GODEBUG=gctrace=1) on the eight schools at
// 4 × 400,000 draws of 35 columns: 0.97 GB live at most, 1.8 GB of heap;
// this estimate is 1.2 GB and 2.4 GB. avail 0 means unknown, and passes.
func (rc *recorder) fits(avail int64) error {
	if avail <= 0 {
		return nil
	}
	levels := 1
	if rc.res.All != nil {
		levels = rc.res.Replicas
	}
	kept := int64(rc.o.Iters / rc.o.Thin)
	perDraw := int64(16*(len(rc.res.Columns)+len(rc.res.StatColumns)) + 64) // values and stats, twice, their slice headers and size-class rounding
	need := kept * int64(len(rc.res.Draws)) * int64(levels) * perDraw
	if 2*need <= avail {
		return nil
	}
	what := fmt.Sprintf("%d chains × %d draws × %d columns", len(rc.res.Draws), kept, len(rc.res.Columns))
	if levels > 1 {
		what = fmt.Sprintf("%d chains × %d levels × %d draws × %d columns", len(rc.res.Draws), levels, kept, len(rc.res.Columns))
	}
	advice := fmt.Sprintf("keep fewer draws (fewer iters, or thin = %d) or fewer chains, or raise the limit", int(2*need/avail)+1)
	if limit, held := sysmem.AddressSpace(); limit > 0 && (avail < 64<<20 || 2*need/avail > 100) {
		advice = fmt.Sprintf("ulimit -v allows %s of address space, and the process holds %s of it before its draws (the Go runtime reserves address space well beyond what it fills): raise the limit to at least %s, or lift it",
			bytesString(limit), bytesString(held), bytesString(held+2*need+512<<20))
	}
	return fmt.Errorf("%w: this run keeps its draws in memory, %s, about %s (%s with the garbage collector's headroom), and %s is available "+
		"(the least of free memory, the cgroup's limit and ulimit -v's room): %s",
		ErrMemory, what, bytesString(need), bytesString(2*need), bytesString(avail), advice)
}

// bytesString writes a size in MB or GB.
func bytesString(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.0f MB", float64(n)/1e6)
}
