package replay

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
	toolspkg "github.com/tapeloop/tapeloop/tools"
)

// ErrStale is wrapped by the error a Model in rebase mode returns when a
// recorded response no longer applies to the request the agent sends now:
// it calls a tool that is no longer offered, or its arguments fail the
// tool's current schema where they passed the recorded one. The entry must
// be recorded again. The error is a *StaleError.
var ErrStale = errors.New("the recorded response no longer applies; record the scenario again")

// StaleError says which entry's response no longer applies, and why.
type StaleError struct {
	// Entry is the index of the tape entry, from 0.
	Entry int
	// File is the tape's file; empty if it did not come from one.
	File string
	// Line is the entry's line in File; 0 if unknown.
	Line int
	// Err says why.
	Err error
}

// Error returns "replay: tape[N] at file:line: the recorded response no
// longer applies; ...: why".
func (e *StaleError) Error() string {
	return fmt.Sprintf("replay: %s: %v: %v", tape.EntryAt(e.File, e.Entry, e.Line), ErrStale, e.Err)
}

// Is reports whether target is ErrStale.
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// Unwrap returns the reason.
func (e *StaleError) Unwrap() error { return e.Err }

// rebase is what a Model in rebase mode learns from a run.
type rebase struct {
	steps    map[int]step         // by entry index: the request as followed
	requests map[int]*llm.Request // by entry index: the request as sent
	stale    *StaleError          // the first response that no longer applied
	schemas  sync.Map             // schema text -> *toolspkg.Schema or nil
}

// applies checks that e's recorded response still makes sense for req:
// every call names a tool req offers (unless the recording did not offer it
// either), and arguments that passed the recorded schema pass the current
// one. recorded is what the tape says was offered; nil parts are unknown.
func (rb *rebase) applies(e *tape.Entry, recorded *tape.Offered, req *llm.Request) error {
	if e.Response == nil {
		return nil
	}
	if err := sameResultKinds(e.Request, req); err != nil {
		return err
	}
	for i, c := range e.Response.Message.ToolCalls {
		var was *llm.ToolDefinition
		offeredThen := true // unknown: assume the recording offered it
		switch {
		case recorded != nil && recorded.Tools != nil:
			j := slices.IndexFunc(recorded.Tools, func(t llm.ToolDefinition) bool { return t.Name == c.Name })
			offeredThen = j >= 0
			if j >= 0 {
				was = &recorded.Tools[j]
			}
		case e.Request != nil && e.Request.Tools != nil:
			offeredThen = slices.Contains(e.Request.Tools, c.Name)
		}
		j := slices.IndexFunc(req.Tools, func(t llm.ToolDefinition) bool { return t.Name == c.Name })
		if j < 0 {
			if offeredThen {
				return fmt.Errorf("response.tool_calls[%d] calls %s, which the agent no longer offers", i, c.Name)
			}
			continue
		}
		now := req.Tools[j]
		if was == nil || len(now.Parameters) == 0 {
			continue // no recorded schema to compare with
		}
		args, err := jsonvalue.Decode([]byte(c.Arguments))
		if err != nil {
			continue // broken JSON: the loop's repair decides, as before
		}
		if rb.valid(was.Parameters, args) && !rb.valid(now.Parameters, args) {
			return fmt.Errorf("response.tool_calls[%d]: the arguments of %s %s passed the recorded schema but fail the current one", i, c.Name, c.Arguments)
		}
	}
	return nil
}

