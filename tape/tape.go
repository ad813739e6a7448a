package tape

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// Format is the only format version a standalone tape file may declare.
const Format = "tapeloop/v1"

// MaxCallsPerResponse is the most tool calls one recorded response may hold;
// a tape with more is refused when it is decoded. It is
// llm.MaxCallsPerResponse, the limit the agent loop puts on live responses.
const MaxCallsPerResponse = llm.MaxCallsPerResponse

// MaxFileSize is the largest tape input Decode and Load accept, in bytes.
const MaxFileSize = 64 << 20

// ErrFormat is wrapped by every error about a tape's contents: bad YAML, an
// unknown key, a wrong type, a missing field, an invalid role or an unknown
// format version. The error is a *fileerr.Error of this kind (reached with
// errors.As), carrying the file, line and key.
var ErrFormat = errors.New("invalid tape")

// Tape is a recorded transcript of a run's model calls. The zero Tape has no
// entries: a replay.Model replaying it answers every request with
// replay.ErrTapeExhausted.
type Tape struct {
	// Name is the tape's optional name; empty means unnamed.
	Name string
	// File is the file the tape was loaded from, used in error messages;
	// empty means it did not come from a file. It is not encoded.
	File string
	// Offered is what the first request offered the model (system prompts
	// and tools), the tape's `offered:` block; each later request is
	// checked against it, as changed by the requests of earlier entries
	// (RequestSummary.Offered). Nil means not recorded, and not checked.
	Offered *Offered
	// Entries holds one entry per model call, in order.
	Entries []Entry
	// Verdicts are the recorded judgements of the scenario's model-graded
	// rubrics (expect.judge), the `judge:` section; nil means none.
	Verdicts []Verdict
}

// Entry is one recorded model call, or a user turn. Exactly one of Response,
// Error and User is set.
type Entry struct {
	// Response is what the model answered; its Message role is always
	// assistant. Nil means the call failed (see Error) or the entry is a user
	// turn (see User).
	Response *llm.Response
	// User is the user's next message: when a run ends with a final text
	// answer and the next entry is a user turn, the conversation goes on
	// with it. Its role is always user. Nil means the entry is a model call.
	User *llm.Message
	// Request summarises the request that was sent; nil means it was not
	// recorded and replay does not check it.
	Request *RequestSummary
	// Error is the text of the provider error the call failed with; empty
	// means the call succeeded.
	Error string
	// ErrorKind is the kind of the recorded provider error. Replay returns
	// an *llm.ProviderError of this kind (with ErrorStatus and RetryAfter),
	// so the loop's model-retry policy treats it as it treated the live
	// failure. Empty replays an error of no kind, which is never retried.
	ErrorKind llm.ErrorKind
	// ErrorStatus is the HTTP status of the recorded error; 0 means none.
	ErrorStatus int
	// RetryAfter is the Retry-After the server sent with the error; 0 means
	// none.
	RetryAfter time.Duration
	// Line is the entry's line in its source file; 0 if not from a file.
	// It is not encoded.
	Line int
}

// RequestSummary is what a tape records about a request. A nil field was not
// recorded and is not checked on replay; a non-nil empty Tools, New or
// Messages records that the request had none.
type RequestSummary struct {
	// Offered records what this request offered (system prompts, tools)
	// where it differs from what the requests before it offered (the
	// tape's Offered, changed by earlier entries); later requests are
	// checked against it too. Nil means no change recorded.
	Offered *Offered
	// New holds the messages the request added to the conversation since
	// the previous request: the user's turn, the tool results with their
	// call ids. The assistant message answering the previous request is left
	// out when it is that recorded response unchanged. Nil means not
	// recorded.
	New []llm.Message
	// Tools holds the names of the offered tools, sorted; nil means not recorded.
	Tools []string
	// LastMessage is the request's last message; nil means not recorded.
	LastMessage *llm.Message
	// Messages is the whole message list; nil means not recorded.
	Messages []llm.Message
}

// Summarize returns the default recording of req: the sorted names of the
// offered tools and the last message. A nil req gives an empty summary.
func Summarize(req *llm.Request) *RequestSummary {
	s := &RequestSummary{Tools: []string{}}
	if req == nil {
		return s
	}
	s.Tools = req.ToolNames()
	slices.Sort(s.Tools)
	if last, ok := req.LastMessage(); ok {
		last = last.Clone()
		s.LastMessage = &last
	}
	return s
}

// Clone returns a deep copy of t; a nil t gives nil.
func (t *Tape) Clone() *Tape {
	if t == nil {
		return nil
	}
	c := &Tape{Name: t.Name, File: t.File, Offered: t.Offered.Clone()}
	for _, v := range t.Verdicts {
		c.Verdicts = append(c.Verdicts, v.Clone())
	}
	if t.Entries != nil {
		c.Entries = make([]Entry, len(t.Entries))
		for i, e := range t.Entries {
			c.Entries[i] = e.Clone()
		}
	}
	return c
}

// Clone returns a deep copy of e.
func (e Entry) Clone() Entry {
	e.Response = e.Response.Clone()
	e.Request = e.Request.Clone()
	if e.User != nil {
		u := e.User.Clone()
		e.User = &u
	}
	return e
}

// Clone returns a deep copy of s; a nil s gives nil.
func (s *RequestSummary) Clone() *RequestSummary {
	if s == nil {
		return nil
	}
	c := &RequestSummary{Offered: s.Offered.Clone(), New: llm.CloneMessages(s.New), Tools: slices.Clone(s.Tools), Messages: llm.CloneMessages(s.Messages)}
	if s.LastMessage != nil {
		m := s.LastMessage.Clone()
		c.LastMessage = &m
	}
	return c
}

// EntryAt names entry i of a tape for an error: "tape[i] at file:line", or
// what of file and line is known (line 0 and file "" are unknown).
func EntryAt(file string, i, line int) string {
	at := "tape[" + strconv.Itoa(i) + "]"
	switch {
	case file != "" && line > 0:
		return at + " at " + file + ":" + strconv.Itoa(line)
	case line > 0:
		return at + " at line " + strconv.Itoa(line)
	case file != "":
		return at + " of " + file
	}
	return at
}
