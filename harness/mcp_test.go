package harness

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

func TestMCPSetupDecodeErrors(t *testing.T) {
	head := "format: tapeloop/v1\n" + minimal + "setup:\n  mcp:\n"
	for _, c := range []struct{ name, entry, want string }{
		{"no name", "    - {command: [srv]}\n", `m.yaml:6: setup.mcp[0]: missing required key "name"`},
		{"both", "    - {name: a, command: [srv], url: 'http://x'}\n", `m.yaml:6: setup.mcp[0]: give exactly one of command and url`},
		{"neither", "    - {name: a}\n", `m.yaml:6: setup.mcp[0]: give exactly one of command and url`},
		{"env without command", "    - {name: a, url: 'http://x', env: {K: v}}\n", `m.yaml:6: setup.mcp[0]: env goes with command`},
		{"empty command", "    - {name: a, command: []}\n", `m.yaml:6: setup.mcp[0].command: empty command (want [program, args...])`},
		{"twice", "    - {name: a, url: 'http://x'}\n    - {name: a, url: 'http://y'}\n", `m.yaml:7: setup.mcp[1]: a second server named "a"`},
		{"bad name", "    - {name: my files!, command: [srv]}\n", `m.yaml:6: setup.mcp[0].name: invalid connection name "my files!": want 1 to 32 of a-z, A-Z, 0-9, _ and -`},
		{"bad url", "    - {name: a, url: not a url}\n", `m.yaml:6: setup.mcp[0].url: "not a url" is not an http or https URL`},
		{"unknown key", "    - {name: a, cmd: [x]}\n", `m.yaml:6: setup.mcp[0]: unknown key "cmd" (want name, command, env, url)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(head+c.entry), "m.yaml", "m")
			if err == nil || err.Error() != c.want || !errors.Is(err, scenario.ErrScenario) {
				t.Fatalf("error:\n%v\nwant:\n%s", err, c.want)
			}
		})
	}
}

// TestMCPToolsInALiveRun runs a scenario whose tools come from a real MCP
// server process (mcptools' test server, built here): live, the model's call
// reaches the server through the registry; in a replay nothing is connected.
func TestMCPToolsInALiveRun(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to build the test MCP server")
	}
	bin := filepath.Join(t.TempDir(), "notes-server")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../mcptools/testdata/notes-server").CombinedOutput(); err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
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
	o, err := Run(context.Background(), s, &RunOptions{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if o.Final != "the sum is 42" || !strings.Contains(strings.Join(offered, ","), "notes_add") {
		t.Fatalf("live: final %q, offered %v", o.Final, offered)
	}
	if c := o.Turns[0].Calls[0]; len(c.Coercions) != 1 {
		t.Errorf("the registry did not coerce the MCP tool's arguments: %+v", c)
	}
	replayed, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := replayed.Turns[0].Calls[0].Failure; k != tools.KindNotFound {
		t.Errorf("replay connected to the server: the call's failure is %q, want not_found", k)
	}
}
