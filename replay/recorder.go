package replay

import (
	"context"
	"os"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
)

// RecorderOptions configures a Recorder. A nil *RecorderOptions means all
// defaults.
type RecorderOptions struct {
	// SecretEnv names the environment variables whose values are redacted
	// wherever they appear (values shorter than 8 bytes are ignored); nil
	// means OPENAI_API_KEY and ANTHROPIC_API_KEY, an empty non-nil slice none.
	SecretEnv []string
	// Getenv reads an environment variable; nil means os.Getenv.
	Getenv func(string) string
	// RecordMessages records each request's whole message list as well as
	// its tools and last message; false records tools and last message only.
	RecordMessages bool
	// Redact, when set, is applied to every recorded text after the built-in
	// redaction; nil means none.
	Redact func(string) string
}

// Recorder is an llm.Model that wraps another and records a tape of its
// calls: each request's summary and the response, or the provider error's
// text. Secrets are redacted as each call is recorded, before anything is
// kept: the values of RecorderOptions.SecretEnv, bearer tokens and common
// API key shapes, in message content (tool results included), tool-call
// arguments and error text. The caller still gets the model's own,
// unredacted response. It is safe for concurrent use.
type Recorder struct {
	model    llm.Model
	messages bool
	redactor *redactor

	mu      sync.Mutex
	entries []Entry
}

// NewRecorder returns a Recorder wrapping m. A nil opts means default options.
func NewRecorder(m llm.Model, opts *RecorderOptions) *Recorder {
	var o RecorderOptions
	if opts != nil {
		o = *opts
	}
	if o.SecretEnv == nil {
		o.SecretEnv = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return &Recorder{model: m, messages: o.RecordMessages, redactor: newRedactor(o.SecretEnv, o.Getenv, o.Redact)}
}

// Generate calls the wrapped model and records the call. A call that fails
// because ctx is done is not recorded; any other error is recorded as an
// error entry and returned unchanged.
func (r *Recorder) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	var sum *RequestSummary
	if r.messages {
		sum = summarizeAll(req)
	} else {
		sum = Summarize(req)
	}
	resp, err := r.model.Generate(ctx, req)
	var e Entry
	switch {
	case err != nil && ctx.Err() != nil:
		return resp, err
	case err != nil:
		e.Error = r.redactor.redact(err.Error())
		if e.Error == "" {
			e.Error = "error"
		}
	case resp == nil:
		e.Error = "model returned no response and no error"
	default:
		e.Response = cloneResponse(resp)
		e.Response.Message.Role = llm.RoleAssistant
	}
	e.Request = sum
	r.redactEntry(&e)
	r.mu.Lock()
	r.entries = append(r.entries, e)
	r.mu.Unlock()
	return resp, err
}

// Tape returns a copy of what has been recorded so far, already redacted.
// Its Name and File are empty.
func (r *Recorder) Tape() *Tape {
	r.mu.Lock()
	defer r.mu.Unlock()
	return (&Tape{Entries: r.entries}).Clone()
}

// redactEntry redacts the texts of e in place; e must own its messages.
func (r *Recorder) redactEntry(e *Entry) {
	if e.Response != nil {
		r.redactMessage(&e.Response.Message)
	}
	if s := e.Request; s != nil {
		if s.LastMessage != nil {
			r.redactMessage(s.LastMessage)
		}
		for i := range s.Messages {
			r.redactMessage(&s.Messages[i])
		}
	}
}

func (r *Recorder) redactMessage(m *llm.Message) {
	m.Content = r.redactor.redact(m.Content)
	for i := range m.ToolCalls {
		m.ToolCalls[i].Arguments = r.redactor.redact(m.ToolCalls[i].Arguments)
	}
}
