package traceimport

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// The run every vocabulary below records: asked for the weather in Lyon,
// the model calls get_weather, the tool answers, the model answers.
const (
	wxSystem   = "You report the weather."
	wxQuestion = "What is the weather in Lyon?"
	wxArgs     = `{"city":"Lyon"}`
	wxResult   = "12C and drizzle"
	wxAnswer   = "It is 12C with drizzle in Lyon."
)

var (
	wxCall = llm.ToolCall{ID: "w1", Name: "get_weather", Arguments: wxArgs}
	// wxSteps is what every vocabulary must come to.
	wxSteps = []step{
		{system: []string{wxSystem}, conv: []llm.Message{llm.UserMessage(wxQuestion)}, out: &llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{wxCall}}},
		{system: []string{wxSystem}, conv: []llm.Message{llm.UserMessage(wxQuestion), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{wxCall}}, llm.ToolMessage("w1", "get_weather", wxResult)},
			out: &llm.Message{Role: llm.RoleAssistant, Content: wxAnswer}},
	}
)

// wxInput and wxOutput are the conventions' (1.37+) messages of the weather run.
func wxInput(turn int, resultKey string) []any {
	in := []any{kv{"role", "user", "parts", []any{kv{"type", "text", "content", wxQuestion}}}}
	if turn == 2 {
		in = append(in,
			kv{"role", "assistant", "parts", []any{kv{"type", "tool_call", "id", "w1", "name", "get_weather", "arguments", kv{"city", "Lyon"}}}},
			kv{"role", "tool", "parts", []any{kv{"type", "tool_call_response", "id", "w1", resultKey, wxResult}}})
	}
	return in
}

func wxOutput(turn int) []any {
	if turn == 1 {
		return []any{kv{"role", "assistant", "finish_reason", "tool_call", "parts", []any{kv{"type", "tool_call", "id", "w1", "name", "get_weather", "arguments", kv{"city", "Lyon"}}}}}
	}
	return []any{kv{"role", "assistant", "finish_reason", "stop", "parts", []any{kv{"type", "text", "content", wxAnswer}}}}
}

var wxSystemParts = []any{kv{"type", "text", "content", wxSystem}}

