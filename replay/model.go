package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
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
	// ErrUnused: the run ended with tape entries it never used.
	ErrUnused = errors.New("tape entries left unused")
)

// ModelOptions configures a Model. A nil *ModelOptions means all defaults.
type ModelOptions struct {
	// Matcher checks each request against the tools, last message and
	// messages its entry recorded; nil means DefaultMatcher. What the tape
	// recorded as offered (Tape.Offered, RequestSummary.Offered) and the
	// new messages (RequestSummary.New) are always checked by the Model.
	Matcher Matcher
	// Rebase, when set, accepts a request that differs from the recorded
	// one as long as the recorded response still applies to it (see
	// Model.Rebased): the model notes what was sent and answers as
	// recorded. A response that no longer applies fails with ErrStale.
	Rebase bool
	// Shared replays the tape given to NewModel without copying what the
	// model only reads: each response served is then the tape's own,
	// shared with the caller's tape, which must not change while the
	// model replays it (whoever changes a served response changes the
	// tape). It saves a copy of every recorded response, which on a long
	// tape is most of what the tape holds; the harness sets it, since
	// nothing there changes a served response. False means the model
	// replays a deep copy, and serves responses the caller may change.
	Shared bool
	// Redactor is the replay's redaction policy (the one its command was
	// given: the environment's secrets, --redact-env, --redact): a live
	// text that the tape holds with Redacted in it, and that
	// redact.Matches does not match (a password written with "!" or "&"),
	// matches when it does once the values the policy knows are redacted
	// (redact.Redactor.Matches). Nil means redact.Matches only.
	Redactor *redact.Redactor
}

// Model is an llm.Model that replays a tape: each call gets the next model
// entry's response (or recorded error), after the request has been checked
// against the entry's recorded request, if any; NextUser serves the user
// turns between them. It fails closed and never touches the network: a
// request where the tape has a user turn diverges, and Unused reports the
// entries a run left. It is safe for concurrent use. Requests an agent
// sends at once (parallel sub-agents) are matched by what they ask: a
// request that does not match the next entry is answered by the first later
// entry before the next user turn that recorded a request and matches it,
// so the answers do not depend on which request arrives first; one that
// matches none diverges against the next entry.
type Model struct {
	mu      sync.Mutex
	file    string
	entries []tape.Entry
	offered *tape.Offered // the tape's offered block; nil when not recorded
	matcher Matcher
	// redacted holds the IDs of the calls whose recorded arguments were
	// redacted (see applyRedaction).
	redacted map[string]bool
	// red is the replay's redaction policy (ModelOptions.Redactor).
	red    *redact.Redactor
	calls  int    // model calls made
	next   int    // index of the first entry not served yet
	served []bool // by entry: served (a later one may be before next)
	last   int    // the entry the latest call used; -1 for none
	// expectAt holds per entry what the tape says its request offers: the
	// offered block with the changes of the entries up to it, in tape
	// order, so that serving entries out of order expects the same.
	expectAt []*tape.Offered

	// track is set when the tape records what was offered or the new
	// messages (or in rebase mode): x then follows the requests, and
	// expect is what the next request must offer.
	track  bool
	x      exchange
	expect *tape.Offered
	// agreed is the last pair of what the tape expected offered and what
	// a request offered that check found alike: neither is ever changed
	// once built, so the same pair agrees again (see exchange.next).
	agreed [2]*tape.Offered
	rb     *rebase // nil unless ModelOptions.Rebase
}

// NewModel returns a Model replaying a deep copy of t (or t's responses
// themselves, under ModelOptions.Shared); a nil t replays an empty tape. A
// nil opts means default options.
func NewModel(t *tape.Tape, opts *ModelOptions) *Model {
	m := &Model{matcher: DefaultMatcher{}}
	if t != nil {
		var c *tape.Tape
		if opts != nil && opts.Shared {
			c = sharedCopy(t)
		} else {
			c = t.Clone()
		}
		m.file, m.entries, m.offered = c.File, c.Entries, c.Offered
		m.redacted = redactedCalls(m.entries)
		m.expect, m.track = c.Offered, !empty(c.Offered)
		// Sorted once here, so that matching compares the tools as a set
		// without sorting them on every call.
		expect := c.Offered
		for _, e := range m.entries {
			if e.Request != nil {
				slices.Sort(e.Request.Tools)
				m.track = m.track || e.Request.New != nil || !empty(e.Request.Offered)
				if !empty(e.Request.Offered) {
					expect = with(expect, e.Request.Offered)
				}
			}
			m.expectAt = append(m.expectAt, expect)
		}
	}
	m.served, m.last = make([]bool, len(m.entries)), -1
	if opts != nil && opts.Matcher != nil {
		m.matcher = opts.Matcher
	}
	if opts != nil {
		m.red = opts.Redactor
	}
	if opts != nil && opts.Rebase {
		m.rb, m.track = &rebase{steps: map[int]step{}, requests: map[int]*llm.Request{}}, true
	}
	m.x.threads = m.rb == nil
	return m
}

