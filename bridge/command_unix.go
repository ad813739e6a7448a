//go:build unix

package bridge

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in a process group of its own and makes cancelling
// it kill the whole group, so an agent's children die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// endGroup kills what is left of cmd's process group once cmd has been
// waited for: processes the agent started and left running, which would
// otherwise go on touching the workspace after the run.
func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
