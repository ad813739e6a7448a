package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/mcptools"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// ConnectMCP connects reg to one server of a scenario's setup.mcp with
// package mcptools: the harness.RunOptions.ConnectMCP every trial uses, and that a
// live harness.Run of your own can pass as RunOptions.ConnectMCP. A server
// tool may take the place of a recorded stand-in (what record --capture
// leaves, fixtures.StandInProvider) or of a tool setup.mcp[].replace names;
// any other tool of the same name, of setup.tools or of an earlier server,
// makes connecting fail with an error wrapping mcptools.ErrCollision.
func ConnectMCP(ctx context.Context, reg *tools.Registry, m scenario.MCPSetup, dir string) (func(), error) {
	c, err := mcptools.Connect(ctx, reg, mcptools.Server{Name: m.Name, Command: m.Command, Env: m.Env, Dir: dir, URL: m.URL}, &mcptools.Options{MayReplace: func(holder tools.Spec) bool {
		return holder.Provider == fixtures.StandInProvider || slices.Contains(m.Replace, holder.Name)
	}})
	if errors.Is(err, mcptools.ErrCollision) {
		return nil, fmt.Errorf("%w (name the tool in setup.mcp[].replace to let the server's tool take its place)", err)
	}
	if err != nil {
		return nil, err
	}
	return func() { c.Close() }, nil
}
