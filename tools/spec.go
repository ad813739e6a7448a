package tools

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// Kind says how a tool is implemented. It is metadata only: dispatch is the same.
type Kind string

// The tool kinds. The zero Kind means KindGo.
const (
	KindGo  Kind = "go"
	KindCLI Kind = "cli"
)

// SideEffect says what a tool may change.
type SideEffect string

// The side-effect levels, from none to the outside world. The zero value ("")
// means unknown: the tool has not said, so the loop assumes the worst (see
// Safety).
const (
	SideEffectNone     SideEffect = "none"
	SideEffectRead     SideEffect = "read"
	SideEffectWrite    SideEffect = "write"
	SideEffectExternal SideEffect = "external"
)

// Safety is what the loop may assume about a tool. Its zero value assumes
// nothing: a tool that declares no safety is treated as possibly changing
// the world, so a refund tool nobody annotated is never run beside other
// calls, memoised or retried:
//
//	declared                          runs beside others  memoised (Memoize)  retried (Retry)
//	zero Safety{}                     no                  no                  no
//	SideEffects: none or read         yes                 only if Pure        only if Idempotent
//	SideEffects: write or external    no                  no                  only if Idempotent
//	Pure (any SideEffects but write   yes                 yes                 only if Idempotent
//	  or external)
//
// A tool whose Spec.Execution is sequential makes its whole batch run in
// order, whatever its safety.
type Safety struct {
	// SideEffects is the most the tool changes; zero means unknown, treated
	// as possibly changing the world unless Pure is set.
	SideEffects SideEffect `json:"side_effects,omitempty" yaml:"side_effects,omitempty"`
	// Idempotent tools may be retried after a transient failure.
	Idempotent bool `json:"idempotent,omitempty" yaml:"idempotent,omitempty"`
	// Pure tools return the same result for the same arguments and change
	// nothing; their results may be memoised within a run.
	Pure bool `json:"pure,omitempty" yaml:"pure,omitempty"`
}

// Changes reports whether a call of the tool may change the workspace or the
// world: side effects write or external, or unknown (zero) for a tool that is
// not Pure.
func (s Safety) Changes() bool {
	switch s.SideEffects {
	case SideEffectWrite, SideEffectExternal:
		return true
	case "":
		return !s.Pure
	}
	return false
}

// ExecutionMode says whether a tool may run beside others in a batch.
type ExecutionMode string

// The execution modes. The zero value means ExecutionParallel.
const (
	ExecutionParallel   ExecutionMode = "parallel"
	ExecutionSequential ExecutionMode = "sequential"
)

// Spec describes a tool: what the model is told about it and what the loop may
// assume about it.
type Spec struct {
	// Name must match ^[a-zA-Z0-9_-]{1,64}$.
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments. Nil means an object with any
	// properties.
	Parameters json.RawMessage
	// Kind is metadata only; zero means KindGo.
	Kind Kind
	// Provider tags the tool's origin (a plugin, an MCP server) so that all its
	// tools can be removed at once. Empty means none.
	Provider string
	Safety   Safety
	// Execution zero means parallel.
	Execution ExecutionMode
	// LoopBreaking tools end the run after their batch.
	LoopBreaking bool
	// Timeout bounds one execution; zero means the loop's default (or none).
	Timeout time.Duration
}

// nameRE is compiled on first use: its repetition makes it large (~60 KB at
// start-up otherwise).
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`) })

// ErrInvalidName is wrapped by the error for a tool name that does not match
// ^[a-zA-Z0-9_-]{1,64}$.
var ErrInvalidName = fmt.Errorf("invalid tool name")

// ValidateName returns an error wrapping ErrInvalidName when name is not a valid
// tool name.
func ValidateName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("%w %q: want 1 to 64 of a-z, A-Z, 0-9, _ and -", ErrInvalidName, name)
	}
	return nil
}

// Sequential reports whether the tool must run alone.
func (s *Spec) Sequential() bool { return s.Execution == ExecutionSequential }
