package eval

import (
	"context"

	"github.com/tapeloop/tapeloop/mcptools"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// ConnectMCP connects reg to one server of a scenario's setup.mcp with
// package mcptools, each server tool replacing a setup tool of the same
// name: the harness.ConnectMCP every trial uses, and that a live
// harness.Run of your own can pass as RunOptions.ConnectMCP.
func ConnectMCP(ctx context.Context, reg *tools.Registry, m scenario.MCPSetup, dir string) (func(), error) {
	c, err := mcptools.Connect(ctx, reg, mcptools.Server{Name: m.Name, Command: m.Command, Env: m.Env, Dir: dir, URL: m.URL}, &mcptools.Options{Replace: true})
	if err != nil {
		return nil, err
	}
	return func() { c.Close() }, nil
}
