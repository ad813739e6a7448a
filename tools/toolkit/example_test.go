package toolkit_test

import (
	"context"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// greeter is a tool of one's own whose greeting a scenario configures with
// `with: {greeting: ...}`.
var greeter = toolkit.NewFactory("greet", "greets someone by name (pure)", true,
	func(name string, env *toolkit.Env, with *yaml.Node) (tools.Tool, error) {
		cfg := struct {
			Greeting string `yaml:"greeting"`
		}{Greeting: "hello"}
		if err := toolkit.DecodeWith(with, &cfg); err != nil {
			return nil, err
		}
		type args struct {
			Name string `json:"name"`
		}
		return tools.New(tools.Spec{Name: name, Description: "Greet someone.", Safety: tools.Safety{SideEffects: tools.SideEffectNone, Idempotent: true}},
			func(_ context.Context, in args) (*tools.Result, error) {
				return tools.Success(cfg.Greeting + ", " + in.Name), nil
			})
	})

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
