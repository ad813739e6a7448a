package replay

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// RecorderOptions configures a Recorder. A nil *RecorderOptions means all
// defaults.
type RecorderOptions struct {
	// Redactor redacts what is recorded; nil means redact.Default(), the
	// policy for the process's environment.
	Redactor *redact.Redactor
	// RecordMessages records each request's whole message list, tool names
	// and last message as well; false records, beside the tape's offered
	// block, only what each request changed: what it offered when that
	// changed, and the messages it added (the whole list when it rewrote
	// the conversation instead).
	RecordMessages bool
}

// Recorder is an llm.Model that wraps another and records a tape of its
// calls: what the first request offered (system prompts, tools with their
// descriptions and schemas) as the tape's Offered, and per call what its
// request changed (tape.RequestSummary.Offered and New) and the
// response, or the provider error's text. Every string of an entry is redacted (see redact.Redactor) as the call is
// recorded, before anything is kept. The caller still gets the model's own,
// unredacted response. It is safe for concurrent use.
type Recorder struct {
	model    llm.Model
	messages bool
	redactor *redact.Redactor

	mu      sync.Mutex
	entries []tape.Entry
	x       exchange
	offered *tape.Offered // the first request's, redacted
}

// NewRecorder returns a Recorder wrapping m. A nil opts means default options.
func NewRecorder(m llm.Model, opts *RecorderOptions) *Recorder {
	var o RecorderOptions
	if opts != nil {
		o = *opts
	}
	r := o.Redactor
	if r == nil {
		r = redact.Default()
	}
	return &Recorder{model: m, messages: o.RecordMessages, redactor: r}
}

// Redactor returns the redactor the recording goes through, to redact
// what is written beside it (a conversation's user turns) the same way.
func (r *Recorder) Redactor() *redact.Redactor { return r.redactor }

// Redactions returns how many secrets of each kind have been redacted from
// the recording (see redact.Redactor.Counts); never the values.
func (r *Recorder) Redactions() map[string]int { return r.redactor.Counts() }

// Generate calls the wrapped model and records the call. A call that fails
// because ctx is done is not recorded; any other error is recorded as an
// error entry and returned unchanged. A request offering two tools of one
// name is neither sent nor recorded: the error wraps ErrDuplicateTool.
func (r *Recorder) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if req == nil {
		req = &llm.Request{}
	}
	if err := duplicateTool(req.Tools); err != nil {
		return nil, fmt.Errorf("replay: record: %w", err)
	}
	r.mu.Lock()
	sum := r.follow(req).recorded(req, r.messages)
	r.mu.Unlock()
	resp, err := r.model.Generate(ctx, req)
	answeredBy := llm.AnsweredByOf(ctx)
	if fw := wire.ForwardedOf(ctx); fw != nil && fw.Sent != "" {
		answeredBy = fw.Sent
	}
	if answeredBy != "" {
		r.mu.Lock()
		if r.offered != nil && r.offered.AnsweredBy == "" {
			r.offered.AnsweredBy = answeredBy
		}
		r.mu.Unlock()
	}
	var e tape.Entry
	switch {
	case err != nil && ctx.Err() != nil:
		return resp, err
	case err != nil:
		e.Error = err.Error()
		var pe *llm.ProviderError
		if errors.As(err, &pe) {
			e.ErrorKind, e.ErrorStatus, e.RetryAfter = pe.Kind, pe.StatusCode, pe.RetryAfter
			if pe.Message != "" {
				e.Error = pe.Message
			}
		}
		if e.Error == "" {
			e.Error = "error"
		}
	case resp == nil:
		e.Error = "model returned no response and no error"
	default:
		e.Response = resp.Clone()
		e.Response.Message.Role = llm.RoleAssistant
	}
	e.Request = sum
	r.redactor.RedactEntry(&e)
	r.mu.Lock()
	r.entries = append(r.entries, e)
	if err == nil && resp != nil {
		r.x.answered(resp)
	}
	r.mu.Unlock()
	return resp, err
}

// follow makes req the latest request and keeps what the first one
// offered; r.mu is held.
func (r *Recorder) follow(req *llm.Request) step {
	st := r.x.next(req)
	if r.offered == nil {
		r.offered = block(st.offered.Clone())
		r.redactor.RedactOffered(r.offered)
	}
	return st
}

// Follow tells r about a call that was answered elsewhere (a tape entry
// replayed before the recording goes on live), without recording it: the
// next recorded request is summarised relative to req, and when req is the
// first, what it offered is the tape's Offered. A nil resp means the call
// failed.
func (r *Recorder) Follow(req *llm.Request, resp *llm.Response) {
	if req == nil {
		req = &llm.Request{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.follow(req)
	r.x.answered(resp)
}

// Tape returns a copy of what has been recorded so far, already redacted:
// the first request's offered block and the entries. Its Name and File are
// empty.
func (r *Recorder) Tape() *tape.Tape {
	r.mu.Lock()
	defer r.mu.Unlock()
	return (&tape.Tape{Offered: r.offered, Entries: r.entries}).Clone()
}