// gaSpans lays out the run as an agent span over two inference spans and
// an execute_tool span; attrs gives each inference span's content.
func gaSpans(content func(turn int) (attrs kv, events []tevent)) []tspan {
	a1, e1 := content(1)
	a2, e2 := content(2)
	return []tspan{
		{trace: "a1", id: "1", name: "invoke_agent weather", start: 100, attrs: kv{"gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "weather"}},
		{trace: "a1", id: "2", parent: "1", name: "chat lemon-1", start: 200, attrs: append(kv{"gen_ai.operation.name", "chat", "gen_ai.request.model", "lemon-1", "gen_ai.usage.input_tokens", 30}, a1...), events: e1},
		{trace: "a1", id: "3", parent: "1", name: "execute_tool get_weather", start: 300, attrs: kv{"gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "get_weather", "gen_ai.tool.call.id", "w1", "gen_ai.tool.call.arguments", wxArgs, "gen_ai.tool.call.result", wxResult}},
		{trace: "a1", id: "4", parent: "1", name: "chat lemon-1", start: 400, attrs: append(kv{"gen_ai.operation.name", "chat", "gen_ai.request.model", "lemon-1", "gen_ai.usage.input_tokens", 30}, a2...), events: e2},
	}
}

// TestVocabularies reads the weather run recorded in each vocabulary and
// capture variant, and checks that each gives the same conversation.
func TestVocabularies(t *testing.T) {
	cases := []struct {
		name, vocab, provider string
		spans                 []tspan
	}{
		{"gen_ai 1.37+, structured, on the span", VocabGenAI, "lemonai", gaSpans(func(turn int) (kv, []tevent) {
			return kv{"gen_ai.provider.name", "lemonai", "gen_ai.system_instructions", wxSystemParts, "gen_ai.input.messages", wxInput(turn, "response"), "gen_ai.output.messages", wxOutput(turn)}, nil
		})},
		{"gen_ai 1.37+, JSON strings, on the span", VocabGenAI, "lemonai", gaSpans(func(turn int) (kv, []tevent) {
			return kv{"gen_ai.provider.name", "lemonai",
				"gen_ai.system_instructions", `[{"type":"text","content":"` + wxSystem + `"}]`,
				"gen_ai.input.messages", jsonOf(wxInput(turn, "result")), "gen_ai.output.messages", jsonOf(wxOutput(turn))}, nil
		})},
		{"gen_ai 1.37+, on the details event only", VocabGenAI, "lemonai", gaSpans(func(turn int) (kv, []tevent) {
			return kv{"gen_ai.provider.name", "lemonai"}, []tevent{{name: "gen_ai.client.inference.operation.details", log: true,
				attrs: kv{"gen_ai.system_instructions", wxSystemParts, "gen_ai.input.messages", wxInput(turn, "response"), "gen_ai.output.messages", wxOutput(turn)}}}
		})},
		{"gen_ai 1.37+, on the span and the event", VocabGenAI, "lemonai", gaSpans(func(turn int) (kv, []tevent) {
			content := kv{"gen_ai.system_instructions", wxSystemParts, "gen_ai.input.messages", wxInput(turn, "response"), "gen_ai.output.messages", wxOutput(turn)}
			return append(kv{"gen_ai.provider.name", "lemonai"}, content...), []tevent{{name: "gen_ai.client.inference.operation.details", attrs: content}}
		})},
		{"gen_ai 1.28-1.36 events, gen_ai.system", VocabGenAIEvents, "lemonai", gaSpans(func(turn int) (kv, []tevent) {
			evs := []tevent{
				{name: "gen_ai.system.message", log: true, body: kv{"content", wxSystem}},
				{name: "gen_ai.user.message", log: true, body: kv{"content", wxQuestion}},
			}
			if turn == 2 {
				evs = append(evs,
					tevent{name: "gen_ai.assistant.message", log: true, body: kv{"tool_calls", []any{kv{"id", "w1", "type", "function", "function", kv{"name", "get_weather", "arguments", wxArgs}}}}},
					tevent{name: "gen_ai.tool.message", log: true, body: kv{"content", wxResult, "id", "w1"}},
					tevent{name: "gen_ai.choice", log: true, body: kv{"index", 0, "finish_reason", "stop", "message", kv{"content", wxAnswer}}})
			} else {
				evs = append(evs, tevent{name: "gen_ai.choice", log: true, body: kv{"index", 0, "finish_reason", "tool_calls",
					"message", kv{"tool_calls", []any{kv{"id", "w1", "type", "function", "function", kv{"name", "get_weather", "arguments", kv{"city", "Lyon"}}}}}}})
			}
			return kv{"gen_ai.system", "lemonai"}, evs
		})},
		{"gen_ai prompt/completion events, before 1.28", VocabGenAIPrompt, "lemonai", gaSpans(func(turn int) (kv, []tevent) {
			prompt := []any{kv{"role", "system", "content", wxSystem}, kv{"role", "user", "content", wxQuestion}}
			completion := []any{kv{"role", "assistant", "tool_calls", []any{kv{"id", "w1", "type", "function", "function", kv{"name", "get_weather", "arguments", wxArgs}}}}}
			if turn == 2 {
				prompt = append(prompt, completion[0], kv{"role", "tool", "tool_call_id", "w1", "content", wxResult})
				completion = []any{kv{"role", "assistant", "content", wxAnswer}}
			}
			return kv{"gen_ai.system", "lemonai"}, []tevent{
				{name: "gen_ai.content.prompt", attrs: kv{"gen_ai.prompt", jsonOf(prompt)}},
				{name: "gen_ai.content.completion", attrs: kv{"gen_ai.completion", jsonOf(completion)}}}
		})},
		{"OpenInference", VocabOpenInference, "lemonai", oiSpans()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := oneRun(t, otlp(t, tc.spans...))
			if r.Agent != "weather" && tc.vocab != VocabOpenInference {
				t.Errorf("agent = %q", r.Agent)
			}
			if r.Vocabulary() != tc.vocab || r.Calls[0].Provider != tc.provider || r.Calls[0].Model != "lemon-1" {
				t.Errorf("vocabulary %q, provider %q, model %q", r.Vocabulary(), r.Calls[0].Provider, r.Calls[0].Model)
			}
			if r.Calls[0].Usage.InputTokens != 30 {
				t.Errorf("usage = %+v", r.Calls[0].Usage)
			}
			got := steps(r)
			if len(got) != len(wxSteps) {
				t.Fatalf("%d steps, want %d", len(got), len(wxSteps))
			}
			for i, st := range got {
				w := wxSteps[i]
				if !reflect.DeepEqual(st.system, w.system) || !reflect.DeepEqual(st.conv, w.conv) || !reflect.DeepEqual(st.out, w.out) {
					t.Errorf("step %d:\n got system %q\n     conv %+v\n     out %+v\nwant system %q\n     conv %+v\n     out %+v", i, st.system, st.conv, st.out, w.system, w.conv, w.out)
				}
			}
			if len(r.Tools) != 1 || r.Tools[0].Name != "get_weather" || textOf(r.Tools[0].Result) != wxResult {
				t.Errorf("tools = %+v", r.Tools)
			}
		})
	}
}

// oiSpans is the weather run in OpenInference's attributes: the system
// prompt is the first input message, a content may be a list of parts.
func oiSpans() []tspan {
	common := kv{"openinference.span.kind", "LLM", "llm.provider", "lemonai", "llm.model_name", "lemon-1", "llm.token_count.prompt", 30,
		"llm.input_messages.0.message.role", "system", "llm.input_messages.0.message.content", wxSystem,
		"llm.input_messages.1.message.role", "user", "llm.input_messages.1.message.contents.0.message_content.type", "text",
		"llm.input_messages.1.message.contents.0.message_content.text", wxQuestion,
		"llm.tools.0.tool.json_schema", `{"type":"function","function":{"name":"get_weather","description":"Weather of a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}`}
	call := func(p string) kv {
		return kv{p + ".message.role", "assistant", p + ".message.tool_calls.0.tool_call.id", "w1",
			p + ".message.tool_calls.0.tool_call.function.name", "get_weather", p + ".message.tool_calls.0.tool_call.function.arguments", wxArgs}
	}
	second := append(append(kv{}, common...), call("llm.input_messages.2")...)
	second = append(second, "llm.input_messages.3.message.role", "tool", "llm.input_messages.3.message.tool_call_id", "w1",
		"llm.input_messages.3.message.content", wxResult,
		"llm.output_messages.0.message.role", "assistant", "llm.output_messages.0.message.content", wxAnswer)
	return []tspan{
		{trace: "b2", id: "1", name: "agent", start: 100, attrs: kv{"openinference.span.kind", "CHAIN"}},
		{trace: "b2", id: "2", parent: "1", name: "ChatCompletion", start: 200, attrs: append(append(kv{}, common...), call("llm.output_messages.0")...)},
		{trace: "b2", id: "3", parent: "1", name: "get_weather", start: 300, attrs: kv{"openinference.span.kind", "TOOL", "tool.name", "get_weather", "input.value", wxArgs, "output.value", wxResult}},
		{trace: "b2", id: "4", parent: "1", name: "ChatCompletion", start: 400, attrs: second},
	}
}

func jsonOf(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

// writeJSON writes the test values as JSON, a kv as an object in order.
func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case kv:
		b.WriteByte('{')
		for i := 0; i+1 < len(x); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, x[i])
			b.WriteByte(':')
			writeJSON(b, x[i+1])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, e)
		}
		b.WriteByte(']')
	default:
		b.WriteString(mustJSONNoT(x))
	}
}

