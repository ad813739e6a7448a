package redact

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
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

// TestRedactOffered: a known secret is redacted in every part of an
// offered block (a system prompt, a tool's name, description and
// parameters, the response schema); what holds none is kept as it is.
func TestRedactOffered(t *testing.T) {
	const key = "Zq7+xW/9kLmN-pRsT_uv42Hd"
	r := New(&Options{SecretEnv: []string{}, Secrets: []Secret{{Kind: "ORDERS_KEY", Value: key}}})
	o := &tape.Offered{
		System: []string{"You handle refunds.", "Call orders with the key " + key + "."},
		Tools: []llm.ToolDefinition{
			{Name: "lookup", Description: "Finds an order.", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "orders_" + key, Description: "Sends " + key + " as x-key.", Parameters: json.RawMessage(`{"default":"` + key + `"}`)},
		},
		ResponseSchema: json.RawMessage(`{"const":"` + key + `"}`),
	}
	r.RedactOffered(o)
	want := &tape.Offered{
		System: []string{"You handle refunds.", "Call orders with the key " + Redacted + "."},
		Tools: []llm.ToolDefinition{
			{Name: "lookup", Description: "Finds an order.", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "orders_" + Redacted, Description: "Sends " + Redacted + " as x-key.", Parameters: json.RawMessage(`{"default":"` + Redacted + `"}`)},
		},
		ResponseSchema: json.RawMessage(`{"const":"` + Redacted + `"}`),
	}
	if !reflect.DeepEqual(o, want) {
		t.Errorf("RedactOffered gave %+v, want %+v", o, want)
	}
	if got := r.Counts()["ORDERS_KEY"]; got != 5 {
		t.Errorf("Counts = %v, want ORDERS_KEY 5 times", r.Counts())
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
