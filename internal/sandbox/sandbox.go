// Package sandbox runs a command agent where it can reach nothing but the
// run: on Linux, in namespaces of its own, started from a goroutine locked
// to an OS thread that is set up for it and never returned to the Go
// scheduler. A Box is one run's sandbox:
//
//	box, err := sandbox.Open(&sandbox.Config{Workspace: dir, Home: home})
//	ln, err := box.Listen()      // the bridge's listener, reachable from inside
//	err = box.Start(cmd)         // cmd.Start, inside
//	err = cmd.Wait()
//	report := box.End()          // everything the command started is gone
//
// What a Box guarantees depends on the platform and on privilege; Holds
// says which guarantees a run has, and Missing why the others are not.
package sandbox

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Guarantee is one isolation a Box may hold, a bit of a set.
type Guarantee uint

const (
	// Processes: the command and everything it starts, including
	// processes in sessions of their own (setsid), end when the run ends,
	// and when tapeloop's process dies.
	Processes Guarantee = 1 << iota
	// Network: the command reaches nothing but the bridge's listener; a
	// connection anywhere else (another loopback port, an outside address,
	// a DNS server) fails at once and is reported.
	Network
	// Workspace: the command sees its workspace at /tapeloop/work and its
	// scratch home at /tapeloop/home (WorkDir, HomeDir), the same on every
	// run and every machine, so an agent that tells the model where it
	// works replays.
	Workspace
	// Files: the command cannot change a file outside its workspace, its
	// scratch home and the device files of /dev (the write is refused,
	// EACCES), and each change it attempts there is reported (on amd64
	// and arm64).
	Files
)

// All is every guarantee a Box may hold.
const All = Processes | Network | Workspace | Files

// The paths a command sees its workspace and scratch home at, on every
// run and every machine, when the Box holds Workspace (on Linux).
const (
	WorkDir = "/tapeloop/work"
	HomeDir = "/tapeloop/home"
)

// names lists the guarantees in the order they are reported.
var names = []struct {
	g    Guarantee
	name string
}{
	{Processes, "processes"},
	{Network, "network"},
	{Workspace, "workspace"},
	{Files, "files"},
}

// String lists the guarantees in g, comma-separated ("none" for none).
func (g Guarantee) String() string {
	var parts []string
	for _, n := range names {
		if g&n.g != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// ErrUnavailable is wrapped by the error of Open when Config.Require asks
// for a guarantee the platform or the process's privilege cannot give.
var ErrUnavailable = errors.New("a sandbox guarantee is not available here")

// Config says what a Box is for. A nil *Config is the zero value.
type Config struct {
	// Workspace is the command's workspace directory; "" means none.
	Workspace string
	// Home is the command's scratch home directory; "" means none.
	Home string
	// Require lists the guarantees Open must give; a missing one makes
	// Open fail (wrapping ErrUnavailable). Zero requires none.
	Require Guarantee
	// Without lists guarantees the Box must not give even where it
	// could: the run takes the fallback of a machine without namespaces
	// (a test forces it so). Zero gives every guarantee this process can.
	// A guarantee both required and left out makes Open fail.
	Without Guarantee
}

// Report is what the commands of a Box attempted that the Box refused.
type Report struct {
	// Network lists each distinct attempt to reach beyond the bridge's
	// listener, sorted: "connect tcp 127.0.0.1:8080", "DNS lookup of
	// api.openai.com (udp 10.0.0.2:53)", "send udp 192.0.2.1:9", "ping
	// 192.0.2.1". Nil means none (or no Network guarantee to see them).
	Network []string
	// Files lists each distinct change to the file system outside the
	// workspace and the home that the commands attempted (and Landlock
	// refused), sorted, by the path the command saw: "write /etc/hosts",
	// "create /usr/local/bin/x", "mkdir /opt/tool", "remove /tmp/lock",
	// "rename /etc/a", "truncate /var/log/x", "link ...", "symlink ...".
	// Nil means none (or no Files guarantee to see them, or an
	// architecture other than amd64 and arm64).
	Files []string
	// Left names each process the commands left running that End killed,
	// by its command name (as ps shows it), sorted, once per process:
	// "sleep". Nil with Processes, where the kernel ends them unseen when
	// the command exits, and off Linux, where End kills the command's
	// process group without looking. It is not an attempt.
	Left []string
}

// Empty reports whether r holds no attempt (Left lists none).
func (r Report) Empty() bool { return len(r.Network) == 0 && len(r.Files) == 0 }

// String lists r's attempts, the network's then the files', separated by
// "; ".
func (r Report) String() string {
	return strings.Join(append(slices.Clone(r.Network), r.Files...), "; ")
}

// Status is what the sandbox of this process can guarantee.
type Status struct {
	// Held are the guarantees a Box gives here.
	Held Guarantee
	// Missing says, for each guarantee not held, why; nil when all are.
	Missing map[Guarantee]string
	// userNS is set when Processes holds through an unprivileged user
	// namespace, made for each command, rather than through the
	// privilege to make a PID namespace.
	userNS bool
	// stage is set when Network and Workspace hold through a stage, a
	// process made for each command in a user namespace of its own,
	// rather than through the privilege to make their namespaces.
	stage bool
}

// String says which guarantees hold and why the others do not, in one
// line.
func (s Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the sandbox holds: %s", s.Held)
	for _, n := range names {
		if why, ok := s.Missing[n.g]; ok {
			fmt.Fprintf(&b, "; not %s: %s", n.name, why)
		}
	}
	return b.String()
}

// check returns an error wrapping ErrUnavailable when s lacks a guarantee
// of want.
func (s Status) check(want Guarantee) error {
	lack := want &^ s.Held
	if lack == 0 {
		return nil
	}
	var whys []string
	for _, n := range names {
		if lack&n.g != 0 {
			whys = append(whys, n.name+": "+s.Missing[n.g])
		}
	}
	return fmt.Errorf("%w: %s", ErrUnavailable, strings.Join(whys, "; "))
}
