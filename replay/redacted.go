package replay

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tape"
)

// A tape is redacted when it is recorded, while the run that replays it may
// still hold the secrets (the workspace has the key file, the tool reads
// it). Before a Model compares a request with its recorded summary, it
// applies the tape's redaction to the request: a text the tape holds with
// Redacted in it matches (redact.Matches) a live text that is the same
// with one secret's token in place of each Redacted, or, with the
// replay's policy (ModelOptions.Redactor), a value it knows
// (redact.Redactor.Matches); and a tool result answering a call whose
// recorded
// arguments were redacted (so the replay executed other arguments than the
// recording did) matches whatever it holds. Every other byte is still
// compared: replay stays closed.

// redactedCalls returns the IDs of the tool calls of entries whose
// recorded arguments hold Redacted; nil when there are none.
func redactedCalls(entries []tape.Entry) map[string]bool {
	var ids map[string]bool
	for _, e := range entries {
		if e.Response == nil {
			continue
		}
		for _, c := range e.Response.Message.ToolCalls {
			if strings.Contains(c.Arguments, redact.Redacted) {
				if ids == nil {
					ids = map[string]bool{}
				}
				ids[c.ID] = true
			}
		}
	}
	return ids
}

// applyRedaction returns req with each message text that the recorded
// summary rec holds redacted, and that matches it, replaced by the
// recorded text (see matchesRedacted and redactedCalls); req itself when
// nothing is replaced. req is never changed.
func applyRedaction(rec *tape.RequestSummary, req *llm.Request, calls map[string]bool, red *redact.Redactor) *llm.Request {
	var msgs []llm.Message // a copy of req.Messages, made on the first change
	fix := func(i int, want *llm.Message) {
		got := req.Messages[i]
		if msgs != nil {
			got = msgs[i]
		}
		fixed, changed := redactedMessage(*want, got, calls, red)
		if !changed {
			return
		}
		if msgs == nil {
			msgs = slices.Clone(req.Messages)
		}
		msgs[i] = fixed
	}
	for i := range min(len(rec.Messages), len(req.Messages)) {
		fix(i, &rec.Messages[i])
	}
	if rec.LastMessage != nil && len(req.Messages) > 0 {
		fix(len(req.Messages)-1, rec.LastMessage)
	}
	if msgs == nil {
		return req
	}
	out := *req
	out.Messages = msgs
	return &out
}

// redactedMessage returns got with the texts want holds redacted, and
// that match, taken from want.
func redactedMessage(want, got llm.Message, calls map[string]bool, red *redact.Redactor) (llm.Message, bool) {
	changed := false
	take := func(w string, g *string) {
		if *g != w && strings.Contains(w, redact.Redacted) && red.Matches(w, *g) {
			*g, changed = w, true
		}
	}
	if got.Role == llm.RoleTool && want.Role == llm.RoleTool && got.ToolCallID == want.ToolCallID && calls[got.ToolCallID] && got.Content != want.Content {
		got.Content, changed = want.Content, true
	}
	take(want.Content, &got.Content)
	take(want.ToolCallID, &got.ToolCallID)
	take(want.Name, &got.Name)
	if len(want.ToolCalls) > 0 && len(want.ToolCalls) == len(got.ToolCalls) {
		tc := slices.Clone(got.ToolCalls)
		before := changed
		changed = false
		for j := range tc {
			take(want.ToolCalls[j].ID, &tc[j].ID)
			take(want.ToolCalls[j].Name, &tc[j].Name)
			take(want.ToolCalls[j].Arguments, &tc[j].Arguments)
		}
		if changed {
			got.ToolCalls = tc
		}
		changed = changed || before
	}
	return got, changed
}

// applyRedactionNew does for the messages a request added (see
// RequestSummary.New), in place, what applyRedaction does for a request's
// messages: each added message takes the recorded texts it matches.
func applyRedactionNew(recorded, added []llm.Message, calls map[string]bool, red *redact.Redactor) {
	for i := range min(len(recorded), len(added)) {
		if fixed, changed := redactedMessage(recorded[i], added[i], calls, red); changed {
			added[i] = fixed
		}
	}
}

