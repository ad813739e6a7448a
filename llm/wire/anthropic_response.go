package wire

import (
	"bytes"
	"encoding/json"

	"github.com/tapeloop/tapeloop/llm"
)

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	OutputTokensDetails      *struct {
		ThinkingTokens int `json:"thinking_tokens"`
	} `json:"output_tokens_details,omitempty"`
	// cacheSeen says the decoded usage stated cache_read_input_tokens
	// (see llm.Usage.CacheReported).
	cacheSeen bool
}

// MarshalJSON writes the usage, its cache counts only when it states them
// (llm.Usage.CacheKnown): a usage that does not know them says nothing of
// the cache.
func (u anthropicUsage) MarshalJSON() ([]byte, error) {
	type fields anthropicUsage
	if u.cacheSeen || u.CacheReadInputTokens != 0 || u.CacheCreationInputTokens != 0 {
		return json.Marshal(fields(u))
	}
	return json.Marshal(struct {
		InputTokens         int `json:"input_tokens"`
		OutputTokens        int `json:"output_tokens"`
		OutputTokensDetails any `json:"output_tokens_details,omitempty"`
	}{u.InputTokens, u.OutputTokens, detailsOrNil(u)})
}

// detailsOrNil is u's output_tokens_details, nil (left out) when it has none.
func detailsOrNil(u anthropicUsage) any {
	if u.OutputTokensDetails == nil {
		return nil
	}
	return u.OutputTokensDetails
}

// UnmarshalJSON decodes the usage and notes whether it states
// cache_read_input_tokens.
func (u *anthropicUsage) UnmarshalJSON(b []byte) error {
	type fields anthropicUsage
	if err := json.Unmarshal(b, (*fields)(u)); err != nil {
		return err
	}
	u.cacheSeen = hasKey(b, "cache_read_input_tokens")
	return nil
}

// anthropicUsageOf splits llm.Usage's input (which counts cached tokens) into
// the API's three parts.
func anthropicUsageOf(u llm.Usage) *anthropicUsage {
	w := &anthropicUsage{
		InputTokens:              max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0),
		CacheCreationInputTokens: u.CacheWriteTokens,
		CacheReadInputTokens:     u.CachedInputTokens,
		OutputTokens:             u.OutputTokens,
		cacheSeen:                u.CacheKnown(),
	}
	if u.ReasoningTokens > 0 {
		w.OutputTokensDetails = &struct {
			ThinkingTokens int `json:"thinking_tokens"`
		}{u.ReasoningTokens}
	}
	return w
}

type anthropicOutBlock struct {
	Type      string           `json:"type"`
	Text      *string          `json:"text,omitempty"`
	Thinking  *string          `json:"thinking,omitempty"`
	Signature *string          `json:"signature,omitempty"`
	Data      string           `json:"data,omitempty"`
	ID        string           `json:"id,omitempty"`
	Name      string           `json:"name,omitempty"`
	Input     *json.RawMessage `json:"input,omitempty"`
}

type anthropicOutMessage struct {
	ID           string              `json:"id"`
	Type         string              `json:"type"`
	Role         string              `json:"role"`
	Model        string              `json:"model"`
	Content      []anthropicOutBlock `json:"content"`
	StopReason   *string             `json:"stop_reason"`
	StopSequence *string             `json:"stop_sequence"`
	Usage        *anthropicUsage     `json:"usage"`
}

// anthropicStop is the wire stop reason of resp.
func anthropicStop(resp *llm.Response) string {
	switch resp.FinishReason {
	case "":
		if len(resp.Message.ToolCalls) > 0 {
			return "tool_use"
		}
		return "end_turn"
	case llm.FinishStop:
		return "end_turn"
	case llm.FinishToolCalls:
		return "tool_use"
	case llm.FinishLength:
		return "max_tokens"
	case llm.FinishFiltered:
		return "refusal"
	case llm.FinishPause:
		return "pause_turn"
	}
	return string(resp.FinishReason)
}

// anthropicInput is a call's input as a whole-message block holds it: the
// arguments when they are a JSON object, {} when empty, else the text as a
// JSON string (a message cannot hold broken JSON; a stream can).
func anthropicInput(args string) json.RawMessage {
	if args == "" {
		return json.RawMessage(`{}`)
	}
	if b := []byte(args); json.Valid(b) {
		if t := bytes.TrimSpace(b); t[0] == '{' {
			return compact(b)
		}
	}
	s, _ := json.Marshal(args)
	return s
}

