//go:build !unix

package bridge

import "os/exec"

// killGroup leaves cmd as it is: off Unix, cancelling kills the command
// alone (exec.CommandContext's default).
func killGroup(cmd *exec.Cmd) {}

// endGroup does nothing off Unix, where a command has no process group of
// its own.
func endGroup(cmd *exec.Cmd) {}
