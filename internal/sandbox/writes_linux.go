//go:build linux

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// writeCall is a system call that changes the file system: the
// arguments that name what it changes, and how to tell a write from a
// read when it may be either.
type writeCall struct {
	nr   int
	verb string
	// paths are the (directory fd, path) argument pairs of what it
	// changes; a directory fd of -1 means the working directory.
	paths [][2]int
	// flags is the argument holding open(2)'s flags (only a write is
	// watched), how the one pointing at openat2's struct open_how; -1
	// for none.
	flags, how int
}

// openWrites are the open flags that make an open a write.
const openWrites = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// The layout of struct seccomp_data, struct seccomp_notif and struct
// seccomp_notif_resp (linux/seccomp.h).
const (
	dataNr   = 0
	dataArch = 4
	dataArgs = 16
)

type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// writeFilter is the seccomp program that hands each call of calls to
// the listener (an open only when it writes) and lets everything else
// through, for the architecture arch.
func writeFilter(arch uint32, calls []writeCall) []unix.SockFilter {
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jset  = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
	)
	// The program: the architecture; one jump per call to its check (an
	// open's flags) or to notify; allow, for the calls not listed; the
	// flag checks; allow; notify. Every jump goes forward.
	n := len(calls)
	flagged := 0
	for _, c := range calls {
		if c.flags >= 0 {
			flagged++
		}
	}
	allowAt := 4 + n + 2*flagged
	notifyAt := allowAt + 1
	prog := []unix.SockFilter{
		{Code: ld, K: dataArch},
		{Code: jeq, K: arch, Jf: uint8(allowAt - 2)},
		{Code: ld, K: dataNr},
	}
	check := 4 + n
	var checks []unix.SockFilter
	for i, c := range calls {
		at := 3 + i
		if c.flags >= 0 {
			prog = append(prog, unix.SockFilter{Code: jeq, K: uint32(c.nr), Jt: uint8(check - at - 1)})
			checks = append(checks,
				unix.SockFilter{Code: ld, K: uint32(dataArgs + 8*c.flags)},
				unix.SockFilter{Code: jset, K: openWrites, Jt: uint8(notifyAt - check - 2), Jf: uint8(allowAt - check - 2)})
			check += 2
			continue
		}
		prog = append(prog, unix.SockFilter{Code: jeq, K: uint32(c.nr), Jt: uint8(notifyAt - at - 1)})
	}
	prog = append(prog, unix.SockFilter{Code: ret, K: allow})
	prog = append(prog, checks...)
	return append(prog, unix.SockFilter{Code: ret, K: allow}, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
}

// writeWatch is the listener of the Box thread's seccomp filter: it sees
// each call that changes the file system, made by the command and what
// it starts, before Landlock refuses or allows it, and notes those
// outside the directories the command may write in.
type writeWatch struct {
	fd   int
	stop int // an eventfd that ends the watch
	// root is where the Box's root is, as the kernel names the paths of
	// the command seen from tapeloop; stripped from them.
	root     string
	writable []string
	done     chan struct{}
	mu       sync.Mutex
	writes   map[string]bool
}

// installWriteFilter installs the filter on the calling thread (which
// must have no_new_privs set, as refuseWrites does; what it starts
// inherits the filter) and returns its listener, a file descriptor that
// watchWrites serves, from this process or another it is handed to.
func installWriteFilter() (int, error) {
	if len(writeCalls) == 0 {
		return -1, errors.New("no system call table for this architecture")
	}
	prog := writeFilter(auditArch, writeCalls)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return -1, fmt.Errorf("seccomp: %w", errno)
	}
	return int(fd), nil
}

// watchWrites serves the listener fd of a filter installWriteFilter
// installed, which it then owns: writes beneath writable (paths as the
// command sees them) and to /dev files are not noted. root is the Box's
// root on the host.
func watchWrites(fd int, root string, writable ...string) (*writeWatch, error) {
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	w := &writeWatch{fd: fd, stop: stop, root: root, writable: writable, done: make(chan struct{}), writes: map[string]bool{}}
	go w.serve()
	return w, nil
}

// serve answers every notification until the filter has no process left
// or close is called: each call goes on (Landlock decides), once noted.
func (w *writeWatch) serve() {
	defer close(w.done)
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.stop), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			w.answer()
		} else if fds[0].Revents != 0 { // POLLHUP: no process uses the filter
			return
		}
	}
}