// sharedCopy is t for a Model under ModelOptions.Shared: its entries in a
// slice of the model's own, each sharing t's response and user turn (which
// the model only reads), with a copy of its recorded request (whose tools
// NewModel sorts) and of the offered block.
func sharedCopy(t *tape.Tape) *tape.Tape {
	c := &tape.Tape{Name: t.Name, File: t.File, Offered: t.Offered.Clone(), Entries: slices.Clone(t.Entries)}
	for i := range c.Entries {
		c.Entries[i].Request = c.Entries[i].Request.Clone()
	}
	return c
}

// Generate serves the next entry of the tape. Each call uses up one entry,
// whether it matches or not, so later turns keep their numbers. It fails
// with an error wrapping ErrDiverged when the matcher rejects the request or
// the next entry is a user turn (the user speaks only after a final text
// answer), ErrTapeExhausted when there are no entries left, and
// ErrRecordedError for an entry that recorded a provider error. A done ctx
// returns ctx.Err() without using up an entry. The response is the caller's
// to change (the model hands over its own copy of the entry, made by
// NewModel, and never reads it again; in rebase mode, which reads served
// entries again, a copy), except under ModelOptions.Shared, where it is the
// tape's own.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req == nil {
		req = &llm.Request{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rb != nil {
		// A rebased tape would record what it offers.
		if err := duplicateTool(req.Tools); err != nil {
			return nil, fmt.Errorf("replay: rebase: %w", err)
		}
	}
	m.calls++
	m.last = -1
	turn := m.calls
	if m.next >= len(m.entries) {
		return nil, fmt.Errorf("replay: %s%w after %d %s; the unanswered request ends with %s",
			m.filePrefix(), ErrTapeExhausted, len(m.entries), plural(len(m.entries), "entry", "entries"), quoteLast(req))
	}
	i := m.next
	e := &m.entries[i]
	if e.User != nil {
		m.use(i)
		return nil, &DivergenceError{Turn: turn, Entry: i, File: m.file, Line: e.Line, Err: fmt.Errorf(
			"the loop asked the model, but tape[%d] is a user turn; the user speaks only after a final text answer, and the request ends with %s", i, quoteLast(req))}
	}
	var st step
	if m.track {
		st = m.x.next(req)
	}
	checked, cst, err := m.try(i, req, st)
	if err != nil && m.rb == nil {
		// Sent at once with another request, it may ask what a later
		// entry recorded.
		for j := i + 1; j < len(m.entries) && m.entries[j].User == nil; j++ {
			if m.served[j] || m.entries[j].Request == nil {
				continue
			}
			if r, rst, jerr := m.try(j, req, st); jerr == nil {
				i, e, checked, cst, err = j, &m.entries[j], r, rst, nil
				break
			}
		}
	}
	if err != nil {
		m.expect = m.expectAt[i] // as a served entry's, match or not
	}
	m.use(i)
	m.x.served(i)
	req, st = checked, cst
	if err != nil && m.rb == nil {
		return nil, &DivergenceError{Turn: turn, Entry: i, File: m.file, Line: e.Line, Err: err}
	}
	if m.rb != nil {
		m.rb.steps[i], m.rb.requests[i] = st, cloneRequest(req)
		if err := m.rb.applies(e, m.expect, req); err != nil {
			m.rb.stale = &StaleError{Entry: i, File: m.file, Line: e.Line, Err: err}
			return nil, m.rb.stale
		}
	}
	if e.Response == nil {
		m.x.answered(nil)
		if e.ErrorKind != "" {
			pe := &llm.ProviderError{Kind: e.ErrorKind, StatusCode: e.ErrorStatus, RetryAfter: e.RetryAfter, Message: e.Error}
			return nil, fmt.Errorf("replay: %s: %w: %w", tape.EntryAt(m.file, i, e.Line), ErrRecordedError, pe)
		}
		return nil, fmt.Errorf("replay: %s: %w: %s", tape.EntryAt(m.file, i, e.Line), ErrRecordedError, e.Error)
	}
	if m.track {
		m.x.answered(e.Response) // it keeps a copy of its own
	}
	if m.rb != nil {
		// Rebased reads the served responses again.
		return e.Response.Clone(), nil
	}
	// A served entry's response is never read again: the model gives up
	// its copy (or, Shared, the tape's own).
	return e.Response, nil
}

