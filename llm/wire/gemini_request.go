package wire

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// geminiRequest is a GenerateContentRequest body (the model is in the
// path).
type geminiRequest struct {
	Contents          []json.RawMessage `json:"contents"`
	SystemInstruction *geminiContent    `json:"systemInstruction"`
	Tools             json.RawMessage   `json:"tools"`
	ToolConfig        json.RawMessage   `json:"toolConfig"`
	// SafetySettings decide which answers are blocked; CachedContent names
	// a cache whose contents the model reads before the request's.
	SafetySettings json.RawMessage `json:"safetySettings"`
	CachedContent  json.RawMessage `json:"cachedContent"`
	// GenerationConfig holds the sampling, limit and output parameters by
	// their keys (all of them change the model's behaviour but those
	// geminiUnpinned names).
	GenerationConfig map[string]json.RawMessage `json:"generationConfig"`
	// geminiProtoNames holds the same fields by their proto names, folded
	// into these (see fold).
	geminiProtoNames
}

// geminiCounted is geminiRequest with its contents read for the Decoder.
type geminiCounted struct {
	geminiRequest
	Contents rawList `json:"contents"`
}

// geminiContent is a Content: a role and its parts.
type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// geminiPart is one Part of a request's content, with only what tapeloop
// reads (inline data, files and executable code are dropped).
type geminiPart struct {
	Text             *string                 `json:"text"`
	Thought          bool                    `json:"thought"`
	ThoughtSignature string                  `json:"thoughtSignature"`
	FunctionCall     *geminiFunctionCall     `json:"functionCall"`
	FunctionResponse *geminiFunctionResponse `json:"functionResponse"`
	// The same fields by their proto names, folded into these (see fold).
	ProtoThoughtSignature string                  `json:"thought_signature"`
	ProtoFunctionCall     *geminiFunctionCall     `json:"function_call"`
	ProtoFunctionResponse *geminiFunctionResponse `json:"function_response"`
}

// geminiFunctionCall is a model turn's FunctionCall part.
type geminiFunctionCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// geminiFunctionResponse is a user turn's FunctionResponse part.
type geminiFunctionResponse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type geminiTool struct {
	FunctionDeclarations []geminiDeclaration `json:"functionDeclarations"`
	// ProtoFunctionDeclarations is FunctionDeclarations by its proto name.
	ProtoFunctionDeclarations []geminiDeclaration `json:"function_declarations"`
	// rest holds the tool's other keys (googleSearch, codeExecution, ...),
	// which tapeloop does not serve.
	rest []string
}

// geminiDeclaration is a FunctionDeclaration, its JSON schema under either
// name.
type geminiDeclaration struct {
	Name                      string          `json:"name"`
	Description               string          `json:"description"`
	Parameters                json.RawMessage `json:"parameters"`
	ParametersJSONSchema      json.RawMessage `json:"parametersJsonSchema"`
	ProtoParametersJSONSchema json.RawMessage `json:"parameters_json_schema"`
}

func (t *geminiTool) UnmarshalJSON(b []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	type plain geminiTool
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = geminiTool(p)
	if err := foldSlice(&t.FunctionDeclarations, &t.ProtoFunctionDeclarations, "functionDeclarations"); err != nil {
		return err
	}
	for i := range t.FunctionDeclarations {
		d := &t.FunctionDeclarations[i]
		if err := foldRaw(&d.ParametersJSONSchema, &d.ProtoParametersJSONSchema, "parametersJsonSchema"); err != nil {
			return err
		}
	}
	for k := range keys {
		if k != "functionDeclarations" && k != "function_declarations" {
			t.rest = append(t.rest, k)
		}
	}
	slices.Sort(t.rest)
	return nil
}

// geminiUnpinned are the generationConfig keys that are not parameters:
// the response schema (pinned as the request's response schema) and the
// log probabilities reported beside the answer, which do not change it.
var geminiUnpinned = map[string]bool{"responseSchema": true, "responseJsonSchema": true, "responseLogprobs": true, "logprobs": true}

