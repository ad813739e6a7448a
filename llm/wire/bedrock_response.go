package wire

import (
	"bytes"
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/tapeloop/tapeloop/llm"
)

// bedrockOutBlock is a ContentBlock of an answer.
type bedrockOutBlock struct {
	Text             *string             `json:"text,omitempty"`
	ToolUse          *bedrockOutToolUse  `json:"toolUse,omitempty"`
	ReasoningContent *bedrockOutThinking `json:"reasoningContent,omitempty"`
}

type bedrockOutToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type bedrockOutThinking struct {
	ReasoningText *bedrockOutReasoningText `json:"reasoningText,omitempty"`
	// RedactedContent is base64 in JSON (a blob), as llm.Reasoning keeps it.
	RedactedContent string `json:"redactedContent,omitempty"`
}

type bedrockOutReasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature,omitempty"`
}

// bedrockUsage is a TokenUsage: inputTokens leaves out the cache reads and
// writes, which have their own counts.
type bedrockUsage struct {
	InputTokens           int `json:"inputTokens"`
	OutputTokens          int `json:"outputTokens"`
	TotalTokens           int `json:"totalTokens"`
	CacheReadInputTokens  int `json:"cacheReadInputTokens,omitempty"`
	CacheWriteInputTokens int `json:"cacheWriteInputTokens,omitempty"`
	// cacheSeen says the decoded usage stated cacheReadInputTokens (see
	// llm.Usage.CacheReported).
	cacheSeen bool
}

// MarshalJSON writes the usage; cache counts of zero only when it states
// them (llm.Usage.CacheKnown).
func (u bedrockUsage) MarshalJSON() ([]byte, error) {
	type fields bedrockUsage
	if !u.cacheSeen || u.CacheReadInputTokens != 0 || u.CacheWriteInputTokens != 0 {
		return json.Marshal(fields(u))
	}
	return json.Marshal(struct {
		InputTokens           int `json:"inputTokens"`
		OutputTokens          int `json:"outputTokens"`
		TotalTokens           int `json:"totalTokens"`
		CacheReadInputTokens  int `json:"cacheReadInputTokens"`
		CacheWriteInputTokens int `json:"cacheWriteInputTokens"`
	}{u.InputTokens, u.OutputTokens, u.TotalTokens, 0, 0})
}

// UnmarshalJSON decodes the usage and notes whether it states
// cacheReadInputTokens.
func (u *bedrockUsage) UnmarshalJSON(b []byte) error {
	type fields bedrockUsage
	if err := json.Unmarshal(b, (*fields)(u)); err != nil {
		return err
	}
	u.cacheSeen = hasKey(b, "cacheReadInputTokens")
	return nil
}

func bedrockUsageOf(u llm.Usage) *bedrockUsage {
	in := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	return &bedrockUsage{
		InputTokens: in, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens,
		CacheReadInputTokens: u.CachedInputTokens, CacheWriteInputTokens: u.CacheWriteTokens,
		cacheSeen: u.CacheKnown(),
	}
}

func (u *bedrockUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{
		InputTokens:  u.InputTokens + u.CacheReadInputTokens + u.CacheWriteInputTokens,
		OutputTokens: u.OutputTokens, CachedInputTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheWriteInputTokens,
		CacheReported: llm.ReportedZeroCache(u.cacheSeen, u.CacheReadInputTokens, u.CacheWriteInputTokens),
	}
}

type bedrockMetrics struct {
	LatencyMs int `json:"latencyMs"`
}

