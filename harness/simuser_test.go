package harness

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
)

// simScenario has a simulated user and a recorded tape: an earlier
// recording, whose user turn a live run does not speak.
const simScenario = `format: tapeloop/v1
setup:
  user: {model: test/user, instructions: Ask twice., max_turns: 5}
input:
  - {role: system, content: Be brief.}
  - {role: user, content: first}
tape:
  - response: {content: "You said: first."}
  - user: recorded turn
  - response: {content: "You said: recorded turn."}
`

// echoModel answers each user message with "You said: TEXT.", calling a
// tool when the message asks for one, so that a turn may hold tool calls
// the user does not see.
func echoModel() llm.Model {
	return llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleUser && strings.HasPrefix(last.Content, "tool") {
			return &llm.Response{Message: llm.AssistantMessage("checking", llm.ToolCall{ID: "c1", Name: "nope", Arguments: "{}"})}, nil
		}
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if m := req.Messages[i]; m.Role == llm.RoleUser {
				return &llm.Response{Message: llm.AssistantMessage(fmt.Sprintf("You said: %s.", m.Content))}, nil
			}
		}
		return nil, errors.New("no user message")
	})
}

func TestSimulatedUserDrivesALiveRun(t *testing.T) {
	s, err := scenario.Parse([]byte(simScenario), "sim.yaml", "sim")
	if err != nil {
		t.Fatal(err)
	}
	var seen [][]llm.Message
	script := []string{"tool please", "thanks"}
	user := func(_ context.Context, conversation []llm.Message) (llm.Message, bool, error) {
		seen = append(seen, conversation)
		if len(seen) > len(script) {
			return llm.Message{}, false, nil
		}
		return llm.Message{Role: llm.RoleUser, Content: script[len(seen)-1]}, true, nil
	}
	o, err := Run(context.Background(), s, &RunOptions{Model: echoModel(), User: user})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != agent.ReasonFinalText || o.Final != "You said: thanks." || len(o.Unused) != 0 {
		t.Fatalf("termination %s, final %q, unused %v", o.Termination, o.Final, o.Unused)
	}
	// The user sees the user messages and final answers only: no system
	// prompt, no tool call, no tool result, no text beside a tool call.
	u := func(c string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: c} }
	a := func(c string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: c} }
	want := [][]llm.Message{
		{u("first"), a("You said: first.")},
		{u("first"), a("You said: first."), u("tool please"), a("You said: tool please.")},
		{u("first"), a("You said: first."), u("tool please"), a("You said: tool please."), u("thanks"), a("You said: thanks.")},
	}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("the user saw\n%v\nwant\n%v", seen, want)
	}
	var spoken []string
	for _, turn := range o.Turns {
		if turn.User != nil {
			spoken = append(spoken, turn.User.Content)
		}
	}
	if !reflect.DeepEqual(spoken, script) {
		t.Errorf("user turns %q, want %q (the tape's recorded turn is not spoken)", spoken, script)
	}
}

func TestSimulatedUserFailureEndsTheRun(t *testing.T) {
	s, err := scenario.Parse([]byte(simScenario), "sim.yaml", "sim")
	if err != nil {
		t.Fatal(err)
	}
	user := func(context.Context, []llm.Message) (llm.Message, bool, error) {
		return llm.Message{}, false, errors.New("503 overloaded")
	}
	o, err := Run(context.Background(), s, &RunOptions{Model: echoModel(), User: user})
	if err != nil {
		t.Fatal(err)
	}
	if o.Termination != agent.ReasonModelError || o.Error != "user model test/user failed after turn 1: 503 overloaded" {
		t.Errorf("termination %s, error %q", o.Termination, o.Error)
	}
}

func TestSimulatedUserNeedsAUserModel(t *testing.T) {
	s, err := scenario.Parse([]byte(simScenario), "sim.yaml", "sim")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, &RunOptions{Model: echoModel()})
	if !errors.Is(err, ErrNoUser) || !errors.Is(err, scenario.ErrScenario) || !strings.HasPrefix(err.Error(), "sim.yaml:3: setup.user: ") {
		t.Errorf("Run without RunOptions.User: %v", err)
	}
	// A replay serves the recorded user turn and needs no user model.
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Final != "You said: recorded turn." || len(o.Unused) != 0 || o.Diverged {
		t.Errorf("replay: final %q, unused %v, diverged %v", o.Final, o.Unused, o.Diverged)
	}
}
