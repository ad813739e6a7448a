package evalrun

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// commandNotes is a scenario whose agent is a program beside it
// (bridge/testdata/cmdagent, built by the test): it reads notes.txt, writes
// it with one more line and says so.
const commandNotes = `format: tapeloop/v1
setup:
  agent:
    command: [$SCENARIO_DIR/cmdagent, notes]
    env: {NOTES_SYSTEM: "You keep notes in files."}
    timeout: 60s
  workspace:
    files:
      notes.txt: "hello\n"
input:
  - {role: user, content: "Append world to notes.txt."}
tape: []
expect:
  termination: final_text
  iterations: 3
  final: {equals: "Done: notes.txt now says hello and world."}
  files:
    notes.txt: "hello\nworld\n"
`

// notesByResults answers the notes program by the results it has sent:
// read the file, write it, say done.
var notesByResults = llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
	results := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			results++
		}
	}
	call := func(id, name, args string) *llm.Response {
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: id, Name: name, Arguments: args}), FinishReason: llm.FinishToolCalls}
	}
	switch results {
	case 0:
		return call("call_1", "read_file", `{"path":"notes.txt"}`), nil
	case 1:
		return call("call_2", "write_file", `{"path":"notes.txt","content":"hello\nworld\n"}`), nil
	}
	return &llm.Response{Message: llm.AssistantMessage("Done: notes.txt now says hello and world."), FinishReason: llm.FinishStop}, nil
})

// TestEvalSaveTrialsCommand: eval --save-trials of a scenario whose agent
// is a program (setup.agent.command, named relative to the scenario with
// $SCENARIO_DIR) saves a trial that replays offline, from the folder the
// trials were saved in, with the live server gone.
func TestEvalSaveTrialsCommand(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the test agent with")
	}
	dir := newScenarios(t, map[string]string{"b/notes.yaml": commandNotes})
	out, err := exec.Command(goTool, "build", "-o", filepath.Join(dir, "b", "cmdagent"), "../bridge/testdata/cmdagent").CombinedOutput()
	if err != nil {
		t.Fatalf("building the test agent: %v\n%s", err, out)
	}
	srv := httptest.NewServer(bridge.Handler(notesByResults, nil))
	saved := filepath.Join(t.TempDir(), "trials")
	code, stdout, stderr := runAgentCmd(t, nil, "eval", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL+"/v1",
		"--trials", "2", "--parallel", "1", "--save-trials", saved, dir)
	srv.Close()
	if code != exitOK || !strings.Contains(stdout, "2/2") {
		t.Fatalf("eval: exit %d\n%s%s", code, stdout, stderr)
	}
	trial := filepath.Join(saved, "b", "notes", "openai-compatible-gpt-test", "trial-1.yaml")
	if _, err := os.Stat(scenario.GoldenPath(trial)); err != nil {
		t.Errorf("no golden beside the saved trial: %v", err)
	}
	code, stdout, stderr = runAgentCmd(t, nil, "replay", saved)
	if code != exitOK || !strings.Contains(stdout, "2 passed, 0 failed") {
		t.Errorf("replaying the saved trials offline: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestRecordCommand: evalrun record of a scenario whose agent is a
// program proxies its calls to the live model (a scripted one behind a
// local server), writes the tape in place, and the tape then replays
// offline with the server closed.
func TestRecordCommand(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the test agent with")
	}
	dir := newScenarios(t, map[string]string{"b/notes.yaml": commandNotes})
	if out, err := exec.Command(goTool, "build", "-o", filepath.Join(dir, "b", "cmdagent"), "../bridge/testdata/cmdagent").CombinedOutput(); err != nil {
		t.Fatalf("building the test agent: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "b", "notes.yaml")
	srv := httptest.NewServer(bridge.Handler(notesByResults, nil))
	code, stdout, stderr := runAgentCmd(t, nil, "record", "--model", "openai-compatible/gpt-test", "--base-url", srv.URL+"/v1", path)
	srv.Close()
	if code != exitOK || !strings.Contains(stdout, "recorded  b/notes  3 model calls") {
		t.Fatalf("record: exit %d\n%s%s", code, stdout, stderr)
	}
	s, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tape) != 3 || s.Offered == nil || s.Offered.System == nil {
		t.Errorf("the recorded tape has %d entries, offered %+v; want 3 and the program's system prompt", len(s.Tape), s.Offered)
	}
	if code, stdout, stderr := runAgentCmd(t, nil, "replay", path); code != exitOK || !strings.Contains(stdout, "1 passed, 0 failed") {
		t.Errorf("replaying the recording offline: exit %d\n%s%s", code, stdout, stderr)
	}
}
