// Package notes is a small MCP server for mcptools' tests: a notebook kept in
// memory, with a read-only tool, a tool that changes it, one that always fails,
// one answering with structured content only, and one that adds a tool (so the
// server announces tools/list_changed).
package notes

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddArgs are the arguments of the add tool.
type AddArgs struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

// NoteArgs are the arguments of the write_note tool.
type NoteArgs struct {
	Text string `json:"text" jsonschema:"the note"`
}

// Sum is the structured output of the sum tool.
type Sum struct {
	Total int `json:"total"`
}

// New returns the server.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1"}, nil)
	var mu sync.Mutex
	var notes []string
	mcp.AddTool(s, &mcp.Tool{
		Name:        "add",
		Description: "Adds two integers.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in AddArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "write_note", Description: "Appends a note to the notebook."},
		func(_ context.Context, _ *mcp.CallToolRequest, in NoteArgs) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, in.Text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d notes: %s", len(notes), strings.Join(notes, "; "))}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "lookup.missing", Description: "Always fails."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Error: note not found"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Adds two integers, answering with structured content."},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddArgs) (*mcp.CallToolResult, Sum, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}}, Sum{Total: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "unlock", Description: "Adds the tool secret and removes unlock."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			s.AddTool(&mcp.Tool{Name: "secret", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "42"}}}, nil
				})
			s.RemoveTools("unlock")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "unlocked"}}}, nil, nil
		})
	return s
}
