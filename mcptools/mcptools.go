// Package mcptools puts the tools of MCP (Model Context Protocol) servers into a
// tools.Registry, so that an agent calls them through the registry's single
// dispatch point like any other tool: the server's input schema is the tool's
// schema, and the registry's parsing, repair, coercion and validation apply
// before a call reaches the server.
//
// A connection is made with the official SDK (github.com/modelcontextprotocol/go-sdk)
// over stdio (a command) or streamable HTTP (a URL):
//
//	conn, err := mcptools.Connect(ctx, registry, mcptools.Server{
//		Name:    "files",
//		Command: []string{"my-mcp-server", "--root", "."},
//	}, nil)
//	if err != nil {
//		return err
//	}
//	defer conn.Close() // removes the connection's tools from the registry
//
// Each server tool is registered as NAME_TOOL ("files_read" for the tool "read"
// of the connection "files"), under the provider tag "mcp:NAME", so that
// Registry.RemoveProvider takes all of a connection's tools at once. Characters
// a tool name may not hold are replaced by "_". When the server announces
// notifications/tools/list_changed the tools are listed again: new tools are
// registered, changed ones replaced and vanished ones removed.
//
// A call's result maps to a tools.Result: text content is joined by newlines;
// structured content, when the server sends no text, is its JSON; images,
// audio and resource links are described in a line each; IsError makes a
// failed result of kind failed whose content is the server's text verbatim.
// A protocol or transport error is a failed result too (the model reads it),
// except cancellation and deadlines, which keep their own kinds.
//
// The server's annotations set the tool's safety: readOnlyHint means it reads
// (and may run concurrently and be memoised if also idempotent), anything else
// is treated as changing the world; idempotentHint allows retries.
package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tapeloop/tapeloop/internal/mcpname"
	"github.com/tapeloop/tapeloop/tools"
)

// Server says how to reach one MCP server. Exactly one of Command and URL is set.
type Server struct {
	// Name is the connection's name: the prefix of its tools' names and the
	// suffix of their provider tag. It must be a valid tool-name prefix
	// (letters, digits, "_" and "-").
	Name string
	// Command starts a server that speaks MCP on its stdin and stdout; the
	// first element is the program.
	Command []string
	// Env adds variables to the command's environment (which otherwise is
	// this process's); nil adds none.
	Env map[string]string
	// Dir is the command's working directory; empty means this process's.
	Dir string
	// URL is the endpoint of a server speaking streamable HTTP.
	URL string
	// HTTPClient is used for URL; nil means http.DefaultClient.
	HTTPClient *http.Client
}

// Options configures a connection. A nil *Options is the zero value.
type Options struct {
	// ClientName is the name the client gives the server; empty means "tapeloop".
	ClientName string
	// ToolsChanged, when set, is called after the tools were listed again
	// because the server announced a change, with the listing's error (nil
	// on success). Nil means no one is told.
	ToolsChanged func(err error)
	// Replace lets a server tool replace a tool of the same name that
	// another provider (or no provider) registered, as a live scenario run
	// replaces the recorded stand-in a capture left. False refuses such a
	// name with an error, so that a server cannot silently take the place
	// of a tool of yours (and remove it on Close).
	Replace bool
	// MayReplace, when set, decides instead of Replace, for each
	// registered tool a server tool would take the place of, whether it
	// may. A refusal is an error wrapping ErrCollision.
	MayReplace func(holder tools.Spec) bool
}

// ErrCollision is wrapped by the error of a server tool whose name another
// tool holds already and may not be replaced (Options.Replace,
// Options.MayReplace).
var ErrCollision = errors.New("tool name taken")

// ErrConnect is matched by every error of Connect.
var ErrConnect = errors.New("connecting to MCP server")

// ValidateName checks a connection's name: 1 to 32 of a-z, A-Z, 0-9, _ and -.
func ValidateName(name string) error { return mcpname.Check(name) }

// Connection is a live connection to an MCP server whose tools are registered
// in a registry. It is safe for concurrent use.
type Connection struct {
	name     string
	registry *tools.Registry
	session  *mcp.ClientSession

	changed    func(error)
	replace    bool
	mayReplace func(tools.Spec) bool
	// dirty holds a pending re-listing; one worker serves it, so listings
	// never overlap and the last one starts after the last notification.
	dirty  chan struct{}
	stop   context.CancelFunc
	worker sync.WaitGroup

	mu     sync.Mutex
	names  []string // registered tool names, sorted
	err    error    // the last re-listing error, if any
	closed bool
}

