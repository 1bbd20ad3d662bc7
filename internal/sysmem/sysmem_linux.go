// Package sysmem says how much memory this process can still fill, so that
// a run that would not fit fails with a sentence before it allocates,
// rather than in the Go runtime's fatal error.
package sysmem

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Available is the memory this process can still fill, in bytes: the
// kernel's MemAvailable (free memory and reclaimable cache), or less where
// the process's memory cgroup (v2's memory.max, v1's
// memory.limit_in_bytes) is smaller, or where its address-space limit
// (ulimit -v) leaves less above the address space it holds now; 0 where
// none can be read. A memory-mapped file's pages count against the same
// limits, so data mapped beyond this is read from disk as a run touches
// it.
func Available() int64 {
	avail := int64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				avail = kb << 10
			}
		}
		f.Close()
	}
	if left := addressSpaceLeft(); left > 0 && (avail == 0 || left < avail) {
		avail = left
	}
	raw, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return avail
	}
	for _, line := range strings.Split(string(raw), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			file = filepath.Join("/sys/fs/cgroup", parts[2], "memory.max")
		case strings.Contains(","+parts[1]+",", ",memory,"):
			file = filepath.Join("/sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes")
		default:
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		limit, err := strconv.ParseInt(strings.TrimSpace(string(text)), 10, 64)
		if err == nil && limit > 0 && (avail == 0 || limit < avail) {
			avail = limit
		}
	}
	return avail
}

// addressSpaceLeft is RLIMIT_AS less the process's virtual size (VmSize)
// and a reserve, at least 1 byte where a limit is set; 0 without a limit.
// The Go runtime reserves address space as its heap grows, about byte for
// byte, so what is left here bounds the heap a run can still add; the
// reserve is what a run's threads (8 MB of stack each) and the runtime's
// own reservations take beyond the heap: measured on a NUTS run of the
// eight schools, which holds 1.6-1.9 GB of address space and failed at
// ulimit -v 1.8 GB in pthread_create, and at 2.0 GB now and then in the
// runtime's fatal out-of-memory error, with 100-270 MB left here
// without the reserve.
func addressSpaceLeft() int64 {
	const reserve = 256 << 20
	limit, held := AddressSpace()
	if limit == 0 || held == 0 {
		return 0
	}
	return max(1, limit-held-reserve)
}

// AddressSpace is the address-space limit (ulimit -v, RLIMIT_AS) and the
// address space the process holds now (VmSize), in bytes; limit 0 where
// none is set, held 0 where it cannot be read.
func AddressSpace() (limit, held int64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur > 1<<62 {
		return 0, 0
	}
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return int64(lim.Cur), 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return int64(lim.Cur), kb << 10
		}
	}
	return int64(lim.Cur), 0
}
