//go:build !unix

package main

import "os/exec"

// ownProcessGroup does nothing where there are no process groups: a
// cancelled go test is killed, and a test binary it started may outlive it.
func ownProcessGroup(*exec.Cmd) {}
