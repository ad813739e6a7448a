package wire

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/tapeloop/tapeloop/llm"
)

// openAIInMessage is an answer's message, or a stream chunk's delta, as a
// Chat Completions server sends it.
type openAIInMessage struct {
	Content          *string `json:"content"`
	ReasoningContent *string `json:"reasoning_content"`
	// Reasoning is where OpenRouter and newer vLLM put the thinking.
	Reasoning *string `json:"reasoning"`
	Refusal   *string `json:"refusal"`
	// FunctionCall is a call as the deprecated functions parameter gets
	// it, which the bridge does not serve (see legacyCall).
	FunctionCall json.RawMessage `json:"function_call"`
	ToolCalls    []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// legacyCall is the error of an answer holding a call as the deprecated
// function_call (null is none): the bridge serves calls as tool_calls, so
// a recording of one would keep an answer without its call.
func (m *openAIInMessage) legacyCall(f Format) error {
	if compact(m.FunctionCall) == nil {
		return nil
	}
	return malformed(f, "the answer holds a function_call (the deprecated functions parameter), which tapeloop does not serve: send tools instead of functions")
}

// reasoning returns the message's thinking, in whichever field it came.
func (m *openAIInMessage) reasoning() string {
	switch {
	case m.ReasoningContent != nil:
		return *m.ReasoningContent
	case m.Reasoning != nil:
		return *m.Reasoning
	}
	return ""
}

type openAIInCompletion struct {
	Choices []struct {
		Message      *openAIInMessage `json:"message"`
		Delta        *openAIInMessage `json:"delta"`
		FinishReason *string          `json:"finish_reason"`
	} `json:"choices"`
	Usage *openAIUsage       `json:"usage"`
	Error *openAIInErrorBody `json:"error"`
}

type openAIInErrorBody struct {
	Message string `json:"message"`
}

// answerArguments returns a call's arguments as their text: a JSON string
// unquoted, anything else (a server that sends an object) as it came.
func answerArguments(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	if bytes.Equal(raw, []byte("null")) {
		return ""
	}
	return string(raw)
}

func openAIFinishReason(s string) llm.FinishReason {
	switch s {
	case "stop":
		return llm.FinishStop
	case "tool_calls", "function_call":
		return llm.FinishToolCalls
	case "length":
		return llm.FinishLength
	case "content_filter":
		return llm.FinishFiltered
	}
	return llm.FinishReason(s)
}

func (u *openAIUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{
		InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens,
		CachedInputTokens: u.PromptTokensDetails.CachedTokens, CacheWriteTokens: u.PromptTokensDetails.CacheWriteTokens,
		ReasoningTokens: u.CompletionTokensDetails.ReasoningTokens,
		CacheReported:   llm.ReportedZeroCache(u.cacheSeen, u.PromptTokensDetails.CachedTokens, u.PromptTokensDetails.CacheWriteTokens),
	}
}

// openAIRefusal puts a refusal's text where the answer would be and marks
// the response filtered, as the OpenAI provider does.
func openAIRefusal(resp *llm.Response, text string) {
	if text == "" {
		return
	}
	if resp.Message.Content == "" {
		resp.Message.Content = text
	}
	resp.FinishReason = llm.FinishFiltered
}

func (f chatCompletions) decodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error) {
	if status >= 400 {
		var e openAIInCompletion
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
	var cc openAIInCompletion
	if err := unmarshal(f, "answer", body, &cc); err != nil {
		return nil, err
	}
	if len(cc.Choices) == 0 || cc.Choices[0].Message == nil {
		return nil, malformed(f, "the answer has no choices")
	}
	ch := cc.Choices[0]
	m := ch.Message
	if err := m.legacyCall(f); err != nil {
		return nil, err
	}
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}, Usage: cc.Usage.usage()}
	if m.Content != nil {
		resp.Message.Content = *m.Content
	}
	if r := m.reasoning(); r != "" {
		resp.Message.Reasoning = []llm.Reasoning{{Text: r}}
	}
	for _, tc := range m.ToolCalls {
		if tc.ID == "" && tc.Function.Name == "" && len(tc.Function.Arguments) == 0 {
			continue // a gap in the indices: no call was there
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: answerArguments(tc.Function.Arguments)})
	}
	if ch.FinishReason != nil {
		resp.FinishReason = openAIFinishReason(*ch.FinishReason)
	}
	if m.Refusal != nil {
		openAIRefusal(resp, *m.Refusal)
	}
	return resp, nil
}

// decodeStream reads a Chat Completions stream: the deltas' text,
// reasoning and refusal joined, each tool call by its index (id and name
// from its first chunk, the arguments' fragments joined), the finish
// reason and the usage chunk, up to data: [DONE]; an error chunk is the
// stream's failure, and a stream without [DONE] or without a finish reason
// is cut short (malformed), as the OpenAI provider reads it.
func (f chatCompletions) decodeStream(header http.Header, body []byte) (*llm.Response, error) {
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	var content, reasoning, refusal []byte
	var calls []llm.ToolCall
	byIndex := map[int]int{}
	done, finished := false, false
	for _, ev := range sseEvents(body) {
		if bytes.Equal(bytes.TrimSpace(ev.data), []byte("[DONE]")) {
			done = true
			break
		}
		var ch openAIInCompletion
		if err := unmarshal(f, "stream chunk", ev.data, &ch); err != nil {
			return nil, err
		}
		if ch.Error != nil {
			return nil, answerError(f, 0, header, ch.Error.Message, ev.data)
		}
		if ch.Usage != nil {
			resp.Usage = ch.Usage.usage()
		}
		if len(ch.Choices) == 0 {
			continue
		}
		c := ch.Choices[0]
		if c.FinishReason != nil && *c.FinishReason != "" {
			resp.FinishReason, finished = openAIFinishReason(*c.FinishReason), true
		}
		d := c.Delta
		if d == nil {
			continue
		}
		if err := d.legacyCall(f); err != nil {
			return nil, err
		}
		if d.Content != nil {
			content = append(content, *d.Content...)
		}
		reasoning = append(reasoning, d.reasoning()...)
		if d.Refusal != nil {
			refusal = append(refusal, *d.Refusal...)
		}
		for i, tc := range d.ToolCalls {
			idx := i
			if tc.Index != nil {
				idx = *tc.Index
			}
			at, ok := byIndex[idx]
			if !ok {
				at = len(calls)
				byIndex[idx] = at
				calls = append(calls, llm.ToolCall{})
			}
			if tc.ID != "" {
				calls[at].ID = tc.ID
			}
			if tc.Function.Name != "" {
				calls[at].Name = tc.Function.Name
			}
			calls[at].Arguments += answerArguments(tc.Function.Arguments)
		}
	}
	if !done || !finished {
		return nil, malformed(f, "the stream ended without a finish reason and data: [DONE]")
	}
	resp.Message.Content = string(content)
	if len(reasoning) > 0 {
		resp.Message.Reasoning = []llm.Reasoning{{Text: string(reasoning)}}
	}
	for _, tc := range calls {
		if tc.ID == "" && tc.Name == "" && tc.Arguments == "" {
			continue
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, tc)
	}
	openAIRefusal(resp, string(refusal))
	return resp, nil
}