// answer receives one notification, notes the write, and lets the call
// go on.
func (w *writeWatch) answer() {
	var n seccompNotif
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(w.fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); errno != 0 {
		return // ENOENT: the process was killed meanwhile
	}
	for _, what := range w.describe(&n) {
		w.mu.Lock()
		w.writes[what] = true
		w.mu.Unlock()
	}
	resp := seccompResp{ID: n.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(w.fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
}

// describe says what the call of n changes outside the writable
// directories: "write /etc/hosts", "mkdir /opt/x"; nil when nothing.
func (w *writeWatch) describe(n *seccompNotif) []string {
	i := slices.IndexFunc(writeCalls, func(c writeCall) bool { return c.nr == int(n.Data.Nr) })
	if i < 0 {
		return nil
	}
	c := writeCalls[i]
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", n.Pid))
	if err != nil {
		return nil
	}
	defer mem.Close()
	if c.how >= 0 {
		var how [8]byte
		if _, err := mem.ReadAt(how[:], int64(n.Data.Args[c.how])); err != nil || binary.NativeEndian.Uint64(how[:])&openWrites == 0 {
			return nil
		}
	}
	// The process is stopped in the call until it is answered, so its
	// memory still holds the arguments; ID_VALID below checks that it was
	// not killed and its pid reused meanwhile.
	var out []string
	for _, p := range c.paths {
		name, ok := readString(mem, n.Data.Args[p[1]])
		if !ok {
			continue
		}
		dirfd := -1
		if p[0] >= 0 {
			dirfd = int(int32(n.Data.Args[p[0]]))
		}
		path := w.resolve(int(n.Pid), dirfd, name)
		if path != "" && !w.allowed(path, c.verb) {
			out = append(out, c.verb+" "+path)
		}
	}
	id := n.ID
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(w.fd), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&id))); errno != 0 {
		return nil
	}
	return out
}

// readString reads the NUL-terminated string at addr of mem, at most
// PATH_MAX bytes, a page at a time (the next page may not be mapped).
func readString(mem *os.File, addr uint64) (string, bool) {
	var b []byte
	page := uint64(os.Getpagesize())
	for len(b) < unix.PathMax {
		chunk := make([]byte, page-addr%page)
		n, err := mem.ReadAt(chunk, int64(addr))
		if i := slices.Index(chunk[:n], 0); i >= 0 {
			return string(append(b, chunk[:i]...)), true
		}
		if err != nil || n == 0 {
			return "", false
		}
		b = append(b, chunk[:n]...)
		addr += uint64(n)
	}
	return "", false
}

// resolve makes name, as process pid passed it relative to dirfd (-1:
// its working directory), a clean absolute path as the command sees it;
// "" when the directory cannot be read.
func (w *writeWatch) resolve(pid, dirfd int, name string) string {
	if !strings.HasPrefix(name, "/") {
		link := fmt.Sprintf("/proc/%d/cwd", pid)
		if dirfd != -1 && dirfd != unix.AT_FDCWD {
			link = fmt.Sprintf("/proc/%d/fd/%d", pid, dirfd)
		}
		dir, err := os.Readlink(link)
		if err != nil {
			return ""
		}
		// Seen from tapeloop, the command's directories are beneath the
		// Box's root.
		if rel, ok := strings.CutPrefix(dir, w.root); ok && (rel == "" || rel[0] == '/') {
			dir = "/" + strings.TrimPrefix(rel, "/")
		}
		name = dir + "/" + name
	}
	return filepath.Clean(name)
}

// allowed reports whether the command may make the change verb to path:
// beneath a writable directory, or a write to a file of /dev.
func (w *writeWatch) allowed(path, verb string) bool {
	for _, d := range w.writable {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return verb == "write" && strings.HasPrefix(path, "/dev/")
}

// close ends the watch and returns the writes it noted, sorted.
func (w *writeWatch) close() []string {
	_, _ = unix.Write(w.stop, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	<-w.done
	unix.Close(w.fd)
	unix.Close(w.stop)
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for what := range w.writes {
		out = append(out, what)
	}
	slices.Sort(out)
	return out
}
