package toolkit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/fileerr"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// node parses text into the node a scenario's `with:` would be.
func node(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

type counter struct{ n int }

func (c *counter) State() any { return c.n }

func TestSharedIsPerEnvAndKey(t *testing.T) {
	env, other := &toolkit.Env{}, &toolkit.Env{}
	builds := 0
	build := func() *counter { builds++; return &counter{} }
	a := toolkit.Shared(env, "c", build)
	b := toolkit.Shared(env, "c", build)
	if a != b || builds != 1 {
		t.Errorf("the same env and key gave %p and %p after %d builds, want one value built once", a, b, builds)
	}
	if c := toolkit.Shared(other, "c", build); c == a {
		t.Error("another env shares the first env's value")
	}
	if d := toolkit.Shared(nil, "c", build); d == a || builds != 3 {
		t.Errorf("a nil env shared a value (builds %d)", builds)
	}
	toolkit.Shared(env, "plain", func() string { return "x" })
	worlds := env.Worlds()
	if len(worlds) != 1 || worlds["c"] != toolkit.World(a) {
		t.Errorf("Worlds() = %v, want only c", worlds)
	}
	defer func() {
		if recover() == nil {
			t.Error("Shared with another type under a taken key did not panic")
		}
	}()
	toolkit.Shared(env, "c", func() int { return 1 })
}

func TestNewFactoryGuards(t *testing.T) {
	built := 0
	f := toolkit.NewFactory("t", "a test tool", func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
		built++
		return tools.New(tools.Spec{Name: name}, func(context.Context, struct{}) (*tools.Result, error) { return tools.Success("ok"), nil })
	})
	if _, err := f.New("bad name!", nil, nil); err == nil || built != 0 {
		t.Errorf("an invalid name: err %v, built %d", err, built)
	}
	_, err := f.New("t", nil, node(t, "\n\n{a: 1}"))
	var ce *fileerr.Error
	if !errors.As(err, &ce) || !errors.Is(err, toolkit.ErrNotConfigurable) || ce.Line != 3 || built != 0 {
		t.Errorf("with: on a plain tool: %v (built %d), want a *fileerr.Error on line 3", err, built)
	}
	if _, err := f.New("t", nil, node(t, "null")); err != nil || built != 1 {
		t.Errorf("a null with: %v (built %d), want it treated as absent", err, built)
	}
}

type config struct {
	Result string           `yaml:"result" fixture:"required"`
	Delay  toolkit.Duration `yaml:"delay"`
	Count  int              `yaml:"count"`
}

func TestDecodeWith(t *testing.T) {
	cases := []struct {
		text, want string
		wantIs     error
	}{
		{text: "{result: ok, colour: red}", want: "line 1: with.colour: unknown key (valid keys: result, delay, count)", wantIs: toolkit.ErrUnknownKey},
		{text: "{delay: 1s}", want: "line 1: with.result: is required"},
		{text: "result: ok\ndelay: 5", want: `line 2: with.delay: invalid duration "5": want a Go duration such as 100ms or 2s`},
		{text: "result: ok\ndelay: -1s", want: `line 2: with.delay: invalid duration "-1s": must not be negative`},
		{text: "result: ok\ncount: many", want: `line 2: with.count: want an integer, got "many"`},
		{text: "result: ok\nresult: again", want: "line 2: with.result: given twice"},
		{text: "[1, 2]", want: "line 1: with: want a mapping of options (result, delay, count), got a list"},
	}
	for _, c := range cases {
		var cfg config
		err := toolkit.DecodeWith(node(t, c.text), &cfg)
		var ce *fileerr.Error
		if !errors.As(err, &ce) || err.Error() != c.want {
			t.Errorf("%q: %v, want the *fileerr.Error %q", c.text, err, c.want)
		}
		if c.wantIs != nil && !errors.Is(err, c.wantIs) {
			t.Errorf("%q: %v does not match %v", c.text, err, c.wantIs)
		}
	}
	var cfg config
	if err := toolkit.DecodeWith(node(t, "{result: ok, delay: 2s, count: 3}"), &cfg); err != nil || cfg.Result != "ok" || time.Duration(cfg.Delay) != 2*time.Second || cfg.Count != 3 {
		t.Errorf("a good with: %v, %+v", err, cfg)
	}
}

