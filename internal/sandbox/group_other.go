//go:build !unix

package sandbox

import "os/exec"

// setGroup leaves cmd as it is: off Unix, cancelling kills the command
// alone (exec.CommandContext's default).
func setGroup(cmd *exec.Cmd) {}

// endGroup does nothing off Unix, where a command has no process group.
func endGroup(cmd *exec.Cmd) {}