// anthropicBlocksOf lists the blocks of an answer in the order the API
// sends them: thinking, text, tool uses. With stream set the blocks are
// the starts of a stream (empty text, thinking and input).
func anthropicBlocksOf(m llm.Message, stream bool) []anthropicOutBlock {
	var out []anthropicOutBlock
	empty := ""
	for _, r := range m.Reasoning {
		if r.Redacted != "" {
			out = append(out, anthropicOutBlock{Type: "redacted_thinking", Data: r.Redacted})
			continue
		}
		b := anthropicOutBlock{Type: "thinking", Thinking: &r.Text, Signature: &r.Signature}
		if stream {
			b.Thinking, b.Signature = &empty, &empty
		}
		out = append(out, b)
	}
	if m.Content != "" {
		b := anthropicOutBlock{Type: "text", Text: &m.Content}
		if stream {
			b.Text = &empty
		}
		out = append(out, b)
	}
	for _, c := range m.ToolCalls {
		in := anthropicInput(c.Arguments)
		if stream {
			in = json.RawMessage(`{}`)
		}
		out = append(out, anthropicOutBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: &in})
	}
	return out
}

func anthropicBody(c *Call, resp *llm.Response, opts *Options) []byte {
	stop := anthropicStop(resp)
	blocks := anthropicBlocksOf(resp.Message, false)
	if blocks == nil {
		blocks = []anthropicOutBlock{}
	}
	body, _ := json.Marshal(anthropicOutMessage{
		ID: opts.id("msg_tapeloop"), Type: "message", Role: "assistant", Model: opts.model(c),
		Content: blocks, StopReason: &stop, Usage: anthropicUsageOf(resp.Usage),
	})
	return body
}

type anthropicEvent struct {
	Type         string               `json:"type"`
	Message      *anthropicOutMessage `json:"message,omitempty"`
	Index        *int                 `json:"index,omitempty"`
	ContentBlock *anthropicOutBlock   `json:"content_block,omitempty"`
	Delta        any                  `json:"delta,omitempty"`
	Usage        *anthropicUsage      `json:"usage,omitempty"`
}

type anthropicDelta struct {
	Type        string  `json:"type"`
	Text        *string `json:"text,omitempty"`
	PartialJSON *string `json:"partial_json,omitempty"`
	Thinking    *string `json:"thinking,omitempty"`
	Signature   *string `json:"signature,omitempty"`
}

type anthropicStopDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// anthropicStream writes the events a Messages server streams:
// message_start (input usage), each block's start, deltas in fragments
// (thinking_delta and signature_delta, text_delta, input_json_delta) and
// stop, message_delta with the stop reason and the whole usage, and
// message_stop.
func anthropicStream(c *Call, resp *llm.Response, opts *Options) []byte {
	var b bytes.Buffer
	send := func(ev anthropicEvent) {
		data, _ := json.Marshal(ev)
		b.WriteString("event: ")
		b.WriteString(ev.Type)
		b.WriteString("\ndata: ")
		b.Write(data)
		b.WriteString("\n\n")
	}
	n := opts.chunk()
	start := anthropicUsageOf(resp.Usage)
	start.OutputTokens, start.OutputTokensDetails = min(resp.Usage.OutputTokens, 1), nil
	send(anthropicEvent{Type: "message_start", Message: &anthropicOutMessage{
		ID: opts.id("msg_tapeloop"), Type: "message", Role: "assistant", Model: opts.model(c),
		Content: []anthropicOutBlock{}, Usage: start,
	}})
	m := resp.Message
	blocks := anthropicBlocksOf(m, true)
	for i := range blocks {
		idx := i
		send(anthropicEvent{Type: "content_block_start", Index: &idx, ContentBlock: &blocks[i]})
		delta := func(d anthropicDelta) { send(anthropicEvent{Type: "content_block_delta", Index: &idx, Delta: d}) }
		switch blocks[i].Type {
		case "thinking":
			r := m.Reasoning[i]
			for _, p := range pieces(r.Text, n) {
				delta(anthropicDelta{Type: "thinking_delta", Thinking: &p})
			}
			if r.Signature != "" {
				delta(anthropicDelta{Type: "signature_delta", Signature: &r.Signature})
			}
		case "text":
			for _, p := range pieces(m.Content, n) {
				delta(anthropicDelta{Type: "text_delta", Text: &p})
			}
		case "tool_use":
			call := m.ToolCalls[i-(len(blocks)-len(m.ToolCalls))]
			for _, p := range pieces(call.Arguments, n) {
				delta(anthropicDelta{Type: "input_json_delta", PartialJSON: &p})
			}
		}
		send(anthropicEvent{Type: "content_block_stop", Index: &idx})
	}
	send(anthropicEvent{Type: "message_delta", Delta: anthropicStopDelta{StopReason: anthropicStop(resp)}, Usage: anthropicUsageOf(resp.Usage)})
	send(anthropicEvent{Type: "message_stop"})
	return b.Bytes()
}
