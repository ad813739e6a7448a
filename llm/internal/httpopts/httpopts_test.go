package httpopts

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

func TestClient(t *testing.T) {
	c := &http.Client{}
	for _, tc := range []struct {
		name string
		opts *llm.OpenOptions
		want *http.Client
		err  string
	}{
		{"nil options", nil, nil, ""},
		{"unset", &llm.OpenOptions{}, nil, ""},
		{"a client", &llm.OpenOptions{HTTPClient: c}, c, ""},
		{"a transport", &llm.OpenOptions{HTTPClient: http.DefaultTransport}, nil, "openai: OpenOptions.HTTPClient must be an *http.Client, got *http.Transport"},
		{"a nil client", &llm.OpenOptions{HTTPClient: (*http.Client)(nil)}, nil, ""},
	} {
		got, err := Client("openai", tc.opts)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: Client = %v, %v; want %v, %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestHeader(t *testing.T) {
	h := http.Header{"X-Team": {"evals"}}
	if got := Header(&llm.OpenOptions{Headers: h}); got.Get("X-Team") != "evals" {
		t.Errorf("Header = %v", got)
	}
	if Header(nil) != nil || Header(&llm.OpenOptions{}) != nil {
		t.Error("no headers gave some")
	}
}
