package traceimport

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// replayed writes the scenario of r, replays it writing its golden, then
// replays it again against that golden, and returns the file's text and
// the second verdict.
func replayed(t *testing.T, r *Run, opts *ScenarioOptions) (string, *harness.Verdict) {
	t.Helper()
	doc, err := Scenario(r, opts)
	if err != nil {
		t.Fatalf("Scenario: %v", err)
	}
	data, err := yamlx.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "scenarios", "imported.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatalf("the scenario does not load: %v\n%s", err, data)
	}
	if v := harness.VerifyScenario(context.Background(), s, &harness.VerifyOptions{Update: true}); !v.Passed() {
		t.Fatalf("the scenario does not replay: %v %v\n%s", v.Failures, v.Err, data)
	}
	return string(data), harness.VerifyScenario(context.Background(), s, nil)
}

// TestScenarioReplays imports runs and replays them natively.
func TestScenarioReplays(t *testing.T) {
	t.Run("a tool call, its result from the trace", func(t *testing.T) {
		text, v := replayed(t, oneRun(t, otlp(t, oiSpans()...)), &ScenarioOptions{Source: "weather.json"})
		if !v.Passed() {
			t.Fatal(v.Failures)
		}
		for _, want := range []string{
			"description: 'Imported from weather.json: run " + hexID("b2", 16) + ", 2 model calls (openinference; model lemon-1 of lemonai).'",
			"fixture: recorded", "mode: in_order", "description: Weather of a city.",
			"arguments: '{\"city\":\"Lyon\"}'\n            content: 12C and drizzle",
			"offered:\n  system: You report the weather.\n  tools:\n    - name: get_weather",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("the scenario lacks %q:\n%s", want, text)
			}
		}
		if o := v.Outcome; o.Termination != "final_text" || o.Final != wxAnswer || o.Iterations != 2 {
			t.Errorf("outcome: %s %q %d", o.Termination, o.Final, o.Iterations)
		}
	})
	t.Run("a user turn from the next trace of the conversation", func(t *testing.T) {
		r := oneRun(t, otlp(t,
			chat("e1", "1", "", 100, "conv-7", []any{user("Hello")}, "Hi, what do you need?"),
			chat("e2", "1", "", 900, "conv-7", []any{user("Hello"), said("Hi, what do you need?"), user("Nothing, bye")}, "Bye!")))
		text, v := replayed(t, r, nil)
		if !v.Passed() || !strings.Contains(text, "  - user: Nothing, bye\n") {
			t.Fatalf("%v\n%s", v.Failures, text)
		}
	})
	t.Run("a failed call tried again", func(t *testing.T) {
		failed := chat("e1", "1", "", 100, "", []any{user("Hello")}, "")
		failed.attrs = failed.attrs[:len(failed.attrs)-2] // no output
		failed.attrs = append(failed.attrs, "error.type", "429")
		failed.failed = true
		r := oneRun(t, otlp(t, failed, chat("e1", "2", "", 200, "", []any{user("Hello")}, "Hi.")))
		text, v := replayed(t, r, nil)
		if !v.Passed() || !strings.Contains(text, "model_retry:\n      attempts: 2") || !strings.Contains(text, "kind: rate_limited") || len(v.Outcome.ModelRetries) != 1 {
			t.Fatalf("%v\n%s", v.Failures, text)
		}
	})
	t.Run("a run that a tool ended", func(t *testing.T) {
		final := chat("e1", "1", "", 100, "", []any{user("Answer")}, "")
		final.attrs[len(final.attrs)-1] = []any{kv{"role", "assistant", "parts", []any{kv{"type", "tool_call", "id", "f1", "name", "final_answer", "arguments", `{"answer":"42"}`}}}}
		tool := tspan{trace: "e1", id: "2", name: "execute_tool final_answer", start: 200, attrs: kv{"gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "final_answer", "gen_ai.tool.call.id", "f1", "gen_ai.tool.call.result", "42"}}
		text, v := replayed(t, oneRun(t, otlp(t, final, tool)), nil)
		if !v.Passed() || !strings.Contains(text, "terminates: true") || v.Outcome.Termination != "loop_breaking" {
			t.Fatalf("%v %s\n%s", v.Failures, v.Outcome.Termination, text)
		}
	})
}

// TestScenarioRedacts checks that a key in the trace reaches no part of
// the scenario, and that the redacted scenario still replays.
func TestScenarioRedacts(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Zq7", 12)
	spans := oiSpans()
	for i, a := range spans[3].attrs {
		if a == wxResult {
			spans[3].attrs[i] = wxResult + " (fetched with " + key + ")"
		}
	}
	spans[2].attrs = append(spans[2].attrs, "output.value", wxResult+" (fetched with "+key+")")
	red := redact.New(&redact.Options{SecretEnv: []string{}})
	text, v := replayed(t, oneRun(t, otlp(t, spans...)), &ScenarioOptions{Redactor: red})
	if strings.Contains(text, "Zq7Zq7") || !strings.Contains(text, "[REDACTED]") {
		t.Fatalf("the key is not redacted:\n%s", text)
	}
	if !v.Passed() {
		t.Fatal(v.Failures)
	}
	if n := red.Counts()["openai key"]; n != 2 {
		t.Errorf("redacted %v, want the key in the stand-in and the request", red.Counts())
	}
}

// TestScenarioRefusals checks the runs a native scenario cannot replay.
func TestScenarioRefusals(t *testing.T) {
	callTool := []any{kv{"role", "assistant", "parts", []any{kv{"type", "tool_call", "id", "t1", "name", "lookup", "arguments", kv{}}}}}
	withCall := func(s tspan) tspan { s.attrs[len(s.attrs)-1] = callTool; return s }
	for _, tc := range []struct {
		name  string
		spans []tspan
		want  string
	}{
		{"a history the agent rewrote", []tspan{
			chat("e1", "1", "", 100, "", []any{user("Hello")}, "Hi."),
			chat("e1", "2", "", 200, "", []any{user("Hello"), said("(the model said hi)"), user("Bye")}, "Bye.")},
			`span "chat lemon-1" (0000000000000002): the agent passed the model's answer of "chat lemon-1" (0000000000000001) on changed (as a assistant message "(the model said hi)"), which tapeloop's loop never does; import it bridged`},
		{"a call whose result is missing", []tspan{
			withCall(chat("e1", "1", "", 100, "", []any{user("Look it up")}, "")),
			chat("e1", "2", "", 200, "", []any{user("Look it up"), callTool[0], user("well?")}, "Sorry.")},
			`span "chat lemon-1" (0000000000000002): the model's call t1 (lookup) of "chat lemon-1" (0000000000000001) has no result in the input that follows it`},
		{"a run ending in a call without its result", []tspan{
			withCall(chat("e1", "1", "", 100, "", []any{user("Look it up")}, ""))},
			`span "chat lemon-1" (0000000000000001): the run ends with the model's call t1 (lookup), and the trace holds no result of it`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := oneRun(t, otlp(t, tc.spans...))
			_, err := Scenario(r, nil)
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant ErrRefused saying %q", err, tc.want)
			}
		})
	}
}

