//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The fallback for Processes, where no PID namespace can be made: while a
// Box without Processes has commands running, tapeloop's process is a
// child subreaper (PR_SET_CHILD_SUBREAPER), so that a process a command
// leaves behind, whose parent exits (a double fork, a helper the command
// did not wait for), becomes tapeloop's child instead of init's, and End
// kills and reaps it.
//
// Commands of several Boxes may run at once, and tapeloop has children of
// its own (MCP servers); End takes only what its commands left, and what
// no one else can have started: a child of tapeloop in a command's
// process group, or whose environment holds the Box's mark (runMark),
// which every process a command starts inherits, setsid or not; while no
// other Box is subreaping, also every child of tapeloop in a session of
// its own that was not tapeloop's child when subreaping began (tapeloop
// starts its own children in its session, so such a child is an orphan
// of a command: one that dropped the mark with env -i, or that exited
// before End and is a zombie, whose environment cannot be read); and
// everything beneath those. Each is killed and waited for, zombies
// included. An orphan left unmarked while other Boxes subreap is taken
// by the last of them to end. What escapes: a process that leaves the
// command's process group without a session of its own (set -m) and
// drops the mark; a process tapeloop's own program starts in a session
// of its own while a command runs, which is taken for the command's; and
// everything after a kill -9 of tapeloop, which leaves no one to reap
// it (the command itself dies with tapeloop's thread, Pdeathsig, but what
// it left becomes init's).

// runMark is the environment variable a Box without Processes adds to its
// commands' environment, set to a value of its own (pid-sequence).
const runMark = "TAPELOOP_SANDBOX_RUN"

// marks numbers the Boxes of this process.
var marks atomic.Uint64

// subreaping counts the Boxes without Processes whose commands may still
// have processes running; tapeloop is a child subreaper while it is not 0.
var subreaping struct {
	sync.Mutex
	boxes int
	// before holds tapeloop's children when subreaping began: they are
	// its own, never a command's orphans.
	before map[int]bool
}

// reaper is the fallback's state of one Box.
type reaper struct {
	mark   string       // NAME=VALUE, runMark's entry in each command's environment
	groups map[int]bool // the commands' process groups
	held   bool         // counted in subreaping
}

func newReaper() *reaper {
	return &reaper{
		mark:   fmt.Sprintf("%s=%d-%d", runMark, os.Getpid(), marks.Add(1)),
		groups: map[int]bool{},
	}
}

// hold makes tapeloop a child subreaper until release, for the first
// command of the Box.
func (r *reaper) hold() error {
	if r.held {
		return nil
	}
	subreaping.Lock()
	defer subreaping.Unlock()
	if subreaping.boxes == 0 {
		self := os.Getpid()
		before := map[int]bool{}
		for _, p := range processes() {
			if p.ppid == self {
				before[p.pid] = true
			}
		}
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("becoming a child subreaper: %w", err)
		}
		subreaping.before = before
	}
	subreaping.boxes++
	r.held = true
	return nil
}

// release undoes hold, once the Box's leftovers are reaped.
func (r *reaper) release() {
	if !r.held {
		return
	}
	r.held = false
	subreaping.Lock()
	defer subreaping.Unlock()
	if subreaping.boxes--; subreaping.boxes == 0 {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		subreaping.before = nil
	}
}

// environ returns env (nil: tapeloop's own) with the Box's mark in place
// of any other.
func (r *reaper) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, runMark+"=") {
			out = append(out, kv)
		}
	}
	return append(out, r.mark)
}

// proc is one process as /proc/PID/stat shows it.
type proc struct {
	pid, ppid, pgid, sid int
	state                byte
	comm                 string
}

// processes lists the processes of the machine that /proc shows.
func processes() map[int]proc {
	entries, _ := os.ReadDir("/proc")
	out := make(map[int]proc, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it has gone
		}
		if p, ok := parseStat(pid, b); ok {
			out[pid] = p
		}
	}
	return out
}

// parseStat reads /proc/PID/stat (proc(5)): "pid (comm) state ppid pgrp
// session ...", where comm may hold spaces and parentheses.
func parseStat(pid int, b []byte) (proc, bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 4 || len(f[0]) != 1 {
		return proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	sid, err3 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil || err3 != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, pgid: pgid, sid: sid, state: f[0][0], comm: string(b[open+1 : end])}, true
}

// marked reports whether the environment pid started with holds mark.
func marked(pid int, mark string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if string(kv) == mark {
			return true
		}
	}
	return false
}

// reap kills and reaps what the Box's commands left running, once they
// have been waited for, and returns the names of those that were still
// running, sorted.
func (r *reaper) reap() []string {
	defer r.release()
	if !r.held {
		return nil
	}
	self := os.Getpid()
	// Our session's id as /proc shows it: 0 where its leader lives
	// outside our PID namespace (a CI job started in a container), and
	// then 0 in each stat line of our session's processes too, while a
	// process in a session of its own shows its own pid.
	sid, err := unix.Getsid(0)
	sidKnown := err == nil
	subreaping.Lock()
	alone, before := subreaping.boxes == 1, subreaping.before
	subreaping.Unlock()
	// An orphan no one else can have started: a child of tapeloop's in a
	// session of its own, which it was not when subreaping began.
	orphan := func(p proc) bool {
		return alone && sidKnown && p.sid != sid && !before[p.pid]
	}
	var left []string
	// Each round takes what the last one's processes started before they
	// died; a round that finds nothing ends it.
	for range 100 {
		procs := processes()
		children := map[int][]int{}
		var order []int
		for _, p := range procs {
			children[p.ppid] = append(children[p.ppid], p.pid)
			if p.ppid == self && (r.groups[p.pgid] || marked(p.pid, r.mark) || orphan(p)) {
				order = append(order, p.pid)
			}
		}
		if len(order) == 0 {
			break
		}
		slices.Sort(order)
		// Parents before their children: a child becomes tapeloop's, to
		// reap, once its parent is reaped.
		for i := 0; i < len(order); i++ {
			kids := children[order[i]]
			slices.Sort(kids)
			order = append(order, kids...)
		}
		for _, pid := range order {
			_ = unix.Kill(pid, unix.SIGKILL)
			if procs[pid].state != 'Z' {
				left = append(left, procs[pid].comm)
			}
		}
		// Each of these was seen a moment ago as a descendant of
		// tapeloop's, and a pid is not reused before it is reaped: waiting
		// for it waits for that process, or fails (ECHILD) when its own
		// parent reaped it first. (Only a pid reaped so and reused at once
		// by a new child of tapeloop's would be waited for wrongly.)
		for _, pid := range order {
			for {
				if _, err := unix.Wait4(pid, nil, 0, nil); err != unix.EINTR {
					break
				}
			}
		}
	}
	slices.Sort(left)
	return left
}
