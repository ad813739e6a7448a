//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The stage. Without the privilege to make namespaces, tapeloop cannot
// move a thread of its own into a network or mount namespace: only a user
// namespace gives that privilege, and a process with more than one thread
// (every Go program) cannot enter one. A command's process can: it is
// started in a user namespace of its own (and a PID namespace, with
// Processes). So Start starts the command as a stage: tapeloop's own
// program run again (/proc/self/exe), which init catches before main. On
// its main thread the stage makes the same isolation the Box's thread
// makes with the privilege (isolate) and the bridge's listener on the new
// loopback (listenOn), hands the listener, the packet socket that watches
// the loopback and the write filter's listener to tapeloop over a Unix
// socket (SCM_RIGHTS), and then becomes the command (execve), with the
// stdio, environment and pid exec.Cmd gave it. tapeloop serves the bridge
// on the listener from outside the namespace: a socket belongs to the
// namespace it was made in, whoever holds it.

// StagePort is the port of the bridge's listener where a stage makes the
// Box's network namespace: Listen must give the address before the
// namespace exists, and nothing else listens there.
const StagePort = 7357

// stageArg0 is the stage's argv[0]; its argv[1] is the number of the file
// descriptor of its Unix socket to tapeloop.
const stageArg0 = "tapeloop-sandbox-stage"

// stageCaps are the capabilities a stage keeps (ambient) over its execve
// into tapeloop's program, in its user namespace: a process whose user is
// not root there loses them all at an execve otherwise. It makes the
// namespaces with them (CAP_SYS_ADMIN), brings the loopback up and routes
// it (CAP_NET_ADMIN), opens the packet socket (CAP_NET_RAW) and changes
// its root (CAP_SYS_CHROOT); it drops them before it becomes the command.
var stageCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_NET_RAW, unix.CAP_SYS_CHROOT}

// The most a message to a stage (its config, with the command's
// arguments) and one from it (a reply) hold.
const (
	stageConfigMax = 1 << 18
	stageReplyMax  = 16 << 10
)

func init() {
	if len(os.Args) == 2 && os.Args[0] == stageArg0 {
		os.Exit(runStage(os.Args[1]))
	}
}

// stageConfig is what tapeloop sends a stage.
type stageConfig struct {
	// Probe asks only whether the namespaces can be made (stageReply's
	// Network and Mount), with Workspace as workspace and home.
	Probe bool `json:"probe,omitempty"`
	// Held are the guarantees to isolate (Network, Workspace, Files).
	Held Guarantee `json:"held"`
	// Root, Workspace and Home are isolate's root, work and home.
	Root      string `json:"root"`
	Workspace string `json:"workspace"`
	Home      string `json:"home"`
	// Path, Args and Dir are the command's, as exec.Cmd has them.
	Path string   `json:"path"`
	Args []string `json:"args"`
	Dir  string   `json:"dir,omitempty"`
}

// stageReply is what a stage answers: after the config, one reply with
// the descriptors (the listener and the packet socket with Network, then
// the write filter's listener with Files) or Err; then nothing (the
// socket closes as the command starts) or the Op, Path and Errno of the
// call that failed to start it, as os/exec names them.
type stageReply struct {
	Err     string `json:"err,omitempty"`
	Network string `json:"network,omitempty"`
	Mount   string `json:"mount,omitempty"`
	Op      string `json:"op,omitempty"`
	Path    string `json:"path,omitempty"`
	Errno   int    `json:"errno,omitempty"`
}

