//go:build !unix

package main

import "os"

// processAlive reports whether a process with this id exists, as far as
// the platform says: FindProcess fails for one that does not.
func processAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}
