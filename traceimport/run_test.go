package traceimport

import (
	"errors"
	"strings"
	"testing"
)

// chat is an inference span of trace tr answering input with an answer.
func chat(tr, id, parent string, start int64, conv string, input []any, answer string) tspan {
	return tspan{trace: tr, id: id, parent: parent, name: "chat lemon-1", start: start, attrs: kv{
		"gen_ai.operation.name", "chat", "gen_ai.conversation.id", conv,
		"gen_ai.input.messages", input,
		"gen_ai.output.messages", []any{kv{"role", "assistant", "parts", []any{kv{"type", "text", "content", answer}}}}}}
}

func user(text string) kv {
	return kv{"role", "user", "parts", []any{kv{"type", "text", "content", text}}}
}
func said(text string) kv {
	return kv{"role", "assistant", "parts", []any{kv{"type", "text", "content", text}}}
}

// TestRunsOrderAndGroup checks how spans become runs.
func TestRunsOrderAndGroup(t *testing.T) {
	t.Run("calls are ordered by start time, not file order", func(t *testing.T) {
		r := oneRun(t, otlp(t,
			chat("d4", "2", "", 500, "", []any{user("a"), said("A"), user("b")}, "B"),
			chat("d4", "1", "", 100, "", []any{user("a")}, "A")))
		if r.Calls[0].Span.SpanID != "0000000000000001" || len(r.Calls) != 2 {
			t.Fatalf("calls in the wrong order: %v", r)
		}
	})
	t.Run("a conversation over two traces is one run", func(t *testing.T) {
		runs, err := readRuns(t, otlp(t,
			chat("e1", "1", "", 100, "conv-7", []any{user("a")}, "A"),
			chat("e2", "1", "", 900, "conv-7", []any{user("a"), said("A"), user("b")}, "B")), nil)
		if err != nil || len(runs) != 1 || runs[0].ID != "conv-7" || len(runs[0].TraceIDs) != 2 {
			t.Fatalf("runs = %v, %v", runs, err)
		}
		// ByTrace keeps the two traces apart.
		runs, err = readRuns(t, otlp(t,
			chat("e1", "1", "", 100, "conv-7", []any{user("a")}, "A"),
			chat("e2", "1", "", 900, "conv-7", []any{user("a"), said("A"), user("b")}, "B")), &RunsOptions{ByTrace: true})
		if err != nil || len(runs) != 2 {
			t.Fatalf("by trace: runs = %v, %v", runs, err)
		}
	})
	t.Run("an agent invoked once per user turn, in a trace each, is one run", func(t *testing.T) {
		agent := func(tr string, start int64) tspan {
			return tspan{trace: tr, id: "9", name: "invoke_agent desk", start: start,
				attrs: kv{"gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "desk", "gen_ai.conversation.id", "session-3"}}
		}
		runs, err := readRuns(t, otlp(t,
			agent("e1", 100), chat("e1", "1", "9", 110, "session-3", []any{user("a")}, "A"),
			agent("e2", 900), chat("e2", "1", "9", 910, "session-3", []any{user("a"), said("A"), user("b")}, "B")), nil)
		if err != nil || len(runs) != 1 || runs[0].ID != "session-3" || runs[0].Agent != "desk" || len(runs[0].Calls) != 2 {
			t.Fatalf("runs = %v, %v", runs, err)
		}
		if text, v := replayed(t, runs[0], nil); !v.Passed() || !strings.Contains(text, "  - user: b\n") {
			t.Fatalf("%v\n%s", v.Failures, text)
		}
	})
	t.Run("two conversations in one trace are two runs", func(t *testing.T) {
		runs, err := readRuns(t, otlp(t,
			chat("f1", "1", "", 100, "", []any{user("plan it")}, "plan"),
			chat("f1", "2", "", 200, "", []any{user("do it")}, "done?"),
			chat("f1", "3", "", 300, "", []any{user("do it"), said("done?"), user("yes")}, "done")), nil)
		if err != nil || len(runs) != 2 || runs[0].ID != hexID("f1", 16)+"-1" || len(runs[1].Calls) != 2 {
			t.Fatalf("runs = %v, %v", runs, err)
		}
	})
	t.Run("an agent used as a tool is a run of its own", func(t *testing.T) {
		callHelper := kv{"role", "assistant", "parts", []any{kv{"type", "tool_call", "id", "h1", "name", "helper", "arguments", kv{}}}}
		boss1 := chat("c1", "2", "1", 20, "", []any{user("ask the helper")}, "")
		boss1.attrs[len(boss1.attrs)-1] = []any{callHelper}
		runs, err := readRuns(t, otlp(t,
			tspan{trace: "c1", id: "1", name: "invoke_agent boss", start: 10, attrs: kv{"gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "boss"}},
			boss1,
			tspan{trace: "c1", id: "3", parent: "1", name: "execute_tool helper", start: 30, attrs: kv{"gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "helper", "gen_ai.tool.call.id", "h1"}},
			tspan{trace: "c1", id: "4", parent: "3", name: "invoke_agent helper", start: 40, attrs: kv{"gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "helper"}},
			chat("c1", "5", "4", 50, "", []any{user("help")}, "helped"),
			chat("c1", "6", "1", 60, "", []any{user("ask the helper"), callHelper,
				kv{"role", "tool", "parts", []any{kv{"type", "tool_call_response", "id", "h1", "response", "helped"}}}}, "The helper helped."),
		), nil)
		if err != nil || len(runs) != 2 {
			t.Fatalf("runs = %v, %v", runs, err)
		}
		if boss, helper := runs[0], runs[1]; boss.Agent != "boss" || len(boss.Calls) != 2 || len(boss.Tools) != 1 || helper.Agent != "helper" || len(helper.Calls) != 1 {
			t.Fatalf("runs = %v (tools %d), %v", boss, len(boss.Tools), helper)
		}
	})
}

// TestRunsRefusals checks the traces that are refused, each naming the span.
func TestRunsRefusals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spans []tspan
		want  string
	}{
		{"two calls started at once", []tspan{
			chat("d1", "1", "", 100, "", []any{user("a")}, "A"),
			chat("d1", "2", "", 100, "", []any{user("a"), said("A"), user("b")}, "B")},
			`span "chat lemon-1" (0000000000000002): the model call started at the same time as "chat lemon-1" (0000000000000001) (100 ns), so the order of the calls is not known`},
		{"a call without a start time", []tspan{
			chat("d1", "1", "", 100, "", []any{user("a")}, "A"),
			chat("d1", "2", "", 0, "", []any{user("a"), said("A"), user("b")}, "B")},
			`span "chat lemon-1" (0000000000000002): the model call has no start time`},
		{"a tool with no model call", []tspan{
			{trace: "d1", id: "1", name: "execute_tool x", start: 5, attrs: kv{"gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "x"}},
			chat("d1", "2", "", 100, "", []any{user("a")}, "A")},
			`span "execute_tool x" (0000000000000001): a result of tool x that no model call asked for`},
		{"no model call at all", []tspan{{trace: "d1", id: "1", name: "GET /", start: 5}},
			"no span is a model call"},
		{"the same span twice", []tspan{
			chat("d1", "1", "", 100, "", []any{user("a")}, "A"),
			chat("d1", "1", "", 100, "", []any{user("a")}, "A")},
			`span "chat lemon-1" (0000000000000001): the span appears twice in the trace`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readRuns(t, otlp(t, tc.spans...), nil)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant ErrRefused saying %q", err, tc.want)
			}
		})
	}
}