// params returns the request's behaviour-changing parameters by their wire
// names: the model and the API version (apiVersion, as genai's
// HTTPOptions names it), both from the path, toolConfig, safetySettings and
// cachedContent whole, and every key of generationConfig but those
// geminiUnpinned names. An API version serves its own models and features
// (v1beta has what v1 has not yet), so an agent that moves to another is
// pinned as Messages' anthropic-version header is.
func (r *geminiRequest) params(rt route) map[string]json.RawMessage {
	raw := map[string]json.RawMessage{"toolConfig": r.ToolConfig, "safetySettings": r.SafetySettings, "cachedContent": r.CachedContent}
	if rt.apiVersion != "" {
		raw["apiVersion"] = json.RawMessage(strconv.Quote(rt.apiVersion))
	}
	for k, v := range r.GenerationConfig {
		if !geminiUnpinned[k] {
			raw[k] = v
		}
	}
	return paramsOf(rt.model, raw)
}

// DecodeGemini decodes a Gemini API request body sent to path (which names
// the model and whether to stream). See Decode.
func DecodeGemini(path string, body []byte) (*Call, error) {
	r, ok := Gemini.route(path)
	if !ok {
		return nil, PathError("POST", path)
	}
	return decodeGemini(body, r, nil)
}

// decodeGemini decodes a GenerateContentRequest, reusing what last holds
// of the previous request (see Decoder), and on success makes last this
// request's; a nil last decodes it whole. The system instruction comes
// first as a system message, then each content in order. A user content's
// text parts become a user message (joined by newlines) and each
// functionResponse a tool message whose content is the response object as
// compact JSON; a model content's thought parts become reasoning (adjacent
// ones joined, a thoughtSignature closing a block), its text parts its
// content (joined as they are: a stream cuts text anywhere) with each
// signature on them a reasoning block of that signature alone, and its
// functionCall parts tool calls with their ids, arguments (the args object
// as compact JSON, its key order kept) and signatures.
func decodeGemini(body []byte, rt route, last *decoded) (*Call, error) {
	var r geminiRequest
	sent, err := last.unmarshal(body, bodyFuncs{
		counted: func(text []byte) (*rawList, error) {
			var c geminiCounted
			err := json.Unmarshal(text, &c)
			r = c.geminiRequest
			return &c.Contents, err
		},
		plain: func() ([]json.RawMessage, error) {
			r = geminiRequest{}
			err := json.Unmarshal(body, &r)
			return r.Contents, err
		},
		keep:  func() any { return r },
		reuse: func(v any) { r = v.(geminiRequest) },
		fresh: geminiElements.fresh,
	})
	if err != nil {
		return nil, requestErrorf("gemini body: %v", err)
	}
	if err := r.fold(); err != nil {
		return nil, err
	}
	c := &Call{Format: Gemini, Model: rt.model, Stream: rt.stream}
	c.Request.Params = r.params(rt)
	if s := compact(r.GenerationConfig["responseJsonSchema"]); s != nil {
		c.Request.ResponseSchema = s
	} else if s := compact(r.GenerationConfig["responseSchema"]); s != nil {
		c.Request.ResponseSchema = s
	}
	c.Request.Messages = []llm.Message{}
	if si := r.SystemInstruction; si != nil {
		var texts []string
		for _, p := range si.Parts {
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
		}
		c.Request.Messages = append(c.Request.Messages, llm.SystemMessage(strings.Join(texts, "\n")))
	}
	if err := last.request(c, sent, r.Tools, geminiElements, geminiTools); err != nil {
		return nil, err
	}
	return c, nil
}

// geminiElements decodes a request's contents, each into its messages:
// a user turn into a user message and tool messages, a model turn into
// one assistant message.
var geminiElements = elements{
	fresh: func() any { return new(geminiContent) },
	messages: func(i int, raw json.RawMessage, v any, _ map[string]string) ([]llm.Message, error) {
		if v == nil {
			content := new(geminiContent)
			if err := json.Unmarshal(raw, content); err != nil {
				return nil, requestErrorf("contents[%d]: %v", i, err)
			}
			v = content
		}
		content := v.(*geminiContent)
		for j := range content.Parts {
			if err := content.Parts[j].fold(); err != nil {
				return nil, requestErrorf("contents[%d].parts[%d]: %v", i, j, err)
			}
		}
		switch content.Role {
		case "", "user", "function", "tool":
			return geminiUserContent(nil, i, content.Parts)
		case "model":
			m, err := geminiModelContent(i, content.Parts)
			if err != nil {
				return nil, err
			}
			return []llm.Message{m}, nil
		default:
			return nil, requestErrorf("contents[%d].role: unknown role %q", i, content.Role)
		}
	},
}

