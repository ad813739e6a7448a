package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/scenario"
)

// A bridged scenario runs through harness.Run like a native one: the
// runner its setup.agent.go names drives your agent, here one that speaks
// Chat Completions over plain HTTP, against the tape.
func ExampleRunner() {
	s, err := scenario.Parse([]byte(`format: tapeloop/v1
setup:
  agent: {go: greeter}
input:
  - {role: user, content: "Say hello."}
tape:
  - response: {content: "Hello from the tape."}
`), "greet.yaml", "greet")
	if err != nil {
		fmt.Println(err)
		return
	}
	greeter := func(ctx context.Context, r *bridge.Run) error {
		body := `{"model": "any", "messages": [{"role": "user", "content": ` + fmt.Sprintf("%q", r.Input[0].Content) + `}]}`
		resp, err := r.HTTPClient.Post(r.OpenAIBaseURL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		var answer struct {
			Choices []struct {
				Message struct{ Content string }
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
			return err
		}
		r.Final(answer.Choices[0].Message.Content)
		return nil
	}
	o, err := harness.Run(context.Background(), s, &harness.RunOptions{
		Agents: map[string]harness.Runner{"greeter": bridge.Runner(greeter, nil)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(o.Termination, o.Final)
	// Output: final_text Hello from the tape.
}
