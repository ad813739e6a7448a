package redact

import (
	"encoding/json"
	"slices"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
)

// Members returns the JSON value raw with the value of every object
// member named one of names, at any depth, replaced by the string
// Redacted: a credential a request carries as data, such as a Messages
// request's mcp_servers[].authorization_token, which no known value or
// key shape may find. A member whose value is null stays null, so that
// whether a credential was sent is still seen. raw itself is returned when
// it holds no such member or is not JSON (the caller refuses it); object
// keys are then sorted and everything else kept as sent.
func Members(raw json.RawMessage, names ...string) json.RawMessage {
	v, err := jsonvalue.Decode(raw)
	if err != nil || !replaceMembers(v, names) {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// replaceMembers replaces in place, in the decoded JSON value v, the
// value of each member named one of names; it reports whether it
// replaced one.
func replaceMembers(v any, names []string) bool {
	found := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if slices.Contains(names, k) && x != nil {
				v[k], found = Redacted, true
				continue
			}
			found = replaceMembers(x, names) || found
		}
	case []any:
		for _, x := range v {
			found = replaceMembers(x, names) || found
		}
	}
	return found
}

// redactParams redacts each request parameter of p in place, as JSON
// text: a known secret or key shape in a pinned parameter (a URL's query,
// a prompt's variables) is replaced as anywhere else.
func (r *Redactor) redactParams(p map[string]json.RawMessage) {
	for k, v := range p {
		if s := r.Redact(string(v)); s != string(v) {
			p[k] = json.RawMessage(s)
		}
	}
}
