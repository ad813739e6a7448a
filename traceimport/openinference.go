package traceimport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// maxIndex bounds the indexes of OpenInference's flattened lists
// (llm.input_messages.N...), so that a made-up index cannot make a huge
// list.
const maxIndex = 10_000

// oiKind is a span's openinference.span.kind.
func oiKind(sp *Span) string { return sp.str("openinference.span.kind") }

// openInferenceCall reads an OpenInference LLM span.
func openInferenceCall(sp *Span) (*Call, error) {
	c := &Call{Span: sp, Vocabulary: VocabOpenInference, Model: sp.str("llm.model_name"), Provider: sp.str("llm.provider")}
	if c.Provider == "" {
		c.Provider = sp.str("llm.system")
	}
	if sp.Error {
		c.Err = errorText(sp)
	}
	in, err := oiMessages(sp, "llm.input_messages.")
	if err != nil {
		return nil, err
	}
	out, err := oiMessages(sp, "llm.output_messages.")
	if err != nil {
		return nil, err
	}
	c.Input = in
	switch {
	case len(out) > 1:
		return nil, refuse(sp, "llm.output_messages: %d messages; a tape replays one answer per call", len(out))
	case len(out) == 1:
		if out[0].Role != llm.RoleAssistant {
			return nil, refuse(sp, "llm.output_messages.0: a %s message, not the assistant's answer", out[0].Role)
		}
		c.Output = &out[0]
	}
	if len(c.Input) == 0 || c.Output == nil && c.Err == "" {
		return nil, noContent(sp)
	}
	tools, err := oiTools(sp)
	if err != nil {
		return nil, err
	}
	c.Tools = tools
	n := func(k string) int {
		var v int
		_ = json.Unmarshal(sp.attr(k), &v)
		return v
	}
	c.Usage = llm.Usage{InputTokens: n("llm.token_count.prompt"), OutputTokens: n("llm.token_count.completion"),
		CachedInputTokens: n("llm.token_count.prompt_details.cache_read"), ReasoningTokens: n("llm.token_count.completion_details.reasoning")}
	return c, nil
}

// oiList groups the attributes under prefix by their index: prefix + "N."
// + rest gives list[N][rest]. The indexes are returned in order.
func oiList(sp *Span, prefix string) ([]int, map[int]map[string]json.RawMessage, error) {
	items := map[int]map[string]json.RawMessage{}
	for k, v := range sp.Attrs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		idx, rest, _ := strings.Cut(rest, ".")
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 || i > maxIndex {
			return nil, nil, refuse(sp, "%s: %q is not an index from 0 to %d", k, idx, maxIndex)
		}
		if items[i] == nil {
			items[i] = map[string]json.RawMessage{}
		}
		items[i][rest] = v
	}
	idx := make([]int, 0, len(items))
	for i := range items {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	return idx, items, nil
}

// oiMessages reads the flattened messages under prefix.
func oiMessages(sp *Span, prefix string) ([]llm.Message, error) {
	idx, items, err := oiList(sp, prefix)
	if err != nil {
		return nil, err
	}
	var out []llm.Message
	for _, i := range idx {
		a := items[i]
		at := func(k string) string { return jsonString(a[k]) }
		where := fmt.Sprintf("%s%d", prefix, i)
		role, err := roleOf(at("message.role"))
		if err != nil {
			return nil, refuse(sp, "%s.message.role: %v", where, err)
		}
		m := llm.Message{Role: role, Content: at("message.content"), ToolCallID: at("message.tool_call_id")}
		if role == llm.RoleTool {
			m.Name = at("message.name")
		}
		// message.contents.J.message_content.{type,text}: the parts of a
		// content given as a list.
		var texts []string
		var calls []llm.ToolCall
		for j := 0; ; j++ {
			p := fmt.Sprintf("message.contents.%d.message_content.", j)
			typ, ok := a[p+"type"]
			if !ok {
				if _, text := a[p+"text"]; !text {
					break
				}
			}
			if t := jsonString(typ); t != "" && t != "text" {
				return nil, refuse(sp, "%s.%stype: a part of type %q; only text is imported (images are not)", where, p, t)
			}
			texts = append(texts, at(p+"text"))
			if j > maxIndex {
				return nil, refuse(sp, "%s: more than %d parts", where, maxIndex)
			}
		}
		for j := 0; ; j++ {
			p := fmt.Sprintf("message.tool_calls.%d.tool_call.", j)
			name, ok := a[p+"function.name"]
			if !ok {
				break
			}
			if j > maxIndex {
				return nil, refuse(sp, "%s: more than %d tool calls", where, maxIndex)
			}
			calls = append(calls, llm.ToolCall{ID: at(p + "id"), Name: jsonString(name), Arguments: argumentsText(oiArguments(a[p+"function.arguments"]))})
		}
		if len(texts) > 0 {
			if m.Content != "" {
				texts = append([]string{m.Content}, texts...)
			}
			sep := "\n"
			if role == llm.RoleAssistant {
				sep = ""
			}
			m.Content = strings.Join(texts, sep)
		}
		if len(calls) > 0 {
			if role != llm.RoleAssistant {
				return nil, refuse(sp, "%s: a %s message holds tool calls", where, role)
			}
			m.ToolCalls = calls
		}
		out = append(out, m)
	}
	return out, nil
}

// oiArguments keeps a call's arguments as the string they were recorded
// as: OpenInference records the JSON text the model emitted.
func oiArguments(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	return raw
}

// oiTools reads llm.tools.N.tool.json_schema: each an OpenAI tool
// ({"type": "function", "function": {...}}) or the function itself.
func oiTools(sp *Span) ([]llm.ToolDefinition, error) {
	idx, items, err := oiList(sp, "llm.tools.")
	if err != nil || len(idx) == 0 {
		return nil, err
	}
	defs := []llm.ToolDefinition{}
	for _, i := range idx {
		raw := items[i]["tool.json_schema"]
		var t struct {
			Function *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := decodeStructured(raw, &t); err != nil {
			return nil, refuse(sp, "llm.tools.%d.tool.json_schema: %v", i, err)
		}
		d := llm.ToolDefinition{Name: t.Name, Description: t.Description, Parameters: compactJSON(t.Parameters)}
		if t.Function != nil {
			d = llm.ToolDefinition{Name: t.Function.Name, Description: t.Function.Description, Parameters: compactJSON(t.Function.Parameters)}
		}
		if d.Name == "" {
			return nil, refuse(sp, "llm.tools.%d.tool.json_schema: a tool without a name", i)
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// openInferenceTool reads an OpenInference TOOL span.
func openInferenceTool(sp *Span) (*ToolExec, error) {
	t := &ToolExec{Span: sp, Name: sp.str("tool.name"), Description: sp.str("tool.description"), ID: sp.str("tool_call.id"), Failed: sp.Error}
	if t.Name == "" {
		t.Name = sp.Name
	}
	var err error
	if raw := sp.attr("input.value"); raw != nil {
		if t.Arguments, err = structured(raw); err != nil {
			return nil, refuse(sp, "input.value: %v", err)
		}
	}
	if raw := sp.attr("output.value"); raw != nil {
		if t.Result, err = structured(raw); err != nil {
			return nil, refuse(sp, "output.value: %v", err)
		}
	}
	return t, nil
}