// sameResultKinds checks that each tool result the tape recorded in a
// request (its new messages, last message or whole list) is still of the
// same kind in req, a success or a failure: the recorded response was the
// model's answer to that kind, and a result that failed where it passed (or
// the other way round) makes it a different conversation, whatever the
// recorded answer says. A result whose text is unchanged is the same. A
// recorded result states its kind with is_error; one recorded before tapes
// did is a failure when its text is a tool failure's ("error (kind): ...").
func sameResultKinds(recorded *tape.RequestSummary, req *llm.Request) error {
	if recorded == nil {
		return nil
	}
	now := map[string]*llm.Message{}
	for i := range req.Messages {
		if m := &req.Messages[i]; m.Role == llm.RoleTool && m.ToolCallID != "" {
			now[m.ToolCallID] = m
		}
	}
	var was []llm.Message
	was = append(was, recorded.New...)
	if recorded.LastMessage != nil {
		was = append(was, *recorded.LastMessage)
	}
	was = append(was, recorded.Messages...)
	for _, w := range was {
		n := now[w.ToolCallID]
		if w.Role != llm.RoleTool || n == nil || n.Content == w.Content {
			continue
		}
		if failed, fails := w.IsError || isToolFailure(w.Content), n.IsError; failed != fails {
			kind := map[bool]string{false: "a success", true: "a failure"}
			return fmt.Errorf("the result of %s (%s) turned from %s into %s (now %q); the recorded answers after it were the model's answer to %s",
				w.ToolCallID, w.Name, kind[failed], kind[fails], clip(n.Content, 120), kind[failed])
		}
	}
	return nil
}

// isToolFailure reports whether a tool result's text is a failed call's as
// the tool runtime writes it (tools.Result's "error (kind): message").
func isToolFailure(content string) bool {
	kind, _, ok := strings.Cut(strings.TrimPrefix(content, "error ("), "): ")
	return ok && strings.HasPrefix(content, "error (") && kind != "" && !strings.ContainsAny(kind, " \n")
}

// clip returns s cut to at most n bytes, marked when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// valid reports whether v passes schema; a schema that is missing or does
// not compile passes everything.
func (rb *rebase) valid(schema []byte, v any) bool {
	if len(schema) == 0 {
		return true
	}
	key := string(schema)
	cached, ok := rb.schemas.Load(key)
	if !ok {
		compiled, _ := toolspkg.CompileSchema(schema)
		cached, _ = rb.schemas.LoadOrStore(key, compiled)
	}
	s := cached.(*toolspkg.Schema)
	return s == nil || len(s.Validate(v)) == 0
}

// cloneRequest returns a copy of req that shares nothing a caller may
// change.
func cloneRequest(req *llm.Request) *llm.Request {
	c := &llm.Request{Messages: llm.CloneMessages(req.Messages), Tools: tape.OfferedOf(req).Tools}
	c.ResponseSchema = slices.Clone(req.ResponseSchema)
	c.Params = cloneParams(req.Params)
	return c
}

// RebaseOptions configures Model.Rebased. A nil *RebaseOptions means all
// defaults.
type RebaseOptions struct {
	// All records every part of every request (the offered block, and per
	// model entry the offered changes and the new messages), pinning what
	// the tape did not state; false rewrites only the parts the tape states.
	All bool
	// Redactor redacts the requests before they are kept; nil means
	// redact.Default(), as a Recorder's default.
	Redactor *redact.Redactor
}

// Rebase is a tape whose request parts were restated from a run.
type Rebase struct {
	// Tape is the rebased tape: the recorded responses, errors and user
	// turns, with the requests as the run sent them.
	Tape *tape.Tape
	// Offered is set when the tape's offered block changed (or was added).
	Offered bool
	// Entries lists the indexes of the entries whose request changed (or
	// was added), in order.
	Entries []int
	// Learned are the values the tape's Redacted stood for in what the
	// run sent (redact.Redactor.Hidden), which the rebased tape redacts:
	// a caller replaying or printing the rebased tape redacts them too
	// (redact.Redactor.WithSecrets). Nil means none.
	Learned []redact.Secret
}

// Changed reports whether the rebase changed anything.
func (r *Rebase) Changed() bool { return r.Offered || len(r.Entries) > 0 }

