package harness

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// errToolFactory is wrapped by the error for a user tool factory that cannot
// be used: no name, no New, a name taken by a fixture or by another factory.
var errToolFactory = errors.New("invalid tool factory")

// lookupFactory finds the factory setup.tools names: the user's first (the
// names never overlap, checkFactories sees to it), then the fixtures.
func lookupFactory(name string, user []*toolkit.Factory) (*toolkit.Factory, bool) {
	for _, f := range user {
		if f.Name == name {
			return f, true
		}
	}
	return fixtures.Lookup(name)
}

// knownTools lists what setup.tools may name: the fixtures, then the user's
// tools, each part sorted.
func knownTools(user []*toolkit.Factory) string {
	out := "fixtures " + strings.Join(fixtures.Names(), ", ")
	if len(user) > 0 {
		names := make([]string, len(user))
		for i, f := range user {
			names[i] = f.Name
		}
		sort.Strings(names)
		out += "; your tools " + strings.Join(names, ", ")
	}
	return out
}

// checkFactories refuses user factories that cannot be told apart from a
// fixture or from each other.
func checkFactories(user []*toolkit.Factory) error {
	seen := map[string]bool{}
	for i, f := range user {
		switch {
		case f == nil || f.Name == "" || f.New == nil:
			return fmt.Errorf("%w: tools[%d] needs a name and a New func (build it with toolkit.NewFactory)", errToolFactory, i)
		case seen[f.Name]:
			return fmt.Errorf("%w: two factories are named %q", errToolFactory, f.Name)
		}
		if _, ok := fixtures.Lookup(f.Name); ok {
			return fmt.Errorf("%w: %q is the name of a built-in fixture; give your tool another name", errToolFactory, f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}
