package wire

import (
	"bytes"
	"encoding/json"

	"github.com/tapeloop/tapeloop/llm"
)

type openAIUsage struct {
	PromptTokens            int                 `json:"prompt_tokens"`
	CompletionTokens        int                 `json:"completion_tokens"`
	TotalTokens             int                 `json:"total_tokens"`
	PromptTokensDetails     openAIPromptDetails `json:"prompt_tokens_details,omitzero"`
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// cacheSeen says the decoded usage stated cached_tokens (see
	// llm.Usage.CacheReported).
	cacheSeen bool
}

// openAIPromptDetails is a usage's prompt_tokens_details. It is written
// only when the usage states the cache's counts (llm.Usage.CacheKnown): a
// usage that does not know them says nothing of the cache.
type openAIPromptDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	stated           bool
}

// IsZero reports whether d has nothing to state (for omitzero).
func (d openAIPromptDetails) IsZero() bool {
	return !d.stated && d.CachedTokens == 0 && d.CacheWriteTokens == 0
}

// UnmarshalJSON decodes the usage and notes whether it states
// prompt_tokens_details.cached_tokens.
func (u *openAIUsage) UnmarshalJSON(b []byte) error {
	type fields openAIUsage
	if err := json.Unmarshal(b, (*fields)(u)); err != nil {
		return err
	}
	u.cacheSeen = hasKey(b, "prompt_tokens_details", "cached_tokens")
	return nil
}

func openAIUsageOf(u llm.Usage) *openAIUsage {
	w := &openAIUsage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	w.PromptTokensDetails.CachedTokens = u.CachedInputTokens
	w.PromptTokensDetails.CacheWriteTokens = u.CacheWriteTokens
	w.PromptTokensDetails.stated = u.CacheKnown()
	w.CompletionTokensDetails.ReasoningTokens = u.ReasoningTokens
	return w
}

type openAIFunction struct {
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

type openAIOutCall struct {
	Index    *int           `json:"index,omitempty"`
	ID       string         `json:"id,omitempty"`
	Type     string         `json:"type,omitempty"`
	Function openAIFunction `json:"function"`
}

type openAIOutMessage struct {
	Role             string          `json:"role,omitempty"`
	Content          *string         `json:"content,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []openAIOutCall `json:"tool_calls,omitempty"`
	Refusal          *string         `json:"refusal,omitempty"`
}

type openAIChoice struct {
	Index        int               `json:"index"`
	Message      *openAIOutMessage `json:"message,omitempty"`
	Delta        *openAIOutMessage `json:"delta,omitempty"`
	Logprobs     *struct{}         `json:"logprobs"`
	FinishReason *string           `json:"finish_reason"`
}

type openAICompletion struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []openAIChoice `json:"choices"`
	Usage   *openAIUsage   `json:"usage,omitempty"`
}

// openAIFinish is the wire finish reason of resp: its own, mapped, or
// tool_calls/stop from its calls when it has none.
func openAIFinish(resp *llm.Response) string {
	switch resp.FinishReason {
	case "":
		if len(resp.Message.ToolCalls) > 0 {
			return "tool_calls"
		}
		return "stop"
	case llm.FinishPause:
		return "stop"
	}
	return string(resp.FinishReason)
}

func openAIBody(c *Call, resp *llm.Response, opts *Options) []byte {
	msg := &openAIOutMessage{Role: "assistant", ReasoningContent: resp.Message.ReasoningText()}
	if resp.Message.Content != "" || len(resp.Message.ToolCalls) == 0 {
		msg.Content = &resp.Message.Content
	}
	for _, tc := range resp.Message.ToolCalls {
		args := tc.Arguments
		msg.ToolCalls = append(msg.ToolCalls, openAIOutCall{ID: tc.ID, Type: "function", Function: openAIFunction{Name: tc.Name, Arguments: &args}})
	}
	finish := openAIFinish(resp)
	body, _ := json.Marshal(openAICompletion{
		ID: opts.id("chatcmpl-tapeloop"), Object: "chat.completion", Model: opts.model(c),
		Choices: []openAIChoice{{Message: msg, FinishReason: &finish}},
		Usage:   openAIUsageOf(resp.Usage),
	})
	return body
}

// openAIStream writes the chunks a Chat Completions server streams: the
// role, the reasoning and the text in fragments, each tool call (its id and
// name, then its arguments in fragments, by index), the finish reason in a
// chunk of its own, the usage chunk when the client asked for it, and
// data: [DONE].
func openAIStream(c *Call, resp *llm.Response, opts *Options) []byte {
	var b bytes.Buffer
	base := openAICompletion{ID: opts.id("chatcmpl-tapeloop"), Object: "chat.completion.chunk", Model: opts.model(c)}
	n := opts.chunk()
	send := func(delta *openAIOutMessage, finish *string) {
		ch := base
		ch.Choices = []openAIChoice{{Delta: delta, FinishReason: finish}}
		writeData(&b, ch)
	}
	empty := ""
	send(&openAIOutMessage{Role: "assistant", Content: &empty}, nil)
	for _, p := range pieces(resp.Message.ReasoningText(), n) {
		send(&openAIOutMessage{ReasoningContent: p}, nil)
	}
	for _, p := range pieces(resp.Message.Content, n) {
		send(&openAIOutMessage{Content: &p}, nil)
	}
	for i, tc := range resp.Message.ToolCalls {
		idx := i
		send(&openAIOutMessage{ToolCalls: []openAIOutCall{{Index: &idx, ID: tc.ID, Type: "function", Function: openAIFunction{Name: tc.Name, Arguments: &empty}}}}, nil)
		for _, p := range pieces(tc.Arguments, n) {
			send(&openAIOutMessage{ToolCalls: []openAIOutCall{{Index: &idx, Function: openAIFunction{Arguments: &p}}}}, nil)
		}
	}
	finish := openAIFinish(resp)
	send(&openAIOutMessage{}, &finish)
	if c.IncludeUsage {
		u := base
		u.Choices = []openAIChoice{}
		u.Usage = openAIUsageOf(resp.Usage)
		writeData(&b, u)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// writeData writes one event of data only: "data: JSON\n\n".
func writeData(b *bytes.Buffer, v any) {
	data, _ := json.Marshal(v)
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
}
