package wire

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// bedrockRequest is a Converse request body (the model is in the path).
type bedrockRequest struct {
	Messages        []bedrockMessage   `json:"messages"`
	System          []bedrockBlock     `json:"system"`
	ToolConfig      *bedrockToolConfig `json:"toolConfig"`
	InferenceConfig *bedrockInference  `json:"inferenceConfig"`
	OutputConfig    json.RawMessage    `json:"outputConfig"`

	AdditionalModelRequestFields      json.RawMessage `json:"additionalModelRequestFields"`
	AdditionalModelResponseFieldPaths json.RawMessage `json:"additionalModelResponseFieldPaths"`
	GuardrailConfig                   json.RawMessage `json:"guardrailConfig"`
	PerformanceConfig                 json.RawMessage `json:"performanceConfig"`
	PromptVariables                   json.RawMessage `json:"promptVariables"`
	ServiceTier                       json.RawMessage `json:"serviceTier"`
	// requestMetadata tags the call for billing and logs: not pinned.
}

// bedrockInference is a request's inferenceConfig, kept as sent.
type bedrockInference struct {
	MaxTokens     json.RawMessage `json:"maxTokens"`
	Temperature   json.RawMessage `json:"temperature"`
	TopP          json.RawMessage `json:"topP"`
	StopSequences json.RawMessage `json:"stopSequences"`
}

type bedrockToolConfig struct {
	Tools      []bedrockTool   `json:"tools"`
	ToolChoice json.RawMessage `json:"toolChoice"`
}

type bedrockTool struct {
	ToolSpec *struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		InputSchema struct {
			JSON json.RawMessage `json:"json"`
		} `json:"inputSchema"`
	} `json:"toolSpec"`
	CachePoint json.RawMessage `json:"cachePoint"`
}

type bedrockMessage struct {
	Role    string         `json:"role"`
	Content []bedrockBlock `json:"content"`
}

// bedrockBlock is a ContentBlock (or a SystemContentBlock): exactly one of
// its members is set.
type bedrockBlock struct {
	Text             *string          `json:"text,omitempty"`
	ToolUse          *bedrockToolUse  `json:"toolUse,omitempty"`
	ToolResult       *bedrockResult   `json:"toolResult,omitempty"`
	ReasoningContent *bedrockThinking `json:"reasoningContent,omitempty"`
	JSON             json.RawMessage  `json:"json,omitempty"` // in a tool result's content
	// CachePoint marks a cache breakpoint after the blocks before it.
	CachePoint json.RawMessage `json:"cachePoint,omitempty"`
}

