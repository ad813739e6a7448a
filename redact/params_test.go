package redact

import (
	"encoding/json"
	"testing"

	"github.com/tapeloop/tapeloop/tape"
)

// TestMembers: the value of each member of the names given, at any depth,
// becomes Redacted; a null one stays null; a value holding none, or that
// is not JSON, is returned as it is.
func TestMembers(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"one server", `[{"type":"url","url":"https://a.example/sse","authorization_token":"tok-123"}]`,
			`[{"authorization_token":"[REDACTED]","type":"url","url":"https://a.example/sse"}]`},
		{"nested and several", `{"servers":[{"authorization_token":"a"},{"authorization_token":{"v":"b"}}]}`,
			`{"servers":[{"authorization_token":"[REDACTED]"},{"authorization_token":"[REDACTED]"}]}`},
		{"null stays", `[{"name":"x","authorization_token":null}]`, `[{"name":"x","authorization_token":null}]`},
		{"none: as sent", `[{"url":"https://a.example/sse",  "n": 1.50}]`, `[{"url":"https://a.example/sse",  "n": 1.50}]`},
		{"numbers kept", `[{"authorization_token":"t","n":1.50,"big":9007199254740993}]`, `[{"authorization_token":"[REDACTED]","big":9007199254740993,"n":1.50}]`},
		{"not JSON", `[{"authorization_token":"t"`, `[{"authorization_token":"t"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := string(Members(json.RawMessage(c.in), "authorization_token")); got != c.want {
				t.Errorf("Members(%s) = %s, want %s", c.in, got, c.want)
			}
		})
	}
}

// TestRedactOfferedParams: a known secret in a pinned request parameter
// is redacted in it, as in the rest of the offered block.
func TestRedactOfferedParams(t *testing.T) {
	r := New(&Options{Environ: []string{"DOCS_TOKEN=docs-secret-0123456789"}})
	o := &tape.Offered{Params: map[string]json.RawMessage{"mcp_servers": json.RawMessage(`[{"url":"https://a.example/sse?key=docs-secret-0123456789"}]`)}}
	r.RedactOffered(o)
	if got, want := string(o.Params["mcp_servers"]), `[{"url":"https://a.example/sse?key=[REDACTED]"}]`; got != want {
		t.Errorf("params after RedactOffered: %s, want %s", got, want)
	}
}

// TestRedactOfferedCountsMCPTokens: each MCP server credential the
// request's decoder replaced (Members), at any depth of a parameter, is
// counted once as "mcp authorization token"; a null one was not sent and
// is not counted, and the parameters are kept as they are.
func TestRedactOfferedCountsMCPTokens(t *testing.T) {
	servers := `[{"type":"url","url":"https://a.example/sse","authorization_token":"[REDACTED]"},` +
		`{"type":"url","url":"https://b.example/sse","authorization_token":null}]`
	nested := `{"group":{"servers":[{"authorization_token":"[REDACTED]"}]}}`
	r := New(&Options{SecretEnv: []string{}})
	o := &tape.Offered{Params: map[string]json.RawMessage{"mcp_servers": json.RawMessage(servers), "extra": json.RawMessage(nested)}}
	r.RedactOffered(o)
	if got := r.Counts(); len(got) != 1 || got["mcp authorization token"] != 2 {
		t.Errorf("Counts = %v, want map[mcp authorization token:2]", got)
	}
	if string(o.Params["mcp_servers"]) != servers || string(o.Params["extra"]) != nested {
		t.Errorf("params changed: %s", o.Params)
	}
}
