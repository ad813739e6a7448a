package tools_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/tools"
)

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

// A typed tool gets its schema from its argument type; the registry repairs
// broken JSON and coerces common model mistakes before the function runs.
func Example() {
	add := tools.MustNew(tools.Spec{Name: "add", Description: "Adds two integers."},
		func(ctx context.Context, in addArgs) (*tools.Result, error) {
			return tools.Success(strconv.Itoa(in.A + in.B)), nil
		})
	reg := tools.NewRegistry(&tools.RegistryOptions{Repairer: repair.Cascade{}})
	reg.MustRegister(add)

	ex := reg.Execute(context.Background(), llm.ToolCall{ID: "1", Name: "add", Arguments: `{"a": "2", "b": 3,}`})
	fmt.Println(ex.Result.Content)
	fmt.Println(ex.Repairs)
	fmt.Println(ex.Coercions)

	ex = reg.Execute(context.Background(), llm.ToolCall{ID: "2", Name: "add", Arguments: `{"a": "two"}`})
	fmt.Println(ex.Result.Content)
	// Output:
	// 5
	// [trailing_comma]
	// [{/a string integer}]
	// error (validation): invalid arguments for add: (arguments): required: missing properties: ["b"]; /a: type: two has type "string", want "integer". Fix: correct these fields to match the schema of add and call it again
}
