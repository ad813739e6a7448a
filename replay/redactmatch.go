package replay

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// A tape is redacted when it is recorded, while the run that replays it may
// still hold the secrets (the workspace has the key file, the tool reads
// it). Before a Model compares a request with its recorded summary, it
// applies the tape's redaction to the request: a text the tape holds with
// Redacted in it matches a live text that is the same with any text in
// place of each Redacted, and a tool result answering a call whose recorded
// arguments were redacted (so the replay executed other arguments than the
// recording did) matches whatever it holds. Every other byte is still
// compared: replay stays closed.

// maxRedactedLen bounds the text one Redacted stands for when matched.
const maxRedactedLen = 4096

// MatchesRedacted reports whether actual is recorded with each Redacted of
// recorded standing for one secret (or none): what a text redacted when it
// was written (a tape, a golden) may hold when it is made again where the
// redaction knows less (an environment without the key). A secret is one
// token (no space, no line break) of at most 4096 bytes, or a PEM private
// key block; every byte around a Redacted is compared, so text added after
// a redacted key (a line of prompt, an insult in an answer) does not match.
func MatchesRedacted(recorded, actual string) bool {
	if !strings.Contains(recorded, Redacted) {
		return recorded == actual
	}
	parts := strings.Split(recorded, Redacted)
	if !strings.HasPrefix(actual, parts[0]) {
		return false
	}
	return matchSecrets(parts[1:], actual[len(parts[0]):])
}

// matchSecrets reports whether rest is a secret followed by parts[0], a
// secret followed by parts[1], and so on to the end of rest.
func matchSecrets(parts []string, rest string) bool {
	if len(parts) == 0 {
		return rest == ""
	}
	try := func(n int) bool {
		return strings.HasPrefix(rest[n:], parts[0]) && matchSecrets(parts[1:], rest[n+len(parts[0]):])
	}
	token := strings.IndexFunc(rest, unicode.IsSpace)
	if token < 0 {
		token = len(rest)
	}
	for n := range min(token, maxRedactedLen) + 1 {
		if try(n) {
			return true
		}
	}
	if strings.HasPrefix(rest, "-----BEGIN ") {
		if loc := pemPrivateKey().FindStringIndex(rest); loc != nil && loc[0] == 0 && try(loc[1]) {
			return true
		}
	}
	return false
}

// redactedCalls returns the IDs of the tool calls of entries whose
// recorded arguments hold Redacted; nil when there are none.
func redactedCalls(entries []tape.Entry) map[string]bool {
	var ids map[string]bool
	for _, e := range entries {
		if e.Response == nil {
			continue
		}
		for _, c := range e.Response.Message.ToolCalls {
			if strings.Contains(c.Arguments, Redacted) {
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
func applyRedaction(rec *tape.RequestSummary, req *llm.Request, calls map[string]bool) *llm.Request {
	var msgs []llm.Message // a copy of req.Messages, made on the first change
	fix := func(i int, want *llm.Message) {
		got := req.Messages[i]
		if msgs != nil {
			got = msgs[i]
		}
		fixed, changed := redactedMessage(*want, got, calls)
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
func redactedMessage(want, got llm.Message, calls map[string]bool) (llm.Message, bool) {
	changed := false
	take := func(w string, g *string) {
		if *g != w && strings.Contains(w, Redacted) && MatchesRedacted(w, *g) {
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
func applyRedactionNew(recorded, added []llm.Message, calls map[string]bool) {
	for i := range min(len(recorded), len(added)) {
		if fixed, changed := redactedMessage(recorded[i], added[i], calls); changed {
			added[i] = fixed
		}
	}
}

// redactedOffered returns got with each system prompt, tool description
// and schema that want (what the tape says was offered) holds redacted,
// and that matches it, replaced by want's: what applyRedaction does for
// the messages. got itself is returned when nothing is replaced; it is
// never changed.
func redactedOffered(want, got *tape.Offered) *tape.Offered {
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
		if w := want.System[i]; w != got.System[i] && strings.Contains(w, Redacted) && MatchesRedacted(w, got.System[i]) {
			own().System[i] = w
		}
	}
	for _, w := range want.Tools {
		i := slices.IndexFunc(got.Tools, func(t llm.ToolDefinition) bool { return t.Name == w.Name })
		if i < 0 {
			continue
		}
		g := got.Tools[i]
		if w.Description != g.Description && strings.Contains(w.Description, Redacted) && MatchesRedacted(w.Description, g.Description) {
			own().Tools[i].Description = w.Description
		}
		if bytes.Contains(w.Parameters, []byte(Redacted)) && !sameJSON(w.Parameters, g.Parameters) && matchesRedactedJSON(w.Parameters, g.Parameters) {
			own().Tools[i].Parameters = w.Parameters
		}
	}
	if w := want.ResponseSchema; bytes.Contains(w, []byte(Redacted)) && len(got.ResponseSchema) > 0 && !sameJSON(w, got.ResponseSchema) && matchesRedactedJSON(w, got.ResponseSchema) {
		own().ResponseSchema = w
	}
	if out == nil {
		return got
	}
	return out
}

// matchesRedactedJSON reports whether the JSON values want and got are
// equal with each string of want holding Redacted matching got's as
// MatchesRedacted does.
func matchesRedactedJSON(want, got []byte) bool {
	w, okW := decodeJSON(want)
	g, okG := decodeJSON(got)
	return okW && okG && matchesRedactedValue(w, g)
}

func matchesRedactedValue(w, g any) bool {
	switch w := w.(type) {
	case string:
		g, ok := g.(string)
		return ok && MatchesRedacted(w, g)
	case map[string]any:
		g, ok := g.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			gv, ok := g[k]
			if !ok || !matchesRedactedValue(v, gv) {
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
			if !matchesRedactedValue(w[i], g[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(w, g)
	}
}
