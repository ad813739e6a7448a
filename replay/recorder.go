package replay

import (
	"context"
	"errors"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
)

// RecorderOptions configures a Recorder. A nil *RecorderOptions means all
// defaults.
type RecorderOptions struct {
	// Redactor redacts what is recorded; nil means a Redactor built from
	// SecretEnv, Getenv and Redact.
	Redactor *Redactor
	// SecretEnv names the environment variables whose values are redacted
	// wherever they appear (values shorter than 8 bytes are ignored); nil
	// means DefaultSecretEnv, an empty non-nil slice none. Unused when
	// Redactor is set.
	SecretEnv []string
	// Getenv reads an environment variable; nil means os.Getenv. Unused
	// when Redactor is set.
	Getenv func(string) string
	// RecordMessages records each request's whole message list as well as
	// its tools and last message; false records tools and last message only.
	RecordMessages bool
	// Redact, when set, is applied to every recorded text after the built-in
	// redaction; nil means none. Unused when Redactor is set.
	Redact func(string) string
}

// Recorder is an llm.Model that wraps another and records a tape of its
// calls: each request's summary and the response, or the provider error's
// text. Every string of an entry is redacted (see Redactor) as the call is
// recorded, before anything is kept. The caller still gets the model's own,
// unredacted response. It is safe for concurrent use.
type Recorder struct {
	model    llm.Model
	messages bool
	redactor *Redactor

	mu      sync.Mutex
	entries []Entry
}

// NewRecorder returns a Recorder wrapping m. A nil opts means default options.
func NewRecorder(m llm.Model, opts *RecorderOptions) *Recorder {
	var o RecorderOptions
	if opts != nil {
		o = *opts
	}
	r := o.Redactor
	if r == nil {
		r = NewRedactor(&RedactorOptions{SecretEnv: o.SecretEnv, Getenv: o.Getenv, Extra: o.Redact})
	}
	return &Recorder{model: m, messages: o.RecordMessages, redactor: r}
}

// Redactions returns how many secrets of each kind have been redacted from
// the recording (see Redactor.Counts); never the values.
func (r *Recorder) Redactions() map[string]int { return r.redactor.Counts() }

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
		e.Response = cloneResponse(resp)
		e.Response.Message.Role = llm.RoleAssistant
	}
	e.Request = sum
	r.redactor.RedactEntry(&e)
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
