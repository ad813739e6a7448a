package wire

import (
	"encoding/json"
	"net/url"
	"testing"
)

// TestReplaceModel: only the top-level model's value changes, every other
// byte (spacing, key order, a nested "model") stays.
func TestReplaceModel(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"model":"gpt-4.1","temperature":2}`, `{"model":"gpt-4.1-mini","temperature":2}`},
		{"{ \"messages\": [{\"model\": \"x\"}],\n  \"model\" :  \"gpt-4.1\" }", "{ \"messages\": [{\"model\": \"x\"}],\n  \"model\" :  \"gpt-4.1-mini\" }"},
		{`{"model":"a","model":"b"}`, `{"model":"gpt-4.1-mini","model":"gpt-4.1-mini"}`},
	}
	for _, c := range cases {
		got, err := replaceModel([]byte(c.in), "gpt-4.1-mini")
		if err != nil || string(got) != c.want {
			t.Errorf("replaceModel(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	// A name Go would quote otherwise than JSON (a control character) is
	// still written as a JSON string.
	got, err := replaceModel([]byte(`{"model":"a"}`), "m\x7f\x01")
	var body struct{ Model string }
	if err != nil || json.Unmarshal(got, &body) != nil || body.Model != "m\x7f\x01" {
		t.Errorf("replaceModel with a control character = %q, %v; want JSON naming it", got, err)
	}
	for _, bad := range []string{`[]`, `{"messages":[]}`, `{"model":`} {
		if _, err := replaceModel([]byte(bad), "m"); err == nil {
			t.Errorf("replaceModel(%s): no error", bad)
		}
	}
}

// TestForwardURL: the agent's path after the root its SDK appends to
// goes after the vendor's root; credential parameters are the vendor's.
func TestForwardURL(t *testing.T) {
	cases := []struct {
		f                Format
		base, path, want string
	}{
		{OpenAI, "https://api.openai.com/v1", "/v1/chat/completions", "https://api.openai.com/v1/chat/completions"},
		{OpenAI, "https://openrouter.ai/api/v1/", "/v1/chat/completions", "https://openrouter.ai/api/v1/chat/completions"},
		{OpenAI, "http://localhost:8000/v1", "/chat/completions", "http://localhost:8000/v1/chat/completions"},
		{Anthropic, "https://api.anthropic.com", "/v1/messages", "https://api.anthropic.com/v1/messages"},
		{Anthropic, "https://gateway.example/anthropic", "/v1/messages", "https://gateway.example/anthropic/v1/messages"},
		// The root is dropped only as a whole path segment.
		{OpenAI, "https://api.openai.com/v1", "/v1", "https://api.openai.com/v1"},
		{OpenAI, "https://api.openai.com/v1", "/v1beta/chat/completions", "https://api.openai.com/v1/v1beta/chat/completions"},
	}
	for _, c := range cases {
		got, err := forwardURL(c.f, c.base, c.path, url.Values{"beta": {"true"}}, nil)
		if err != nil || got != c.want+"?beta=true" {
			t.Errorf("%s %s + %s = %s, %v; want %s?beta=true", c.f, c.base, c.path, got, err, c.want)
		}
	}
	if _, err := forwardURL(OpenAI, "localhost:8000", "/v1/chat/completions", nil, nil); err == nil {
		t.Error("a base URL without a scheme: no error")
	}
}
