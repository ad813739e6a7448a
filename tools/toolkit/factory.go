package toolkit

import (
	"fmt"
	"reflect"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/clock"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

// Env is what a tool is built with, once per scenario run: the run's
// workspace, seed, clock and iteration, and the values its tools share
// (Shared). A nil *Env is treated as an empty one.
type Env struct {
	// Workspace is the scenario's workspace; the file tools act only here. Nil
	// is an error for the file tools and ignored by the others.
	Workspace workspace.FS
	// Seed seeds every random source of the fixtures (the caller applies the
	// scenario default of 1; zero is used as given).
	Seed int64
	// Iteration returns the loop's current iteration: the number of model calls
	// made so far, 1-based during turn n. Nil means 0.
	Iteration func() int
	// Clock is the run's clock (virtual in a replay, starting at
	// clock.Epoch); tools read time from it, never from time.Now. Nil means
	// the tool should use clock.From(ctx) of each call.
	Clock clock.Clock

	// mu guards shared: the values tools of one run share (Shared).
	mu     sync.Mutex
	shared map[string]any
}

// Factory builds one kind of tool that scenarios name in setup.tools: a
// bundled fixture (package fixtures, NewNodeFactory) or a tool of your own
// (NewFactory).
type Factory struct {
	// Name is the fixture name a scenario uses: "read_file", "flaky", ...
	Name string
	// Doc is one line describing the fixture, for evalrun lint and docs.
	Doc string
	// Configurable fixtures accept a `with:` mapping; for the others a `with:`
	// is an error carrying its line.
	Configurable bool
	// New builds the tool registered under name for one run. with is the
	// scenario's `with:` node (nil when absent). A bad `with:` is a
	// *fileerr.Error (WithError); a missing workspace for a file tool or an invalid name is
	// a plain error.
	New func(name string, env *Env, with *yaml.Node) (tools.Tool, error)
}

// NewFactory returns the Factory of a tool of your own, configured by C: a
// struct whose fields carry yaml tags, which a scenario's `with:` fills
// (decoded strictly by DecodeWith: an unknown key, a key given twice, a
// value of the wrong type or a missing `fixture:"required"` field is a
// *fileerr.Error carrying its line and key). A C with no fields (struct{})
// makes a tool that takes no options, and a `with:` for it is refused the
// same way. New checks that the registered name is a valid tool name and
// treats a null `with:` as absent, before calling build with the decoded
// configuration (its zero value when `with:` is absent). Hand it to
// harness.RunOptions.Tools (or evalrun.Options.Tools) and scenarios name it
// in setup.tools exactly like a fixture:
//
//	var LookupOrder = toolkit.NewFactory("lookup_order", "looks an order up by id (read)",
//		func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
//			store := toolkit.Shared(env, "orders", newStore)
//			return tools.New(tools.Spec{Name: name, ...}, store.lookup)
//		})
//
// Doc is the one line lint and docs show. An empty name, a nil build or a C
// that is not a struct is a programming error reported when the factory is
// used.
func NewFactory[C any](name, doc string, build func(name string, env *Env, with C) (tools.Tool, error)) *Factory {
	if build == nil {
		return &Factory{Name: name, Doc: doc}
	}
	t := reflect.TypeFor[C]()
	if t.Kind() != reflect.Struct {
		return NewNodeFactory(name, doc, true, func(string, *Env, *yaml.Node) (tools.Tool, error) {
			return nil, fmt.Errorf("tool %s: its configuration type %v is not a struct", name, t)
		})
	}
	return NewNodeFactory(name, doc, t.NumField() > 0, func(name string, env *Env, with *yaml.Node) (tools.Tool, error) {
		var cfg C
		if err := DecodeWith(with, &cfg); err != nil {
			return nil, err
		}
		return build(name, env, cfg)
	})
}

// NewNodeFactory is NewFactory for a tool that decodes its `with:` node
// itself (the bundled fixtures do, with DecodeOptions, to know which keys
// were given): build receives the node, nil when absent or null. Unless
// configurable, a `with:` is refused with a *fileerr.Error (WithError)
// carrying its line, before build is called.
func NewNodeFactory(name, doc string, configurable bool, build func(name string, env *Env, with *yaml.Node) (tools.Tool, error)) *Factory {
	if build == nil {
		return &Factory{Name: name, Doc: doc, Configurable: configurable}
	}
	return &Factory{Name: name, Doc: doc, Configurable: configurable, New: guard(name, configurable, build)}
}

// DecodeWith decodes a tool's `with:` node into cfg (a pointer to a struct
// with yaml tags) the way the fixtures decode theirs: strictly, an unknown
// key, a key given twice or a value of the wrong type is a *fileerr.Error (WithError)
// carrying the line and key; a field tagged `fixture:"required"` must be
// present. A nil with leaves cfg as it is (and fails only a required field).
func DecodeWith(with *yaml.Node, cfg any) error {
	_, err := DecodeOptions(with, cfg)
	return err
}

// World is a value shared by the tools of a run (see Shared) that holds state
// beyond the workspace's files: a database fake, a ticket queue. State
// returns a snapshot of it that encoding/json can encode; the harness puts it
// into the outcome, and so the golden, under state.KEY (KEY being the
// Shared key), where expect.state can check it. State is called once, after
// the run, from one goroutine.
type World interface {
	State() any
}

// Shared returns the run's value under key, building it with build the first
// time a tool of the run asks for it: the way two tools share one in-memory
// store. Each run has its own values (a new Env), so runs never see each
// other's state. If the value implements World, its snapshot goes into the
// golden under state.KEY. Shared panics when key already holds a value of
// another type: two factories disagree about what key means, a programming
// error. A nil env builds a value that is shared with no one.
func Shared[T any](env *Env, key string, build func() T) T {
	if env == nil {
		return build()
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if v, ok := env.shared[key]; ok {
		t, ok := v.(T)
		if !ok {
			panic(fmt.Sprintf("toolkit.Shared: key %q holds a %T, not a %T", key, v, t))
		}
		return t
	}
	t := build()
	if env.shared == nil {
		env.shared = map[string]any{}
	}
	env.shared[key] = t
	return t
}

// Worlds returns the shared values of the run that implement World, by key.
// It is empty when no tool shares state.
func (env *Env) Worlds() map[string]World {
	out := map[string]World{}
	if env == nil {
		return out
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	for k, v := range env.shared {
		if w, ok := v.(World); ok {
			out[k] = w
		}
	}
	return out
}

// guard checks what every factory checks before building: a valid tool name
// and, for a plain fixture, no `with:`.
func guard(fixture string, configurable bool, b func(name string, env *Env, with *yaml.Node) (tools.Tool, error)) func(string, *Env, *yaml.Node) (tools.Tool, error) {
	return func(name string, env *Env, with *yaml.Node) (tools.Tool, error) {
		if err := tools.ValidateName(name); err != nil {
			return nil, fmt.Errorf("fixture %s: %w", fixture, err)
		}
		with = unwrapDocument(with)
		if yamlx.IsNull(with) {
			with = nil
		}
		if !configurable && with != nil {
			return nil, WithError(with.Line, "", fmt.Errorf("%w: fixture %s takes no options", ErrNotConfigurable, fixture))
		}
		if env == nil {
			env = &Env{}
		}
		return b(name, env, with)
	}
}

// UnusedReporter is implemented by a tool that fails closed like a tape
// (the recorded fixture in order, a stand-in of your own): Unused returns an error when the run left part of its recordings
// unused, and nil otherwise. The harness fails the scenario with it.
type UnusedReporter interface {
	Unused() error
}