// TestSystemInstructionParts checks that the text parts of
// gen_ai.system_instructions are one system prompt, as the wire formats
// decode a system instruction of several parts.
func TestSystemInstructionParts(t *testing.T) {
	r := oneRun(t, otlp(t, tspan{trace: "c3", id: "7", name: "chat", start: 1, attrs: kv{"gen_ai.operation.name", "chat",
		"gen_ai.system_instructions", []any{kv{"type", "text", "content", "You translate."}, kv{"type", "text", "content", "Into French."}},
		"gen_ai.input.messages", wxInput(1, "response"), "gen_ai.output.messages", wxOutput(2)}}))
	if got := r.Calls[0].System; !reflect.DeepEqual(got, []string{"You translate.\nInto French."}) {
		t.Errorf("system = %q", got)
	}
}

// TestVocabularyRefusals checks the calls that are refused, and that each
// refusal names the span and says why.
func TestVocabularyRefusals(t *testing.T) {
	model := func(attrs kv, events ...tevent) tspan {
		return tspan{trace: "c3", id: "7", name: "chat lemon-1", start: 1, attrs: append(kv{"gen_ai.operation.name", "chat"}, attrs...), events: events}
	}
	for _, tc := range []struct {
		name string
		span tspan
		err  error
		want string
	}{
		{"capture off", model(kv{"gen_ai.request.model", "lemon-1", "gen_ai.response.finish_reasons", []any{"stop"}}), ErrNoContent,
			`span "chat lemon-1" (0000000000000007): the model call was recorded without its messages, so there is nothing to replay; turn message content capture on where the agent runs: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`},
		{"content elided", model(nil, tevent{name: "gen_ai.user.message", body: kv{"content", "<elided>"}, log: true}, tevent{name: "gen_ai.choice", body: kv{"index", 0, "message", kv{"content", "<elided>"}}, log: true}), ErrNoContent,
			"recorded without its messages"},
		{"input without output", model(kv{"gen_ai.input.messages", wxInput(1, "response")}), ErrNoContent, "recorded without its messages"},
		{"OpenInference hiding inputs", tspan{trace: "c3", id: "7", name: "ChatCompletion", attrs: kv{"openinference.span.kind", "LLM", "input.value", "__REDACTED__"}}, ErrNoContent,
			"unset OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS"},
		{"an image part", model(kv{"gen_ai.input.messages", []any{kv{"role", "user", "parts", []any{kv{"type", "blob", "mime_type", "image/png"}}}}, "gen_ai.output.messages", wxOutput(2)}), ErrRefused,
			`gen_ai.input.messages[0]: parts[0]: a part of type "blob"; only text, reasoning, tool_call and tool_call_response parts are imported`},
		{"two choices", model(kv{"gen_ai.input.messages", wxInput(1, "response"), "gen_ai.output.messages", append(wxOutput(2), wxOutput(2)...)}), ErrRefused,
			"gen_ai.output.messages: 2 choices; a tape replays one answer per call"},
		{"an unknown role", model(kv{"gen_ai.input.messages", []any{kv{"role", "narrator", "parts", []any{}}}, "gen_ai.output.messages", wxOutput(2)}), ErrRefused,
			`unknown role "narrator"`},
		{"messages not in the conventions' shape", model(kv{"gen_ai.input.messages", `{"role": "user"}`, "gen_ai.output.messages", wxOutput(2)}), ErrRefused,
			"gen_ai.input.messages: not the shape the conventions give it"},
		{"an OpenInference index out of range", tspan{trace: "c3", id: "7", name: "ChatCompletion", attrs: kv{"openinference.span.kind", "LLM", "llm.input_messages.99999999.message.role", "user"}}, ErrRefused,
			`llm.input_messages.99999999.message.role: "99999999" is not an index from 0 to 10000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readRuns(t, otlp(t, tc.span), nil)
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %v saying %q", err, tc.err, tc.want)
			}
		})
	}
}
