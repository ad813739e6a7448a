package harness

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/llm"
	_ "github.com/tapeloop/tapeloop/llm/builtin"
	"github.com/tapeloop/tapeloop/llm/faults"
	"github.com/tapeloop/tapeloop/llm/wire"
	"github.com/tapeloop/tapeloop/replay"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tape"
)

// chatServer is a scripted model server: it answers the n-th request it
// receives with the n-th scripted message, in the request's wire format
// (Chat Completions or Messages, streamed or not, encoded by llm/wire; a
// call's arguments come in fragments).
type chatServer struct {
	t      *testing.T
	mu     sync.Mutex
	script []llm.Message
	served int
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	call, err := wire.Decode(r.URL.Path, body)
	if err != nil {
		(&wire.Error{Status: 400, Message: err.Error()}).Write(w, wire.OpenAI)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.served >= len(s.script) {
		s.t.Errorf("request %d has no scripted answer", s.served+1)
		(&wire.Error{Status: 500, Message: "no answer scripted"}).Write(w, call.Format)
		return
	}
	msg := s.script[s.served]
	s.served++
	wire.WriteResponse(w, call, &llm.Response{Message: msg, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, &wire.Options{Chunk: 8})
}

var localURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

func text(s string) llm.Message { return llm.AssistantMessage(s) }

func call(id, name, args string) llm.Message {
	return llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args})
}

// TestFaultScenariosLive runs each bundled faults/ scenario live: an
// OpenAI-compatible httptest server plays the model, the scenario's faults:
// are applied by a faults.Transport in front of the official SDK, and a
// replay.Recorder records what the loop saw. The recording must equal the
// scenario's tape entry for entry (so the bundled tapes are what a live run
// records), and the scenario's expectations must hold live as in replay.
func TestFaultScenariosLive(t *testing.T) {
	read := call("call_1", "read_file", `{"path":"notes.txt"}`)
	hello := text("It says hello.")
	cases := []struct {
		name   string
		script []llm.Message // what the server answers, request by request
	}{
		// The 429 never reaches the server.
		{"rate-limited", []llm.Message{read, hello}},
		{"server-error", []llm.Message{read, hello}},
		// The cut stream and the error event consume an answer each.
		{"stream-cut", []llm.Message{read, read, hello}},
		{"stream-error", []llm.Message{read, read, hello}},
		{"timeout", []llm.Message{read, hello}},
		{"arguments-truncated", []llm.Message{
			call("call_1", "write_file", `{"content": "hello\nworld\n", "path": "notes.txt"}`),
			call("call_2", "write_file", `{"content": "hello\nworld\n", "path": "notes.txt"}`),
			text("notes.txt now says hello and world."),
		}},
		{"retries-exhausted", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenario.Load("../scenarios/faults/" + c.name + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(&chatServer{t: t, script: c.script})
			defer srv.Close()
			ft := &faults.Transport{Base: srv.Client().Transport, Faults: s.Faults}
			model, err := llm.Open(context.Background(), "openai-compatible/test", &llm.OpenOptions{
				BaseURL: srv.URL, APIKey: "sk-test", HTTPClient: &http.Client{Transport: ft},
			})
			if err != nil {
				t.Fatal(err)
			}
			rec := replay.NewRecorder(model, nil)
			o, err := Run(context.Background(), s, &RunOptions{Model: rec, Clock: clock.NewVirtual(clock.Epoch)})
			if err != nil {
				t.Fatal(err)
			}
			if len(ft.Applied()) != len(s.Faults) {
				t.Errorf("applied %v, want every fault of %v", ft.Applied(), s.Faults)
			}
			if fails := checkAll(s, o); len(fails) > 0 {
				t.Errorf("live, the expectations fail:\n%s", strings.Join(fails, "\n"))
			}
			got, want := rec.Tape().Entries, s.Tape
			for i := range got {
				// The server's port differs from run to run.
				got[i].Error = localURL.ReplaceAllString(got[i].Error, "http://127.0.0.1:PORT")
			}
			if len(got) != len(want) {
				t.Fatalf("recorded %d entries, the tape has %d:\n%s", len(got), len(want), describe(got))
			}
			for i := range want {
				if g, w := describe(got[i:i+1]), describe(want[i:i+1]); g != w {
					t.Errorf("entry %d:\nrecorded %s\ntape     %s", i, g, w)
				}
			}
		})
	}
}

// describe renders entries for comparison: typed errors by kind, status,
// Retry-After and message; responses by content and calls.
func describe(entries []tape.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		if e.Response == nil {
			fmt.Fprintf(&b, "error{%s %d %v %q} ", e.ErrorKind, e.ErrorStatus, e.RetryAfter, e.Error)
			continue
		}
		fmt.Fprintf(&b, "response{%q", e.Response.Message.Content)
		for _, c := range e.Response.Message.ToolCalls {
			fmt.Fprintf(&b, " %s %s %s", c.ID, c.Name, c.Arguments)
		}
		b.WriteString("} ")
	}
	return b.String()
}

// TestFaultScenariosLiveAnthropic runs the faults that speak the vendor's
// dialect (error bodies, the error event in a stream, cut streams, cut
// input_json_delta arguments) against an Anthropic Messages server through
// the official Anthropic SDK: the loop sees the same kinds of failure as
// with OpenAI (the messages are the provider's own, so they are not
// compared), and the expectations hold.
func TestFaultScenariosLiveAnthropic(t *testing.T) {
	read := call("toolu_1", "read_file", `{"path":"notes.txt"}`)
	hello := text("It says hello.")
	cases := []struct {
		name   string
		script []llm.Message
	}{
		{"rate-limited", []llm.Message{read, hello}},
		{"server-error", []llm.Message{read, hello}},
		{"stream-cut", []llm.Message{read, read, hello}},
		{"stream-error", []llm.Message{read, read, hello}},
		{"timeout", []llm.Message{read, hello}},
		{"retries-exhausted", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenario.Load("../scenarios/faults/" + c.name + ".yaml")
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(&chatServer{t: t, script: c.script})
			defer srv.Close()
			model, err := llm.Open(context.Background(), "anthropic/claude-test", &llm.OpenOptions{
				BaseURL: srv.URL, APIKey: "sk-ant-test", HTTPClient: &http.Client{Transport: &faults.Transport{Base: srv.Client().Transport, Faults: s.Faults}},
			})
			if err != nil {
				t.Fatal(err)
			}
			rec := replay.NewRecorder(model, nil)
			o, err := Run(context.Background(), s, &RunOptions{Model: rec, Clock: clock.NewVirtual(clock.Epoch)})
			if err != nil {
				t.Fatal(err)
			}
			if fails := checkAll(s, o); len(fails) > 0 {
				t.Errorf("live, the expectations fail:\n%s", strings.Join(fails, "\n"))
			}
			var got, want []string
			for _, e := range rec.Tape().Entries {
				got = append(got, fmt.Sprintf("%s/%d/%v", e.ErrorKind, e.ErrorStatus, e.RetryAfter))
			}
			for _, e := range s.Tape {
				want = append(want, fmt.Sprintf("%s/%d/%v", e.ErrorKind, e.ErrorStatus, e.RetryAfter))
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("recorded failures %v; the tape's %v", got, want)
			}
		})
	}
}
