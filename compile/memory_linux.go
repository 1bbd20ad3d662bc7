package compile

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// AvailableMemory is the memory this process can still fill, in bytes:
// the kernel's MemAvailable (free memory and reclaimable cache), or less
// where the process's memory cgroup (v2's memory.max, v1's
// memory.limit_in_bytes) is smaller; 0 where it cannot be read. A
// memory-mapped file's pages count against the same limits, so data
// mapped beyond this is read from disk as a run touches it.
func AvailableMemory() int64 {
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
