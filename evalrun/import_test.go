package evalrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
)

// The run the import tests trace: a support agent asked where order A7
// is calls order_status, which answers with a courier link holding a
// token; the agent answers.
const (
	orderSystem   = "You answer questions about orders. Use order_status."
	orderQuestion = "Where is my order A7?"
	orderAnswer   = "Order A7 left the depot this morning."
	orderToken    = "ghp_" + "k3yK3yk3yK3yk3yK3yk3yK3yk3yK3yk3yK3y"
	orderToolDefs = `[{"type":"function","name":"order_status","description":"Look an order up by id.","parameters":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}}]`
)

var orderResult = "in transit, track at https://courier.example/t?token=" + orderToken

// otlpLine returns one OTLP JSON line holding spans, each given as
// {trace, span, parent, name, start, attrs (string values)}.
func otlpLine(t *testing.T, spans ...otlpTestSpan) string {
	t.Helper()
	var out []map[string]any
	for _, s := range spans {
		var attrs []map[string]any
		for i := 0; i+1 < len(s.attrs); i += 2 {
			attrs = append(attrs, map[string]any{"key": s.attrs[i], "value": map[string]any{"stringValue": s.attrs[i+1]}})
		}
		sp := map[string]any{"traceId": s.trace, "spanId": s.span, "name": s.name, "kind": 3,
			"startTimeUnixNano": fmt.Sprint(s.start), "endTimeUnixNano": fmt.Sprint(s.start + 5e8), "attributes": attrs}
		if s.parent != "" {
			sp["parentSpanId"] = s.parent
		}
		out = append(out, sp)
	}
	b, err := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": out}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

type otlpTestSpan struct {
	trace, span, parent, name string
	start                     int64
	attrs                     []string
}

// orderTrace is the order run as trace id (32 hex digits), starting at
// start (Unix nanoseconds); capture off leaves the messages out.
func orderTrace(t *testing.T, trace string, start int64, capture bool) string {
	content := func(turn int) []string {
		if !capture {
			return nil
		}
		in := `[{"role":"user","parts":[{"type":"text","content":"` + orderQuestion + `"}]}]`
		out := `[{"role":"assistant","finish_reason":"tool_call","parts":[{"type":"tool_call","id":"call_a7","name":"order_status","arguments":{"id":"A7"}}]}]`
		if turn == 2 {
			in = in[:len(in)-1] + `,{"role":"assistant","parts":[{"type":"tool_call","id":"call_a7","name":"order_status","arguments":{"id":"A7"}}]},` +
				`{"role":"tool","parts":[{"type":"tool_call_response","id":"call_a7","response":"` + orderResult + `"}]}]`
			out = `[{"role":"assistant","finish_reason":"stop","parts":[{"type":"text","content":"` + orderAnswer + `"}]}]`
		}
		return []string{"gen_ai.system_instructions", `[{"type":"text","content":"` + orderSystem + `"}]`,
			"gen_ai.tool.definitions", orderToolDefs, "gen_ai.input.messages", in, "gen_ai.output.messages", out}
	}
	chat := func(span string, at int64, turn int) otlpTestSpan {
		return otlpTestSpan{trace, span, "00000000000000a1", "chat lemon-1", at,
			append([]string{"gen_ai.operation.name", "chat", "gen_ai.provider.name", "openai", "gen_ai.request.model", "lemon-1"}, content(turn)...)}
	}
	tool := []string{"gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "order_status", "gen_ai.tool.call.id", "call_a7"}
	if capture {
		tool = append(tool, "gen_ai.tool.call.arguments", `{"id":"A7"}`, "gen_ai.tool.call.result", orderResult)
	}
	return otlpLine(t,
		otlpTestSpan{trace, "00000000000000a1", "", "invoke_agent support", start, []string{"gen_ai.operation.name", "invoke_agent", "gen_ai.agent.name", "support"}},
		chat("00000000000000a2", start+1e8, 1),
		otlpTestSpan{trace, "00000000000000a3", "00000000000000a1", "execute_tool order_status", start + 2e8, tool},
		chat("00000000000000a4", start+3e8, 2))
}

const (
	traceOne = "0af7651916cd43dd8448eb211c80319c"
	traceTwo = "5b8aa5a2d2c872e8321cf37308d69df2"
	// 2025-07-02T16:40:00Z and an hour later, in Unix nanoseconds.
	atFour, atFive = int64(1751474400e9), int64(1751478000e9)
)

// writeTrace writes a trace file into a new folder and returns its path.
func writeTrace(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "traces", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestImportNativeReplaysAndLints(t *testing.T) {
	trace := writeTrace(t, "support.jsonl", orderTrace(t, traceOne, atFour, true))
	out := filepath.Join(t.TempDir(), "scenarios", "imported")
	code, stdout, stderr := runCmd(t, "import", "--out", out, trace)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	scen := filepath.Join(out, "support.yaml")
	for _, want := range []string{"imported  " + scen + "  (" + traceOne + " (agent support): 2 model calls, gen_ai)",
		"    PASS  golden written: " + filepath.Join(out, "support.golden.yaml"), "1 imported, 0 refused, 0 failed", "redacted: github token 2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(scen)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{
		"# REVIEW: pre-filled by evalrun import from the replay of the trace.\n# Keep what must hold on every run, loosen or delete the rest.\nexpect:\n  termination: final_text\n  iterations: 2\n  tool_calls: [order_status]\n  final:\n    equals: " + orderAnswer,
		"    - name: order_status\n      fixture: recorded\n      with:\n        mode: in_order\n        description: Look an order up by id.\n",
		"offered:\n  system: " + orderSystem + "\n  tools:\n    - name: order_status\n",
		"token=[REDACTED]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the scenario lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, orderToken) {
		t.Errorf("the token reached the scenario:\n%s", text)
	}
	if code, stdout, stderr := runCmd(t, "lint", out); code != exitOK || !strings.Contains(stdout, "requests: system prompt pinned, tools pinned, messages pinned on 2 of 2 model calls") {
		t.Errorf("lint: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCmd(t, "replay", out); code != exitOK || !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("replay: exit %d\n%s%s", code, stdout, stderr)
	}
	// Importing again does not overwrite it.
	if code, stdout, _ := runCmd(t, "import", "--out", out, trace); code != exitUsage || !strings.Contains(stdout, "REFUSED   "+scen+"\n    "+scen+" already exists") {
		t.Errorf("again: exit %d\n%s", code, stdout)
	}
}

func TestImportRefusesWithoutContent(t *testing.T) {
	trace := writeTrace(t, "off.jsonl", orderTrace(t, traceOne, atFour, false))
	out := filepath.Join(t.TempDir(), "imported")
	code, stdout, _ := runCmd(t, "import", "--out", out, trace)
	want := "REFUSED   " + trace + "\n    " + trace + `: span "chat lemon-1" (00000000000000a2): the model call was recorded without its messages, so there is nothing to replay; turn message content capture on where the agent runs: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`
	if code != exitUsage || !strings.Contains(stdout, want) || !strings.Contains(stdout, "0 imported, 1 refused, 0 failed") {
		t.Fatalf("exit %d, want 2 and %q:\n%s", code, want, stdout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("something was written: %v", err)
	}
}

func TestImportSelectAndFolders(t *testing.T) {
	// Two runs in one file, an hour apart, and a second file.
	file := writeTrace(t, "two.jsonl", orderTrace(t, traceOne, atFour, true)+orderTrace(t, traceTwo, atFive, true))
	dir := filepath.Dir(file)
	if err := os.WriteFile(filepath.Join(dir, "other.json"), []byte(orderTrace(t, traceTwo, atFive, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run whose spans carry no times (start 0) matches no time range.
	untimed := writeTrace(t, "untimed.jsonl", regexp.MustCompile(`"(start|end)TimeUnixNano":"[0-9]+"`).ReplaceAllString(orderTrace(t, traceOne, atFour, true), `"${1}TimeUnixNano":"0"`))
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		written []string
	}{
		{"a folder imports each trace file", []string{dir}, exitOK, []string{"other.yaml", "two-1.yaml", "two-2.yaml"}},
		{"by trace id", []string{"--select", "trace=5b8aa5", file}, exitOK, []string{"two.yaml"}},
		{"by trace id in capitals (hex)", []string{"--select", "trace=5B8AA5", file}, exitOK, []string{"two.yaml"}},
		{"by span name", []string{"--select", "span=invoke_agent support", "--select", "trace=0af765", file}, exitOK, []string{"two.yaml"}},
		{"by time", []string{"--select", "time=2025-07-02T16:30:00Z..2025-07-02T16:50:00Z", file}, exitOK, []string{"two.yaml"}},
		{"by time, open at the start", []string{"--select", "time=..2025-07-02T18:00:00Z", file}, exitOK, []string{"two-1.yaml", "two-2.yaml"}},
		{"nothing matches", []string{"--select", "span=no such span", file}, exitUsage, nil},
		{"a run without times, by time", []string{"--select", "time=..2025-07-02T18:00:00Z", untimed}, exitUsage, nil},
		{"a run without times, by trace id", []string{"--select", "trace=0af765", untimed}, exitOK, []string{"untimed.yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "imported")
			code, stdout, stderr := runCmd(t, append([]string{"import", "--no-golden", "--out", out}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, stdout, stderr)
			}
			got, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
			for i := range got {
				got[i] = filepath.Base(got[i])
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.written) && !(len(got) == 0 && len(tc.written) == 0) {
				t.Errorf("wrote %v, want %v\n%s", got, tc.written, stdout)
			}
		})
	}
}

func TestImportUsageErrors(t *testing.T) {
	trace := writeTrace(t, "t.jsonl", orderTrace(t, traceOne, atFour, true))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "evalrun import: name a trace file or a folder of them"},
		{[]string{"--agent", "a", "--command", "b", trace}, "--agent and --command both name the agent: give one"},
		{[]string{"--select", "color=red", trace}, `--select "color=red": unknown key "color" (want trace, span or time)`},
		{[]string{"--select", "time=yesterday..", trace}, `--select "time=yesterday..": "yesterday" is not an RFC 3339 time`},
		{[]string{filepath.Join(t.TempDir(), "none.json")}, "none.json: no such file or directory"},
	} {
		code, _, stderr := runCmd(t, append([]string{"import"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// orderAgent is a support agent of its own, on plain HTTP: it sends its
// system prompt and tool to the Chat Completions endpoint, runs
// order_status itself, and answers with the model's text.
func orderAgent(system string) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		var tools []map[string]any
		if err := json.Unmarshal([]byte(orderToolDefs), &tools); err != nil {
			return err
		}
		for _, tl := range tools {
			delete(tl, "type")
		}
		messages := []map[string]any{{"role": "system", "content": system}, {"role": "user", "content": r.Input[len(r.Input)-1].Content}}
		for range 5 {
			body, _ := json.Marshal(map[string]any{"model": "lemon-1", "messages": messages,
				"tools": []any{map[string]any{"type": "function", "function": tools[0]}}})
			req, _ := http.NewRequestWithContext(ctx, "POST", r.OpenAIBaseURL+"/chat/completions", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := r.HTTPClient.Do(req)
			if err != nil {
				return err
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return fmt.Errorf("status %d: %s", resp.StatusCode, data)
			}
			var answer struct {
				Choices []struct {
					Message struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							ID       string `json:"id"`
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					} `json:"message"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(data, &answer); err != nil || len(answer.Choices) == 0 {
				return fmt.Errorf("bad answer %s: %v", data, err)
			}
			m := answer.Choices[0].Message
			if len(m.ToolCalls) == 0 {
				r.Final(m.Content)
				return nil
			}
			var calls []any
			for _, tc := range m.ToolCalls {
				calls = append(calls, map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Function.Name, "arguments": tc.Function.Arguments}})
			}
			messages = append(messages, map[string]any{"role": "assistant", "tool_calls": calls})
			for _, tc := range m.ToolCalls {
				// The agent's own tool: what the real one answered.
				messages = append(messages, map[string]any{"role": "tool", "tool_call_id": tc.ID, "content": orderResult})
			}
		}
		return fmt.Errorf("too many turns")
	}
}

func TestImportBridgedReplaysTheAgent(t *testing.T) {
	trace := writeTrace(t, "support.jsonl", orderTrace(t, traceOne, atFour, true))
	out := filepath.Join(t.TempDir(), "scenarios")
	var stdoutB, stderrB bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdoutB, stderr: &stderrB, agents: map[string]harness.Runner{"support": bridge.Runner(orderAgent(orderSystem), nil)}}
	code := run(context.Background(), []string{"import", "--agent", "support", "--out", out, trace}, e)
	if code != exitOK || !strings.Contains(stdoutB.String(), "PASS  golden written") {
		t.Fatalf("exit %d\n%s%s", code, stdoutB.String(), stderrB.String())
	}
	data, _ := os.ReadFile(filepath.Join(out, "support.yaml"))
	if text := string(data); !strings.Contains(text, "setup:\n  agent:\n    go: support\n") || strings.Contains(text, "fixture:") {
		t.Errorf("not a bridged scenario:\n%s", text)
	}
	// The same agent with its instruction changed fails closed.
	stdoutB.Reset()
	e.agents["support"] = bridge.Runner(orderAgent("You answer questions about orders."), nil)
	code = run(context.Background(), []string{"replay", out}, e)
	if code != exitFailed || !strings.Contains(stdoutB.String(), "offered.system") {
		t.Errorf("a changed instruction: exit %d\n%s", code, stdoutB.String())
	}
}

// A trace whose tool schema is no JSON Schema is refused (a usage error,
// as a hand-written scenario with that schema is), naming the key, and
// nothing is written.
func TestImportRefusesAnInvalidToolSchema(t *testing.T) {
	text := strings.ReplaceAll(orderTrace(t, traceOne, atFour, true), `{\"type\":\"string\"}`, `{\"type\":\"nonsense\"}`)
	trace := writeTrace(t, "bad.jsonl", text)
	out := filepath.Join(t.TempDir(), "imported")
	code, stdout, stderr := runCmd(t, "import", "--out", out, trace)
	scen := filepath.Join(out, "bad.yaml")
	if code != exitUsage || !strings.Contains(stdout, "REFUSED   "+scen+"\n    "+scen+":12: setup.tools[order_status].with.parameters: not a valid JSON Schema") ||
		!strings.Contains(stdout, "0 imported, 1 refused, 0 failed") {
		t.Errorf("exit %d, want 2 refusing the schema\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(scen); !os.IsNotExist(err) {
		t.Errorf("the refused scenario was written: %v", err)
	}
}
