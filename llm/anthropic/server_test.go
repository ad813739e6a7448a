package anthropic_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/anthropic"
	"github.com/tapeloop/tapeloop/llm/internal/wiretest"
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

// model opens claude-sonnet-4-5 against w.
func (w *wire) model(t testing.TB, mod func(*llm.OpenOptions)) llm.Model {
	t.Helper()
	opts := &llm.OpenOptions{APIKey: "sk-ant-test", BaseURL: w.URL, HTTPClient: w.Client(), Getenv: func(string) string { return "" }}
	if mod != nil {
		mod(opts)
	}
	m, err := llm.Open(t.Context(), "anthropic/claude-sonnet-4-5", opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
