package toolkit_test

import (
	"context"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// greeting is the greeter's configuration and greeter a tool of one's own
// whose greeting a scenario configures with `with: {greeting: ...}`; the
// code between doc:begin and doc:end is docs/scenario-format.md's example
// (TestFactoryDocIsTheExample).
// doc:begin
// setup.tools: [{name: greet, with: {greeting: good morning}}]
// with: {greting: hi} gives "line 1: with.greting: unknown key (valid keys: greeting)"
type greeting struct {
	Greeting string `yaml:"greeting"`
}

var greeter = toolkit.NewFactory("greet", "greets someone by name (pure)",
	func(name string, env *toolkit.Env, cfg greeting) (tools.Tool, error) {
		if cfg.Greeting == "" {
			cfg.Greeting = "hello"
		}
		type args struct {
			Name string `json:"name"`
		}
		return tools.New(tools.Spec{Name: name, Description: "Greet someone.", Safety: tools.Safety{SideEffects: tools.SideEffectNone, Idempotent: true}},
			func(_ context.Context, in args) (*tools.Result, error) {
				return tools.Success(cfg.Greeting + ", " + in.Name), nil
			})
	})

// doc:end

// ExampleNewFactory builds a tool the way the harness does for a scenario's
// setup.tools entry, runs it, and shows the error a bad `with:` gives.
func ExampleNewFactory() {
	var with yaml.Node
	if err := yaml.Unmarshal([]byte("greeting: good morning"), &with); err != nil {
		panic(err)
	}
	tool, err := greeter.New("greet", &toolkit.Env{Seed: 1}, &with)
	if err != nil {
		panic(err)
	}
	reg := tools.NewRegistry(nil)
	if err := reg.Register(tool); err != nil {
		panic(err)
	}
	ex := reg.Execute(context.Background(), llm.ToolCall{ID: "call_1", Name: "greet", Arguments: `{"name": "Ada"}`})
	fmt.Println(ex.Result.Content)

	var bad yaml.Node
	if err := yaml.Unmarshal([]byte("greting: hi"), &bad); err != nil {
		panic(err)
	}
	_, err = greeter.New("greet", nil, &bad)
	fmt.Println(err)
	// Output:
	// good morning, Ada
	// line 1: with.greting: unknown key (valid keys: greeting)
}
