//go:build !unix

package mcp

import "os/exec"

// ownGroup does nothing where there are no process groups: the server is
// stopped through its own process only.
func ownGroup(*exec.Cmd) {}

func killGroup(int) {}
