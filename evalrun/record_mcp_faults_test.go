package evalrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordCaptureMCPThenReplayWithoutServer is issue 15's MCP case end to
// end: a scenario whose tool comes from a real MCP server process is
// recorded live (an OpenAI-compatible httptest server plays the model) with
// --capture; the server's answers become a recorded stand-in in
// setup.tools, and the scenario then replays with the server gone.
func TestRecordCaptureMCPThenReplayWithoutServer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to build the test MCP server")
	}
	bin := filepath.Join(t.TempDir(), "notes-server")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../mcptools/testdata/notes-server").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	scenario := `format: tapeloop/v1
description: The agent adds two numbers with a tool of an MCP server.
setup:
  mcp:
    - {name: notes, command: [` + bin + `]}
input:
  - {role: user, content: "What is 40 + 2?"}
tape: []
expect:
  termination: final_text
  calls:
    list:
      - {name: notes_add, arguments: {a: 40, b: 2}}
  final: {contains: "42"}
`
	dir := newScenarios(t, map[string]string{"mcp/add.yaml": scenario})
	path := filepath.Join(dir, "mcp", "add.yaml")
	srv := newChatServer(t,
		chatAnswer{callID: "call_1", name: "notes_add", arguments: `{"a": 40, "b": "2"}`, inTok: 30, outTok: 8},
		chatAnswer{text: "40 + 2 = 42.", inTok: 40, outTok: 6})
	code, out, errOut := recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv.URL+"/v1", "--capture", "notes", path)
	if code != exitOK || !strings.Contains(out, "PASS") {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{
		"# Captured by evalrun record --capture from the MCP server notes (setup.mcp)\n",
		"    - name: notes_add\n      fixture: recorded\n",
		"    - name: notes_write_note\n      fixture: recorded\n",
		"content: \"42\"",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the recorded scenario lacks %q:\n%s", want, data)
		}
	}
	srv.Close()
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay with the MCP server and the model gone: exit %d\n%s\n%s", code, out, data)
	}
}

// TestRecordUnderFaults: a scenario's faults: apply to the recording's
// requests; what the loop saw (a typed overloaded error, retried) is
// written into the tape, and the recording replays without the server.
func TestRecordUnderFaults(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
	scenario := `format: tapeloop/v1
faults:
  - {call: 1, http: 503}
setup:
  loop:
    model_retry: {attempts: 2}
input:
  - {role: user, content: "Say hello."}
tape: []
expect:
  termination: final_text
  model_retries: 1
`
	dir := newScenarios(t, map[string]string{"faults/hello.yaml": scenario})
	path := filepath.Join(dir, "faults", "hello.yaml")
	srv := newChatServer(t, chatAnswer{text: "Hello.", inTok: 5, outTok: 2})
	code, out, errOut := recordLive(context.Background(), "--model", "openai/gpt-test", "--base-url", srv.URL+"/v1", path)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "kind: overloaded") || !strings.Contains(string(data), "status: 503") {
		t.Errorf("the tape lacks the typed error the fault caused:\n%s", data)
	}
	srv.mu.Lock()
	served := len(srv.got)
	srv.mu.Unlock()
	if served != 1 {
		t.Errorf("the server saw %d requests; want 1 (the faulted one never reached it)", served)
	}
	srv.Close()
	if code, out, _ := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay: exit %d\n%s", code, out)
	}
}
