//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Box is one run's sandbox. On Linux it owns a goroutine locked to an OS
// thread for the run's whole life: the thread is moved into the run's
// network namespace, the bridge's listener is made there, and the command
// is started from it, so the command inherits the namespace and dies with
// the thread (Pdeathsig), which exits when the Box ends or tapeloop's
// process dies. Without the privilege to make namespaces, the command is
// started from the thread as a stage (stage_linux.go), which makes them
// in a user namespace of its own. Its methods are not safe for concurrent
// use.
type Box struct {
	cfg   Config
	root  string // the directory the Box's root is mounted on, "" for none
	held  Guarantee
	calls chan func()
	ended chan struct{}
	cmds  []*exec.Cmd
	net   *netWatch
	files *writeWatch
	reap  *reaper // without Processes: what the commands leave is reaped
	// userNS makes each command's PID namespace in a user namespace of
	// its own, for want of the privilege to make one directly.
	userNS bool
	// stage makes the network and mount namespaces of the Box in a stage
	// (stage_linux.go), started by Start, rather than on the Box's thread;
	// staged is the listener Listen returned, which the stage makes.
	stage  bool
	staged *stagedListener
	ran    bool // a stage started a command
	done   bool
}

// probe finds out once what this process can isolate: a new PID
// namespace for the command and a network and a mount namespace for the
// run all need CAP_SYS_ADMIN (probeUnprivileged says what holds without
// it). Each probe unshares on a thread of its own, which it never returns
// to the scheduler.
var probe = sync.OnceValue(func() Status {
	if err := onThread(func() error { return unix.Unshare(unix.CLONE_NEWPID) }); err != nil {
		return probeUnprivileged(err)
	}
	s := Status{Held: Processes, Missing: map[Guarantee]string{}}
	if err := onThread(func() error {
		w, err := isolateNetwork()
		if err == nil {
			w.close()
		}
		return err
	}); err != nil {
		s.Missing[Network] = fmt.Sprintf("no network namespace (%v: it needs root or CAP_SYS_ADMIN); the command can reach the network", err)
	} else {
		s.Held |= Network
	}
	root, err := os.MkdirTemp("", "tapeloop-root-")
	if err == nil {
		err = onThread(func() error {
			dir, err := os.MkdirTemp("", "tapeloop-probe-")
			if err != nil {
				return err
			}
			defer os.Remove(dir)
			return fixedPaths(root, dir, dir)
		})
		os.Remove(root)
	}
	s.mounts(err, "it needs root or CAP_SYS_ADMIN")
	return s.done()
})

// probeUnprivileged finds out what a Box guarantees without the privilege
// to make namespaces (pidErr is why unshare(CLONE_NEWPID) failed): every
// guarantee, where the kernel allows an unprivileged user namespace. The
// command's PID namespace is made in one of its own (inUserNS); its
// network and mount namespaces by a stage (stage_linux.go), tapeloop run
// again in such a user namespace.
func probeUnprivileged(pidErr error) Status {
	s := Status{Missing: map[Guarantee]string{}}
	if uerr := probeUserNS(); uerr != nil {
		s.Missing[Processes] = fmt.Sprintf("no PID namespace (%v: it needs root or CAP_SYS_ADMIN, or an unprivileged user namespace: %v); tapeloop is a child subreaper instead, which ends what the command leaves with the run, but not after a kill -9 of tapeloop", pidErr, uerr)
		s.Missing[Network] = fmt.Sprintf("no network namespace (it needs root or CAP_SYS_ADMIN, or an unprivileged user namespace: %v); the command can reach the network", uerr)
		s.mounts(fmt.Errorf("no unprivileged user namespace: %w", uerr), "it needs root or CAP_SYS_ADMIN")
		return s.done()
	}
	s.Held |= Processes
	s.userNS = true
	netErr, mountErr := probeStage()
	if netErr != nil {
		s.Missing[Network] = fmt.Sprintf("no network namespace in an unprivileged user namespace (%v); the command can reach the network", netErr)
	} else {
		s.Held |= Network
	}
	s.mounts(mountErr, "in an unprivileged user namespace")
	s.stage = s.Held&(Network|Workspace) != 0
	return s.done()
}

// mounts notes whether s holds Workspace and Files: err is why no mount
// namespace with the fixed paths could be made (nil when one could), and
// hint says what that needs.
func (s *Status) mounts(err error, hint string) {
	if err != nil {
		s.Missing[Workspace] = fmt.Sprintf("no mount namespace (%v: %s); the workspace is a new directory on every run", err, hint)
		s.Missing[Files] = "no mount namespace to restrict writes in; the command can write outside its workspace"
		return
	}
	s.Held |= Workspace
	if landlockABI() < 1 {
		s.Missing[Files] = "the kernel has no Landlock (or it is off); the command can write outside its workspace"
	} else {
		s.Held |= Files
	}
}