// try checks req, summarised as st, against entry i, and returns req with
// the tape's redaction applied (and st with it). On a match, the model expects what entry i
// offers from now on; otherwise it is as before.
func (m *Model) try(i int, req *llm.Request, st step) (*llm.Request, step, error) {
	e := &m.entries[i]
	if st.fromStart && i > 0 {
		// Only the tape's first request extends the start of a
		// conversation; a later entry recorded what its request added to
		// the one before it, or the whole list of one that did not extend
		// it. A request that starts over (an agent that forgot the
		// conversation) is one that does not extend it.
		st.added = nil
	}
	if k := m.before(i); st.added != nil && st.base != k {
		// The entry recorded what its request added to the conversation
		// of the request before it on the tape (entry k's); this one was
		// summarised against another's (sub-agents' turns arriving in
		// another order than recorded, or two alike). Against entry k's
		// conversation when it extends that, as recorded; otherwise it is
		// a conversation that does not extend it.
		if again, ok := m.x.after(st, tape.Conversation(req), k); ok {
			st = again
		} else {
			st.added = nil
		}
	}
	if e.Request != nil && st.reencoded != nil && st.added != nil && len(e.Request.New) == len(st.added)+1 && e.Request.New[0].Role == llm.RoleAssistant {
		// Tapes recorded before echoes compared arguments as JSON values
		// list the answer as it was sent back; compare it as sent, then.
		st.added = append([]llm.Message{*st.reencoded}, st.added...)
	}
	if e.Request != nil {
		// The tape was redacted when it was recorded; the run may still
		// hold the secrets.
		req = applyRedaction(e.Request, req, m.redacted, m.red)
		if st.added != nil {
			st.added = llm.CloneMessages(st.added)
		}
		applyRedactionNew(e.Request.New, st.added, m.redacted, m.red)
	}
	expect, agreed := m.expect, m.agreed
	m.expect = m.expectAt[i]
	if err := m.check(e, req, st); err != nil {
		m.expect, m.agreed = expect, agreed
		return req, st, err
	}
	return req, st, nil
}

// LastServed returns the index of the tape entry the latest Generate call
// used (answered, failed as recorded, or diverged from), or -1 when it used
// none (the tape was exhausted, or no call was made). Calls sent at once
// may be answered out of the tape's order (see Model); a caller that
// serialises its calls (the bridge) lays the run out in tape order with it.
func (m *Model) LastServed() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// before returns the last entry before i that a request used (not a user
// turn), -1 when none: the request a Recorder summarised entry i's against.
func (m *Model) before(i int) int {
	for k := i - 1; k >= 0; k-- {
		if m.entries[k].User == nil {
			return k
		}
	}
	return -1
}

// use marks entry i served and moves next past the served entries.
func (m *Model) use(i int) {
	m.served[i], m.last = true, i
	for m.next < len(m.entries) && m.served[m.next] {
		m.next++
	}
}

