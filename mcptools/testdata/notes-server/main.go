// Command notes-server serves package notes over stdio: the MCP server that
// mcptools' tests start as a real process.
package main

import (
	"context"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tapeloop/tapeloop/mcptools/internal/notes"
)

func main() {
	if err := notes.New().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
