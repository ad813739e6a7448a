package mcptools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/mcptools"
	"github.com/tapeloop/tapeloop/mcptools/internal/notes"
	"github.com/tapeloop/tapeloop/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var allTools = []string{"notes_add", "notes_lookup_missing", "notes_sum", "notes_unlock", "notes_write_note"}

// connectInMemory runs the notes server on one end of an in-memory pipe and
// connects a registry to the other.
func connectInMemory(t *testing.T, reg *tools.Registry, opts *mcptools.Options) *mcptools.Connection {
	t.Helper()
	ctx := context.Background()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := notes.New().Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := mcptools.ConnectTransport(ctx, reg, "notes", clientT, opts)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func call(t *testing.T, reg *tools.Registry, name, args string) *tools.Execution {
	t.Helper()
	return reg.Execute(context.Background(), llm.ToolCall{ID: "c1", Name: name, Arguments: args})
}

func TestRegistersServerTools(t *testing.T) {
	reg := tools.NewRegistry(nil)
	conn := connectInMemory(t, reg, nil)
	defer conn.Close()
	if got := conn.Tools(); !slices.Equal(got, allTools) {
		t.Fatalf("Tools() = %v, want %v", got, allTools)
	}
	var names []string
	for _, d := range reg.Definitions() {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, allTools) {
		t.Fatalf("registry definitions = %v, want %v", names, allTools)
	}
	add, _ := reg.Lookup("notes_add")
	spec := add.Spec()
	if spec.Provider != "mcp:notes" || spec.Description != "Adds two integers." {
		t.Errorf("notes_add: provider %q, description %q", spec.Provider, spec.Description)
	}
	if !strings.Contains(string(spec.Parameters), `"a"`) || !strings.Contains(string(spec.Parameters), `"integer"`) {
		t.Errorf("notes_add schema does not come from the server: %s", spec.Parameters)
	}
	if want := (tools.Safety{SideEffects: tools.SideEffectRead, Idempotent: true}); spec.Safety != want {
		t.Errorf("notes_add safety = %+v, want %+v (readOnlyHint, idempotentHint)", spec.Safety, want)
	}
	write, _ := reg.Lookup("notes_write_note")
	if want := (tools.Safety{SideEffects: tools.SideEffectExternal}); write.Spec().Safety != want {
		t.Errorf("notes_write_note safety = %+v, want %+v (no hints: may change the world)", write.Spec().Safety, want)
	}
}

func TestCallsGoThroughTheRegistry(t *testing.T) {
	reg := tools.NewRegistry(&tools.RegistryOptions{Repairer: repair.Cascade{}})
	conn := connectInMemory(t, reg, nil)
	defer conn.Close()
	cases := []struct {
		name, tool, args string
		kind             tools.FailureKind
		content          string
		repairs          []string
		coerced          bool
	}{
		{name: "plain", tool: "notes_add", args: `{"a": 2, "b": 3}`, content: "5"},
		{name: "coerced", tool: "notes_add", args: `{"a": "2", "b": 3}`, content: "5", coerced: true},
		{name: "repaired", tool: "notes_add", args: `{"a": 2, "b": 3,}`, content: "5", repairs: []string{"trailing_comma"}},
		{name: "invalid never reaches the server", tool: "notes_add", args: `{"a": "two", "b": 3}`, kind: tools.KindValidation},
		{name: "is_error keeps the server's text", tool: "notes_lookup_missing", args: `{}`, kind: tools.KindFailed, content: "Error: note not found"},
		{name: "structured content", tool: "notes_sum", args: `{"a": 4, "b": 5}`, content: `{"total":9}`},
		{name: "unknown tool", tool: "notes_nope", args: `{}`, kind: tools.KindNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ex := call(t, reg, c.tool, c.args)
			if got := ex.Result.Kind(); got != c.kind {
				t.Fatalf("kind = %q, want %q (content %q)", got, c.kind, ex.Result.Content)
			}
			if c.content != "" && ex.Result.Content != c.content {
				t.Errorf("content = %q, want %q", ex.Result.Content, c.content)
			}
			if !slices.Equal(ex.Repairs, c.repairs) {
				t.Errorf("repairs = %v, want %v", ex.Repairs, c.repairs)
			}
			if c.coerced != (len(ex.Coercions) > 0) {
				t.Errorf("coercions = %v, want coerced=%v", ex.Coercions, c.coerced)
			}
		})
	}
}