// runStage is the stage, on the main thread of tapeloop's program run
// again; fdArg names its socket to tapeloop. It returns only when it
// fails, with the exit code.
func runStage(fdArg string) int {
	fd, err := strconv.Atoi(fdArg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tapeloop: the sandbox's stage: no socket: %q\n", fdArg)
		return 127
	}
	unix.CloseOnExec(fd)
	// Locked for good: the thread is isolated, then becomes the command.
	runtime.LockOSThread()
	var cfg stageConfig
	if _, err := recvMsg(fd, &cfg, stageConfigMax); err != nil {
		fmt.Fprintf(os.Stderr, "tapeloop: the sandbox's stage: %v\n", err)
		return 127
	}
	if cfg.Probe {
		var r stageReply
		if w, err := isolateNetwork(); err != nil {
			r.Network = err.Error()
		} else {
			w.close()
		}
		if err := fixedPaths(cfg.Root, cfg.Workspace, cfg.Workspace); err != nil {
			r.Mount = err.Error()
		}
		_ = sendMsg(fd, r)
		return 0
	}
	fail := func(err error) int {
		_ = sendMsg(fd, stageReply{Err: err.Error()})
		return 127
	}
	w, filter, err := isolate(cfg.Held, cfg.Root, cfg.Workspace, cfg.Home)
	if err != nil {
		return fail(err)
	}
	var fds []int
	var ln net.Listener
	if w != nil {
		if ln, err = listenOn(w, net.JoinHostPort("127.0.0.1", strconv.Itoa(StagePort))); err != nil {
			return fail(err)
		}
		raw, err := ln.(*net.TCPListener).SyscallConn()
		if err == nil {
			err = raw.Control(func(l uintptr) { fds = append(fds, int(l)) })
		}
		if err != nil {
			return fail(err)
		}
		fds = append(fds, w.fd)
	}
	if filter >= 0 {
		fds = append(fds, filter)
	}
	if err := sendMsg(fd, stageReply{}, fds...); err != nil {
		return 127
	}
	runtime.KeepAlive(ln) // its finalizer would close it before it was sent
	// Every descriptor above is close-on-exec: the command holds none.
	failed := func(op, path string, err error) int {
		var errno unix.Errno
		errors.As(err, &errno)
		_ = sendMsg(fd, stageReply{Op: op, Path: path, Errno: int(errno)})
		return 127
	}
	if cfg.Dir != "" {
		if err := unix.Chdir(cfg.Dir); err != nil {
			return failed("chdir", cfg.Dir, err)
		}
	}
	// The command starts with no capability, as it would without a stage.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return failed("fork/exec", cfg.Path, err)
	}
	return failed("fork/exec", cfg.Path, unix.Exec(cfg.Path, cfg.Args, os.Environ()))
}

// startStage starts cmd as a stage with cfg (its Path, Args and Dir taken
// from cmd), from start, and returns tapeloop's end of the stage's socket.
// cmd is as it was after, but for what Start did to it.
func startStage(cmd *exec.Cmd, start func(func()), cfg stageConfig) (int, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("a socket to the sandbox's stage: %w", err)
	}
	theirs := os.NewFile(uintptr(pair[1]), "stage")
	defer theirs.Close()
	cfg.Path, cfg.Args, cfg.Dir = cmd.Path, cmd.Args, cmd.Dir
	path, args, dir, extra := cmd.Path, cmd.Args, cmd.Dir, cmd.ExtraFiles
	cmd.SysProcAttr.AmbientCaps = stageCaps
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{stageArg0, strconv.Itoa(3 + len(extra))}
	cmd.Dir = ""
	cmd.ExtraFiles = append(extra[:len(extra):len(extra)], theirs)
	start(func() { err = cmd.Start() })
	cmd.Path, cmd.Args, cmd.Dir, cmd.ExtraFiles = path, args, dir, extra
	if err != nil {
		unix.Close(pair[0])
		return -1, err
	}
	if err := sendMsg(pair[0], cfg); err != nil {
		unix.Close(pair[0])
		return -1, fmt.Errorf("configuring the sandbox's stage: %w", err)
	}
	return pair[0], nil
}

// startStage starts cmd in the Box through a stage (cmd.SysProcAttr set
// for it), which makes the Box's namespaces and becomes cmd. The Box
// then holds the stage's network watch, write filter and listener.
func (b *Box) startStage(cmd *exec.Cmd) error {
	if cmd.Err != nil {
		return cmd.Start() // it fails as cmd would have
	}
	if b.ran {
		return errors.New("a Box whose namespaces a stage makes starts one command")
	}
	b.ran = true
	cfg := stageConfig{Held: b.held & (Network | Workspace | Files), Root: b.root, Workspace: b.cfg.Workspace, Home: b.cfg.Home}
	sock, err := startStage(cmd, b.do, cfg)
	if err != nil {
		return err
	}
	defer unix.Close(sock)
	failed := func(err error) error {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return fmt.Errorf("the sandbox's stage: %w", err)
	}
	var r stageReply
	fds, err := recvMsg(sock, &r, stageReplyMax)
	if err == io.EOF {
		err = errors.New("it ended before it answered")
	}
	if err == nil && r.Err != "" {
		err = errors.New(r.Err)
	}
	want := 0
	if cfg.Held&Network != 0 {
		want += 2
	}
	if cfg.Held&Files != 0 {
		want++
	}
	if err == nil && len(fds) != want {
		err = fmt.Errorf("it handed over %d file descriptors, not %d", len(fds), want)
	}
	if err != nil {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return failed(err)
	}
	if cfg.Held&Network != 0 {
		f := os.NewFile(uintptr(fds[0]), "listener")
		ln, err := net.FileListener(f)
		f.Close()
		b.net = newNetWatch(fds[1])
		if err != nil {
			if len(fds) > 2 {
				unix.Close(fds[2])
			}
			return failed(fmt.Errorf("its listener: %w", err))
		}
		if b.staged != nil {
			b.staged.set(ln)
		} else {
			ln.Close()
		}
		fds = fds[2:]
	}
	if cfg.Held&Files != 0 {
		if b.files, err = watchWrites(fds[0], b.root, WorkDir, HomeDir); err != nil {
			return failed(err)
		}
	}
	// The socket closes as the stage becomes the command; else it says
	// why it could not.
	switch _, err := recvMsg(sock, &r, stageReplyMax); {
	case err == io.EOF:
		return nil
	case err != nil:
		return failed(err)
	}
	_ = cmd.Wait()
	return &os.PathError{Op: r.Op, Path: r.Path, Err: syscall.Errno(r.Errno)}
}

