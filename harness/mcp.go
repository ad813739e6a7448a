package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// ErrNoMCP is wrapped by the error of a live run whose scenario sets up MCP
// servers (setup.mcp) when RunOptions.ConnectMCP is nil: the run does not
// start without the tools the scenario says it has.
var ErrNoMCP = errors.New("no MCP connector: set RunOptions.ConnectMCP (eval.ConnectMCP connects with package mcptools)")

// connectMCP connects the registry to the scenario's MCP servers (a live
// run only) with connect and returns a function that closes the
// connections, removing their tools.
func connectMCP(ctx context.Context, s *scenario.Scenario, reg *tools.Registry, connect func(ctx context.Context, reg *tools.Registry, server scenario.MCPSetup, dir string) (close func(), err error)) (func(), error) {
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	for _, m := range s.Setup.MCP {
		if connect == nil {
			return nil, fmt.Errorf("%s:%d: setup.mcp[%s]: %w", s.Path, m.Line, m.Name, ErrNoMCP)
		}
		timeout := cmp.Or(m.Timeout, scenario.DefaultMCPTimeout)
		cctx, cancel := context.WithTimeout(ctx, timeout)
		c, err := connect(cctx, reg, m, filepath.Dir(s.Path))
		timedOut := errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
		cancel()
		if err != nil {
			closeAll()
			if timedOut {
				return nil, fmt.Errorf("%s:%d: setup.mcp[%s]: the server did not finish connecting (initialize, tools/list) within %s (setup.mcp[].timeout): %w", s.Path, m.Line, m.Name, timeout, err)
			}
			return nil, fmt.Errorf("%s:%d: setup.mcp[%s]: %w", s.Path, m.Line, m.Name, err)
		}
		closers = append(closers, c)
	}
	return closeAll, nil
}
