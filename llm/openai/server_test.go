package openai_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/wiretest"
	_ "github.com/tapeloop/tapeloop/llm/openai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply, request and wire are the shared scripted server's.
type (
	reply   = wiretest.Reply
	request = wiretest.Request
)

// wire is the shared scripted server with this package's model opener.
type wire struct{ *wiretest.Server }

func newWire(t testing.TB, replies ...reply) *wire {
	t.Helper()
	return &wire{wiretest.New(t, replies...)}
}

func (w *wire) request(n int) request { return w.Request(n) }

func (w *wire) count() int { return w.Count() }

// model opens a model of the dialect named provider against w.
func (w *wire) model(t testing.TB, provider string, mod func(*llm.OpenOptions)) llm.Model {
	t.Helper()
	opts := &llm.OpenOptions{APIKey: "sk-test", BaseURL: w.URL + "/v1", HTTPClient: w.Client(), Getenv: func(string) string { return "" }}
	if mod != nil {
		mod(opts)
	}
	m, err := llm.Open(t.Context(), provider+"/gpt-4.1-mini", opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
