package toolkit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// Tests that close mutants scripts/mutation found alive: each checks a
// behaviour the other tests left open.

// TestWithErrorWithoutLine: an unknown line (0) is left out of the text,
// and so is the key of the mapping as a whole; the error is a
// *fileerr.Error that unwraps to its cause.
func TestWithErrorWithoutLine(t *testing.T) {
	bad := errors.New("bad")
	e := toolkit.WithError(0, "delay", bad)
	var fe *fileerr.Error
	if got, want := e.Error(), "with.delay: bad"; got != want || !errors.As(e, &fe) || fe.Key != "with.delay" || !errors.Is(e, bad) {
		t.Errorf("Error() = %q, want %q, a *fileerr.Error keyed with.delay wrapping the cause", got, want)
	}
	if got, want := toolkit.WithError(4, "", nil).Error(), "line 4: with: invalid"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestDurationZero: a zero duration is allowed; a negative one is not.
func TestDurationZero(t *testing.T) {
	var d toolkit.Duration
	if err := d.UnmarshalYAML(node(t, "0s")); err != nil || d != 0 {
		t.Errorf("0s: %v, %v", d, err)
	}
	if err := d.UnmarshalYAML(node(t, "-1s")); err == nil {
		t.Error("-1s accepted")
	}
}

// TestFactoryPassesTheEnv: a factory's builder gets the env it was given,
// and an empty one (never nil) when given nil.
func TestFactoryPassesTheEnv(t *testing.T) {
	var got []*toolkit.Env
	f := toolkit.NewFactory("t", "a test tool", func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
		got = append(got, env)
		return tools.New(tools.Spec{Name: name}, func(context.Context, struct{}) (*tools.Result, error) { return tools.Success("ok"), nil })
	})
	env := &toolkit.Env{Seed: 7}
	for _, e := range []*toolkit.Env{env, nil} {
		if _, err := f.New("t", e, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || got[0] != env || got[1] == nil || got[1].Seed != 0 {
		t.Errorf("builder got %+v; want the given env, then an empty one", got)
	}
}
