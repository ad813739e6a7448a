package harness

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tapeloop/tapeloop/mcptools"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// connectMCP connects the registry to the scenario's MCP servers (a live
// run only) and returns a function that closes the connections, removing
// their tools. An MCP tool replaces a setup tool of the same name, such as
// the recorded stand-in a capture left for replays.
func connectMCP(ctx context.Context, s *scenario.Scenario, reg *tools.Registry) (func(), error) {
	var conns []*mcptools.Connection
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	for _, m := range s.Setup.MCP {
		c, err := mcptools.Connect(ctx, reg, mcptools.Server{Name: m.Name, Command: m.Command, Env: m.Env, Dir: filepath.Dir(s.Path), URL: m.URL}, &mcptools.Options{Replace: true})
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("%s:%d: setup.mcp[%s]: %w", s.Path, m.Line, m.Name, err)
		}
		conns = append(conns, c)
	}
	return closeAll, nil
}
