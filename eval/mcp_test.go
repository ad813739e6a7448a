package eval

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// TestConnectMCPInALiveRun runs a scenario whose tools come from a real MCP
// server process (mcptools' test server, built here): live, the model's call
// reaches the server through ConnectMCP and the registry; in a replay
// nothing is connected.
func TestConnectMCPInALiveRun(t *testing.T) {
	bin := buildNotesServer(t)
	src := `format: tapeloop/v1
setup:
  mcp:
    - {name: notes, command: [` + bin + `]}
input: [{role: user, content: "add 40 and 2"}]
tape:
  - response:
      tool_calls: [{id: call_1, name: notes_add, arguments: '{"a": 40, "b": "2"}'}]
  - response: {content: "42"}
`
	s, err := scenario.Parse([]byte(src), "m.yaml", "m")
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
			return &llm.Response{Message: llm.AssistantMessage("the sum is " + last.Content)}, nil
		}
		offered = req.ToolNames()
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "notes_add", Arguments: `{"a": 40, "b": "2"}`})}, nil
	})
	o, err := harness.Run(context.Background(), s, &harness.RunOptions{Model: model, ConnectMCP: ConnectMCP})
	if err != nil {
		t.Fatal(err)
	}
	if o.Final != "the sum is 42" || !strings.Contains(strings.Join(offered, ","), "notes_add") {
		t.Fatalf("live: final %q, offered %v", o.Final, offered)
	}
	if c := o.Turns[0].Calls[0]; len(c.Coercions()) != 1 {
		t.Errorf("the registry did not coerce the MCP tool's arguments: %+v", c)
	}
	replayed, err := harness.Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := replayed.Turns[0].Calls[0].Failure(); k != tools.KindNotFound {
		t.Errorf("replay connected to the server: the call's failure is %q, want not_found", k)
	}
}

// buildNotesServer builds mcptools' test MCP server (its tool add becomes
// notes_add) into a temporary directory and returns the program's path.
func buildNotesServer(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to build the test MCP server")
	}
	bin := filepath.Join(t.TempDir(), "notes-server")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../mcptools/testdata/notes-server").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	return bin
}
