//go:build unix && !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

// setGroup starts cmd in a process group of its own and makes cancelling
// it kill the whole group.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// endGroup kills what is left of cmd's process group.
func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