func TestRelistsOnToolListChanged(t *testing.T) {
	reg := tools.NewRegistry(nil)
	changed := make(chan error, 4)
	conn := connectInMemory(t, reg, &mcptools.Options{ToolsChanged: func(err error) { changed <- err }})
	defer conn.Close()
	if ex := call(t, reg, "notes_unlock", `{}`); ex.Result.Content != "unlocked" {
		t.Fatalf("unlock: %q", ex.Result.Content)
	}
	// The server announces two changes (a tool added, a tool removed); wait
	// until a listing shows both.
	want := []string{"notes_add", "notes_lookup_missing", "notes_secret", "notes_sum", "notes_write_note"}
	for !slices.Equal(conn.Tools(), want) {
		if err := <-changed; err != nil {
			t.Fatalf("re-listing: %v", err)
		}
	}
	if _, ok := reg.Lookup("notes_unlock"); ok {
		t.Error("notes_unlock is still registered after the server removed it")
	}
	if ex := call(t, reg, "notes_secret", `{}`); ex.Result.Content != "42" {
		t.Errorf("notes_secret: %q", ex.Result.Content)
	}
}

func TestCloseRemovesTools(t *testing.T) {
	reg := tools.NewRegistry(nil)
	conn := connectInMemory(t, reg, nil)
	before := reg.Version()
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if defs := reg.AllDefinitions(); len(defs) != 0 {
		t.Fatalf("after Close the registry still holds %d tools", len(defs))
	}
	if reg.Version() == before {
		t.Error("removing the tools did not bump the registry's version")
	}
	if len(conn.Tools()) != 0 {
		t.Errorf("Tools() after Close = %v", conn.Tools())
	}
}

func TestConnectErrors(t *testing.T) {
	reg := tools.NewRegistry(nil)
	cases := []struct {
		srv  mcptools.Server
		want string
	}{
		{mcptools.Server{Name: "x"}, `connecting to MCP server "x": give a command or a url`},
		{mcptools.Server{Name: "x", Command: []string{"a"}, URL: "http://b"}, `connecting to MCP server "x": give a command or a url, not both`},
		{mcptools.Server{Name: "bad name", Command: []string{"a"}}, `connecting to MCP server "bad name": a connection name is 1 to 32 of a-z, A-Z, 0-9, _ and -`},
	}
	for _, c := range cases {
		_, err := mcptools.Connect(context.Background(), reg, c.srv, nil)
		if err == nil || err.Error() != c.want || !errors.Is(err, mcptools.ErrConnect) {
			t.Errorf("Connect(%+v) = %v, want %q", c.srv, err, c.want)
		}
	}
	_, err := mcptools.Connect(context.Background(), reg, mcptools.Server{Name: "gone", Command: []string{filepath.Join(t.TempDir(), "no-such-server")}}, nil)
	if err == nil || !errors.Is(err, mcptools.ErrConnect) || !strings.HasPrefix(err.Error(), `connecting to MCP server "gone": `) {
		t.Errorf("a missing command: %v", err)
	}
}

// buildServer builds testdata/notes-server, the notes server as a real
// program speaking MCP on stdio.
func buildServer(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to build testdata/notes-server")
	}
	bin := filepath.Join(t.TempDir(), "notes-server")
	out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/notes-server").CombinedOutput()
	if err != nil {
		t.Fatalf("building the test server: %v\n%s", err, out)
	}
	return bin
}

