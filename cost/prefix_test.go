package cost

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

func sys(s string) llm.Message  { return llm.Message{Role: llm.RoleSystem, Content: s} }
func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
func asst(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

func tool(name, desc string) llm.ToolDefinition {
	return llm.ToolDefinition{Name: name, Description: desc, Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
}

var (
	readFile  = tool("read_file", "Read a file of the workspace.")
	writeFile = tool("write_file", "Write a file of the workspace.")
	listDir   = tool("list_dir", "List a directory.")
)

func req(tools []llm.ToolDefinition, msgs ...llm.Message) llm.Request {
	return llm.Request{Messages: msgs, Tools: tools}
}

func calls(rs ...llm.Request) []Call {
	out := make([]Call, len(rs))
	for i, r := range rs {
		out[i] = Call{Request: r}
	}
	return out
}

const prompt = "You are a careful coding agent. Work in small steps and explain each one."

func TestAnalyzeBreakers(t *testing.T) {
	two := []llm.ToolDefinition{readFile, writeFile}
	tests := []struct {
		name  string
		calls []Call
		want  []string // each step's breaker, "" for none
	}{
		{
			name: "appending conversation breaks nothing",
			calls: calls(
				req(two, sys(prompt), user("rename foo to bar")),
				req(two, sys(prompt), user("rename foo to bar"), asst("Looking at main.go."), user("go on")),
				req(two, sys(prompt), user("rename foo to bar"), asst("Looking at main.go."), user("go on"), asst("Done."), user("thanks")),
			),
			want: []string{"", "", ""},
		},
		{
			name: "timestamp in the system prompt",
			calls: calls(
				req(two, sys(prompt+" The time is 2026-03-01T09:00:00Z."), user("list the files")),
				req(two, sys(prompt+" The time is 2026-03-01T09:00:04Z."), user("list the files"), asst("a.go b.go")),
				req(two, sys(prompt+" The time is 2026-03-01T09:00:09Z."), user("list the files"), asst("a.go b.go"), user("open a.go")),
			),
			want: []string{"", "system[0] changed", "system[0] changed"},
		},
		{
			name: "tools offered in another order",
			calls: calls(
				req([]llm.ToolDefinition{readFile, writeFile, listDir}, sys(prompt), user("tidy up")),
				req([]llm.ToolDefinition{readFile, listDir, writeFile}, sys(prompt), user("tidy up"), asst("ok")),
			),
			want: []string{"", "tools[1] moved"},
		},
		{
			name: "history rewritten instead of appended",
			calls: calls(
				req(two, sys(prompt), user("fix the test"), asst("The test fails on line 12 because the map is iterated in random order."), user("and now?")),
				req(two, sys(prompt), user("fix the test"), asst("[summary] map order"), user("and now?"), asst("fixed")),
			),
			want: []string{"", "messages[2] rewritten"},
		},
		{
			name: "a tool's description edited",
			calls: calls(
				req(two, sys(prompt), user("hi")),
				req([]llm.ToolDefinition{readFile, tool("write_file", "Write or create a file.")}, sys(prompt), user("hi"), asst("hello")),
			),
			want: []string{"", "tools[1] changed"},
		},
		{
			name: "a tool added in front",
			calls: calls(
				req(two, sys(prompt), user("hi")),
				req([]llm.ToolDefinition{listDir, readFile, writeFile}, sys(prompt), user("hi"), asst("hello")),
			),
			want: []string{"", "tools[0] added"},
		},
		{
			name: "tools dropped after the first turn",
			calls: calls(
				req(two, sys(prompt), user("hi")),
				req(nil, sys(prompt), user("hi"), asst("hello")),
			),
			want: []string{"", "tools[0] removed"},
		},
		{
			name: "a second system message added",
			calls: calls(
				req(two, sys(prompt), user("hi")),
				req(two, sys(prompt), sys("Be brief."), user("hi")),
			),
			want: []string{"", "system[1] added"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := Analyze(tt.calls)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Steps) != len(tt.want) {
				t.Fatalf("got %d steps, want %d", len(run.Steps), len(tt.want))
			}
			for i, s := range run.Steps {
				got := ""
				if s.Breaker != nil {
					got = s.Breaker.String()
				}
				if got != tt.want[i] {
					t.Errorf("request %d: breaker %q, want %q", i, got, tt.want[i])
				}
				if s.SharedBytes > s.TotalBytes || s.SharedTokens > s.InputTokens {
					t.Errorf("request %d: shared %d bytes / %d tokens exceeds total %d / %d", i, s.SharedBytes, s.SharedTokens, s.TotalBytes, s.InputTokens)
				}
			}
			if len(run.Breakers()) != countNonEmpty(tt.want) {
				t.Errorf("Breakers() = %v, want %d", run.Breakers(), countNonEmpty(tt.want))
			}
		})
	}
}

func countNonEmpty(ss []string) int {
	n := 0
	for _, s := range ss {
		if s != "" {
			n++
		}
	}
	return n
}

// A conversation that only grows shares more of its input with every turn;
// one with a clock in its system prompt shares nothing at all.
func TestShare(t *testing.T) {
	tools := []llm.ToolDefinition{readFile, writeFile, listDir}
	history := []llm.Message{sys(prompt), user("rename foo to bar in every file")}
	var stable, stamped []llm.Request
	for turn := 0; turn < 5; turn++ {
		stable = append(stable, req(tools, append([]llm.Message(nil), history...)...))
		stampedHistory := append([]llm.Message{sys(prompt + " Turn started at 09:00:0" + string(rune('0'+turn)) + ".")}, history[1:]...)
		stamped = append(stamped, req(tools, stampedHistory...))
		history = append(history, asst("Renamed in file "+string(rune('a'+turn))+".go; reading the next file now."), user("go on"))
	}
	prevShare := -1.0
	for n := 2; n <= len(stable); n++ {
		run, err := Analyze(calls(stable[:n]...))
		if err != nil {
			t.Fatal(err)
		}
		if run.Share() <= prevShare {
			t.Errorf("after %d requests the share is %.3f, not above %.3f", n, run.Share(), prevShare)
		}
		prevShare = run.Share()
	}
	if prevShare < 0.5 {
		t.Errorf("stable run share %.3f, want at least half: later requests repeat almost all of the earlier ones", prevShare)
	}
	run, err := Analyze(calls(stamped...))
	if err != nil {
		t.Fatal(err)
	}
	if run.Share() != 0 || run.SharedTokens != 0 {
		t.Errorf("stamped run share %.3f (%d tokens), want 0: the first element differs every time", run.Share(), run.SharedTokens)
	}
	for _, b := range run.Breakers() {
		if b.String() != "system[0] changed" {
			t.Errorf("request %d: breaker %s, want system[0] changed", b.Request, b)
		}
	}
	if len(run.Breakers()) != len(stamped)-1 {
		t.Errorf("got %d breakers, want one per request after the first", len(run.Breakers()))
	}
}

// Recorded usage takes precedence over the byte estimate, and says so.
func TestRecordedUsage(t *testing.T) {
	c := calls(
		req(nil, sys(prompt), user("hi")),
		req(nil, sys(prompt), user("hi"), asst("hello"), user("bye")),
	)
	c[1].Usage = llm.Usage{InputTokens: 1200, CachedInputTokens: 1024}
	run, err := Analyze(c)
	if err != nil {
		t.Fatal(err)
	}
	s0, s1 := run.Steps[0], run.Steps[1]
	if s0.Recorded || s0.InputRecorded || s0.SharedTokens != 0 || s0.InputTokens != s0.TotalBytes/4 {
		t.Errorf("first step %+v: want an estimate, nothing shared", s0)
	}
	if !s1.Recorded || !s1.InputRecorded || s1.SharedTokens != 1024 || s1.InputTokens != 1200 {
		t.Errorf("second step %+v: want the recorded 1024 of 1200", s1)
	}
	if s1.SharedBytes == 0 || s1.SharedBytes >= s1.TotalBytes {
		t.Errorf("second step shares %d of %d bytes; want the system prompt and first user turn only", s1.SharedBytes, s1.TotalBytes)
	}
	if run.InputTokens != s0.InputTokens+1200 || run.SharedTokens != 1024 {
		t.Errorf("run sums %d/%d, want %d/%d", run.SharedTokens, run.InputTokens, 1024, s0.InputTokens+1200)
	}
}

func TestAnalyzeBadToolSchema(t *testing.T) {
	bad := llm.ToolDefinition{Name: "broken", Parameters: json.RawMessage(`{"type":`)}
	_, err := Analyze(calls(req(nil, user("hi")), req([]llm.ToolDefinition{readFile, bad}, user("hi"))))
	if !errors.Is(err, ErrEncode) || !strings.Contains(err.Error(), `request 1`) || !strings.Contains(err.Error(), `tools[1] "broken"`) {
		t.Fatalf("err = %v, want ErrEncode naming request 1 and tools[1] \"broken\"", err)
	}
}

func TestShareEmpty(t *testing.T) {
	run, err := Analyze(nil)
	if err != nil || run.Share() != 0 || len(run.Steps) != 0 {
		t.Fatalf("Analyze(nil) = %+v, %v; want an empty run of share 0", run, err)
	}
}
