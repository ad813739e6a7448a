package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// A provider registers itself from an init function, as database/sql
// drivers do; a program links the providers it wants by importing them (or
// llm/builtin, for every built-in one) in its main package. This one opens
// models that answer in capitals, to show Open without a network.
func init() {
	llm.Register("shout", llm.ProviderFunc(func(_ context.Context, model string, opts *llm.OpenOptions) (llm.Model, error) {
		return llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
			last, _ := req.LastMessage()
			return &llm.Response{Message: llm.AssistantMessage(model + ": " + strings.ToUpper(last.Content))}, nil
		}), nil
	}))
}

// ExampleOpen opens a model by its "PROVIDER/MODEL" name and calls it once.
// A provider nobody registered is an error naming the name.
func ExampleOpen() {
	ctx := context.Background()
	m, err := llm.Open(ctx, "shout/loud-1", nil)
	if err != nil {
		panic(err)
	}
	resp, err := m.Generate(ctx, &llm.Request{Messages: []llm.Message{llm.UserMessage("hello")}})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.Message.Content)

	_, err = llm.Open(ctx, "whisper/quiet-1", nil)
	fmt.Println(errors.Is(err, llm.ErrUnknownProvider))
	// Output:
	// loud-1: HELLO
	// true
}