// Connect connects to srv, lists its tools and registers them in reg. The
// tools stay registered until Close (or until the server removes them).
func Connect(ctx context.Context, reg *tools.Registry, srv Server, opts *Options) (*Connection, error) {
	var t mcp.Transport
	switch {
	case len(srv.Command) > 0 && srv.URL != "":
		return nil, fmt.Errorf("%w %q: give a command or a url, not both", ErrConnect, srv.Name)
	case len(srv.Command) > 0:
		cmd := exec.Command(srv.Command[0], srv.Command[1:]...)
		cmd.Dir = srv.Dir
		if len(srv.Env) > 0 {
			env := os.Environ()
			for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
				env = append(env, k+"="+srv.Env[k])
			}
			cmd.Env = env
		}
		t = &mcp.CommandTransport{Command: cmd}
	case srv.URL != "":
		t = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: srv.HTTPClient}
	default:
		return nil, fmt.Errorf("%w %q: give a command or a url", ErrConnect, srv.Name)
	}
	return ConnectTransport(ctx, reg, srv.Name, t, opts)
}

// ConnectTransport is Connect over a transport of the SDK's, such as one of
// mcp.NewInMemoryTransports in a test.
func ConnectTransport(ctx context.Context, reg *tools.Registry, name string, t mcp.Transport, opts *Options) (*Connection, error) {
	if !mcpname.Valid(name) {
		return nil, fmt.Errorf("%w %q: a connection name is 1 to 32 of a-z, A-Z, 0-9, _ and -", ErrConnect, name)
	}
	// (ValidateName says the same for lint, without the connecting part.)
	if reg == nil {
		return nil, fmt.Errorf("%w %q: nil registry", ErrConnect, name)
	}
	clientName := "tapeloop"
	if opts != nil && opts.ClientName != "" {
		clientName = opts.ClientName
	}
	c := &Connection{name: name, registry: reg, dirty: make(chan struct{}, 1)}
	if opts != nil {
		c.changed, c.replace, c.mayReplace = opts.ToolsChanged, opts.Replace, opts.MayReplace
	}
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "v1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			// The handler runs on the session's goroutine; listing from
			// it would wait on that same goroutine, so the worker lists.
			select {
			case c.dirty <- struct{}{}:
			default: // a listing is pending already; it will see this change
			}
		},
	})
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrConnect, name, err)
	}
	c.session = session
	if err := c.list(ctx); err != nil {
		session.Close()
		return nil, fmt.Errorf("%w %q: listing tools: %w", ErrConnect, name, err)
	}
	wctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.worker.Add(1)
	go c.relistWorker(wctx)
	return c, nil
}

// Name returns the connection's name.
func (c *Connection) Name() string { return c.name }

// Provider returns the provider tag under which the connection's tools are
// registered: "mcp:" and the connection's name.
func (c *Connection) Provider() string { return "mcp:" + c.name }

// Tools returns the registry names of the connection's tools, sorted.
func (c *Connection) Tools() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.names)
}

// Err returns the error of the last re-listing after a tools/list_changed
// notification, or nil.
func (c *Connection) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close removes the connection's tools from the registry and closes the
// session (for a command, the server's stdin is closed and the process
// waited for).
func (c *Connection) Close() error {
	err := c.session.Close()
	c.stop()
	c.worker.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	c.registry.RemoveProvider(c.Provider())
	c.names = nil
	return err
}

// relistWorker lists the tools again each time the server says they
// changed, one listing at a time, until ctx ends.
func (c *Connection) relistWorker(ctx context.Context) {
	defer c.worker.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.dirty:
			c.relist(ctx)
		}
	}
}

// relist lists the tools again after the server said they changed.
func (c *Connection) relist(ctx context.Context) {
	err := c.list(ctx)
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	if c.changed != nil {
		c.changed(err)
	}
}