func TestStdioServer(t *testing.T) {
	bin := buildServer(t)
	reg := tools.NewRegistry(nil)
	conn, err := mcptools.Connect(context.Background(), reg, mcptools.Server{Name: "notes", Command: []string{bin}, Env: map[string]string{"NOTES_TEST": "1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := conn.Tools(); !slices.Equal(got, allTools) {
		t.Fatalf("Tools() = %v", got)
	}
	call(t, reg, "notes_write_note", `{"text": "first"}`)
	if ex := call(t, reg, "notes_write_note", `{"text": "second"}`); ex.Result.Content != "2 notes: first; second" {
		t.Errorf("second note: %q", ex.Result.Content)
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if len(reg.AllDefinitions()) != 0 {
		t.Error("tools remain after Close")
	}
}

func TestStreamableHTTPServer(t *testing.T) {
	server := notes.New()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer ts.Close()
	reg := tools.NewRegistry(nil)
	conn, err := mcptools.Connect(context.Background(), reg, mcptools.Server{Name: "web", URL: ts.URL, HTTPClient: ts.Client()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ex := call(t, reg, "web_add", `{"a": 20, "b": 22}`); ex.Result.Content != "42" {
		t.Errorf("web_add: %q (%s)", ex.Result.Content, ex.Result.Kind())
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestAgentRunWithServerTools runs the agent loop over MCP tools: the model
// calls a tool with broken arguments, the registry repairs them, the server
// answers, and the model's final text ends the run.
func TestAgentRunWithServerTools(t *testing.T) {
	reg := tools.NewRegistry(&tools.RegistryOptions{Repairer: repair.Cascade{}})
	conn := connectInMemory(t, reg, nil)
	defer conn.Close()
	var seen []string
	model := llm.ModelFunc(func(ctx context.Context, req *llm.Request) (*llm.Response, error) {
		last, _ := req.LastMessage()
		if last.Role == llm.RoleTool {
			seen = append(seen, last.Content)
			return &llm.Response{Message: llm.AssistantMessage("The sum is " + last.Content + "."), FinishReason: llm.FinishStop}, nil
		}
		if !slices.Contains(req.ToolNames(), "notes_add") {
			t.Errorf("offered tools %v lack notes_add", req.ToolNames())
		}
		return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_1", Name: "notes_add", Arguments: `{"a": 40, "b": "2",}`}), FinishReason: llm.FinishToolCalls}, nil
	})
	run, err := agent.Run(context.Background(), model, reg, []llm.Message{llm.UserMessage("add 40 and 2")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Termination.Reason != agent.ReasonFinalText || run.FinalText() != "The sum is 42." {
		t.Fatalf("termination %s, final %q", run.Termination.Reason, run.FinalText())
	}
	c := run.Turns[0].Calls[0]
	if !slices.Equal(c.Repairs, []string{"trailing_comma"}) || len(c.Coercions) != 1 {
		t.Errorf("repairs %v, coercions %v", c.Repairs, c.Coercions)
	}
}

// serverWith runs a server holding the given raw tools and connects reg to it.
func serverWith(t *testing.T, reg *tools.Registry, name string, opts *mcptools.Options, add func(*mcp.Server)) (*mcptools.Connection, error) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v1"}, nil)
	add(s)
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return mcptools.ConnectTransport(context.Background(), reg, name, clientT, opts)
}

func rawTool(name, schema string) (*mcp.Tool, mcp.ToolHandler) {
	return &mcp.Tool{Name: name, InputSchema: json.RawMessage(schema)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
	}
}

// TestFailedListingRegistersNothing: a server with one good tool and one
// whose schema does not compile fails to connect and leaves no tool behind.
func TestFailedListingRegistersNothing(t *testing.T) {
	reg := tools.NewRegistry(nil)
	_, err := serverWith(t, reg, "bad", nil, func(s *mcp.Server) {
		s.AddTool(rawTool("a_good", `{"type":"object"}`))
		s.AddTool(rawTool("b_bad", `{"type":"object","properties":{"x":{"type":7}}}`))
	})
	if err == nil || !strings.HasPrefix(err.Error(), `connecting to MCP server "bad": listing tools: tool "b_bad": input schema: `) {
		t.Fatalf("Connect: %v", err)
	}
	if defs := reg.AllDefinitions(); len(defs) != 0 {
		t.Errorf("a failed connection left %d tools registered (%s)", len(defs), defs[0].Name)
	}
}

// TestNameCollisions: a server tool may not silently take the name of a
// tool registered otherwise (and then remove it on Close); Replace allows it.
func TestNameCollisions(t *testing.T) {
	mine, err := tools.New[struct{}](tools.Spec{Name: "notes_sum", Description: "my own sum", Safety: tools.Safety{Pure: true}},
		func(context.Context, struct{}) (*tools.Result, error) { return tools.Success("mine"), nil })
	if err != nil {
		t.Fatal(err)
	}
	reg := tools.NewRegistry(nil)
	reg.MustRegister(mine)
	_, err = mcptools.ConnectTransport(context.Background(), reg, "notes", inMemoryNotes(t), nil)
	if want := `connecting to MCP server "notes": listing tools: tool name taken: server "notes": tool "sum" would register as "notes_sum", which a tool registered without a provider (setup.tools, or one of yours) holds already`; err == nil || err.Error() != want {
		t.Fatalf("Connect: %v\nwant %s", err, want)
	}
	if tl, ok := reg.Lookup("notes_sum"); !ok || tl.Spec().Description != "my own sum" || len(reg.AllDefinitions()) != 1 {
		t.Fatalf("the refused connection changed the registry: %d tools", len(reg.AllDefinitions()))
	}
	conn, err := mcptools.ConnectTransport(context.Background(), reg, "notes", inMemoryNotes(t), &mcptools.Options{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if tl, _ := reg.Lookup("notes_sum"); tl.Spec().Description == "my own sum" {
		t.Error("Replace did not replace the tool")
	}
	conn.Close()
}

func inMemoryNotes(t *testing.T) mcp.Transport {
	t.Helper()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := notes.New().Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientT
}

// TestBurstOfListChanges: a tool call that adds twenty tools and removes
// ten sends thirty notifications at once; the listings never overlap and
// the last one sees the end state.
func TestBurstOfListChanges(t *testing.T) {
	reg := tools.NewRegistry(nil)
	changed := make(chan error, 64)
	var srv *mcp.Server
	conn, err := serverWith(t, reg, "burst", &mcptools.Options{ToolsChanged: func(err error) { changed <- err }}, func(s *mcp.Server) {
		srv = s
		s.AddTool(&mcp.Tool{Name: "grow", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := range 20 {
				srv.AddTool(rawTool(fmt.Sprintf("t%02d", i), `{"type":"object"}`))
			}
			for i := range 10 {
				srv.RemoveTools(fmt.Sprintf("t%02d", i))
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call(t, reg, "burst_grow", `{}`)
	want := []string{"burst_grow"}
	for i := 10; i < 20; i++ {
		want = append(want, fmt.Sprintf("burst_t%02d", i))
	}
	for !slices.Equal(conn.Tools(), want) {
		select {
		case err := <-changed:
			if err != nil {
				t.Fatalf("re-listing: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no listing reached the end state; tools %v", conn.Tools())
		}
	}
}

func TestTextWithStructuredContent(t *testing.T) {
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte("abc")}},
		StructuredContent: map[string]any{"total": 9},
	}
	if got, want := mcptools.Text(res), "[image image/png, 3 bytes]\n{\"total\":9}"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: "nine"})
	if got, want := mcptools.Text(res), "[image image/png, 3 bytes]\nnine"; got != want {
		t.Errorf("with text, Text = %q, want %q (structured content only when no part is text)", got, want)
	}
}