func TestDecodeOptionsAndNested(t *testing.T) {
	var cfg config
	o, err := toolkit.DecodeOptions(node(t, "result: ok\ncount: -1\n"), &cfg)
	if err != nil || !o.Has("count") || o.Has("delay") {
		t.Fatalf("DecodeOptions: %v, has count %v, has delay %v", err, o.Has("count"), o.Has("delay"))
	}
	if err := o.Errorf("count", "must not be negative"); err.Error() != "line 2: with.count: must not be negative" {
		t.Errorf("Errorf = %q", err)
	}
	err = toolkit.DecodeNested("items[0]", node(t, "{resul: ok}"), &cfg)
	var ce *fileerr.Error
	if !errors.As(err, &ce) || ce.Key != "with.items[0].resul" {
		t.Errorf("DecodeNested: %v, want the key with.items[0].resul", err)
	}
}

// TestFactoryDocIsTheExample: docs/scenario-format.md shows the factory of
// ExampleNewFactory, which runs, as it is.
func TestFactoryDocIsTheExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenario-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, code, _ := strings.Cut(string(src), "// doc:begin\n")
	code, _, ok := strings.Cut(code, "\n// doc:end")
	if !ok || !strings.Contains(string(doc), "```go\n"+code+"```") {
		t.Errorf("docs/scenario-format.md's factory example is not ExampleNewFactory's:\n%s", code)
	}
}

// TestNewFactoryDecodesItsConfiguration: a factory configured by a struct
// gets the `with:` decoded into it (its zero value without one), refuses a
// bad key at its line, and one configured by something not a struct, or
// without a build function, says so when used.
func TestNewFactoryDecodesItsConfiguration(t *testing.T) {
	type cfg struct {
		Limit int    `yaml:"limit"`
		Mode  string `yaml:"mode" fixture:"required"`
	}
	var got []cfg
	f := toolkit.NewFactory("t", "a test tool", func(name string, _ *toolkit.Env, c cfg) (tools.Tool, error) {
		got = append(got, c)
		return tools.New(tools.Spec{Name: name}, func(context.Context, struct{}) (*tools.Result, error) { return tools.Success("ok"), nil })
	})
	if !f.Configurable {
		t.Error("a factory configured by a struct with fields is not Configurable")
	}
	if _, err := f.New("t", nil, node(t, "{limit: 3, mode: fast}")); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (cfg{Limit: 3, Mode: "fast"}) {
		t.Errorf("build got %+v, want {3 fast}", got)
	}
	_, err := f.New("t", nil, node(t, "mode: fast\nlimt: 3"))
	var fe *fileerr.Error
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(err.Error(), "limt") || len(got) != 1 {
		t.Errorf("an unknown key: %v, want a *fileerr.Error on line 2 naming limt, and no build", err)
	}
	if _, err := f.New("t", nil, nil); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Errorf("no with: and a required mode: %v, want an error naming mode", err)
	}

	plain := toolkit.NewFactory("p", "takes nothing", func(name string, _ *toolkit.Env, _ struct{}) (tools.Tool, error) {
		return tools.New(tools.Spec{Name: name}, func(context.Context, struct{}) (*tools.Result, error) { return tools.Success("ok"), nil })
	})
	if plain.Configurable {
		t.Error("a factory configured by struct{} is Configurable")
	}

	notStruct := toolkit.NewFactory("n", "configured by a map", func(string, *toolkit.Env, map[string]int) (tools.Tool, error) { return nil, nil })
	if _, err := notStruct.New("n", nil, nil); err == nil || !strings.Contains(err.Error(), "not a struct") {
		t.Errorf("a map configuration: %v, want an error saying it is not a struct", err)
	}
	if nf := toolkit.NewFactory[struct{}]("x", "no build", nil); nf.New != nil {
		t.Error("a factory without a build function has a New (the harness reports a nil New)")
	}
}

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