// TestScenarioBridged checks a bridged import: the agent named, no
// stand-ins, the input without the system prompt (the agent sends its
// own, which the offered block pins), and a rewritten history kept as the
// agent sent it.
func TestScenarioBridged(t *testing.T) {
	r := oneRun(t, otlp(t, oiSpans()...))
	doc, err := Scenario(r, &ScenarioOptions{AgentCommand: []string{"node", "$SCENARIO_DIR/agent.mjs"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := yamlx.Marshal(doc)
	text := string(data)
	for _, want := range []string{"setup:\n  agent:\n    command: [node, $SCENARIO_DIR/agent.mjs]\ninput:\n  - role: user\n", "offered:\n  system: You report the weather."} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "fixture:") {
		t.Errorf("a bridged scenario has stand-ins:\n%s", text)
	}
	if _, err := scenario.Parse(data, "x.yaml", "x"); err != nil {
		t.Fatalf("does not load: %v\n%s", err, text)
	}
	rewritten := oneRun(t, otlp(t,
		chat("e1", "1", "", 100, "", []any{user("Hello")}, "Hi."),
		chat("e1", "2", "", 200, "", []any{user("Hello"), said("(the model said hi)"), user("Bye")}, "Bye.")))
	doc, err = Scenario(rewritten, &ScenarioOptions{AgentGo: "greeter"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ = yamlx.Marshal(doc)
	if !strings.Contains(string(data), "content: (the model said hi)") {
		t.Errorf("the rewritten answer is not pinned:\n%s", data)
	}
}
