//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Box is one run's sandbox. On Linux it owns a goroutine locked to an OS
// thread for the run's whole life: the command is started from that
// thread, so it inherits what was set up there, and it dies with the
// thread (Pdeathsig), which exits when the Box is closed or tapeloop's
// process dies. Its methods are not safe for concurrent use.
type Box struct {
	held  Guarantee
	calls chan func()
	ended chan struct{}
	cmds  []*exec.Cmd
	done  bool
}

// probe finds out once what this process can isolate: a new PID
// namespace for the command needs CAP_SYS_ADMIN. The probe unshares on a
// thread of its own, which it never returns to the scheduler.
var probe = sync.OnceValue(func() Status {
	s := Status{Missing: map[Guarantee]string{}}
	err := onThread(func() error { return unix.Unshare(unix.CLONE_NEWPID) })
	if err != nil {
		s.Missing[Processes] = fmt.Sprintf("no PID namespace (%v); only the command's process group ends with the run", err)
	} else {
		s.Held |= Processes
	}
	if len(s.Missing) == 0 {
		s.Missing = nil
	}
	return s
})

// onThread runs f on a new goroutine locked to its OS thread and lets
// the thread exit afterwards, whatever f changed on it.
func onThread(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		done <- f()
	}()
	return <-done
}

// Probe returns what a Box guarantees in this process.
func Probe() Status { return probe() }

// Open makes the sandbox of one run. It fails, wrapping ErrUnavailable,
// when cfg.Require asks for a guarantee Probe does not hold. Close ends
// it.
func Open(cfg *Config) (*Box, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	st := Probe()
	if err := st.check(cfg.Require); err != nil {
		return nil, err
	}
	b := &Box{held: st.Held, calls: make(chan func()), ended: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		defer close(b.ended)
		for f := range b.calls {
			f()
		}
	}()
	return b, nil
}

// do runs f on the Box's thread.
func (b *Box) do(f func()) {
	done := make(chan struct{})
	b.calls <- func() { defer close(done); f() }
	<-done
}

// Holds returns the guarantees this Box gives.
func (b *Box) Holds() Guarantee { return b.held }

// Listen returns a TCP listener on a free loopback port that a command in
// the Box can dial.
func (b *Box) Listen() (net.Listener, error) {
	var ln net.Listener
	var err error
	b.do(func() { ln, err = net.Listen("tcp", "127.0.0.1:0") })
	return ln, err
}

// Start starts cmd in the Box: in a process group of its own (cancelling
// cmd kills the group), in a new PID namespace when the Box holds
// Processes (when the command exits, every process it started is killed
// by the kernel), and killed when the Box's thread exits (Pdeathsig).
// cmd.SysProcAttr is replaced.
func (b *Box) Start(cmd *exec.Cmd) error {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if b.held&Processes != 0 {
		attr.Cloneflags |= unix.CLONE_NEWPID
	}
	cmd.SysProcAttr = attr
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var err error
	b.do(func() { err = cmd.Start() })
	if err == nil {
		b.cmds = append(b.cmds, cmd)
	}
	return err
}

// Close kills what is left of each command started in the Box (its
// process group; in a PID namespace, everything it started) and ends the
// Box's thread. Call it once the commands have been waited for; a
// second call does nothing.
func (b *Box) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	for _, cmd := range b.cmds {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	close(b.calls)
	<-b.ended
	return nil
}
