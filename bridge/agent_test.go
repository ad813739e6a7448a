package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
)

// notesAgent is a hand-written agent loop that knows nothing of tapeloop:
// plain net/http and JSON against a Chat Completions endpoint, two tools
// working on files in its directory, a retry after a 429.
type notesAgent struct {
	system   string
	readDesc string
	// edit, when set, changes what the agent sends at a step (0 is its
	// first model call): the messages so far and the tools.
	edit func(step int, msgs []chatMessage, tools []any) ([]chatMessage, []any)
}

func newNotesAgent() *notesAgent {
	return &notesAgent{system: "You keep notes in files.", readDesc: "Read a file."}
}

type chatMessage struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []chatCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type chatCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (a *notesAgent) tools() []any {
	fn := func(name, desc, schema string) any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name, "description": desc, "parameters": json.RawMessage(schema)}}
	}
	return []any{
		fn("read_file", a.readDesc, `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		fn("write_file", "Write a file.", `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
	}
}

// run answers the user's message and returns its final text.
func (a *notesAgent) run(ctx context.Context, client *http.Client, baseURL, dir, user string) (string, error) {
	msgs := []chatMessage{{Role: "system", Content: a.system}, {Role: "user", Content: user}}
	return a.answer(ctx, client, baseURL, dir, &msgs)
}

// answer runs the loop on the conversation *msgs until the model answers
// in text, appending each message to it, and returns the answer.
func (a *notesAgent) answer(ctx context.Context, client *http.Client, baseURL, dir string, msgs *[]chatMessage) (string, error) {
	for step := range 10 {
		send, tools := *msgs, a.tools()
		if a.edit != nil {
			send, tools = a.edit(step, slices.Clone(*msgs), tools)
		}
		body, _ := json.Marshal(map[string]any{"model": "gpt-test", "messages": send, "tools": tools})
		var resp struct {
			Choices []struct {
				Message chatMessage `json:"message"`
			} `json:"choices"`
		}
		if err := a.post(ctx, client, baseURL+"/chat/completions", body, &resp); err != nil {
			return "", err
		}
		if len(resp.Choices) == 0 {
			return "", errors.New("no choices")
		}
		m := resp.Choices[0].Message
		*msgs = append(*msgs, m)
		if len(m.ToolCalls) == 0 {
			return m.Content, nil
		}
		for _, c := range m.ToolCalls {
			*msgs = append(*msgs, chatMessage{Role: "tool", ToolCallID: c.ID, Content: runTool(dir, c.Function.Name, c.Function.Arguments)})
		}
	}
	return "", errors.New("too many steps")
}

// converse runs a as an application does a conversation: one history
// across the user's turns, the input first, and after each answer the
// user's next message (bridge.Run.NextUser) until there is none. With
// turns > 0 it stops after that many answers whatever the user says.
func (a *notesAgent) converse(turns int) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		msgs := []chatMessage{{Role: "system", Content: a.system}}
		for _, m := range r.Input {
			msgs = append(msgs, chatMessage{Role: string(m.Role), Content: m.Content})
		}
		for n := 1; ; n++ {
			answer, err := a.answer(ctx, r.HTTPClient, r.OpenAIBaseURL, r.Dir, &msgs)
			if err != nil {
				return err
			}
			r.Final(answer)
			if n == turns {
				return nil
			}
			next, ok := r.NextUser(ctx)
			if !ok {
				return nil
			}
			msgs = append(msgs, chatMessage{Role: "user", Content: next.Content})
		}
	}
}

// post sends one request, retrying once after a 429.
func (a *notesAgent) post(ctx context.Context, client *http.Client, url string, body []byte, out any) error {
	for attempt := 1; ; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests && attempt == 1:
			continue
		case resp.StatusCode != http.StatusOK:
			return fmt.Errorf("model call: HTTP %d: %s", resp.StatusCode, data)
		}
		return json.Unmarshal(data, out)
	}
}

func runTool(dir, name, args string) string {
	var a struct{ Path, Content string }
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "error: " + err.Error()
	}
	p := filepath.Join(dir, filepath.FromSlash(a.Path))
	switch name {
	case "read_file":
		b, err := os.ReadFile(p)
		if err != nil {
			return "error: no such file"
		}
		return string(b)
	case "write_file":
		if err := os.WriteFile(p, []byte(a.Content), 0o644); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("wrote %d bytes", len(a.Content))
	}
	return "error: unknown tool " + name
}

// agentFunc runs a on a bridged run: the scenario's last input message is
// the user's.
func (a *notesAgent) agentFunc() bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		final, err := a.run(ctx, r.HTTPClient, r.OpenAIBaseURL, r.Dir, r.Input[len(r.Input)-1].Content)
		if err == nil {
			r.Final(final)
		}
		return err
	}
}

// script is a scripted live model: the n-th call gets the n-th answer (or
// error).
func script(steps ...any) llm.Model {
	n := 0
	return llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if n >= len(steps) {
			return nil, errors.New("script exhausted")
		}
		s := steps[n]
		n++
		if err, ok := s.(error); ok {
			return nil, err
		}
		return s.(*llm.Response), nil
	})
}

func call(id, name, args string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args}), FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 40, OutputTokens: 12}}
}

func text(s string) *llm.Response {
	return &llm.Response{Message: llm.AssistantMessage(s), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 60, OutputTokens: 9}}
}

var rateLimited = &llm.ProviderError{Kind: llm.ErrRateLimited, StatusCode: 429, RetryAfter: time.Second, Message: "slow down"}
