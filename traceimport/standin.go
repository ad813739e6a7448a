package traceimport

import (
	"encoding/json"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
)

// standIns returns the names of the tools a native scenario stands in
// for: those offered (when the trace recorded them), then those called,
// in order.
func (b *builder) standIns() []string {
	var names []string
	for _, st := range b.steps {
		for _, d := range st.call.Tools {
			if !slices.Contains(names, d.Name) {
				names = append(names, d.Name)
			}
		}
	}
	for _, st := range b.steps {
		if st.out == nil {
			continue
		}
		for _, tc := range st.out.ToolCalls {
			if !slices.Contains(names, tc.Name) {
				names = append(names, tc.Name)
			}
		}
	}
	return names
}

// definition returns what the trace says of tool name: its offered
// definition, else the description its tool spans give.
func (b *builder) definition(name string) llm.ToolDefinition {
	for _, st := range b.steps {
		for _, d := range st.call.Tools {
			if d.Name == name {
				return d
			}
		}
	}
	for _, t := range b.run.Tools {
		if t.Name == name && t.Description != "" {
			return llm.ToolDefinition{Name: name, Description: t.Description}
		}
	}
	return llm.ToolDefinition{Name: name}
}

// standInDefs are the tools a native replay offers, for requests that
// recorded none (not compared: their tape leaves tools out).
func (b *builder) standInDefs() []llm.ToolDefinition {
	var defs []llm.ToolDefinition
	for _, n := range b.standIns() {
		defs = append(defs, b.definition(n))
	}
	return defs
}

// standInNodes returns setup.tools of a native scenario: a recorded
// stand-in (mode in_order) per tool, answering each call with the result
// the agent sent back, redacted.
func (b *builder) standInNodes() (*yaml.Node, error) {
	tools := yamlx.Seq()
	for _, name := range b.standIns() {
		d := b.definition(name)
		with := yamlx.Map()
		yamlx.Add(with, "mode", yamlx.Text("in_order"))
		if d.Description != "" {
			yamlx.Add(with, "description", yamlx.Text(b.red.Redact(d.Description)))
		}
		if len(d.Parameters) > 0 {
			var params yaml.Node
			if err := yaml.Unmarshal([]byte(b.red.Redact(string(d.Parameters))), &params); err != nil || len(params.Content) != 1 {
				return nil, fmt.Errorf("tool %s: its parameters are not a JSON schema: %v", name, err)
			}
			clearStyle(params.Content[0])
			yamlx.Add(with, "parameters", params.Content[0])
		}
		if slices.Contains(b.terminates, name) {
			yamlx.Add(with, "terminates", yamlx.Bool(true))
		}
		results := yamlx.Seq()
		for _, st := range b.steps {
			if st.out == nil {
				continue
			}
			for _, tc := range st.out.ToolCalls {
				if tc.Name != name {
					continue
				}
				res, ok := b.results[tc.ID]
				if !ok {
					continue
				}
				args := tc.Arguments
				if !json.Valid([]byte(args)) {
					return nil, refuse(st.call.Span, "the model's call %s (%s) has arguments that are not JSON (%q); a recorded stand-in needs the arguments the tool ran with", tc.ID, tc.Name, args)
				}
				r := yamlx.Map()
				yamlx.Add(r, "arguments", yamlx.Quoted(b.red.Redact(args)))
				yamlx.Add(r, "content", yamlx.Text(b.red.Redact(res.Content)))
				if res.IsError || b.failed(tc) {
					yamlx.Add(r, "error", yamlx.Bool(true))
				}
				results.Content = append(results.Content, r)
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
		tools.Content = append(tools.Content, entry)
	}
	return tools, nil
}

// failed reports whether the tool span of call tc says it failed.
func (b *builder) failed(tc llm.ToolCall) bool {
	for _, t := range b.run.Tools {
		if t.ID != "" && t.ID == tc.ID {
			return t.Failed
		}
	}
	// Without ids, the n-th span of a tool is its n-th call.
	n := 0
	for _, st := range b.steps {
		if st.out == nil {
			continue
		}
		for _, c := range st.out.ToolCalls {
			if c.Name != tc.Name {
				continue
			}
			if c.ID == tc.ID {
				k := 0
				for _, t := range b.run.Tools {
					if t.Name == tc.Name {
						if k == n {
							return t.Failed
						}
						k++
					}
				}
				return false
			}
			n++
		}
	}
	return false
}

// clearStyle makes n and its children block style, so a schema decoded
// from JSON is written as ordinary YAML.
func clearStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		clearStyle(c)
	}
}
