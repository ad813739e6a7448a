package eval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/mcptools"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestMCPToolCollisions: an MCP server's tool never silently takes the
// place of a tool of setup.tools; it replaces a recorded stand-in (what
// record --capture leaves), or a tool the scenario's setup.mcp[].replace
// names, and anything else is an error naming both.
func TestMCPToolCollisions(t *testing.T) {
	bin := buildNotesServer(t)
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
			return &llm.Response{Message: llm.AssistantMessage("the sum is " + last.Content)}, nil
		}
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "notes_add", Arguments: `{"a": 40, "b": 2}`})}, nil
	})
	run := func(tools, mcp string) (*harness.Outcome, error) {
		src := "format: tapeloop/v1\nsetup:\n  tools:\n" + tools + "  mcp:\n    - {name: notes, command: [" + bin + "]" + mcp + "}\ninput: [{role: user, content: add}]\ntape: []\n"
		s, err := scenario.Parse([]byte(src), "m.yaml", "m")
		if err != nil {
			t.Fatal(err)
		}
		return harness.Run(context.Background(), s, &harness.RunOptions{Model: model, ConnectMCP: ConnectMCP})
	}
	const fixture = "    - {name: notes_add, fixture: read_file}\n"
	const standIn = "    - name: notes_add\n      fixture: recorded\n      with: {results: [{arguments: {a: 1, b: 1}, content: '2'}]}\n"

	_, err := run(fixture, "")
	if err == nil || !strings.Contains(err.Error(), "m.yaml:6: setup.mcp[notes]") || !strings.Contains(err.Error(), `"notes_add"`) || !strings.Contains(err.Error(), "setup.tools") {
		t.Errorf("an MCP tool named like a tool of setup.tools: %v; want an error naming the server, the tool and setup.tools", err)
	}
	if !errors.Is(err, mcptools.ErrCollision) {
		t.Errorf("the collision error %v does not wrap mcptools.ErrCollision", err)
	}
	for _, tc := range []struct{ name, tools, mcp string }{
		{"a recorded stand-in", standIn, ""},
		{"replace: names it", fixture, ", replace: [notes_add]"},
	} {
		o, err := run(tc.tools, tc.mcp)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if o.Final != "the sum is 42" {
			t.Errorf("%s: final %q, want the server's answer", tc.name, o.Final)
		}
	}
}
