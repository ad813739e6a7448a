package tools

import (
	"context"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Snapshot is an immutable view of a Registry's tools at one version. A loop
// takes one per iteration, so that a tool registered mid-run is seen on the next
// turn and the tools offered and executed within a turn agree.
type Snapshot struct {
	version  uint64
	entries  []*entry // sorted by name
	byName   map[string]*entry
	repairer Repairer
}

// ToolAvailability is whether a tool is available now and, if not, why.
type ToolAvailability struct {
	Name      string
	Available bool
	Reason    string
}

// Version returns the registry version the snapshot was taken at.
func (s *Snapshot) Version() uint64 { return s.version }

// Len returns the number of tools, available or not.
func (s *Snapshot) Len() int { return len(s.entries) }

// Lookup returns the tool registered under name.
func (s *Snapshot) Lookup(name string) (Tool, bool) {
	e, ok := s.byName[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Spec returns the spec of the named tool as registered (with its provider).
func (s *Snapshot) Spec(name string) (Spec, bool) {
	e, ok := s.byName[name]
	if !ok {
		return Spec{}, false
	}
	return e.spec, true
}

// Definitions returns the definitions of the tools available now, sorted by name
// (stable for prompt caches).
func (s *Snapshot) Definitions() []llm.ToolDefinition {
	out := make([]llm.ToolDefinition, 0, len(s.entries))
	for _, e := range s.entries {
		if ok, _ := available(e.tool); ok {
			out = append(out, e.def)
		}
	}
	return out
}

// AllDefinitions returns every tool's definition, sorted by name.
func (s *Snapshot) AllDefinitions() []llm.ToolDefinition {
	out := make([]llm.ToolDefinition, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.def
	}
	return out
}

// Availability returns every tool's availability, sorted by name.
func (s *Snapshot) Availability() []ToolAvailability {
	out := make([]ToolAvailability, len(s.entries))
	for i, e := range s.entries {
		ok, reason := available(e.tool)
		out[i] = ToolAvailability{Name: e.spec.Name, Available: ok, Reason: reason}
	}
	return out
}

// availableNames lists the names of the available tools, for not_found messages.
func (s *Snapshot) availableNames() string {
	var names []string
	for _, e := range s.entries {
		if ok, _ := available(e.tool); ok {
			names = append(names, e.spec.Name)
		}
	}
	if len(names) == 0 {
		return "no tools are available"
	}
	return "available tools: " + strings.Join(names, ", ")
}

func available(t Tool) (bool, string) {
	if a, ok := t.(Availability); ok {
		return a.Available()
	}
	return true, ""
}

// Execute prepares and runs one call: see Prepare and Prepared.Run.
func (s *Snapshot) Execute(ctx context.Context, call llm.ToolCall) *Execution {
	p := s.Prepare(call)
	if p.Result == nil {
		p.Result = p.Run(ctx)
	}
	return &p.Execution
}

// Execute runs one call against the current snapshot; see Snapshot.Execute.
func (r *Registry) Execute(ctx context.Context, call llm.ToolCall) *Execution {
	return r.Snapshot().Execute(ctx, call)
}

// WithRepairer returns a copy of the snapshot that repairs broken arguments with
// rep instead of the registry's repairer.
func (s *Snapshot) WithRepairer(rep Repairer) *Snapshot {
	c := *s
	c.repairer = rep
	return &c
}