// geminiUserContent appends the messages of contents[i], a user turn: its
// text parts (joined by newlines) as a user message, each functionResponse
// as a tool message, in order.
func geminiUserContent(msgs []llm.Message, i int, parts []geminiPart) ([]llm.Message, error) {
	var texts []string
	flush := func() {
		if texts != nil {
			msgs = append(msgs, llm.UserMessage(strings.Join(texts, "\n")))
			texts = nil
		}
	}
	for j, p := range parts {
		switch {
		case p.FunctionResponse != nil:
			flush()
			fr := p.FunctionResponse
			if fr.Name == "" {
				return nil, requestErrorf("contents[%d].parts[%d].functionResponse.name: missing", i, j)
			}
			msgs = append(msgs, llm.ToolMessage(fr.ID, fr.Name, string(compact(fr.Response))))
		case p.Text != nil:
			texts = append(texts, *p.Text)
		case p.FunctionCall != nil:
			return nil, requestErrorf("contents[%d].parts[%d]: a functionCall in a user turn", i, j)
		}
	}
	flush()
	return msgs, nil
}

// geminiModelContent decodes contents[i], a model turn, as decodeGemini says.
func geminiModelContent(i int, parts []geminiPart) (llm.Message, error) {
	m := llm.Message{Role: llm.RoleAssistant}
	var text strings.Builder
	thinking := false // the last reasoning block is a thought still open
	for j, p := range parts {
		switch {
		case p.FunctionCall != nil:
			fc := p.FunctionCall
			if fc.Name == "" {
				return m, requestErrorf("contents[%d].parts[%d].functionCall.name: missing", i, j)
			}
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: string(compact(fc.Args)), Signature: p.ThoughtSignature})
			thinking = false
		case p.FunctionResponse != nil:
			return m, requestErrorf("contents[%d].parts[%d]: a functionResponse in a model turn", i, j)
		case p.Thought:
			t := ""
			if p.Text != nil {
				t = *p.Text
			}
			if thinking {
				last := &m.Reasoning[len(m.Reasoning)-1]
				last.Text += t
				last.Signature = p.ThoughtSignature
			} else {
				m.Reasoning = append(m.Reasoning, llm.Reasoning{Text: t, Signature: p.ThoughtSignature})
			}
			thinking = p.ThoughtSignature == ""
		case p.Text != nil || p.ThoughtSignature != "":
			if p.Text != nil {
				text.WriteString(*p.Text)
			}
			if p.ThoughtSignature != "" {
				m.Reasoning = append(m.Reasoning, llm.Reasoning{Signature: p.ThoughtSignature})
			}
			thinking = false
		}
	}
	m.Content = text.String()
	return m, nil
}

// geminiTools decodes the tools array's function declarations, each
// schema as compact JSON (parametersJsonSchema, else parameters). A tool of
// another kind (googleSearch, codeExecution, ...) is refused.
func geminiTools(raw json.RawMessage) ([]llm.ToolDefinition, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var tools []geminiTool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, requestErrorf("tools: %v", err)
	}
	var defs []llm.ToolDefinition
	for i, t := range tools {
		if len(t.rest) > 0 {
			return nil, requestErrorf("tools[%d]: %s tools are not supported (only functionDeclarations)", i, strings.Join(t.rest, ", "))
		}
		for j, d := range t.FunctionDeclarations {
			if d.Name == "" {
				return nil, requestErrorf("tools[%d].functionDeclarations[%d].name: missing", i, j)
			}
			params := compact(d.ParametersJSONSchema)
			if params == nil {
				params = compact(d.Parameters)
			}
			defs = append(defs, llm.ToolDefinition{Name: d.Name, Description: d.Description, Parameters: params})
		}
	}
	return defs, nil
}

// geminiArgs returns a call's arguments as the args object a Gemini answer
// holds: the text itself when it is a JSON object, none when it is empty,
// and a JSON string of the text otherwise (which no Gemini client reads as
// arguments: a Gemini call's arguments are always an object).
func geminiArgs(args string) json.RawMessage {
	t := bytes.TrimSpace([]byte(args))
	if len(t) == 0 {
		return nil
	}
	if t[0] == '{' && json.Valid(t) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}
