package scenario

import (
	"net/url"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/mcpname"
	"github.com/tapeloop/tapeloop/internal/yamlx"
)

// MCPSetup is one entry of setup.mcp: an MCP server whose tools a live run
// (RunOptions.Model set: evaluation, recording) registers as NAME_TOOL.
// Exactly one of Command and URL is set.
type MCPSetup struct {
	// Name is the connection's name, the prefix of its tools' names.
	Name string
	// Command starts a server speaking MCP on stdio; it runs in the
	// scenario's folder.
	Command []string
	// Env adds variables to the command's environment; nil adds none.
	Env map[string]string
	// URL is a server speaking streamable HTTP.
	URL string
	// Timeout bounds connecting: starting the server, initialize and
	// tools/list; zero means DefaultMCPTimeout.
	Timeout time.Duration
	// Replace names the tools of setup.tools (or of an earlier server) that
	// this server's tools may take the place of (setup.mcp[].replace); nil
	// means none but recorded stand-ins, so any other collision of names is
	// an error naming both.
	Replace []string
	// Line is the entry's line in the scenario file.
	Line int
}

// DefaultMCPTimeout is how long connecting to an MCP server (initialize,
// tools/list) may take when setup.mcp[].timeout does not say.
const DefaultMCPTimeout = 30 * time.Second

var mcpKeys = []string{"name", "command", "env", "url", "timeout", "replace"}

func decodeMCP(d *yamlx.Decoder, n *yaml.Node) ([]MCPSetup, error) {
	if err := d.Want(n, "setup.mcp", yaml.SequenceNode); err != nil {
		return nil, err
	}
	var out []MCPSetup
	for i, item := range n.Content {
		path := yamlx.Index("setup.mcp", i)
		m := MCPSetup{Line: item.Line}
		seen, err := d.Fields(item, path, mcpKeys, func(key string, v *yaml.Node) error {
			kp := yamlx.Join(path, key)
			var err error
			switch key {
			case "name":
				m.Name, err = d.Str(v, kp)
				if err == nil {
					if verr := mcpname.Check(m.Name); verr != nil {
						err = d.Errf(v, kp, "%v", verr)
					}
				}
			case "command":
				m.Command, err = d.Strs(v, kp)
				if err == nil && len(m.Command) == 0 {
					err = d.Errf(v, kp, "empty command (want [program, args...])")
				}
			case "url":
				m.URL, err = d.Str(v, kp)
				if err == nil {
					if u, perr := url.Parse(m.URL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
						err = d.Errf(v, kp, "%q is not an http or https URL", m.URL)
					}
				}
			case "replace":
				m.Replace, err = d.Strs(v, kp)
			case "timeout":
				m.Timeout, err = d.Duration(v, kp)
				if err == nil && m.Timeout <= 0 {
					err = d.Errf(v, kp, "%s: want a positive duration like 30s", v.Value)
				}
			case "env":
				m.Env = map[string]string{}
				err = d.Pairs(v, kp, func(key string, _, val *yaml.Node) error {
					s, err := d.Str(val, yamlx.Join(kp, key))
					m.Env[key] = s
					return err
				})
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		switch {
		case !seen.Has("name"):
			return nil, d.Errf(item, path, "missing required key %q", "name")
		case seen.Has("command") == seen.Has("url"):
			return nil, d.Errf(item, path, "give exactly one of command and url")
		case seen.Has("env") && !seen.Has("command"):
			return nil, d.Errf(item, path, "env goes with command")
		}
		if slices.ContainsFunc(out, func(o MCPSetup) bool { return o.Name == m.Name }) {
			return nil, d.Errf(item, path, "a second server named %q", m.Name)
		}
		out = append(out, m)
	}
	return out, nil
}