// Rebased returns the model's tape with its request parts rewritten to
// what the run sent, after a run in rebase mode (ModelOptions.Rebase): the
// offered block and, per model entry served, the parts its request states
// (opts.All: every part). The requests are redacted as a Recorder redacts
// them, and every value a recorded Redacted stood for (redact.Hidden: one
// secret's token, as a replay matches it) is redacted too, so a rebase
// never un-redacts what the recording redacted. It fails with the *StaleError of the run when a recorded response
// no longer applied; a model not in rebase mode gives its tape unchanged.
func (m *Model) Rebased(opts *RebaseOptions) (*Rebase, error) {
	var o RebaseOptions
	if opts != nil {
		o = *opts
	}
	red := o.Redactor
	if red == nil {
		red = redact.Default()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := &Rebase{Tape: (&tape.Tape{File: m.file, Offered: m.offered, Entries: m.entries}).Clone()}
	if m.rb == nil || m.x.first == nil {
		return out, nil
	}
	if m.rb.stale != nil {
		return nil, m.rb.stale
	}
	// Never un-redact: what the recording redacted stays redacted where
	// the run sends it again, whether or not red knows it.
	if learned := m.learnRedacted(red); len(learned) > 0 {
		red, out.Learned = red.WithSecrets(learned), learned
	}
	t := out.Tape
	var stated *tape.Offered // the parts of the offered block the rebased tape states
	if m.offered != nil || o.All {
		now := block(restrict(m.x.first, m.offered, o.All))
		red.RedactOffered(now)
		if m.offered != nil {
			now.Line = m.offered.Line
			if now.Params["model"] != nil {
				// The answers kept are still the model's that answered.
				now.AnsweredBy = m.offered.AnsweredBy
			}
		}
		if !sameOffered(now, m.offered) {
			out.Offered = true
		}
		t.Offered, stated = now, now
	}
	current := m.x.first
	for i := range t.Entries {
		st, served := m.rb.steps[i]
		if !served {
			continue
		}
		var change *tape.Offered
		if stated != nil {
			change = changes(current, st.offered, stated).Clone()
		}
		current = st.offered
		old := t.Entries[i].Request
		if old == nil && !o.All && change == nil {
			continue
		}
		req := m.rb.requests[i]
		r := &tape.RequestSummary{Offered: change}
		if o.All || old != nil && old.New != nil {
			if st.added != nil {
				r.New = llm.CloneMessages(st.added)
			} else {
				r.Messages = llm.CloneMessages(req.Messages)
			}
		}
		if old != nil {
			full := tape.Summarize(req)
			if old.Tools != nil {
				r.Tools = full.Tools
			}
			if old.LastMessage != nil {
				r.LastMessage = full.LastMessage
				if r.LastMessage == nil {
					r.LastMessage = &llm.Message{}
				}
			}
			if old.Messages != nil {
				r.Messages = llm.CloneMessages(req.Messages)
				if r.Messages == nil {
					r.Messages = []llm.Message{}
				}
			}
			if old.Offered != nil && change == nil {
				// The change it recorded is no longer one: keep the parts it
				// stated, as they are now.
				r.Offered = restrict(st.offered, old.Offered, false)
			}
		}
		red.RedactEntry(&tape.Entry{Request: r, Response: &llm.Response{}})
		if old == nil || r.String() != old.String() {
			if old != nil && old.Offered != nil && r.Offered != nil {
				r.Offered.Line = old.Offered.Line
			}
			t.Entries[i].Request = r
			out.Entries = append(out.Entries, i)
		}
	}
	return out, nil
}

// restrict returns a copy of o holding only the parts stated records (all
// parts when all is set or stated is nil).
func restrict(o, stated *tape.Offered, all bool) *tape.Offered {
	c := o.Clone()
	if all || stated == nil {
		return c
	}
	if stated.System == nil {
		c.System = nil
	}
	if stated.Tools == nil {
		c.Tools = nil
	}
	if stated.ResponseSchema == nil {
		c.ResponseSchema = nil
	}
	if stated.Params == nil {
		c.Params = nil
	}
	if stated.Cache == nil {
		c.Cache = nil
	}
	return c
}

// sameOffered reports whether a and b state the same parts alike.
func sameOffered(a, b *tape.Offered) bool {
	if a == nil || b == nil {
		return a == b
	}
	return (a.System == nil) == (b.System == nil) && slices.Equal(a.System, b.System) &&
		(a.Tools == nil) == (b.Tools == nil) && sameTools(a.Tools, b.Tools) &&
		(a.ResponseSchema == nil) == (b.ResponseSchema == nil) && sameSchema(a.ResponseSchema, b.ResponseSchema) &&
		(a.Params == nil) == (b.Params == nil) && sameParams(a.Params, b.Params) &&
		(a.Cache == nil) == (b.Cache == nil) && slices.Equal(a.Cache, b.Cache)
}