// check compares req with what entry e recorded: what the tape says was
// offered (the tape's block with the changes of earlier entries), the new
// messages, and, through the Matcher, the tools, last message and messages.
// Their differences are reported together as one *MismatchError.
func (m *Model) check(e *tape.Entry, req *llm.Request, st step) error {
	var fields []string
	var diff strings.Builder
	if m.track {
		if pair := [2]*tape.Offered{m.expect, st.offered}; pair != m.agreed {
			// As for the messages, the tape's redaction is applied first.
			f, d := compareOffered(m.expect, redactedOffered(m.expect, st.offered, m.red), m.file)
			fields = append(fields, f...)
			diff.WriteString(d)
			if len(f) == 0 {
				m.agreed = pair
			}
		}
		if e.Request != nil {
			f, d := compareNew(e.Request.New, st.added, req.Messages)
			switch rd := resentDiff(e.Request.New, st); {
			case len(f) == 0:
			case rd != "":
				// The answer served came back with its opaque parts changed.
				d = rd
			case st.thread:
				// Shown as what it is to the previous request: a rewrite.
				f, d = compareNew(e.Request.New, nil, req.Messages)
			}
			fields = append(fields, f...)
			diff.WriteString(d)
		}
	}
	if e.Request != nil {
		if err := m.matcher.Match(e.Request, req); err != nil {
			var me *MismatchError
			if len(fields) == 0 {
				return err
			}
			if !errors.As(err, &me) {
				return fmt.Errorf("%w; and %w", &MismatchError{Fields: fields, Diff: diff.String()}, err)
			}
			fields = append(fields, me.Fields...)
			diff.WriteString(me.Diff)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &MismatchError{Fields: fields, Diff: diff.String()}
}

// NextUser serves the next entry when it is a user turn, and reports false
// (using up nothing) when it is not or the tape is over. The message is a
// copy the caller may change.
func (m *Model) NextUser() (llm.Message, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.entries) || m.entries[m.next].User == nil {
		return llm.Message{}, false
	}
	u := m.entries[m.next].User.Clone()
	m.use(m.next)
	return u, true
}

// Calls returns how many model calls have reached the tape, including those
// that failed.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// Remaining returns how many entries (model calls and user turns) have not
// been served yet.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.remaining()
}

// remaining counts the entries not served; m.mu is held.
func (m *Model) remaining() int {
	n := 0
	for _, served := range m.served {
		if !served {
			n++
		}
	}
	return n
}

// Unused returns nil when every entry of the tape has been served, and
// otherwise an error wrapping ErrUnused that names the first entry never
// served: "tape has 15 entries; the run used 1 (tape[1] at line 40 was
// never served)". A run that ends before its tape does fails closed with it.
func (m *Model) Unused() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.next >= len(m.entries) {
		return nil
	}
	at := ""
	if line := m.entries[m.next].Line; line > 0 {
		at = " at line " + strconv.Itoa(line)
	}
	used := len(m.entries) - m.remaining()
	return &UnusedError{Entries: len(m.entries), Used: used, Line: m.entries[m.next].Line,
		text: fmt.Sprintf("tape has %d %s; the run used %d (tape[%d]%s was never served)", len(m.entries), plural(len(m.entries), "entry", "entries"), used, m.next, at)}
}

// UnusedError says that a run ended before its tape did. It matches
// ErrUnused with errors.Is.
type UnusedError struct {
	// Entries is the tape's length; Used how many entries were served.
	Entries, Used int
	// Line is the first unused entry's line; 0 if unknown.
	Line int
	text string
}

// Error returns "tape has N entries; the run used U (tape[U] at line L was
// never served)".
func (e *UnusedError) Error() string { return e.text }

// Is reports whether target is ErrUnused.
func (e *UnusedError) Is(target error) bool { return target == ErrUnused }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// filePrefix returns "file: " for the tape's file, or "" without one.
func (m *Model) filePrefix() string {
	if m.file == "" {
		return ""
	}
	return m.file + ": "
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
	// Turn is the 1-based number of the model call (failed ones included).
	Turn int
	// Entry is the index of the tape entry the request was checked against,
	// from 0: the N of tape[N].
	Entry int
	// File is the tape's file; empty if it did not come from one.
	File string
	// Line is the entry's line in File; 0 if unknown.
	Line int
	// Err is what the matcher reported.
	Err error
}

// Error returns "replay: tape[N] at file:line: request diverged from the
// recording: " and the matcher's explanation.
func (e *DivergenceError) Error() string {
	return fmt.Sprintf("replay: %s: %v: %v", tape.EntryAt(e.File, e.Entry, e.Line), ErrDiverged, e.Err)
}

// Is reports whether target is ErrDiverged.
func (e *DivergenceError) Is(target error) bool { return target == ErrDiverged }

// Unwrap returns the matcher's error.
func (e *DivergenceError) Unwrap() error { return e.Err }
