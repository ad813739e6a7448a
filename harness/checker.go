package harness

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// errChecker is wrapped by the error for a registered check that cannot be
// used: no name, no New, a name given twice.
var errChecker = errors.New("invalid check")

// Checker is a check of your own that scenarios call by name from
// expect.check ({name: NAME, with: {...}}), the way setup.tools names a
// tool factory. Build it with NewChecker and hand it to RunOptions.Checks
// (for lint), VerifyOptions.Checks, TestOptions.Checks or
// evalrun.Options.Checks.
type Checker struct {
	// Name is what expect.check's name: says.
	Name string
	// Doc is one line describing the check, for lint and docs.
	Doc string
	// New decodes the item's with: node (nil when absent) and returns the
	// check bound to it; a bad with: is a toolkit.WithError. The bound
	// check returns nil when the outcome passes and otherwise an error
	// whose text says why it failed.
	New func(with *yaml.Node) (func(o *Outcome) error, error)
}

// NewChecker returns the Checker named name: check is called with the
// run's outcome (turns, calls, final text, files, state) and the item's
// with: decoded strictly into a C (a struct with yaml tags; see
// toolkit.DecodeWith: an unknown key, a wrong type or a missing
// `fixture:"required"` field is an error with its line). It returns nil to
// pass, or an error whose text is the failure's message:
//
//	type refundPolicy struct {
//		Max float64 `yaml:"max" fixture:"required"`
//	}
//
//	var RefundMatchesPolicy = harness.NewChecker("refund_matches_policy", "refunds stay under the policy's maximum",
//		func(o *harness.Outcome, with refundPolicy) error {
//			...
//			return fmt.Errorf("refunded %.2f, the policy allows %.2f", got, with.Max)
//		})
//
// C must be a struct type; struct{} takes no with:. A nil check is a
// programming error reported when the checker is used.
func NewChecker[C any](name, doc string, check func(o *Outcome, with C) error) *Checker {
	return &Checker{Name: name, Doc: doc, New: func(with *yaml.Node) (func(*Outcome) error, error) {
		if check == nil {
			return nil, fmt.Errorf("%w: %q has no check function", errChecker, name)
		}
		var cfg C
		if reflect.TypeOf(cfg) == nil || reflect.TypeOf(cfg).Kind() != reflect.Struct {
			return nil, fmt.Errorf("%w: %q: its configuration type %T is not a struct", errChecker, name, cfg)
		}
		for with != nil && with.Kind == yaml.DocumentNode && len(with.Content) == 1 {
			with = with.Content[0]
		}
		if yamlx.IsNull(with) {
			with = nil
		}
		if with != nil && reflect.TypeOf(cfg).NumField() == 0 {
			return nil, toolkit.WithError(with.Line, "", fmt.Errorf("%w: check %s takes no options", toolkit.ErrNotConfigurable, name))
		}
		if err := toolkit.DecodeWith(with, &cfg); err != nil {
			return nil, err
		}
		return func(o *Outcome) error { return check(o, cfg) }, nil
	}}
}

// lookupChecker finds the checker expect.check names.
func lookupChecker(name string, checks []*Checker) (*Checker, bool) {
	for _, c := range checks {
		if c != nil && c.Name == name {
			return c, true
		}
	}
	return nil, false
}

// knownCheckers lists the registered check names, sorted, or says there
// are none.
func knownCheckers(checks []*Checker) string {
	var names []string
	for _, c := range checks {
		if c != nil {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return "none registered: register yours with harness.NewChecker in your own test or evalrun main"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// checkCheckers refuses checkers without a name or a New, and two of one
// name.
func checkCheckers(checks []*Checker) error {
	seen := map[string]bool{}
	for i, c := range checks {
		switch {
		case c == nil || c.Name == "" || c.New == nil:
			return fmt.Errorf("%w: checks[%d] needs a name and a New func (build it with harness.NewChecker)", errChecker, i)
		case seen[c.Name]:
			return fmt.Errorf("%w: two checks are named %q", errChecker, c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// bindCheck finds and configures the check of one expect.check item;
// errors name the file, line and key.
func bindCheck(s *scenario.Scenario, ce scenario.CheckExpect, checks []*Checker) (func(*Outcome) error, error) {
	key := "expect.check[" + ce.Name + "]"
	c, ok := lookupChecker(ce.Name, checks)
	if !ok {
		return nil, s.ErrorAt(ce.Line, key, nil, "unknown check %q (known: %s)", ce.Name, knownCheckers(checks))
	}
	fn, err := c.New(ce.With)
	if err != nil {
		if cerr := withError(s, err, key+".with", ce.Line); cerr != nil {
			return nil, cerr
		}
		return nil, s.ErrorAt(ce.Line, key, err, "%v", err)
	}
	return fn, nil
}

// validateChecks configures every expect.check item of s against checks,
// so that lint finds an unknown name or a bad with:.
func validateChecks(s *scenario.Scenario, checks []*Checker) error {
	if err := checkCheckers(checks); err != nil {
		return err
	}
	if s.Expect == nil {
		return nil
	}
	for _, ce := range s.Expect.Checks {
		if _, err := bindCheck(s, ce, checks); err != nil {
			return err
		}
	}
	return nil
}

// checkFailures runs every expect.check item of s on o: a check that
// fails, or cannot be found or configured, is a failure naming the item's
// file and line (never a silent pass), unwrapping to what the check
// returned or to why it could not run.
func checkFailures(s *scenario.Scenario, o *Outcome, checks []*Checker) []*fileerr.Error {
	var out []*fileerr.Error
	for _, ce := range s.Expect.Checks {
		key := "check[" + ce.Name + "]"
		fn, err := bindCheck(s, ce, checks)
		if err != nil {
			// A scenario error about the item (its text is its
			// *fileerr.Error's); anything else is said whole.
			f := &fileerr.Error{Problem: err.Error()}
			if fe := (*fileerr.Error)(nil); errors.As(err, &fe) && fe.Error() == err.Error() {
				f = &fileerr.Error{File: fe.File, Line: fe.Line, Key: fe.Key, Problem: fe.Problem}
			}
			f.Kind = &expectationError{key: key, cause: err}
			out = append(out, f)
			continue
		}
		if err = fn(o); err != nil {
			out = append(out, failed(s, ce.Line, "expect."+key, key, err, err.Error()))
		}
	}
	return out
}

// withError is the scenario error for err, a toolkit.WithError about the
// with: node at key (a tool's or a check's), as file:line: key.KEY: problem
// (the with: error's own text starts "line N: with.KEY:"; it is said once),
// at line when the error names none: a *fileerr.Error of the file. Nil
// when err is no with: error.
func withError(s *scenario.Scenario, err error, key string, line int) error {
	var fe *fileerr.Error
	if !errors.As(err, &fe) || fe.Kind == nil || fe.File != "" || fe.Key != "with" && !strings.HasPrefix(fe.Key, "with.") {
		return nil
	}
	if fe.Line > 0 {
		line = fe.Line
	}
	return s.ErrorAt(line, key+strings.TrimPrefix(fe.Key, "with"), fe.Kind, "%s", fe.Problem)
}
