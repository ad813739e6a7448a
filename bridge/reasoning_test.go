package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
)

// reasoningScript is a vendor whose first answer is first (a read_file
// call carrying what the vendor wants back: reasoning blocks, a call's
// signature); it checks that the agent's next request sends that answer's
// signed reasoning and call signatures back unchanged, as the vendor does,
// then finishes the notes task. Missing is set when a request did not.
type reasoningScript struct {
	t       *testing.T
	first   *llm.Response
	mu      sync.Mutex
	n       int
	missing error
}

func (s *reasoningScript) Generate(_ context.Context, req *llm.Request) (*llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	switch s.n {
	case 1:
		return s.first, nil
	case 2:
		if err := carriedBack(req, s.first.Message); err != nil {
			s.missing = err
			return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, StatusCode: 400, Message: err.Error()}
		}
		return call("call_2", "write_file", `{"path":"notes.txt","content":"hello\nworld\n"}`), nil
	case 3:
		return text("Done: notes.txt now says hello and world."), nil
	}
	return nil, errors.New("script exhausted")
}

// carriedBack reports how req fails to send back the opaque parts of the
// answer served (signed or redacted reasoning, call signatures).
func carriedBack(req *llm.Request, served llm.Message) error {
	for _, m := range req.Messages {
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 || m.ToolCalls[0].ID != served.ToolCalls[0].ID {
			continue
		}
		if got, want := opaqueOf(m.Reasoning), opaqueOf(served.Reasoning); !reflect.DeepEqual(got, want) {
			return errors.New("the reasoning sent back differs from the one served")
		}
		for i, c := range m.ToolCalls {
			if c.Signature != served.ToolCalls[i].Signature {
				return errors.New("a call's signature sent back differs from the one served")
			}
		}
		return nil
	}
	return errors.New("the answer served is not sent back")
}

func opaqueOf(rs []llm.Reasoning) []llm.Reasoning {
	var out []llm.Reasoning
	for _, r := range rs {
		if r.Signature != "" || r.Redacted != "" {
			out = append(out, r)
		}
	}
	return out
}

// responsesItem is a Responses API reasoning item as the wire formats keep
// it (its JSON, keys sorted), with encrypted content for store:false.
const responsesItem = `{"encrypted_content":"gAAAAABpQ0x1Zm9nIG9uIHRoZSBiYXk7IHJlYWQgdGhlIG5vdGUgZmlyc3QsIHRoZW4gYXBwZW5kIHRoZSB3b3JkLCBhbmQgc2F5IHNvLiBUaGlzIGlzIHRoZSBvcGFxdWUgYmxvYiBhIHJlYXNvbmluZyBtb2RlbCBoYW5kcyBiYWNrLg==","id":"rs_0001","summary":[{"text":"**Reading first** I will read the note before writing.","type":"summary_text"}],"type":"reasoning"}`

