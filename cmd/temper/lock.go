package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockName is the file a run holds in its output folder while it writes
// there, so that a second run into the same folder is refused instead of
// interleaving its files with the first's.
const lockName = ".temper.lock"

// lockOut claims the output folder dir for this process and returns the
// function that releases it. A lock left by a process that is gone (a run
// killed with SIGKILL) is taken over.
func lockOut(dir string) (func(), error) {
	path := filepath.Join(dir, lockName)
	for range 2 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("locking %s: %v", dir, err)
		}
		raw, _ := os.ReadFile(path)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(raw)))
		if perr == nil && processAlive(pid) {
			return nil, badf("temper run: %s is the output folder of a run still under way (process %d): wait for it, or give another --out", dir, pid)
		}
		os.Remove(path) // its process is gone: the lock is stale
	}
	return nil, fmt.Errorf("locking %s: another run took it meanwhile", dir)
}
