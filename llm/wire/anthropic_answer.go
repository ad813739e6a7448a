package wire

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/tapeloop/tapeloop/llm"
)

// anthropicInBlock is a content block of an answer, or of a stream's
// content_block_start.
type anthropicInBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type anthropicInMessage struct {
	Content    []anthropicInBlock `json:"content"`
	StopReason *string            `json:"stop_reason"`
	Usage      *anthropicUsage    `json:"usage"`
}

// anthropicInEvent is one event of a Messages stream, or an error body.
type anthropicInEvent struct {
	Type         string              `json:"type"`
	Message      *anthropicInMessage `json:"message"`
	Index        int                 `json:"index"`
	ContentBlock *anthropicInBlock   `json:"content_block"`
	Delta        struct {
		Type        string  `json:"type"`
		Text        string  `json:"text"`
		PartialJSON string  `json:"partial_json"`
		Thinking    string  `json:"thinking"`
		Signature   string  `json:"signature"`
		StopReason  *string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage     `json:"usage"`
	Error *anthropicErrorBody `json:"error"`
}

func anthropicStopReason(s string) llm.FinishReason {
	switch s {
	case "end_turn", "stop_sequence":
		return llm.FinishStop
	case "tool_use":
		return llm.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "refusal":
		return llm.FinishFiltered
	case "pause_turn":
		return llm.FinishPause
	}
	return llm.FinishReason(s)
}

// usage joins the API's three input counts into llm.Usage's one.
func (u *anthropicUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	out := llm.Usage{
		InputTokens:       u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
		OutputTokens:      u.OutputTokens,
		CachedInputTokens: u.CacheReadInputTokens,
		CacheWriteTokens:  u.CacheCreationInputTokens,
		CacheReported:     llm.ReportedZeroCache(u.cacheSeen, u.CacheReadInputTokens, u.CacheCreationInputTokens),
	}
	if u.OutputTokensDetails != nil {
		out.ReasoningTokens = u.OutputTokensDetails.ThinkingTokens
	}
	return out
}

// anthropicArguments returns a tool_use block's input as a call's
// arguments: its compact JSON, a JSON string's text (what the encoder
// makes of arguments that are not an object).
func anthropicArguments(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(compact(raw))
}

// add puts block b into m: text joined, thinking and redacted thinking as
// reasoning, a tool use as a call.
func anthropicAdd(m *llm.Message, b *anthropicInBlock, args string) {
	switch b.Type {
	case "text":
		m.Content += b.Text
	case "thinking":
		m.Reasoning = append(m.Reasoning, llm.Reasoning{Text: b.Thinking, Signature: b.Signature})
	case "redacted_thinking":
		m.Reasoning = append(m.Reasoning, llm.Reasoning{Redacted: b.Data})
	case "tool_use":
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
	}
}

func (f messages) decodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error) {
	if status >= 400 {
		var e anthropicInEvent
		_ = json.Unmarshal(body, &e)
		msg := ""
		if e.Error != nil {
			msg = e.Error.Message
		}
		return nil, answerError(f, status, header, msg, body)
	}
	if c.Stream {
		return f.decodeStream(header, body)
	}
	var m anthropicInMessage
	if err := unmarshal(f, "answer", body, &m); err != nil {
		return nil, err
	}
	if m.Content == nil || m.StopReason == nil {
		return nil, malformed(f, "the answer has no content or stop_reason")
	}
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, FinishReason: anthropicStopReason(*m.StopReason), Usage: m.Usage.usage()}
	for i := range m.Content {
		anthropicAdd(&resp.Message, &m.Content[i], anthropicArguments(m.Content[i].Input))
	}
	return resp, nil
}

// decodeStream reads a Messages stream: message_start's usage, each
// block from its start and deltas (text, thinking and its signature, a
// tool use's input JSON fragments joined as its arguments, byte for byte),
// message_delta's stop reason and usage (its counts replace the start's),
// up to message_stop; an error event is the stream's failure, and a
// stream without message_stop is cut short (malformed).
func (f messages) decodeStream(header http.Header, body []byte) (*llm.Response, error) {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	type open struct {
		block anthropicInBlock
		args  []byte
		input bool // an input_json_delta came: args are the input's text
	}
	var blocks []*open
	byIndex := map[int]*open{}
	var usage anthropicUsage
	stopped := false
	for _, ev := range sseEvents(body) {
		var e anthropicInEvent
		if err := unmarshal(f, "stream event", ev.data, &e); err != nil {
			return nil, err
		}
		switch e.Type {
		case "error":
			msg := ""
			if e.Error != nil {
				msg = e.Error.Message
			}
			return nil, answerError(f, 0, header, msg, ev.data)
		case "message_start":
			if e.Message != nil && e.Message.Usage != nil {
				usage = *e.Message.Usage
			}
		case "content_block_start":
			if e.ContentBlock == nil {
				return nil, malformed(f, "content_block_start %d has no content_block", e.Index)
			}
			o := &open{block: *e.ContentBlock}
			blocks = append(blocks, o)
			byIndex[e.Index] = o
		case "content_block_delta":
			o := byIndex[e.Index]
			if o == nil {
				return nil, malformed(f, "content_block_delta for block %d, which never started", e.Index)
			}
			switch e.Delta.Type {
			case "text_delta":
				o.block.Text += e.Delta.Text
			case "thinking_delta":
				o.block.Thinking += e.Delta.Thinking
			case "signature_delta":
				o.block.Signature += e.Delta.Signature
			case "input_json_delta":
				o.args, o.input = append(o.args, e.Delta.PartialJSON...), true
			}
		case "message_delta":
			if e.Delta.StopReason != nil {
				resp.FinishReason = anthropicStopReason(*e.Delta.StopReason)
			}
			if u := e.Usage; u != nil {
				mergeUsage(&usage, u)
			}
		case "message_stop":
			stopped = true
		}
	}
	if !stopped {
		return nil, malformed(f, "the stream ended without message_stop")
	}
	for _, o := range blocks {
		args := string(o.args)
		if !o.input && len(o.block.Input) > 0 && !bytes.Equal(compact(o.block.Input), []byte("{}")) {
			// No input_json_delta: the start's input is the whole input.
			args = anthropicArguments(o.block.Input)
		}
		anthropicAdd(&resp.Message, &o.block, args)
	}
	resp.Usage = usage.usage()
	return resp, nil
}

// mergeUsage puts the counts a message_delta states into u: each non-zero
// one replaces the start's (the delta's are cumulative).
func mergeUsage(u, d *anthropicUsage) {
	if d.InputTokens != 0 {
		u.InputTokens = d.InputTokens
	}
	if d.CacheCreationInputTokens != 0 {
		u.CacheCreationInputTokens = d.CacheCreationInputTokens
	}
	if d.CacheReadInputTokens != 0 {
		u.CacheReadInputTokens = d.CacheReadInputTokens
	}
	if d.OutputTokens != 0 {
		u.OutputTokens = d.OutputTokens
	}
	if d.OutputTokensDetails != nil {
		u.OutputTokensDetails = d.OutputTokensDetails
	}
	u.cacheSeen = u.cacheSeen || d.cacheSeen
}