// TestReasoningRoundTrip records each SDK agent against a vendor whose
// answer carries what it wants back (a Responses reasoning item with
// encrypted_content through openai-go, an Anthropic signed thinking block
// through anthropic-sdk-go, Gemini thoughtSignatures on a functionCall
// and on text through google.golang.org/genai, a Bedrock signed reasoningContent
// block through aws-sdk-go-v2) and that refuses a next request
// without it; the tape keeps it; the replay, offline, serves it (streamed
// and whole) and the SDK's next request carries it back, so it passes; an
// agent that alters or drops it fails closed, the diff naming the place.
func TestReasoningRoundTrip(t *testing.T) {
	const system, desc = "You keep notes in files.", "Read a file."
	readCall := func(sig string) llm.ToolCall {
		return llm.ToolCall{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes.txt"}`, Signature: sig}
	}
	bedrockEnv := func(k string) string {
		return map[string]string{"AWS_ACCESS_KEY_ID": "AKIDLIVE", "AWS_SECRET_ACCESS_KEY": "live-secret", "AWS_REGION": "us-east-1"}[k]
	}
	cases := []struct {
		name, live, base string
		first            *llm.Response
		agent            func(stream, broken bool) bridge.Agent
		// wants are in the broken agent's failure.
		wants []string
	}{
		{"responses", "openai-responses/gpt-test", "/v1",
			&llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
				Reasoning: []llm.Reasoning{{Text: "**Reading first** I will read the note before writing.", Signature: responsesItem}},
				ToolCalls: []llm.ToolCall{readCall("")}}, FinishReason: llm.FinishToolCalls},
			func(stream, broken bool) bridge.Agent {
				a := newResponsesAgent(stream, false)
				a.alter = broken
				return a.run
			}, []string{"notes.yaml:", "the answer served was sent back", `+          {"encrypted_content":"AgAAAAABpQ0x1`}},
		{"anthropic", "anthropic/claude-test", "",
			&llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
				Reasoning: []llm.Reasoning{{Text: "The user wants a line appended.\nRead the file first.", Signature: "EqQBCkYIBhgCKkDthinkingsignature0123456789abcdefABCDEF+/xyz=="}},
				ToolCalls: []llm.ToolCall{readCall("")}}, FinishReason: llm.FinishToolCalls},
			func(stream, broken bool) bridge.Agent {
				return (&claudeAgent{system: system, readDesc: desc, stream: stream, alter: broken}).run
			}, []string{"notes.yaml:", "the answer served was sent back", "+        signature: EqQBCkYIBhgCKkDthinkingsignature0123456789abcdefABCDEF+/xyz==A"}},
		{"gemini", "gemini/gemini-test", "",
			&llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: "Reading it first.",
				Reasoning: []llm.Reasoning{{Signature: "CiIBdGV4dCBwYXJ0IHRob3VnaHQgc2lnbmF0dXJl"}},
				ToolCalls: []llm.ToolCall{readCall("CiQBcsjafGVtaW5pIHRob3VnaHQgc2lnbmF0dXJlIG9uIGEgY2FsbA==")}}, FinishReason: llm.FinishToolCalls},
			func(stream, broken bool) bridge.Agent {
				return (&genaiAgent{system: system, readDesc: desc, stream: stream, drop: broken}).run
			}, []string{"notes.yaml:", "the answer served was sent back", "-      - signature: CiIBdGV4dCBwYXJ0IHRob3VnaHQgc2lnbmF0dXJl", "-        signature: CiQBcsjafGVtaW5pIHRob3VnaHQgc2lnbmF0dXJlIG9uIGEgY2FsbA=="}},
		{"bedrock", "bedrock/amazon.nova-pro-v1:0", "",
			&llm.Response{Message: llm.Message{Role: llm.RoleAssistant,
				Reasoning: []llm.Reasoning{{Text: "Read the file, then append.", Signature: "ErcBCkgIBxABGAIiQGJlZHJvY2sgcmVhc29uaW5nIHNpZ25hdHVyZQ=="}},
				ToolCalls: []llm.ToolCall{readCall("")}}, FinishReason: llm.FinishToolCalls},
			func(stream, broken bool) bridge.Agent {
				a := newBedrockAgent(stream)
				a.alter = broken
				return a.run
			}, []string{"notes.yaml:", "the answer served was sent back", "+        signature: ErcBCkgIBxABGAIiQGJlZHJvY2sgcmVhc29uaW5nIHNpZ25hdHVyZQ==A"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vendor := &reasoningScript{t: t, first: tc.first}
			srv := httptest.NewServer(bridge.Handler(vendor, nil))
			opts := &llm.OpenOptions{BaseURL: srv.URL + tc.base, APIKey: "sk-local-test"}
			if tc.name == "bedrock" {
				opts.APIKey, opts.Getenv = "", bedrockEnv // AWS credentials, from the environment
			}
			live, err := llm.Open(t.Context(), tc.live, opts)
			if err != nil {
				t.Fatal(err)
			}
			path := record(t, notesScenario, tc.agent(true, false), live)
			srv.Close()
			if vendor.missing != nil {
				t.Fatalf("recording: %v", vendor.missing)
			}
			got := load(t, path).ReplayTape().Entries[0].Response.Message
			if !reflect.DeepEqual(got.Reasoning, tc.first.Message.Reasoning) || !reflect.DeepEqual(got.ToolCalls, tc.first.Message.ToolCalls) {
				t.Fatalf("the tape keeps\n%+v\nwant\n%+v", got, tc.first.Message)
			}
			for _, stream := range []bool{true, false} {
				if v := verify(t, path, tc.agent(stream, false), stream); !v.Passed() {
					t.Fatalf("stream %v: the replay fails:\n%s", stream, fmt.Sprint(v.Failure()))
				}
			}
			failsClosed(t, verify(t, path, tc.agent(false, true), false), tc.wants...)
		})
	}
}
