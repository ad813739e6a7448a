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
	Messages        []json.RawMessage  `json:"messages"`
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
	Tools      json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage `json:"toolChoice"`
}

// bedrockCounted is bedrockRequest with its messages read for the
// Decoder.
type bedrockCounted struct {
	bedrockRequest
	Messages rawList `json:"messages"`
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
	// marks are the message's cache breakpoints, as bedrockElements found
	// them (see elements.marks).
	marks []int
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
	return decodeBedrock(body, r, nil)
}

// decodeBedrock decodes a Converse request, reusing what last holds of the
// previous request (see Decoder), and on success makes last this
// request's; a nil last decodes it whole. Each system text block becomes a
// system message, first; a user message's toolResult blocks become tool
// messages (named after the toolUse they answer, an error status kept) and
// its text blocks a user message, in block order; an assistant message's
// text blocks are joined, its toolUse inputs kept as compact JSON text, its
// reasoningContent blocks kept as reasoning (signature and redacted
// content too). Image, document, video, cache point and guard blocks are
// dropped.
func decodeBedrock(body []byte, rt route, last *decoded) (*Call, error) {
	var r bedrockRequest
	sent, err := last.unmarshal(body, bodyFuncs{
		counted: func(text []byte) (*rawList, error) {
			var c bedrockCounted
			err := json.Unmarshal(text, &c)
			r = c.bedrockRequest
			return &c.Messages, err
		},
		plain: func() ([]json.RawMessage, error) {
			r = bedrockRequest{}
			err := json.Unmarshal(body, &r)
			return r.Messages, err
		},
		keep:  func() any { return r },
		reuse: func(v any) { r = v.(bedrockRequest) },
		fresh: bedrockElements.fresh,
	})
	if err != nil {
		return nil, bedrockBodyError(body, err)
	}
	c := &Call{Format: Bedrock, Model: rt.model, Stream: rt.stream, IncludeUsage: true}
	c.Request.Params = r.params(rt.model)
	c.Request.ResponseSchema = bedrockSchema(r.OutputConfig)
	c.Request.Messages = []llm.Message{}
	for _, b := range r.System {
		if b.Text != nil {
			c.Request.Messages = append(c.Request.Messages, llm.SystemMessage(*b.Text))
		}
		if n := len(c.Request.Messages); b.CachePoint != nil && n > 0 {
			c.Request.Cache = append(c.Request.Cache, llm.CacheMark{Index: n - 1})
		}
	}
	var tools json.RawMessage
	if r.ToolConfig != nil {
		tools = r.ToolConfig.Tools
	}
	if err := last.request(c, sent, tools, bedrockElements, bedrockTools); err != nil {
		return nil, err
	}
	// A cache point that ends the system prompt and one that starts the
	// messages mark the same message once.
	toolMarks, err := bedrockToolMarks(tools)
	if err != nil {
		return nil, err
	}
	c.Request.Cache = append(toolMarks, slices.Compact(c.Request.Cache)...)
	return c, nil
}

// bedrockElements decodes a Converse request's messages: a user turn into
// its user and tool messages, an assistant turn into one assistant
// message.
var bedrockElements = elements{
	fresh: func() any { return new(bedrockMessage) },
	marks: func(v any) []int { return v.(*bedrockMessage).marks },
	messages: func(i int, raw json.RawMessage, v any, names map[string]string) ([]llm.Message, error) {
		if v == nil {
			m := new(bedrockMessage)
			if err := json.Unmarshal(raw, m); err != nil {
				return nil, requestErrorf("messages[%d]: %v", i, err)
			}
			v = m
		}
		m := v.(*bedrockMessage)
		m.marks = nil
		mark := func(k int) {
			if n := len(m.marks); n == 0 || m.marks[n-1] != k {
				m.marks = append(m.marks, k)
			}
		}
		switch m.Role {
		case "user":
			return bedrockUser(nil, i, m.Content, names, mark)
		case "assistant":
			a, err := bedrockAssistant(i, m.Content, names)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(m.Content, func(b bedrockBlock) bool { return b.CachePoint != nil }) {
				mark(0)
			}
			return []llm.Message{a}, nil
		}
		return nil, requestErrorf("messages[%d].role: unknown role %q (want user or assistant)", i, m.Role)
	},
}

// bedrockTools decodes toolConfig.tools: each toolSpec a tool definition,
// its schema as compact JSON; a cache point is skipped (see
// bedrockToolMarks) and any other tool refused.
func bedrockTools(raw json.RawMessage) ([]llm.ToolDefinition, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var tools []bedrockTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("toolConfig.tools: %v", err)
	}
	var defs []llm.ToolDefinition
	for i, t := range tools {
		if t.ToolSpec == nil {
			if t.CachePoint != nil {
				continue
			}
			return nil, requestErrorf("toolConfig.tools[%d]: only toolSpec tools are supported", i)
		}
		defs = append(defs, llm.ToolDefinition{Name: t.ToolSpec.Name, Description: t.ToolSpec.Description, Parameters: compact(t.ToolSpec.InputSchema.JSON)})
	}
	return defs, nil
}

// bedrockToolMarks returns the breakpoints of toolConfig.tools: a mark on
// the tool before each cache point (none for a cache point before every
// tool). The result is never nil. Tools without a cache point, the common
// case, are not decoded again (see mayName).
func bedrockToolMarks(raw json.RawMessage) ([]llm.CacheMark, error) {
	marks := []llm.CacheMark{}
	if !mayName(raw, "cachepoint") {
		return marks, nil
	}
	var tools []bedrockTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("toolConfig.tools: %v", err)
	}
	n := 0
	for _, t := range tools {
		switch {
		case t.ToolSpec != nil:
			n++
		case t.CachePoint != nil && n > 0:
			marks = append(marks, llm.CacheMark{Tools: true, Index: n - 1})
		}
	}
	return marks, nil
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

// mayName reports whether text might hold a JSON key that encoding/json
// matches to the field named key (lower-case ASCII letters or _, no k or s,
// which fold to letters outside ASCII too): a case variant of key, or any
// escape sequence, which could spell one. False means no key of text
// names that field.
func mayName(text []byte, key string) bool {
	if bytes.IndexByte(text, '\\') >= 0 {
		return true
	}
	for i := 0; i+len(key) <= len(text); i++ {
		if text[i]|0x20 == key[0] && bytes.EqualFold(text[i:i+len(key)], []byte(key)) {
			return true
		}
	}
	return false
}
