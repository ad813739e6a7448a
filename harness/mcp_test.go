package harness

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
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
		{"unknown key", "    - {name: a, cmd: [x]}\n", `m.yaml:6: setup.mcp[0]: unknown key "cmd" (want name, command, env, url, timeout, replace)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scenario.Parse([]byte(head+c.entry), "m.yaml", "m")
			if err == nil || err.Error() != c.want || !errors.Is(err, scenario.ErrScenario) {
				t.Fatalf("error:\n%v\nwant:\n%s", err, c.want)
			}
		})
	}
}

// TestLiveRunConnectsMCPThroughTheSeam: a live run connects each setup.mcp
// server through RunOptions.ConnectMCP (with the scenario's folder), its
// tools are offered, and they are gone when the run ends; without a
// connector the run does not start; a replay connects nothing.
func TestLiveRunConnectsMCPThroughTheSeam(t *testing.T) {
	src := `format: tapeloop/v1
setup:
  mcp:
    - {name: notes, command: [notes-server]}
input: [{role: user, content: "add"}]
tape:
  - response: {content: "done"}
`
	s, err := scenario.Parse([]byte(src), filepath.Join("suite", "m.yaml"), "m")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	closed := 0
	connect := func(_ context.Context, reg *tools.Registry, m scenario.MCPSetup, dir string) (func(), error) {
		got = append(got, m.Name+" in "+dir)
		tool, err := tools.New(tools.Spec{Name: m.Name + "_add", Safety: tools.Safety{SideEffects: tools.SideEffectNone}},
			func(context.Context, struct{}) (*tools.Result, error) { return tools.Success("ok"), nil })
		if err != nil {
			return nil, err
		}
		if err := reg.Register(tool); err != nil {
			return nil, err
		}
		return func() { closed++ }, nil
	}
	var offered []string
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		offered = req.ToolNames()
		return &llm.Response{Message: llm.AssistantMessage("done")}, nil
	})
	if _, err := Run(context.Background(), s, &RunOptions{Model: model, ConnectMCP: connect}); err != nil {
		t.Fatal(err)
	}
	if want := "notes in suite"; len(got) != 1 || got[0] != want || closed != 1 || !slices.Contains(offered, "notes_add") {
		t.Errorf("connected %v (want [%s]), closed %d times, offered %v", got, want, closed, offered)
	}
	_, err = Run(context.Background(), s, &RunOptions{Model: model})
	if !errors.Is(err, ErrNoMCP) || !strings.HasPrefix(err.Error(), filepath.Join("suite", "m.yaml")+":4: setup.mcp[notes]: ") {
		t.Errorf("a live run without a connector: %v, want ErrNoMCP naming the setup line", err)
	}
	if _, err := Run(context.Background(), s, &RunOptions{ConnectMCP: connect}); err != nil || len(got) != 1 {
		t.Errorf("a replay: %v, connected %v", err, got)
	}
}

// TestMCPConnectTimeoutIsNamed: a live run whose MCP server does not
// finish connecting within setup.mcp[].timeout fails saying so, with the
// server's file and line.
func TestMCPConnectTimeoutIsNamed(t *testing.T) {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  mcp:
    - {name: slow, command: [slow-server], timeout: 10ms}
input: [{role: user, content: hi}]
tape: []
`), "mcp.yaml", "mcp")
	if err != nil {
		t.Fatal(err)
	}
	model := llm.ModelFunc(func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.AssistantMessage("done")}, nil
	})
	connect := func(ctx context.Context, _ *tools.Registry, _ scenario.MCPSetup, _ string) (func(), error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	_, err = Run(context.Background(), s, &RunOptions{Model: model, ConnectMCP: connect})
	want := "mcp.yaml:4: setup.mcp[slow]: the server did not finish connecting (initialize, tools/list) within 10ms (setup.mcp[].timeout): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run = %v, want %s...", err, want)
	}
}