// list fetches every tool of the server and brings the registry in line:
// registers (or replaces) each, then removes the ones the server no longer has.
func (c *Connection) list(ctx context.Context) error {
	var fresh []*serverTool
	seen := map[string]string{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		st, err := c.newTool(t)
		if err != nil {
			return err
		}
		if other, dup := seen[st.spec.Name]; dup {
			return fmt.Errorf("tools %q and %q both register as %q", other, t.Name, st.spec.Name)
		}
		seen[st.spec.Name] = t.Name
		fresh = append(fresh, st)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("connection closed")
	}
	snap := c.registry.Snapshot()
	for _, st := range fresh {
		spec, ok := snap.Spec(st.spec.Name)
		if !ok || spec.Provider == c.Provider() {
			continue
		}
		allowed := c.replace
		if c.mayReplace != nil {
			allowed = c.mayReplace(spec)
		}
		if !allowed {
			holder := "a tool registered without a provider (setup.tools, or one of yours)"
			if spec.Provider != "" {
				holder = "a tool of provider " + spec.Provider
			}
			return fmt.Errorf("%w: server %q: tool %q would register as %q, which %s holds already", ErrCollision, c.name, st.remote, st.spec.Name, holder)
		}
	}
	var names []string
	for _, st := range fresh {
		if err := c.registry.RegisterProvider(c.Provider(), st); err != nil {
			// Every schema compiled in newTool, so this is not expected;
			// take back what this listing added, so nothing points at a
			// half-listed server.
			for _, n := range names {
				if _, ours := slices.BinarySearch(c.names, n); !ours {
					c.registry.Remove(n)
				}
			}
			return fmt.Errorf("tool %q: %w", st.remote, err)
		}
		names = append(names, st.spec.Name)
	}
	slices.Sort(names)
	for _, old := range c.names {
		if _, still := slices.BinarySearch(names, old); !still {
			c.registry.Remove(old)
		}
	}
	c.names = names
	return nil
}

var invalidNameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// newTool makes the registry tool for one server tool.
func (c *Connection) newTool(t *mcp.Tool) (*serverTool, error) {
	name := c.name + "_" + invalidNameChars.ReplaceAllString(t.Name, "_")
	if err := tools.ValidateName(name); err != nil {
		return nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	if t.InputSchema == nil {
		schema = []byte(`{"type":"object"}`)
	}
	if _, err := tools.CompileSchema(schema); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %w", t.Name, err)
	}
	spec := tools.Spec{
		Name:        name,
		Description: t.Description,
		Parameters:  schema,
		Kind:        tools.KindGo,
		Provider:    c.Provider(),
		Safety:      safety(t.Annotations),
	}
	return &serverTool{conn: c, remote: t.Name, spec: spec}, nil
}

// safety maps the server's hints to a tool's safety: only a read-only hint
// makes a tool safe to run alongside others.
func safety(a *mcp.ToolAnnotations) tools.Safety {
	if a == nil {
		return tools.Safety{SideEffects: tools.SideEffectExternal}
	}
	s := tools.Safety{SideEffects: tools.SideEffectExternal, Idempotent: a.IdempotentHint}
	if a.ReadOnlyHint {
		s.SideEffects = tools.SideEffectRead
	}
	return s
}

// serverTool is one tool of an MCP server, as the registry sees it.
type serverTool struct {
	conn   *Connection
	remote string
	spec   tools.Spec
}

// Spec returns the tool's spec.
func (t *serverTool) Spec() tools.Spec { return t.spec }

// RemoteName returns the tool's name on its server.
func (t *serverTool) RemoteName() string { return t.remote }

// Execute calls the tool on its server.
func (t *serverTool) Execute(ctx context.Context, call tools.Call) (*tools.Result, error) {
	res, err := t.conn.session.CallTool(ctx, &mcp.CallToolParams{Name: t.remote, Arguments: call.Arguments})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return tools.Failf(tools.KindFailed, "MCP server %q: %v", t.conn.name, err), nil
	}
	return toResult(res), nil
}

// toResult maps an MCP call result to a tools.Result.
func toResult(res *mcp.CallToolResult) *tools.Result {
	content := Text(res)
	if res.IsError {
		if content == "" {
			return tools.Fail(tools.KindFailed, "")
		}
		return &tools.Result{Content: content, Failure: &tools.Failure{Kind: tools.KindFailed, Message: content}}
	}
	return tools.Success(content)
}

// Text returns what the model reads of an MCP call result: its content, one
// part per line (text as it is; other kinds described), and, when no part is
// text, its structured content as JSON on the last line.
func Text(res *mcp.CallToolResult) string {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			hasText = true
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", c.URI))
		case *mcp.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "":
				hasText = true
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %d bytes]", r.URI, len(r.Blob)))
			}
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}