// redactedOffered returns got with each system prompt, tool description
// and schema that want (what the tape says was offered) holds redacted,
// and that matches it, replaced by want's: what applyRedaction does for
// the messages. got itself is returned when nothing is replaced; it is
// never changed.
func redactedOffered(want, got *tape.Offered, red *redact.Redactor) *tape.Offered {
	if empty(want) || got == nil {
		return got
	}
	var out *tape.Offered // a copy of got, made on the first change
	own := func() *tape.Offered {
		if out == nil {
			out = &tape.Offered{System: slices.Clone(got.System), Tools: slices.Clone(got.Tools), ResponseSchema: got.ResponseSchema, Params: got.Params, Line: got.Line}
		}
		return out
	}
	for i := range min(len(want.System), len(got.System)) {
		if w := want.System[i]; w != got.System[i] && strings.Contains(w, redact.Redacted) && red.Matches(w, got.System[i]) {
			own().System[i] = w
		}
	}
	for _, w := range want.Tools {
		i := slices.IndexFunc(got.Tools, func(t llm.ToolDefinition) bool { return t.Name == w.Name })
		if i < 0 {
			continue
		}
		g := got.Tools[i]
		if w.Description != g.Description && strings.Contains(w.Description, redact.Redacted) && red.Matches(w.Description, g.Description) {
			own().Tools[i].Description = w.Description
		}
		if bytes.Contains(w.Parameters, []byte(redact.Redacted)) && !jsonvalue.SameText(w.Parameters, g.Parameters) && matchesRedactedJSON(w.Parameters, g.Parameters, red) {
			own().Tools[i].Parameters = w.Parameters
		}
	}
	if w := want.ResponseSchema; bytes.Contains(w, []byte(redact.Redacted)) && len(got.ResponseSchema) > 0 && !jsonvalue.SameText(w, got.ResponseSchema) && matchesRedactedJSON(w, got.ResponseSchema, red) {
		own().ResponseSchema = w
	}
	params := false // out.Params is a copy of got's
	for _, k := range slices.Sorted(maps.Keys(want.Params)) {
		w, g := want.Params[k], got.Params[k]
		if g != nil && bytes.Contains(w, []byte(redact.Redacted)) && !jsonvalue.SameText(w, g) && matchesRedactedJSON(w, g, red) {
			o := own()
			if !params {
				o.Params, params = maps.Clone(got.Params), true
			}
			o.Params[k] = w
		}
	}
	if out == nil {
		return got
	}
	return out
}

// matchesRedactedJSON reports whether the JSON values want and got are
// equal with each string of want holding Redacted matching got's as
// redact.Matches does.
func matchesRedactedJSON(want, got []byte, red *redact.Redactor) bool {
	w, errW := jsonvalue.Decode(want)
	g, errG := jsonvalue.Decode(got)
	return errW == nil && errG == nil && matchesRedactedValue(w, g, red)
}

func matchesRedactedValue(w, g any, red *redact.Redactor) bool {
	switch w := w.(type) {
	case string:
		g, ok := g.(string)
		return ok && red.Matches(w, g)
	case map[string]any:
		g, ok := g.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			gv, ok := g[k]
			if !ok || !matchesRedactedValue(v, gv, red) {
				return false
			}
		}
		return true
	case []any:
		g, ok := g.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !matchesRedactedValue(w[i], g[i], red) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(w, g)
	}
}

// learnRedacted returns, as secrets, the values the Redacted of the tape's
// recorded texts stood for in what the run sent: each recorded system
// prompt, tool description and schema against the one sent now at the same
// place (by index, by tool name), and each recorded request message against
// the sent message at the same index. A value red (the rebase's policy)
// knows is red's to redact, never learned (redact.Redactor.Hidden); each
// value learned is one secret's token, as a replay matches a Redacted. The
// caller holds m.mu.
func (m *Model) learnRedacted(red *redact.Redactor) []redact.Secret {
	var out []redact.Secret
	learn := func(recorded, now string) {
		for _, v := range red.Hidden(recorded, now) {
			out = append(out, redact.Secret{Kind: "recorded as " + redact.Redacted, Value: v})
		}
	}
	learnOffered := func(rec, now *tape.Offered) {
		if rec == nil || now == nil {
			return
		}
		for i := range min(len(rec.System), len(now.System)) {
			learn(rec.System[i], now.System[i])
		}
		for _, rt := range rec.Tools {
			for _, nt := range now.Tools {
				if nt.Name == rt.Name {
					learn(rt.Description, nt.Description)
					learn(string(rt.Parameters), string(nt.Parameters))
				}
			}
		}
		learn(string(rec.ResponseSchema), string(now.ResponseSchema))
	}
	learnMessages := func(rec, now []llm.Message) {
		for i := range min(len(rec), len(now)) {
			learn(rec[i].Content, now[i].Content)
		}
	}
	learnOffered(m.offered, m.x.first)
	for i, e := range m.entries {
		st, served := m.rb.steps[i]
		req := m.rb.requests[i]
		if !served || e.Request == nil || req == nil {
			continue
		}
		learnOffered(e.Request.Offered, st.offered)
		learnMessages(e.Request.New, st.added)
		learnMessages(e.Request.Messages, req.Messages)
		if e.Request.LastMessage != nil {
			if last, ok := req.LastMessage(); ok {
				learn(e.Request.LastMessage.Content, last.Content)
			}
		}
	}
	return out
}
