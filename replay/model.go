package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
)

// The errors a Model's Generate wraps.
var (
	// ErrDiverged: the request differs from the one recorded on the tape.
	// The error is a *DivergenceError.
	ErrDiverged = errors.New("request diverged from the recording")
	// ErrTapeExhausted: the request came after the tape's last entry.
	ErrTapeExhausted = errors.New("tape exhausted")
	// ErrRecordedError: the tape recorded that this call failed; the error
	// text follows.
	ErrRecordedError = errors.New("recorded provider error")
)

// ModelOptions configures a Model. A nil *ModelOptions means all defaults.
type ModelOptions struct {
	// Matcher checks each request against its recorded summary; nil means
	// DefaultMatcher.
	Matcher Matcher
}

// Model is an llm.Model that replays a tape: the n-th call gets the n-th
// entry's response (or recorded error), after the request has been checked
// against the entry's recorded request, if any. It fails closed and never
// touches the network. It is safe for concurrent use; calls are served in
// the order they take the lock.
type Model struct {
	mu      sync.Mutex
	file    string
	entries []Entry
	matcher Matcher
	calls   int
}

// NewModel returns a Model replaying a deep copy of t; a nil t replays an
// empty tape. A nil opts means default options.
func NewModel(t *Tape, opts *ModelOptions) *Model {
	m := &Model{matcher: DefaultMatcher{}}
	if t != nil {
		c := t.Clone()
		m.file, m.entries = c.File, c.Entries
		// Sorted once here, so that matching compares the tools as a set
		// without sorting them on every call.
		for _, e := range m.entries {
			if e.Request != nil {
				slices.Sort(e.Request.Tools)
			}
		}
	}
	if opts != nil && opts.Matcher != nil {
		m.matcher = opts.Matcher
	}
	return m
}

// Generate serves the next entry of the tape. Each call uses up one entry,
// whether it matches or not, so later turns keep their numbers. It fails
// with an error wrapping ErrDiverged when the matcher rejects the request,
// ErrTapeExhausted when there are no entries left, and ErrRecordedError for
// an entry that recorded a provider error. A done ctx returns ctx.Err()
// without using up an entry. The response is a copy the caller may change.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req == nil {
		req = &llm.Request{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	turn := m.calls
	if turn > len(m.entries) {
		return nil, fmt.Errorf("replay: turn %d (%s): %w after %d entries; the unanswered request ends with %s",
			turn, m.tapeName(), ErrTapeExhausted, len(m.entries), quoteLast(req))
	}
	e := &m.entries[turn-1]
	if e.Request != nil {
		if err := m.matcher.Match(e.Request, req); err != nil {
			return nil, &DivergenceError{Turn: turn, File: m.file, Line: e.Line, Err: err}
		}
	}
	if e.Response == nil {
		return nil, fmt.Errorf("replay: turn %d (%s): %w: %s", turn, where(m.file, e.Line, turn), ErrRecordedError, e.Error)
	}
	return cloneResponse(e.Response), nil
}

// Calls returns how many calls have reached the tape, including those that
// failed.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// Remaining returns how many entries have not been served yet.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return max(len(m.entries)-m.calls, 0)
}

func (m *Model) tapeName() string {
	if m.file == "" {
		return "tape"
	}
	return m.file
}

// quoteLast describes req's last message for an error: role, who it
// answers, and its content quoted (shortened past 200 bytes).
func quoteLast(req *llm.Request) string {
	last, ok := req.LastMessage()
	if !ok {
		return "no message"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s message", last.Role)
	if last.ToolCallID != "" || last.Name != "" {
		fmt.Fprintf(&b, " (%s", last.Name)
		if last.ToolCallID != "" {
			fmt.Fprintf(&b, " %s", last.ToolCallID)
		}
		b.WriteString(")")
	}
	content := last.Content
	if len(content) > 200 {
		content = content[:200] + "..."
	}
	fmt.Fprintf(&b, " %q", content)
	for _, c := range last.ToolCalls {
		fmt.Fprintf(&b, " + call %s(%s)", c.Name, c.ID)
	}
	return b.String()
}

// DivergenceError says that the request of a turn differs from the recorded
// one. It matches ErrDiverged with errors.Is and unwraps to the matcher's
// error (a *MismatchError for the built-in matchers).
type DivergenceError struct {
	// Turn is the 1-based number of the model call.
	Turn int
	// File is the tape's file; empty if it did not come from one.
	File string
	// Line is the entry's line in File; 0 if unknown.
	Line int
	// Err is what the matcher reported.
	Err error
}

// Error returns "replay: turn N (file:line): request diverged from the
// recording: " and the matcher's explanation.
func (e *DivergenceError) Error() string {
	return fmt.Sprintf("replay: turn %d (%s): %v: %v", e.Turn, where(e.File, e.Line, e.Turn), ErrDiverged, e.Err)
}

// Is reports whether target is ErrDiverged.
func (e *DivergenceError) Is(target error) bool { return target == ErrDiverged }

// Unwrap returns the matcher's error.
func (e *DivergenceError) Unwrap() error { return e.Err }
