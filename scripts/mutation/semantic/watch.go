package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// watch follows a test binary's -test.v output and tells when one top-level
// test has run past its own allowance, so that a mutant that deadlocks one
// test ends after that test's allowance, not after the allowance of every
// test that covers the mutant.
//
// The binary runs with -test.v=test2json, whose framing lines start with
// ^V (even where a test's own output left a line unended), so a test's own
// output is never taken for framing. A test's clock runs from its
// "=== RUN" (or "=== CONT", when it was paused by t.Parallel) to its
// "--- PASS/FAIL/SKIP"; a pause stops it. Only the tests in allow are
// followed: a subtest, or a test with no time in the coverage map, is never
// timed.
type watch struct {
	allow   map[string]time.Duration // each followed test's allowance
	now     func() time.Time
	mu      sync.Mutex
	running map[string]time.Time // the deadline of each followed test running now
	partial []byte               // the last line's start, not yet ended by a newline
}

func newWatch(allow map[string]time.Duration, now func() time.Time) *watch {
	return &watch{allow: allow, now: now, running: map[string]time.Time{}}
}

// Write reads the output, a line at a time.
func (w *watch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, p...)
	for {
		// A line ends at a newline, or where a framing line starts.
		i := bytes.IndexAny(w.partial, "\n"+framing)
		if i == 0 && w.partial[0] == framing[0] {
			if j := bytes.IndexAny(w.partial[1:], "\n"+framing); j >= 0 {
				i = j + 1
			} else {
				i = -1
			}
		}
		if i < 0 {
			break
		}
		w.line(string(w.partial[:i]))
		if w.partial[i] == '\n' {
			i++
		}
		w.partial = w.partial[i:]
	}
	if len(w.partial) > 64<<10 {
		w.partial = w.partial[:0] // a long line of a test's own output: not framing
	}
	return len(p), nil
}

// framing starts each framing line of -test.v=test2json's output.
const framing = "\x16"

// line notes a test starting, pausing, continuing or ending.
func (w *watch) line(l string) {
	l, ok := strings.CutPrefix(l, framing)
	if !ok {
		return // a test's own output
	}
	for _, start := range []string{"=== RUN ", "=== CONT "} {
		if rest, ok := strings.CutPrefix(l, start); ok {
			name := strings.TrimSpace(rest)
			if d, ok := w.allow[name]; ok {
				w.running[name] = w.now().Add(d)
			}
			return
		}
	}
	if rest, ok := strings.CutPrefix(l, "=== PAUSE "); ok {
		delete(w.running, strings.TrimSpace(rest))
		return
	}
	for _, end := range []string{"--- PASS: ", "--- FAIL: ", "--- SKIP: "} {
		if rest, ok := strings.CutPrefix(l, end); ok {
			name, _, _ := strings.Cut(rest, " (")
			delete(w.running, strings.TrimSpace(name))
			return
		}
	}
}

// overdue returns the first test, by name, whose deadline has passed, and
// its allowance.
func (w *watch) overdue() (string, time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	var late []string
	for name, deadline := range w.running {
		if now.After(deadline) {
			late = append(late, name)
		}
	}
	if len(late) == 0 {
		return "", 0, false
	}
	slices.Sort(late)
	return late[0], w.allow[late[0]], true
}

// teeTo returns a writer that writes to both w and out.
func (w *watch) teeTo(out io.Writer) io.Writer { return io.MultiWriter(w, out) }