// done returns s, its Missing nil when nothing is.
func (s Status) done() Status {
	if len(s.Missing) == 0 {
		s.Missing = nil
	}
	return s
}

// inUserNS makes the process attr starts begin in a user namespace of
// its own, where the user and group are mapped to themselves (the command
// sees the same ids, and files of other users as owned by nobody): an
// unprivileged process may make one, and in it the PID namespace of
// attr's Cloneflags.
func inUserNS(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= unix.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// probeUserNS reports whether a command can start in a user and PID
// namespace of its own (inUserNS): it starts a program that does not
// exist, so the namespaces are made and the exec fails, ENOENT, unless
// making them failed first (EPERM, or ENOSPC where the kernel allows
// none).
func probeUserNS() error {
	attr := &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWPID}
	inUserNS(attr)
	cmd := exec.Command("/nonexistent/tapeloop-userns-probe")
	cmd.SysProcAttr = attr
	err := cmd.Start()
	if err == nil { // something is there after all
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

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
// when cfg.Require asks for a guarantee Probe does not hold. End ends it.
func Open(cfg *Config) (*Box, error) { return open(cfg, Probe()) }

// open is Open where st is what the sandbox holds.
func open(cfg *Config, st Status) (*Box, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if err := st.check(cfg.Require); err != nil {
		return nil, err
	}
	if lack := cfg.Require & cfg.Without; lack != 0 {
		return nil, fmt.Errorf("%w: %s: left out by the caller", ErrUnavailable, lack)
	}
	held := st.Held &^ cfg.Without
	if cfg.Workspace == "" || cfg.Home == "" {
		held &^= Workspace | Files
	}
	if lack := cfg.Require &^ held; lack != 0 {
		return nil, fmt.Errorf("%w: %s: the run gives no workspace and home directories", ErrUnavailable, lack)
	}
	b := &Box{cfg: *cfg, held: held, userNS: st.userNS, calls: make(chan func()), ended: make(chan struct{})}
	b.stage = st.stage && held&(Network|Workspace|Files) != 0
	if held&Processes == 0 {
		b.reap = newReaper()
	}
	if held&Workspace != 0 {
		root, err := os.MkdirTemp("", "tapeloop-root-")
		if err != nil {
			return nil, err
		}
		b.root = root
	}
	ready := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		defer close(b.ended)
		if !b.stage {
			w, filter, err := isolate(b.held, b.root, cfg.Workspace, cfg.Home)
			b.net = w
			if err == nil && filter >= 0 {
				b.files, err = watchWrites(filter, b.root, WorkDir, HomeDir)
			}
			if err != nil {
				ready <- err
				return
			}
		}
		ready <- nil
		for f := range b.calls {
			f()
		}
	}()
	if err := <-ready; err != nil {
		if b.net != nil {
			b.net.close()
		}
		<-b.ended
		if b.files != nil {
			b.files.close()
		}
		b.removeRoot()
		return nil, err
	}
	return b, nil
}

// isolate moves the calling thread (locked, never returned to the
// scheduler) into the isolation of held, which what it starts inherits:
// with Network a network namespace of its own, with Workspace the fixed
// root (work and home bound at WorkDir and HomeDir on root), with Files
// Landlock and the filter that watches writes. It returns the network's
// watch (nil without Network; also on an error, to be closed) and the
// filter's listener (-1 without Files). The Box's thread calls it where
// tapeloop may make namespaces, a stage (runStage) where it may not: the
// same isolation either way.
func isolate(held Guarantee, root, work, home string) (w *netWatch, filter int, err error) {
	if held&Network != 0 {
		if w, err = isolateNetwork(); err != nil {
			return nil, -1, fmt.Errorf("isolating the network: %w", err)
		}
	}
	if held&Workspace != 0 {
		if err := fixedPaths(root, work, home); err != nil {
			return w, -1, fmt.Errorf("fixing the workspace's path: %w", err)
		}
	}
	if held&Files == 0 {
		return w, -1, nil
	}
	if err := refuseWrites(WorkDir, HomeDir); err != nil {
		return w, -1, fmt.Errorf("restricting writes: %w", err)
	}
	if filter, err = installWriteFilter(); err != nil {
		return w, -1, fmt.Errorf("watching refused writes: %w", err)
	}
	return w, filter, nil
}

// do runs f on the Box's thread.
func (b *Box) do(f func()) {
	done := make(chan struct{})
	b.calls <- func() { defer close(done); f() }
	<-done
}

// Dir is the path the command sees its workspace at: WorkDir with
// Workspace, else Config.Workspace.
func (b *Box) Dir() string {
	if b.held&Workspace != 0 {
		return WorkDir
	}
	return b.cfg.Workspace
}

// Home is the path the command sees its scratch home at: HomeDir with
// Workspace, else Config.Home.
func (b *Box) Home() string {
	if b.held&Workspace != 0 {
		return HomeDir
	}
	return b.cfg.Home
}

// removeRoot removes the (empty) directory the Box's root was mounted on,
// once the Box's thread, and with it the mount namespace, is gone.
func (b *Box) removeRoot() {
	if b.root != "" {
		_ = os.Remove(b.root)
	}
}

// Holds returns the guarantees this Box gives.
func (b *Box) Holds() Guarantee { return b.held }

// Listen returns a TCP listener on 127.0.0.1 that a command in the Box
// can dial: with Network, on the loopback of the Box's namespace, the one
// address there that is not an attempt (a Box has one listener). Its port
// is a free one; where the Box's namespace is made by a stage, it is
// StagePort, and the listener accepts once Start has started the command.
func (b *Box) Listen() (net.Listener, error) {
	if b.stage && b.held&Network != 0 {
		if b.staged != nil {
			return nil, errors.New("a Box has one listener")
		}
		b.staged = newStagedListener()
		return b.staged, nil
	}
	var ln net.Listener
	var err error
	b.do(func() { ln, err = listenOn(b.net, "127.0.0.1:0") })
	return ln, err
}

// listenOn makes a TCP listener at addr in the calling thread's network
// namespace; with w (the watch of a Box with Network), its traffic is left
// out of w's attempts.
func listenOn(w *netWatch, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil && w != nil {
		if err = w.skip(uint16(ln.Addr().(*net.TCPAddr).Port)); err != nil {
			ln.Close()
			return nil, fmt.Errorf("filtering the listener's traffic: %w", err)
		}
	}
	return ln, err
}

// Start starts cmd in the Box: in a process group of its own (cancelling
// cmd kills the group), in the Box's network namespace with Network, in a
// new PID namespace with Processes (when the command exits, every process
// it started is killed by the kernel), and killed when the Box's thread
// exits (Pdeathsig). Without Processes, tapeloop is a child subreaper
// until End, which kills and reaps what the command left running, setsid
// or not, and cmd.Env gains a variable that marks its processes as the
// Box's (TAPELOOP_SANDBOX_RUN). cmd.SysProcAttr is replaced. Where the
// Box's namespaces are made by a stage (without the privilege to make
// them), cmd starts as the stage, in a user namespace of its own, which
// then becomes the command (the same process); such a Box starts one
// command.
func (b *Box) Start(cmd *exec.Cmd) error {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if b.held&Processes != 0 {
		attr.Cloneflags |= unix.CLONE_NEWPID
	}
	if b.stage || b.held&Processes != 0 && b.userNS {
		inUserNS(attr)
	}
	cmd.SysProcAttr = attr
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if b.reap != nil {
		if err := b.reap.hold(); err != nil {
			return err
		}
		cmd.Env = b.reap.environ(cmd.Env)
	}
	var err error
	if b.stage {
		err = b.startStage(cmd)
	} else {
		b.do(func() { err = cmd.Start() })
	}
	if err == nil {
		b.cmds = append(b.cmds, cmd)
		if b.reap != nil {
			b.reap.groups[cmd.Process.Pid] = true
		}
	}
	return err
}

// End kills what is left of each command started in the Box (its
// process group; in a PID namespace, everything it started; without one,
// everything it started that tapeloop can tell, listed in Report.Left),
// ends the Box's thread and returns what the commands attempted. Call it
// once the commands have been waited for; a second call returns an empty
// Report.
func (b *Box) End() Report {
	if b.done {
		return Report{}
	}
	b.done = true
	var r Report
	if b.reap != nil {
		// Before the groups are killed, so that what they held is listed
		// running, as it was.
		r.Left = b.reap.reap()
	}
	for _, cmd := range b.cmds {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if b.net != nil {
		r.Network = b.net.close()
	}
	close(b.calls)
	<-b.ended
	// Every call the commands made was answered before they exited.
	if b.files != nil {
		r.Files = b.files.close()
	}
	b.removeRoot()
	return r
}