type bedrockToolUse struct {
	ToolUseID string          `json:"toolUseId"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
}

type bedrockResult struct {
	ToolUseID string         `json:"toolUseId"`
	Content   []bedrockBlock `json:"content"`
	Status    string         `json:"status,omitempty"`
}

// bedrockThinking is a reasoningContent block: readable text with its
// signature, or redacted content (base64).
type bedrockThinking struct {
	ReasoningText *struct {
		Text      string `json:"text"`
		Signature string `json:"signature,omitempty"`
	} `json:"reasoningText,omitempty"`
	RedactedContent string `json:"redactedContent,omitempty"`
}

// params returns the request's behaviour-changing parameters by their wire
// names: the model (from the path), toolConfig's toolChoice, the keys of
// inferenceConfig, and the model-specific fields (a thinking budget, say)
// whole. The output schema is pinned as the response schema.
func (r *bedrockRequest) params(model string) map[string]json.RawMessage {
	raw := map[string]json.RawMessage{
		"outputConfig":                      withoutBedrockSchema(r.OutputConfig),
		"additionalModelRequestFields":      r.AdditionalModelRequestFields,
		"additionalModelResponseFieldPaths": r.AdditionalModelResponseFieldPaths,
		"guardrailConfig":                   r.GuardrailConfig,
		"performanceConfig":                 r.PerformanceConfig,
		"promptVariables":                   r.PromptVariables,
		"serviceTier":                       r.ServiceTier,
	}
	if r.ToolConfig != nil {
		raw["toolChoice"] = r.ToolConfig.ToolChoice
	}
	if ic := r.InferenceConfig; ic != nil {
		raw["maxTokens"], raw["temperature"], raw["topP"], raw["stopSequences"] = ic.MaxTokens, ic.Temperature, ic.TopP, ic.StopSequences
	}
	return paramsOf(model, raw)
}

// bedrockSchema reads the JSON schema of outputConfig.textFormat
// (structure.jsonSchema.schema, a string holding the schema); nil for none.
func bedrockSchema(raw json.RawMessage) json.RawMessage {
	var oc struct {
		TextFormat *struct {
			Structure struct {
				JSONSchema *struct {
					Schema string `json:"schema"`
				} `json:"jsonSchema"`
			} `json:"structure"`
		} `json:"textFormat"`
	}
	if json.Unmarshal(raw, &oc) != nil || oc.TextFormat == nil || oc.TextFormat.Structure.JSONSchema == nil {
		return nil
	}
	return compact(json.RawMessage(oc.TextFormat.Structure.JSONSchema.Schema))
}

// withoutBedrockSchema returns outputConfig without the schema text (pinned
// apart as the response schema); raw when it holds none.
func withoutBedrockSchema(raw json.RawMessage) json.RawMessage {
	if bedrockSchema(raw) == nil {
		return raw
	}
	var oc map[string]any
	if json.Unmarshal(raw, &oc) != nil {
		return raw
	}
	if tf, ok := oc["textFormat"].(map[string]any); ok {
		if st, ok := tf["structure"].(map[string]any); ok {
			if js, ok := st["jsonSchema"].(map[string]any); ok {
				delete(js, "schema")
			}
		}
	}
	b, err := json.Marshal(oc)
	if err != nil {
		return raw
	}
	return b
}

// DecodeBedrock decodes a Converse request body sent to path (which names
// the model and whether to stream). See Decode.
func DecodeBedrock(path string, body []byte) (*Call, error) {
	r, ok := Bedrock.route(path)
	if !ok {
		return nil, PathError("POST", path)
	}
	return decodeBedrock(body, r)
}

// decodeBedrock decodes a Converse request: each system text block a
// system message, first; a user message's toolResult blocks become tool
// messages (named after the toolUse they answer, an error status kept) and
// its text blocks a user message, in block order; an assistant message's
// text blocks are joined, its toolUse inputs kept as compact JSON text, its
// reasoningContent blocks kept as reasoning (signature and redacted
// content too). Image, document, video, cache point and guard blocks are
// dropped.
func decodeBedrock(body []byte, rt route) (*Call, error) {
	var r bedrockRequest
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, bedrockBodyError(body, err)
	}
	c := &Call{Format: Bedrock, Model: rt.model, Stream: rt.stream, IncludeUsage: true}
	c.Request.Params = r.params(rt.model)
	c.Request.ResponseSchema = bedrockSchema(r.OutputConfig)
	msgs := []llm.Message{}
	cache := []llm.CacheMark{}
	mark := func(k int) {
		if k >= 0 && (len(cache) == 0 || cache[len(cache)-1] != llm.CacheMark{Index: k}) {
			cache = append(cache, llm.CacheMark{Index: k})
		}
	}
	for _, b := range r.System {
		if b.Text != nil {
			msgs = append(msgs, llm.SystemMessage(*b.Text))
		}
		if b.CachePoint != nil {
			mark(len(msgs) - 1)
		}
	}
	names := map[string]string{}
	for i, m := range r.Messages {
		var err error
		switch m.Role {
		case "user":
			msgs, err = bedrockUser(msgs, i, m.Content, names, mark)
		case "assistant":
			var a llm.Message
			a, err = bedrockAssistant(i, m.Content, names)
			msgs = append(msgs, a)
			if slices.ContainsFunc(m.Content, func(b bedrockBlock) bool { return b.CachePoint != nil }) {
				mark(len(msgs) - 1)
			}
		default:
			err = requestErrorf("messages[%d].role: unknown role %q (want user or assistant)", i, m.Role)
		}
		if err != nil {
			return nil, err
		}
	}
	c.Request.Messages = msgs
	var toolMarks []llm.CacheMark
	if r.ToolConfig != nil {
		for i, t := range r.ToolConfig.Tools {
			if t.ToolSpec == nil {
				if t.CachePoint != nil {
					if n := len(c.Request.Tools); n > 0 {
						toolMarks = append(toolMarks, llm.CacheMark{Tools: true, Index: n - 1})
					}
					continue
				}
				return nil, requestErrorf("toolConfig.tools[%d]: only toolSpec tools are supported", i)
			}
			c.Request.Tools = append(c.Request.Tools, llm.ToolDefinition{
				Name: t.ToolSpec.Name, Description: t.ToolSpec.Description, Parameters: compact(t.ToolSpec.InputSchema.JSON),
			})
		}
	}
	c.Request.Cache = append(append([]llm.CacheMark{}, toolMarks...), cache...)
	return c, nil
}

// bedrockUser appends the messages of messages[i], a user turn, and
// passes mark the index of the message each cachePoint block ends.
func bedrockUser(msgs []llm.Message, i int, blocks []bedrockBlock, names map[string]string, mark func(int)) ([]llm.Message, error) {
	var texts []string
	pending := false // a cachePoint after text that waits for its message
	flush := func() {
		if texts != nil {
			msgs = append(msgs, llm.UserMessage(strings.Join(texts, "\n")))
			texts = nil
			if pending {
				mark(len(msgs) - 1)
				pending = false
			}
		}
	}
	for j, b := range blocks {
		switch {
		case b.CachePoint != nil:
			if texts != nil {
				pending = true
			} else {
				mark(len(msgs) - 1)
			}
		case b.Text != nil:
			texts = append(texts, *b.Text)
		case b.ToolResult != nil:
			flush()
			tr := b.ToolResult
			if tr.ToolUseID == "" {
				return nil, requestErrorf("messages[%d].content[%d].toolResult.toolUseId: missing", i, j)
			}
			var parts []string
			for _, p := range tr.Content {
				switch {
				case p.Text != nil:
					parts = append(parts, *p.Text)
				case p.JSON != nil:
					parts = append(parts, string(compact(p.JSON)))
				}
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: tr.ToolUseID, Name: names[tr.ToolUseID],
				Content: strings.Join(parts, "\n"), IsError: tr.Status == "error"})
		case b.ToolUse != nil:
			return nil, requestErrorf("messages[%d].content[%d]: a toolUse in a user turn", i, j)
		}
	}
	flush()
	return msgs, nil
}

// bedrockAssistant decodes messages[i], an assistant turn.
func bedrockAssistant(i int, blocks []bedrockBlock, names map[string]string) (llm.Message, error) {
	m := llm.Message{Role: llm.RoleAssistant}
	for j, b := range blocks {
		switch {
		case b.Text != nil:
			m.Content += *b.Text
		case b.ReasoningContent != nil:
			rc := b.ReasoningContent
			if rc.ReasoningText != nil {
				m.Reasoning = append(m.Reasoning, llm.Reasoning{Text: rc.ReasoningText.Text, Signature: rc.ReasoningText.Signature})
			} else {
				m.Reasoning = append(m.Reasoning, llm.Reasoning{Redacted: rc.RedactedContent})
			}
		case b.ToolUse != nil:
			tu := b.ToolUse
			if tu.Name == "" {
				return m, requestErrorf("messages[%d].content[%d].toolUse.name: missing", i, j)
			}
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: tu.ToolUseID, Name: tu.Name, Arguments: bedrockArguments(tu.Input)})
			names[tu.ToolUseID] = tu.Name
		case b.ToolResult != nil:
			return m, requestErrorf("messages[%d].content[%d]: a toolResult in an assistant turn", i, j)
		}
	}
	return m, nil
}

// bedrockArguments is a toolUse input as the call's arguments: compact
// JSON, or the text a JSON string holds (what a model wrote that was not an
// object, sent back as the answer carried it, see bedrockInput).
func bedrockArguments(in json.RawMessage) string {
	t := bytes.TrimSpace(in)
	if len(t) > 0 && t[0] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	}
	return string(compact(in))
}

// bedrockBodyError is err, from decoding body whole, said of the message
// at fault ("messages[2]: ...") when one is, as the other formats say it;
// else of the body. Only a body that fails to decode pays for the search.
func bedrockBodyError(body []byte, err error) error {
	var r struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &r) == nil {
		for i, raw := range r.Messages {
			var m bedrockMessage
			if e := json.Unmarshal(raw, &m); e != nil {
				return requestErrorf("messages[%d]: %v", i, e)
			}
		}
	}
	return requestErrorf("converse body: %v", err)
}
