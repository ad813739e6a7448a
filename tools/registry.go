package tools

import (
	"fmt"
	"sort"
	"sync"

	"github.com/tapeloop/tapeloop/llm"
)

// Registry is the single dispatch point for tool calls: every execution goes
// through it (or through one of its Snapshots). It is safe for concurrent use;
// registering and removing tools bumps its version.
type Registry struct {
	mu       sync.Mutex
	entries  map[string]*entry
	version  uint64
	snap     *Snapshot
	repairer Repairer
}

// RegistryOptions configures a Registry. A nil *RegistryOptions is the zero value.
type RegistryOptions struct {
	// Repairer repairs argument text that is not valid JSON. Nil means broken
	// arguments are a validation failure without repair.
	Repairer Repairer
}

// entry is a registered tool with its compiled schema and definition.
type entry struct {
	tool     Tool
	spec     Spec
	schema   *Schema
	def      llm.ToolDefinition
	provider string
	memo     memoTable // the argument texts found valid (see memo.go)
}

// NewRegistry returns an empty registry.
func NewRegistry(opts *RegistryOptions) *Registry {
	r := &Registry{entries: map[string]*entry{}}
	if opts != nil {
		r.repairer = opts.Repairer
	}
	return r
}

// Register adds t under the name in its spec. A later registration of the same
// name replaces the earlier one (last registration wins). An invalid name or an
// invalid parameters schema is an error and changes nothing.
func (r *Registry) Register(t Tool) error { return r.register(t, "") }

// RegisterProvider is Register with a provider tag that overrides the spec's
// Provider, so that RemoveProvider can take all of a provider's tools at once.
func (r *Registry) RegisterProvider(provider string, t Tool) error { return r.register(t, provider) }

// MustRegister is Register for tools known to be valid; it panics on error. Use it
// only at program start, where a bad tool is a programming error.
func (r *Registry) MustRegister(tools ...Tool) {
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			panic("tools: " + err.Error())
		}
	}
}

func (r *Registry) register(t Tool, provider string) error {
	if t == nil {
		return fmt.Errorf("registering a nil tool")
	}
	spec := t.Spec()
	if err := ValidateName(spec.Name); err != nil {
		return fmt.Errorf("registering tool: %w", err)
	}
	if provider == "" {
		provider = spec.Provider
	}
	spec.Provider = provider
	s, err := compileParameters(spec.Name, spec.Parameters)
	if err != nil {
		return fmt.Errorf("registering tool: %w", err)
	}
	e := &entry{
		tool:     t,
		spec:     spec,
		schema:   s,
		def:      llm.ToolDefinition{Name: spec.Name, Description: spec.Description, Parameters: s.raw},
		provider: provider,
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries[spec.Name] = e
	r.changed()
	return nil
}

// Remove removes the tool with the given name and reports whether there was one.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[name]; !ok {
		return false
	}
	delete(r.entries, name)
	r.changed()
	return true
}

// RemoveProvider removes every tool registered with the given provider tag and
// returns how many it removed.
func (r *Registry) RemoveProvider(provider string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for name, e := range r.entries {
		if e.provider == provider {
			delete(r.entries, name)
			n++
		}
	}
	if n > 0 {
		r.changed()
	}
	return n
}

// changed records a mutation; r.mu is held.
func (r *Registry) changed() {
	r.version++
	r.snap = nil
}

// Snapshot returns an immutable view of the registered tools. It is cached until
// the next mutation, so calling it every iteration is cheap.
func (r *Registry) Snapshot() *Snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.snap == nil {
		entries := make([]*entry, 0, len(r.entries))
		for _, e := range r.entries {
			entries = append(entries, e)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].spec.Name < entries[j].spec.Name })
		byName := make(map[string]*entry, len(entries))
		for _, e := range entries {
			byName[e.spec.Name] = e
		}
		r.snap = &Snapshot{version: r.version, entries: entries, byName: byName, repairer: r.repairer}
	}
	return r.snap
}

// Version returns the number of mutations so far.
func (r *Registry) Version() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.version
}

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (Tool, bool) { return r.Snapshot().Lookup(name) }

// Definitions returns the definitions of the tools available now, sorted by name.
func (r *Registry) Definitions() []llm.ToolDefinition { return r.Snapshot().Definitions() }

// AllDefinitions returns the definitions of every tool, available or not, sorted
// by name.
func (r *Registry) AllDefinitions() []llm.ToolDefinition { return r.Snapshot().AllDefinitions() }

// Availability returns every tool's availability, sorted by name.
func (r *Registry) Availability() []ToolAvailability { return r.Snapshot().Availability() }
