package evalrun

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// captureTools returns src with each tool of setup.tools named in names
// replaced by a `recorded` stand-in (mode in_order) holding what the tool
// answered in run, attempt by attempt, in call order, redacted; its
// description and parameters are those the model was offered (defs). The
// entry it replaces is kept in a comment above the stand-in. A name that is
// not a setup tool is an error.
func captureTools(src []byte, file string, names []string, run *agent.RunResult, defs []llm.ToolDefinition, red *redact.Redactor, mcp []scenario.MCPSetup) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("%s: --capture: the file does not parse: %v", file, err)
	}
	tools := lookupPath(doc.Content[0], "setup", "tools")
	if tools != nil && tools.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: --capture: setup.tools is not a list", file, tools.Line)
	}
	names = expandServers(names, defs, mcp)
	var items []*yaml.Node
	line := 1
	if tools != nil {
		items, line = slices.Clone(tools.Content), tools.Line
	}
	for _, name := range names {
		i := slices.IndexFunc(items, func(n *yaml.Node) bool { return toolEntryName(n) == name })
		if i < 0 {
			if server := mcpServerOf(name, mcp); server != "" {
				// A tool of an MCP server: its stand-in joins setup.tools,
				// which a replay (connecting to no server) uses, and which
				// the server's own tool replaces in a live run.
				standIn := recordedStandIn(name, run, defs, red)
				standIn.HeadComment = "Captured by evalrun record --capture from the MCP server " + server + " (setup.mcp)"
				items = append(items, standIn)
				continue
			}
			return nil, fmt.Errorf("%s:%d: --capture %s: setup.tools has no tool of that name", file, line, name)
		}
		was, err := yamlx.Marshal(items[i])
		if err != nil {
			return nil, err
		}
		standIn := recordedStandIn(name, run, defs, red)
		standIn.HeadComment = "Captured by evalrun record --capture; it was:\n" + strings.TrimRight(red.Redact(string(was)), "\n")
		items[i] = standIn
	}
	return scenario.SetValue(src, file, []string{"setup", "tools"}, yamlx.Seq(items...))
}

// expandServers replaces each name that is a setup.mcp server's by the
// names of every tool of that server the model was offered (defs), so that
// --capture SERVER keeps all its tools, called or not: a replay offers the
// model the same tools a live run did.
func expandServers(names []string, defs []llm.ToolDefinition, servers []scenario.MCPSetup) []string {
	var out []string
	for _, n := range names {
		if !slices.ContainsFunc(servers, func(m scenario.MCPSetup) bool { return m.Name == n }) {
			out = append(out, n)
			continue
		}
		for _, d := range defs {
			if strings.HasPrefix(d.Name, n+"_") && !slices.Contains(out, d.Name) {
				out = append(out, d.Name)
			}
		}
	}
	return out
}

// mcpServerOf returns the name of the setup.mcp server whose tools' names
// start like name ("files" for "files_read"), or "".
func mcpServerOf(name string, servers []scenario.MCPSetup) string {
	for _, m := range servers {
		if name == m.Name || strings.HasPrefix(name, m.Name+"_") {
			return m.Name
		}
	}
	return ""
}

// recordedStandIn builds the `recorded` entry for tool name.
func recordedStandIn(name string, run *agent.RunResult, defs []llm.ToolDefinition, red *redact.Redactor) *yaml.Node {
	with := yamlx.Map()
	yamlx.Add(with, "mode", yamlx.Text("in_order"))
	if i := slices.IndexFunc(defs, func(d llm.ToolDefinition) bool { return d.Name == name }); i >= 0 {
		if d := defs[i]; d.Description != "" {
			yamlx.Add(with, "description", yamlx.Text(red.Redact(d.Description)))
		}
		if d := defs[i]; len(d.Parameters) > 0 {
			var params yaml.Node
			if yaml.Unmarshal(d.Parameters, &params) == nil && len(params.Content) == 1 {
				p := params.Content[0]
				clearStyle(p)
				yamlx.Add(with, "parameters", p)
			}
		}
	}
	results := yamlx.Seq()
	if run != nil {
		for _, t := range run.Turns {
			for _, c := range t.Calls {
				if c.Call.Name != name {
					continue
				}
				for _, a := range c.Attempts {
					if a.Result == nil {
						continue
					}
					r := yamlx.Map()
					yamlx.Add(r, "arguments", yamlx.Quoted(red.Redact(string(c.Arguments))))
					yamlx.Add(r, "content", yamlx.Text(red.Redact(a.Result.Content)))
					if a.Result.Failed() {
						yamlx.Add(r, "error", yamlx.Text(string(a.Result.Kind())))
					}
					results.Content = append(results.Content, r)
				}
			}
		}
	}
	if len(results.Content) == 0 {
		results = yamlx.FlowSeq()
	}
	yamlx.Add(with, "results", results)
	entry := yamlx.Map()
	yamlx.Add(entry, "name", yamlx.Text(name))
	yamlx.Add(entry, "fixture", yamlx.Text("recorded"))
	yamlx.Add(entry, "with", with)
	return entry
}

// clearStyle makes n and its children block style with plain tags, so a
// schema decoded from JSON is written as ordinary YAML.
func clearStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		clearStyle(c)
	}
}

// toolEntryName returns the name of a setup.tools entry (the short form's
// scalar, or its name key).
func toolEntryName(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	if v := lookupPath(n, "name"); v != nil {
		return v.Value
	}
	return ""
}

// lookupPath follows mapping keys from n; nil when one is missing.
func lookupPath(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}
