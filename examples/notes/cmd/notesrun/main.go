// Command notesrun is evalrun with the notes agent registered, as a team
// would write its own: every evalrun command, flag and exit code, and the
// bridged scenarios naming setup.agent: {go: notes} run the agent. Its
// hints name it, so a failure says how to accept a change with it:
//
//	go run ./examples/notes/cmd/notesrun examples/notes/scenarios
//	go run ./examples/notes/cmd/notesrun rebase examples/notes/scenarios/add-item.yaml
package main

import (
	"context"
	"os"

	"github.com/openai/openai-go/v3/option"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/examples/notes"
	"github.com/tapeloop/tapeloop/harness"

	_ "github.com/tapeloop/tapeloop/llm/builtin" // providers for llm.Open by name, for record and eval
)

// run is the notes agent on a bridged run, as the package's tests run it:
// its openai-go client pointed at the bridge, its folder the workspace,
// the user's turns answered one after another in one conversation.
func run(ctx context.Context, r *bridge.Run) error {
	a := notes.New(r.Dir, option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient),
		option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
	a.Stream = true
	chat := a.Chat()
	text := r.Input[len(r.Input)-1].Content
	for {
		answer, err := chat.Say(ctx, text)
		if err != nil {
			return err
		}
		r.Final(answer)
		next, ok := r.NextUser(ctx)
		if !ok {
			return nil
		}
		text = next.Content
	}
}

func main() {
	ctx, stop := evalrun.NotifyContext(context.Background())
	defer stop()
	os.Exit(evalrun.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, &evalrun.Options{
		Agents:  map[string]harness.Runner{"notes": bridge.Runner(run, nil)},
		Command: "go run ./examples/notes/cmd/notesrun",
	}))
}