type bedrockOutput struct {
	Output struct {
		Message struct {
			Role    string            `json:"role"`
			Content []bedrockOutBlock `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason string         `json:"stopReason"`
	Usage      *bedrockUsage  `json:"usage"`
	Metrics    bedrockMetrics `json:"metrics"`
}

// bedrockStop is the stopReason of resp.
func bedrockStop(resp *llm.Response) string {
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
		return "content_filtered"
	}
	return string(resp.FinishReason)
}

// bedrockFinish is the finish reason of a stopReason: stopReason's inverse.
func bedrockFinish(stop string) llm.FinishReason {
	switch stop {
	case "end_turn", "stop_sequence":
		return llm.FinishStop
	case "tool_use":
		return llm.FinishToolCalls
	case "max_tokens", "model_context_window_exceeded":
		return llm.FinishLength
	case "content_filtered", "guardrail_intervened":
		return llm.FinishFiltered
	}
	return llm.FinishReason(stop)
}

// bedrockInput is a call's arguments as a whole toolUse input holds them:
// the JSON object, {} when empty, else the text as a JSON string (a
// document cannot hold broken JSON; a stream's input fragments can).
func bedrockInput(args string) json.RawMessage { return anthropicInput(args) }

// bedrockBlocksOf lists an answer's blocks in the order Converse sends
// them: reasoning, text, tool uses.
func bedrockBlocksOf(m llm.Message) []bedrockOutBlock {
	var out []bedrockOutBlock
	for _, r := range m.Reasoning {
		if r.Redacted != "" {
			out = append(out, bedrockOutBlock{ReasoningContent: &bedrockOutThinking{RedactedContent: r.Redacted}})
			continue
		}
		out = append(out, bedrockOutBlock{ReasoningContent: &bedrockOutThinking{ReasoningText: &bedrockOutReasoningText{Text: r.Text, Signature: r.Signature}}})
	}
	if m.Content != "" {
		out = append(out, bedrockOutBlock{Text: &m.Content})
	}
	for _, c := range m.ToolCalls {
		out = append(out, bedrockOutBlock{ToolUse: &bedrockOutToolUse{ToolUseID: c.ID, Name: c.Name, Input: bedrockInput(c.Arguments)}})
	}
	return out
}

// bedrockBody is a ConverseResponse.
func bedrockBody(resp *llm.Response) []byte {
	var o bedrockOutput
	o.Output.Message.Role = "assistant"
	o.Output.Message.Content = bedrockBlocksOf(resp.Message)
	if o.Output.Message.Content == nil {
		o.Output.Message.Content = []bedrockOutBlock{}
	}
	o.StopReason = bedrockStop(resp)
	o.Usage = bedrockUsageOf(resp.Usage)
	return marshal(o)
}

// The payloads of ConverseStream's events.
type (
	bedrockBlockStart struct {
		Start struct {
			ToolUse *bedrockOutToolUse `json:"toolUse,omitempty"`
		} `json:"start"`
		ContentBlockIndex int `json:"contentBlockIndex"`
	}
	bedrockBlockDelta struct {
		Delta             bedrockDelta `json:"delta"`
		ContentBlockIndex int          `json:"contentBlockIndex"`
	}
	bedrockDelta struct {
		Text             *string             `json:"text,omitempty"`
		ToolUse          *bedrockInputDelta  `json:"toolUse,omitempty"`
		ReasoningContent *bedrockReasonDelta `json:"reasoningContent,omitempty"`
	}
	bedrockInputDelta struct {
		Input string `json:"input"`
	}
	bedrockReasonDelta struct {
		Text            *string `json:"text,omitempty"`
		Signature       string  `json:"signature,omitempty"`
		RedactedContent string  `json:"redactedContent,omitempty"`
	}
	bedrockBlockStop struct {
		ContentBlockIndex int `json:"contentBlockIndex"`
	}
	bedrockMessageStart struct {
		Role string `json:"role"`
	}
	bedrockMessageStop struct {
		StopReason string `json:"stopReason"`
	}
	bedrockMetadata struct {
		Usage   *bedrockUsage  `json:"usage"`
		Metrics bedrockMetrics `json:"metrics"`
	}
)

// bedrockStream is resp as a ConverseStream answer: messageStart; per
// block, in bedrockBlocksOf's order, a contentBlockStart for a tool use,
// its deltas (text, reasoning text then its signature, or the tool input
// in fragments of at most opts' chunk size) and contentBlockStop;
// messageStop with the stop reason; metadata with the usage.
func bedrockStream(resp *llm.Response, opts *Options) []byte {
	var b bytes.Buffer
	event := func(typ string, v any) { writeBedrockEvent(&b, typ, marshal(v)) }
	event("messageStart", bedrockMessageStart{Role: "assistant"})
	m := resp.Message
	i := 0
	for _, r := range m.Reasoning {
		if r.Redacted != "" {
			event("contentBlockDelta", bedrockBlockDelta{ContentBlockIndex: i, Delta: bedrockDelta{ReasoningContent: &bedrockReasonDelta{RedactedContent: r.Redacted}}})
		} else {
			for _, p := range pieces(r.Text, opts.chunk()) {
				event("contentBlockDelta", bedrockBlockDelta{ContentBlockIndex: i, Delta: bedrockDelta{ReasoningContent: &bedrockReasonDelta{Text: &p}}})
			}
			if r.Signature != "" {
				event("contentBlockDelta", bedrockBlockDelta{ContentBlockIndex: i, Delta: bedrockDelta{ReasoningContent: &bedrockReasonDelta{Signature: r.Signature}}})
			}
		}
		event("contentBlockStop", bedrockBlockStop{ContentBlockIndex: i})
		i++
	}
	if m.Content != "" {
		for _, p := range pieces(m.Content, opts.chunk()) {
			event("contentBlockDelta", bedrockBlockDelta{ContentBlockIndex: i, Delta: bedrockDelta{Text: &p}})
		}
		event("contentBlockStop", bedrockBlockStop{ContentBlockIndex: i})
		i++
	}
	for _, c := range m.ToolCalls {
		var start bedrockBlockStart
		start.ContentBlockIndex = i
		start.Start.ToolUse = &bedrockOutToolUse{ToolUseID: c.ID, Name: c.Name}
		event("contentBlockStart", start)
		for _, p := range pieces(c.Arguments, opts.chunk()) {
			event("contentBlockDelta", bedrockBlockDelta{ContentBlockIndex: i, Delta: bedrockDelta{ToolUse: &bedrockInputDelta{Input: p}}})
		}
		event("contentBlockStop", bedrockBlockStop{ContentBlockIndex: i})
		i++
	}
	event("messageStop", bedrockMessageStop{StopReason: bedrockStop(resp)})
	event("metadata", bedrockMetadata{Usage: bedrockUsageOf(resp.Usage)})
	return b.Bytes()
}

// writeBedrockEvent writes one event message of type typ carrying payload.
func writeBedrockEvent(b *bytes.Buffer, typ string, payload []byte) {
	var h eventstream.Headers
	h.Set(":event-type", eventstream.StringValue(typ))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	h.Set(":message-type", eventstream.StringValue("event"))
	writeEventMessage(b, h, payload)
}

// bedrockException is an exception message of type typ (lower camel case,
// as a stream names them: throttlingException) carrying body.
func bedrockException(typ string, body []byte) []byte {
	var b bytes.Buffer
	var h eventstream.Headers
	h.Set(":exception-type", eventstream.StringValue(typ))
	h.Set(":content-type", eventstream.StringValue("application/json"))
	h.Set(":message-type", eventstream.StringValue("exception"))
	writeEventMessage(&b, h, body)
	return b.Bytes()
}

// writeEventMessage encodes one event stream message; writing to a buffer
// cannot fail.
func writeEventMessage(b *bytes.Buffer, h eventstream.Headers, payload []byte) {
	if err := eventstream.NewEncoder().Encode(b, eventstream.Message{Headers: h, Payload: payload}); err != nil {
		panic("wire: encoding an event stream message: " + err.Error())
	}
}

// bedrockStreamException is the exception a stream fails with for a
// failure of status and kind, named as the stream names it (lower camel
// case): the four a ConverseStream can carry by name, and
// modelStreamErrorException for any other.
func bedrockStreamException(status int, kind llm.ErrorKind) string {
	switch t := bedrockErrorType(status, kind); t {
	case "ThrottlingException", "ServiceUnavailableException", "ValidationException", "InternalServerException":
		return string(t[0]|0x20) + t[1:]
	}
	return "modelStreamErrorException"
}