// probeStage reports whether a stage can make a network namespace and the
// mount namespace of the fixed paths (nil each when it can).
func probeStage() (netErr, mountErr error) {
	root, err := os.MkdirTemp("", "tapeloop-root-")
	if err != nil {
		return err, err
	}
	defer os.Remove(root)
	dir, err := os.MkdirTemp("", "tapeloop-probe-")
	if err != nil {
		return err, err
	}
	defer os.Remove(dir)
	attr := &syscall.SysProcAttr{}
	inUserNS(attr)
	cmd := exec.Command("/proc/self/exe")
	cmd.SysProcAttr = attr
	sock, err := startStage(cmd, func(f func()) { f() }, stageConfig{Probe: true, Root: root, Workspace: dir})
	if err != nil {
		return err, err
	}
	defer unix.Close(sock)
	var r stageReply
	_, err = recvMsg(sock, &r, stageReplyMax)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		err = fmt.Errorf("the sandbox's stage: %w", err)
		return err, err
	}
	if r.Network != "" {
		netErr = errors.New(r.Network)
	}
	if r.Mount != "" {
		mountErr = errors.New(r.Mount)
	}
	return netErr, mountErr
}

// sendMsg sends v as one JSON message over the socket fd, with the file
// descriptors fds.
func sendMsg(fd int, v any, fds ...int) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	return unix.Sendmsg(fd, b, oob, nil, 0)
}

// recvMsg receives one JSON message of at most max bytes from the socket
// fd into v, and the file descriptors it carries, close-on-exec; io.EOF
// when the other end is closed.
func recvMsg(fd int, v any, max int) ([]int, error) {
	buf := make([]byte, max)
	oob := make([]byte, unix.CmsgSpace(4*4))
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	var fds []int
	if oobn > 0 {
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			got, err := unix.ParseUnixRights(&m)
			if err == nil {
				fds = append(fds, got...)
			}
		}
	}
	closeAll := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	switch {
	case flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0:
		closeAll()
		return nil, errors.New("a message too long")
	case n == 0 && oobn == 0:
		return nil, io.EOF
	}
	if err := json.Unmarshal(buf[:n], v); err != nil {
		closeAll()
		return nil, err
	}
	return fds, nil
}

// stagedListener is the listener Listen returns where a stage makes the
// Box's network namespace: its Accept waits until Start hands it the
// stage's listener (set), or it is closed.
type stagedListener struct {
	mu     sync.Mutex
	ln     net.Listener
	closed bool
	ready  chan struct{} // closed by set or Close
}

func newStagedListener() *stagedListener {
	return &stagedListener{ready: make(chan struct{})}
}

// set gives l the stage's listener, ln, which l then owns.
func (l *stagedListener) set(ln net.Listener) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.ln != nil {
		ln.Close()
		return
	}
	l.ln = ln
	close(l.ready)
}

// Accept waits for the stage's listener, then accepts on it.
func (l *stagedListener) Accept() (net.Conn, error) {
	<-l.ready
	l.mu.Lock()
	ln := l.ln
	l.mu.Unlock()
	if ln == nil {
		return nil, net.ErrClosed
	}
	return ln.Accept()
}

// Close closes the stage's listener, or makes Accept fail if none came.
func (l *stagedListener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return net.ErrClosed
	}
	l.closed = true
	if l.ln != nil {
		return l.ln.Close()
	}
	close(l.ready)
	return nil
}

// Addr is 127.0.0.1:StagePort, in the Box's network namespace.
func (l *stagedListener) Addr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: StagePort}
}
