package redact

import (
	"bytes"
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
// a prompt's variables) is replaced as anywhere else. A Messages MCP
// server's authorization_token, which the request's decoder has already
// replaced (Members), is counted here, when it is kept, as "mcp
// authorization token", like every other redaction.
func (r *Redactor) redactParams(p map[string]json.RawMessage) {
	for k, v := range p {
		if n := redactedMembers(v, mcpToken); n > 0 {
			r.add("mcp authorization token", n)
		}
		if s := r.Redact(string(v)); s != string(v) {
			p[k] = json.RawMessage(s)
		}
	}
}

// mcpToken is the member of a Messages request's mcp_servers[] that holds
// the server's credential.
const mcpToken = "authorization_token"

// redactedMembers returns how many members named name, at any depth of the
// JSON value raw, hold Redacted; 0 when raw is not JSON.
func redactedMembers(raw json.RawMessage, name string) int {
	if !bytes.Contains(raw, []byte(name)) {
		return 0
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return 0
	}
	var count func(v any) int
	count = func(v any) int {
		n := 0
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == name && x == Redacted {
					n++
					continue
				}
				n += count(x)
			}
		case []any:
			for _, x := range v {
				n += count(x)
			}
		}
		return n
	}
	return count(v)
}
